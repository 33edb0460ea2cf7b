import Foundation

/// A quantity on the wire: a JSON number written and read by its decimal digits (`5`, `0.125`,
/// `0.00012345`), never through a binary float. Whole quantities look as they always did (`5`).
public struct ExactNumber: Codable, Sendable, Hashable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    /// The number's decimal text, without exponent or trailing zeros: `"0.125"`.
    public var text: String

    public init(_ text: String) { self.text = text }
    public init(integerLiteral value: Int64) { text = String(value) }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        // Foundation reads a JSON number into a `Decimal` from its digits.
        let number = try container.decode(Decimal.self)
        guard number.isFinite else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a finite number")
        }
        text = number.description
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        guard let number = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
            throw EncodingError.invalidValue(text, .init(codingPath: encoder.codingPath, debugDescription: "not a decimal: \(text)"))
        }
        try container.encode(number)
    }

    public var description: String { text }
}
