/// An amount of an instrument as a fixed-point decimal with eight places: shares, contracts or coins.
///
/// The same exactness rules as ``Money``: integer units (10⁻⁸ of a share or a coin, a satoshi for
/// bitcoin), no floating point anywhere, and one rounding rule for amounts bought by value (down to
/// the lot, see ``Lot``). An integer literal is whole units: `let q: Quantity = 5` is five shares.
/// The largest quantity is about 92 billion.
public struct Quantity: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByIntegerLiteral, AdditiveArithmetic {
    /// Hundred-millionths: 1.5 shares is `150_000_000`.
    public var units: Int64

    public static let scale = 8
    public static let unitsPerWhole: Int64 = 100_000_000
    public static let zero = Quantity(units: 0)
    /// The largest quantity (about 92 billion).
    public static let max = Quantity(units: Int64.max)

    public init(units: Int64) { self.units = units }

    /// `whole` shares, contracts or coins. Traps beyond ±92 billion, as an integer overflow does.
    public init(whole: Int64) { self.units = whole * Quantity.unitsPerWhole }

    public init(integerLiteral value: Int64) { self.init(whole: value) }

    /// Parses `"5"`, `"0.125"`, `"-2.5"`: at most eight places. Nil for anything else.
    public init?(parsing text: String) {
        guard let units = FixedPoint.parse(text, scale: Quantity.scale) else { return nil }
        self.units = units
    }

    /// True when it is a whole number of shares (or contracts, or coins).
    public var isWhole: Bool { units % Quantity.unitsPerWhole == 0 }

    /// The whole part, truncated towards zero: 2.75 is 2, -2.75 is -2.
    public var wholePart: Int64 { units / Quantity.unitsPerWhole }

    /// `"5"`, `"0.125"`, `"-2.5"`: trailing zeros and a bare point trimmed, never an exponent.
    public var decimalString: String {
        var text = FixedPoint.format(units, scale: Quantity.scale)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    public var description: String { decimalString }

    public var magnitude: Quantity { Quantity(units: units < 0 ? -units : units) }
    public var isZero: Bool { units == 0 }

    /// The largest multiple of `lot` not above this quantity (a non-negative one): the one rounding rule.
    public func roundedDown(to lot: Lot) -> Quantity {
        Quantity(units: units - units % lot.units)
    }

    /// True when this quantity is a whole number of `lot`s.
    public func isMultiple(of lot: Lot) -> Bool { units % lot.units == 0 }

    /// `self × numerator ÷ denominator`, rounded down to `lot` (for a split, a percentage, a share of a position).
    public func scaled(by numerator: Int64, over denominator: Int64, lot: Lot) -> Quantity {
        precondition(denominator > 0)
        let exact = FixedPoint.multiplyDivide(units, numerator, denominator, rounding: .down)
        return Quantity(units: exact - exact % lot.units)
    }

    public static func < (lhs: Quantity, rhs: Quantity) -> Bool { lhs.units < rhs.units }
    public static func + (lhs: Quantity, rhs: Quantity) -> Quantity { Quantity(units: lhs.units + rhs.units) }
    public static func - (lhs: Quantity, rhs: Quantity) -> Quantity { Quantity(units: lhs.units - rhs.units) }
    public static prefix func - (value: Quantity) -> Quantity { Quantity(units: -value.units) }
    public static func += (lhs: inout Quantity, rhs: Quantity) { lhs.units += rhs.units }
    public static func -= (lhs: inout Quantity, rhs: Quantity) { lhs.units -= rhs.units }
    /// Whole multiples: 3 contracts × 100 shares each.
    public static func * (lhs: Quantity, rhs: Int64) -> Quantity { Quantity(units: lhs.units * rhs) }
}

/// The smallest amount an instrument trades in: whole shares (stocks by default and option contracts),
/// a millionth of a share (fractional shares, a portfolio or league rule) or 10⁻⁸ of a coin (crypto).
public struct Lot: Hashable, Sendable, CustomStringConvertible {
    public var units: Int64

    public init(units: Int64) {
        precondition(units > 0 && Quantity.unitsPerWhole % units == 0, "a lot divides one whole unit")
        self.units = units
    }

    public static let whole = Lot(units: Quantity.unitsPerWhole)
    public static let fractionalShare = Lot(units: 100)
    public static let crypto = Lot(units: 1)

    /// The lot as a quantity: `1`, `0.000001`, `0.00000001`.
    public var quantity: Quantity { Quantity(units: units) }
    /// The lot of shares `quantity` already keeps: whole shares stay whole (a split pays their
    /// fraction in cash), a fractional holding keeps its fraction to the millionth.
    public static func shares(keeping quantity: Quantity) -> Lot { quantity.isWhole ? .whole : .fractionalShare }

    /// Decimal places the lot allows: 0, 6 or 8.
    public var places: Int {
        var places = Quantity.scale
        var rest = units
        while rest >= 10 { rest /= 10; places -= 1 }
        return places
    }

    public var description: String { quantity.decimalString }
}

/// In stored JSON (a replay's starting holdings): a whole quantity is a JSON integer, as it was
/// before quantities had fractions; any other is its decimal string. Both are read back.
extension Quantity: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let whole = try? container.decode(Int64.self) {
            guard let value = FixedPoint.checked(whole, times: Quantity.unitsPerWhole, plus: 0) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "quantity too large: \(whole)")
            }
            self.init(units: value)
        } else {
            let text = try container.decode(String.self)
            guard let quantity = Quantity(parsing: text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a quantity: \(text)")
            }
            self = quantity
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if isWhole { try container.encode(wholePart) } else { try container.encode(decimalString) }
    }
}
