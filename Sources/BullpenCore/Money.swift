import Foundation

/// An amount of money in integer minor units (cents). Never a floating-point number.
///
/// ```swift
/// let cash = Money(dollars: 100_000)        // $100,000.00
/// let parsed = Money(parsing: "1234.50")     // 123450 cents
/// parsed?.decimalString                      // "1234.50"
/// ```
public struct Money: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The amount in cents.
    public var cents: Int64

    public init(cents: Int64) { self.cents = cents }

    /// A whole number of dollars.
    public init(dollars: Int64) { self.cents = dollars * 100 }

    public static let zero = Money(cents: 0)

    /// Parses a plain decimal string with at most two decimal places: `"12"`, `"12.5"`, `"-0.07"`.
    /// Anything else (exponents, separators, more places, overflow) gives `nil`.
    public init?(parsing text: String) {
        guard let units = FixedPoint.parse(text, scale: 2) else { return nil }
        self.cents = units
    }

    /// `"1234.50"`, `"-0.07"`: the wire format of every amount.
    public var decimalString: String { FixedPoint.format(cents, scale: 2) }

    public var description: String { decimalString }

    /// For sentences: `$1,234.50`, `-$7,000.00`.
    public var dollars: String { FixedPoint.dollars(decimalString) }

    public var isNegative: Bool { cents < 0 }

    public static func < (lhs: Money, rhs: Money) -> Bool { lhs.cents < rhs.cents }
    public static func + (lhs: Money, rhs: Money) -> Money { Money(cents: lhs.cents + rhs.cents) }
    public static func - (lhs: Money, rhs: Money) -> Money { Money(cents: lhs.cents - rhs.cents) }
    public static prefix func - (value: Money) -> Money { Money(cents: -value.cents) }
    public static func += (lhs: inout Money, rhs: Money) { lhs.cents += rhs.cents }
    public static func -= (lhs: inout Money, rhs: Money) { lhs.cents -= rhs.cents }

    /// This amount as a percentage of `base`, to two places, rounded half away from zero: `"12.34"`.
    /// `nil` when `base` is zero.
    public func percent(of base: Money) -> Percent? {
        guard base.cents != 0 else { return nil }
        return Percent(hundredths: FixedPoint.divideRounded(cents * 10_000, by: base.cents))
    }
}

/// A percentage with two decimal places (`hundredths` of a percent), e.g. 12.34 % is `1234`.
public struct Percent: Hashable, Sendable, Comparable {
    public var hundredths: Int64
    public init(hundredths: Int64) { self.hundredths = hundredths }
    /// `"2.5"` → 2.50%; nil for anything but a decimal with at most two places.
    public init?(parsing text: String) {
        guard let hundredths = FixedPoint.parse(text, scale: 2) else { return nil }
        self.hundredths = hundredths
    }
    /// `"12.34"`, `"-0.50"`.
    public var decimalString: String { FixedPoint.format(hundredths, scale: 2) }
    public static func < (lhs: Percent, rhs: Percent) -> Bool { lhs.hundredths < rhs.hundredths }
}

/// Integer fixed-point helpers shared by ``Money``, ``Price``, ``Percent`` and the data parsers.
public enum FixedPoint {
    /// A decimal amount as a sentence shows it: `-1234.5` → `-$1,234.5`.
    public static func dollars(_ decimal: String) -> String {
        let negative = decimal.hasPrefix("-")
        let digits = negative ? decimal.dropFirst() : Substring(decimal)
        var whole = Array(digits.prefix { $0 != "." })
        var index = whole.count - 3
        while index > 0 { whole.insert(",", at: index); index -= 3 }
        return (negative ? "-$" : "$") + String(whole) + digits.drop { $0 != "." }
    }

