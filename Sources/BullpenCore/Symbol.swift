/// A ticker symbol, normalised to upper case: `AAPL`, `BRK-B`, `BF.B`.
public struct Symbol: Hashable, Comparable, Sendable, StringCodable {
    public let rawValue: String

    /// Accepts 1-12 characters of letters, digits, `.` and `-`, starting with a letter or digit;
    /// lower case is folded to upper case.
    public init?(_ text: String) {
        let upper = text.uppercased()
        guard (1...12).contains(upper.count),
              let first = upper.unicodeScalars.first, Symbol.isAlphanumeric(first),
              upper.unicodeScalars.allSatisfy({ Symbol.isAlphanumeric($0) || $0 == "." || $0 == "-" })
        else { return nil }
        self.rawValue = upper
    }

    public var description: String { rawValue }

    private static func isAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
    }

    public static func < (lhs: Symbol, rhs: Symbol) -> Bool { lhs.rawValue < rhs.rawValue }

}
