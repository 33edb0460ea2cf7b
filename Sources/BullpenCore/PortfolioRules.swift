/// The rules a portfolio trades under, checked on every order. Defaults are permissive; leagues
/// and replay games tighten them.
public struct PortfolioRules: Sendable, Hashable, Codable {
    /// At most this many different symbols held at once; `nil` for no limit.
    public var maxDistinctHoldings: Int?
    /// What every order pays.
    public var commission: Commission
    /// Instruments that may be traded.
    public var allowedInstruments: Set<InstrumentKind>
    /// The largest quantity accepted on one order.
    public var maxOrderQuantity: Int64

    public init(maxDistinctHoldings: Int? = nil, commission: Commission = .free,
                allowedInstruments: Set<InstrumentKind> = [.stock, .option],
                maxOrderQuantity: Int64 = 1_000_000) {
        self.maxDistinctHoldings = maxDistinctHoldings
        self.commission = commission
        self.allowedInstruments = allowedInstruments
        self.maxOrderQuantity = maxOrderQuantity
    }

    public static let `default` = PortfolioRules()
}

/// A commission schedule: a flat fee per order plus a rate on the notional, in basis points.
public struct Commission: Sendable, Hashable, Codable {
    public var perOrder: Money
    /// Hundredths of a percent of the notional: 10 is 0.10 %.
    public var basisPoints: Int64

    public init(perOrder: Money = .zero, basisPoints: Int64 = 0) {
        self.perOrder = perOrder
        self.basisPoints = basisPoints
    }

    public static let free = Commission()

    /// The commission on a fill of `notional`, rounded half away from zero to the cent.
    public func amount(on notional: Money) -> Money {
        perOrder + Money(cents: FixedPoint.divideRounded(notional.cents * basisPoints, by: 10_000))
    }
}