    /// Parses `[-]digits[.digits]` with at most `scale` fractional digits into integer units.
    /// Nil for anything else, including amounts whose units do not fit in `Int64`.
    public static func parse(_ text: String, scale: Int) -> Int64? {
        var body = Substring(text)
        var negative = false
        if body.first == "-" { negative = true; body = body.dropFirst() }
        let parts = body.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, whole.allSatisfy(\.isASCIIDigit) else { return nil }
        let fraction = parts.count == 2 ? parts[1] : ""
        if parts.count == 2 && fraction.isEmpty { return nil }
        guard fraction.count <= scale, fraction.allSatisfy(\.isASCIIDigit) else { return nil }
        // Fifteen whole digits keep every product in this app (an amount times a quantity) within Int64.
        guard whole.count <= 15 else { return nil }
        // Accumulate digit by digit with overflow checks: no length rule can be wrong.
        var units: Int64 = 0
        for digit in whole.utf8 {
            guard let next = checked(units, times: 10, plus: Int64(digit - 48)) else { return nil }
            units = next
        }
        var places = 0
        for digit in fraction.utf8 {
            guard let next = checked(units, times: 10, plus: Int64(digit - 48)) else { return nil }
            units = next
            places += 1
        }
        while places < scale {
            guard let next = checked(units, times: 10, plus: 0) else { return nil }
            units = next
            places += 1
        }
        return negative ? -units : units
    }

    /// `value × factor + addend`, or nil when it leaves `Int64`.
    public static func checked(_ value: Int64, times factor: Int64, plus addend: Int64) -> Int64? {
        let (product, overflow) = value.multipliedReportingOverflow(by: factor)
        guard !overflow else { return nil }
        let (sum, overflowSum) = product.addingReportingOverflow(addend)
        return overflowSum ? nil : sum
    }

    public static func format(_ units: Int64, scale: Int) -> String {
        let factor = pow10(scale)
        let magnitude = units.magnitude
        let whole = magnitude / UInt64(factor)
        let fraction = magnitude % UInt64(factor)
        var fractionText = String(fraction)
        fractionText = String(repeating: "0", count: scale - fractionText.count) + fractionText
        return (units < 0 ? "-" : "") + String(whole) + (scale > 0 ? "." + fractionText : "")
    }

    static func pow10(_ n: Int) -> Int64 {
        var result: Int64 = 1
        for _ in 0..<n { result *= 10 }
        return result
    }

    /// `numerator / denominator` rounded half away from zero.
    /// `numerator / denominator` rounded up (towards positive infinity), for positive denominators.
    public static func divideRoundedUp(_ numerator: Int64, by denominator: Int64) -> Int64 {
        precondition(denominator > 0)
        let quotient = numerator / denominator
        return numerator % denominator > 0 ? quotient + 1 : quotient
    }

    /// How ``multiplyDivide(_:_:_:rounding:)`` rounds.
    public enum Rounding: Sendable { case halfAwayFromZero, down }

    /// `a × b ÷ c` with a 128-bit intermediate, so that a quantity in 10⁻⁸ units times a price in
    /// ticks cannot overflow before the division. `down` rounds towards negative infinity. Traps
    /// when the result leaves `Int64` (no amount in this app comes near; see
    /// ``multiplyDivideSaturating(_:_:_:)`` for counts that may).
    public static func multiplyDivide(_ a: Int64, _ b: Int64, _ c: Int64, rounding: Rounding = .halfAwayFromZero) -> Int64 {
        precondition(c != 0)
        let numerator = Int128(a) * Int128(b)
        let denominator = Int128(c)
        var quotient = numerator / denominator
        let remainder = numerator % denominator
        if remainder != 0 {
            let negative = (numerator < 0) != (denominator < 0)
            switch rounding {
            case .halfAwayFromZero:
                if remainder.magnitude * 2 >= denominator.magnitude { quotient += negative ? -1 : 1 }
            case .down:
                if negative { quotient -= 1 }
            }
        }
        return Int64(quotient)
    }

    /// `a × b ÷ c` for non-negative operands, rounded down, and the largest `Int64` when it is
    /// beyond (what a fortune buys at a hundredth of a cent, a meme coin's daily volume in 10⁻⁸ units).
    public static func multiplyDivideSaturating(_ a: Int64, _ b: Int64, _ c: Int64) -> Int64 {
        precondition(a >= 0 && b >= 0 && c > 0)
        return Int64(min(Int128(a) * Int128(b) / Int128(c), Int128(Int64.max)))
    }

    public static func divideRounded(_ numerator: Int64, by denominator: Int64) -> Int64 {
        precondition(denominator != 0)
        let quotient = numerator / denominator
        let remainder = numerator % denominator
        if remainder.magnitude * 2 >= denominator.magnitude {
            return quotient + ((numerator < 0) != (denominator < 0) ? -1 : 1)
        }
        return quotient
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
