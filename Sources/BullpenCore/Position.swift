/// A holding of one symbol: how many shares and what they cost in total.
///
/// A written option contract (sold to open) is a negative quantity whose basis is negative too:
/// the premium received, less commission. Its value is negative (what buying it back would cost),
/// so that value less basis is still the profit.
///
/// The cost basis is kept as a total in cents, not as an average price, so that no cent is lost
/// to rounding: selling part of a position removes a proportional share of the basis (rounded to
/// the cent), and selling the rest removes exactly what is left.
public struct Position: Sendable, Hashable {
    public var symbol: Symbol
    public var quantity: Quantity
    /// What the shares held cost, commissions on buys included.
    public var costBasis: Money

    public init(symbol: Symbol, quantity: Quantity = .zero, costBasis: Money = .zero) {
        self.symbol = symbol
        self.quantity = quantity
        self.costBasis = costBasis
    }

    /// Cost basis per share, to four places.
    public var averageCost: Price { Price.average(of: costBasis, over: quantity) }

    /// Adds bought shares and their cost.
    public mutating func add(quantity: Quantity, cost: Money) {
        self.quantity += quantity
        self.costBasis += cost
    }

    /// Removes sold shares; returns the cost basis they carried.
    public mutating func remove(quantity sold: Quantity) -> Money {
        precondition(sold > .zero && sold <= quantity, "cannot remove \(sold) of \(quantity) shares")
        let removed: Money
        if sold == quantity {
            removed = costBasis
        } else {
            removed = Money(cents: FixedPoint.multiplyDivide(costBasis.cents, sold.units, quantity.units))
        }
        quantity -= sold
        costBasis -= removed
        return removed
    }

    /// Buys back `bought` units of a written (negative) position; returns the basis they carried
    /// (negative: the premium received for them).
    public mutating func cover(quantity bought: Quantity) -> Money {
        precondition(bought > .zero && bought <= -quantity, "cannot cover \(bought) of \(quantity)")
        let removed: Money
        if bought == -quantity {
            removed = costBasis
        } else {
            removed = Money(cents: FixedPoint.multiplyDivide(costBasis.cents, bought.units, -quantity.units))
        }
        quantity += bought
        costBasis -= removed
        return removed
    }

    /// The value of the shares at `price`.
    public func marketValue(at price: Price) -> Money { price.notional(quantity: quantity) }

    /// Gain or loss against the cost basis if the shares were sold at `price`.
    public func unrealizedPnL(at price: Price) -> Money { marketValue(at: price) - costBasis }
}
