import Foundation

/// A price per share as a fixed-point decimal with four places (1/10,000 of a dollar), the
/// precision of the real data (1990s prices of some tickers are below $1 after adjustment).
public struct Price: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Ten-thousandths of a dollar: `$187.4321` is `1_874_321`.
    public var ticks: Int64

    public static let scale = 4
    public static let ticksPerCent: Int64 = 100

    public init(ticks: Int64) { self.ticks = ticks }

    /// Parses `"187.4321"`, `"12"`, `"0.5"`: at most four places, non-negative.
    public init?(parsing text: String) {
        guard let ticks = FixedPoint.parse(text, scale: Price.scale), ticks >= 0 else { return nil }
        self.ticks = ticks
    }

    public init(cents: Int64) { self.ticks = cents * Price.ticksPerCent }

    /// `"187.4321"`; trailing zeros beyond the cents are trimmed (`"12.50"`, not `"12.5000"`).
    /// For sentences: `$1,234.50`.
    public var dollars: String { FixedPoint.dollars(decimalString) }

    public var decimalString: String {
        var text = FixedPoint.format(ticks, scale: Price.scale)
        while text.hasSuffix("0"), let dot = text.firstIndex(of: "."), text.distance(from: dot, to: text.endIndex) > 3 {
            text.removeLast()
        }
        return text
    }

    public var description: String { decimalString }

    /// The value of `quantity` shares at this price, rounded to the cent, half away from zero.
    ///
    /// Rounding happens once per fill, never per share: 3 shares at $0.3333 cost $1.00
    /// (0.9999 rounded), not 3 × $0.33.
    public func notional(quantity: Quantity) -> Money {
        Money(cents: FixedPoint.multiplyDivide(ticks, quantity.units, Price.ticksPerCent * Quantity.unitsPerWhole))
    }

    /// The most of a `lot` that `budget` buys at this price, rounded down to the lot: what a buy
    /// "by amount" gets. Its exact value is at most the budget, a whole number of cents, so its
    /// notional (rounded to the cent) is too. Capped at the largest quantity.
    public func quantity(affordableWith budget: Money, lot: Lot) -> Quantity {
        guard ticks > 0, budget.cents > 0 else { return .zero }
        return Quantity(units: FixedPoint.multiplyDivideSaturating(budget.cents, Price.ticksPerCent * Quantity.unitsPerWhole, ticks))
            .roundedDown(to: lot)
    }

    /// The per-share price of `total` spread over `quantity` shares, rounded half away from zero to four places.
    public static func average(of total: Money, over quantity: Quantity) -> Price {
        guard quantity.units != 0 else { return Price(ticks: 0) }
        return Price(ticks: FixedPoint.multiplyDivide(total.cents, Price.ticksPerCent * Quantity.unitsPerWhole, quantity.units))
    }

    /// The average of two prices weighted by their (positive) quantities, rounded half up to the
    /// tick: a working order's fill price after another of its fills.
    public static func average(_ first: Price, weight firstQuantity: Quantity, _ second: Price, weight secondQuantity: Quantity) -> Price {
        let total = Int128(first.ticks) * Int128(firstQuantity.units) + Int128(second.ticks) * Int128(secondQuantity.units)
        let weight = Int128(firstQuantity.units) + Int128(secondQuantity.units)
        precondition(weight > 0)
        return Price(ticks: Int64((2 * total + weight) / (2 * weight)))
    }

    /// This price on the exchange's tick grid: whole cents at $1 or more, four places below
    /// (US stocks under a dollar trade in hundredths of a cent). Rounds half away from zero.
    public func roundedToTradingTick() -> Price {
        guard ticks >= 10_000 else { return self }
        return Price(ticks: FixedPoint.divideRounded(ticks, by: Price.ticksPerCent) * Price.ticksPerCent)
    }

    public static func < (lhs: Price, rhs: Price) -> Bool { lhs.ticks < rhs.ticks }
}
