import Foundation

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
    /// The largest share of the portfolio's equity one position may reach by a buy, in hundredths
    /// of a percent (2500 is 25 %); `nil` for no limit.
    public var maxPositionBasisPoints: Int64?
    /// Stocks priced below this cannot be bought (penny stocks); `nil` for no limit.
    public var minimumPrice: Money?
    /// Live portfolios trade only while the exchange is open.
    public var marketHoursOnly: Bool
    /// Orders are refused before this moment (a league that has not started) ...
    public var tradingOpens: Date?
    /// ... and from this moment on (a league that is over).
    public var tradingCloses: Date?
    /// Option contracts may be sold to open (written): calls covered by 100 shares each of the
    /// underlying, puts secured by the cash to buy 100 shares each at the strike. Off by default.
    public var optionWriting: Bool
    /// A working order fills at most this share of a bar's volume, in hundredths of a percent
    /// (100 is 1 %); the rest stays working. `nil` for no cap. Bars only: live quotes carry no
    /// volume of their own moment.
    public var volumeCapBasisPoints: Int64?
    /// Market orders fill this much worse than the quote, in hundredths of a percent (buys
    /// higher, sells lower). Zero by default.
    public var slippageBasisPoints: Int64
    /// Short selling on margin (see ``MarginRule``); nil (the default): no short sales.
    public var margin: MarginRule?
    /// Stocks may be bought and sold in fractions of a share, down to a millionth (``Lot/fractionalShare``).
    /// Off by default: whole shares. Option contracts are always whole.
    public var fractionalShares: Bool
    /// Cryptocurrencies may be traded (to 10⁻⁸ of a coin, around the clock). On by default; a league may forbid them.
    public var allowCrypto: Bool

    public init(maxDistinctHoldings: Int? = nil, commission: Commission = .free,
                allowedInstruments: Set<InstrumentKind> = [.stock, .option],
                maxOrderQuantity: Int64 = 1_000_000, maxPositionBasisPoints: Int64? = nil,
                minimumPrice: Money? = nil, marketHoursOnly: Bool = false,
                tradingOpens: Date? = nil, tradingCloses: Date? = nil, optionWriting: Bool = false,
                volumeCapBasisPoints: Int64? = nil, slippageBasisPoints: Int64 = 0, margin: MarginRule? = nil,
                fractionalShares: Bool = false, allowCrypto: Bool = true) {
        self.maxDistinctHoldings = maxDistinctHoldings
        self.commission = commission
        self.allowedInstruments = allowedInstruments
        self.maxOrderQuantity = maxOrderQuantity
        self.maxPositionBasisPoints = maxPositionBasisPoints
        self.minimumPrice = minimumPrice
        self.marketHoursOnly = marketHoursOnly
        self.tradingOpens = tradingOpens
        self.tradingCloses = tradingCloses
        self.optionWriting = optionWriting
        self.volumeCapBasisPoints = volumeCapBasisPoints
        self.slippageBasisPoints = slippageBasisPoints
        self.margin = margin
        self.fractionalShares = fractionalShares
        self.allowCrypto = allowCrypto
    }

    /// ``maxOrderQuantity`` (whole shares or contracts) as a quantity.
    public var maxQuantity: Quantity { Quantity(whole: maxOrderQuantity) }

    /// The largest quantity of one order: ``maxQuantity``, or a thousand times it for a coin (coins
    /// can cost a fraction of a cent: a million of one may be a few thousand dollars).
    public func maxQuantity(for assetClass: AssetClass) -> Quantity {
        assetClass == .crypto ? Quantity(units: FixedPoint.multiplyDivideSaturating(maxQuantity.units, 1_000, 1)) : maxQuantity
    }

    /// The smallest amount of `symbol` an order may trade under these rules: 10⁻⁸ of a coin, a
    /// millionth of a share under ``fractionalShares``, else one share (or contract).
    public func lot(for symbol: Symbol, assetClass: AssetClass = .usEquity) -> Lot {
        if assetClass == .crypto { return .crypto }
        return fractionalShares && !symbol.isOption ? .fractionalShare : .whole
    }

    public static let `default` = PortfolioRules()

    private enum CodingKeys: String, CodingKey {
        case maxDistinctHoldings, commission, allowedInstruments, maxOrderQuantity, maxPositionBasisPoints,
             minimumPrice, marketHoursOnly, tradingOpens, tradingCloses, optionWriting, volumeCapBasisPoints,
             slippageBasisPoints, margin, fractionalShares, allowCrypto
    }

    // Rules stored before a field existed read as that field's default.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(maxDistinctHoldings: try c.decodeIfPresent(Int.self, forKey: .maxDistinctHoldings),
                  commission: try c.decodeIfPresent(Commission.self, forKey: .commission) ?? .free,
                  allowedInstruments: try c.decodeIfPresent(Set<InstrumentKind>.self, forKey: .allowedInstruments) ?? [.stock, .option],
                  maxOrderQuantity: try c.decodeIfPresent(Int64.self, forKey: .maxOrderQuantity) ?? 1_000_000,
                  maxPositionBasisPoints: try c.decodeIfPresent(Int64.self, forKey: .maxPositionBasisPoints),
                  minimumPrice: try c.decodeIfPresent(Money.self, forKey: .minimumPrice),
                  marketHoursOnly: try c.decodeIfPresent(Bool.self, forKey: .marketHoursOnly) ?? false,
                  tradingOpens: try c.decodeIfPresent(Date.self, forKey: .tradingOpens),
                  tradingCloses: try c.decodeIfPresent(Date.self, forKey: .tradingCloses),
                  optionWriting: try c.decodeIfPresent(Bool.self, forKey: .optionWriting) ?? false,
                  volumeCapBasisPoints: try c.decodeIfPresent(Int64.self, forKey: .volumeCapBasisPoints),
                  slippageBasisPoints: try c.decodeIfPresent(Int64.self, forKey: .slippageBasisPoints) ?? 0,
                  margin: try c.decodeIfPresent(MarginRule.self, forKey: .margin),
                  fractionalShares: try c.decodeIfPresent(Bool.self, forKey: .fractionalShares) ?? false,
                  allowCrypto: try c.decodeIfPresent(Bool.self, forKey: .allowCrypto) ?? true)
    }
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

/// What an order is checked against besides the book and its price: the moment, whether the
/// exchange is open, and the prices the portfolio's other holdings are valued at (for the
/// position-size rule; a holding without a price counts at its cost).
public struct OrderContext: Sendable, Hashable {
    /// Whether the symbol trades on the portfolio's date (a symbol whose data ended can only be sold).
    public var trading: Bool
    public var now: Date?
    /// Nil when it does not matter (a replay, or a rule that does not ask).
    public var marketOpen: Bool?
    public var marks: [Symbol: Price]
    /// For an option contract: whether the chain lists it at the portfolio's date (only a listed
    /// contract can be opened, bought or written; a held one can always be closed).
    public var listed: Bool

    public init(trading: Bool = true, now: Date? = nil, marketOpen: Bool? = nil, marks: [Symbol: Price] = [:],
                listed: Bool = true) {
        self.listed = listed
        self.trading = trading
        self.now = now
        self.marketOpen = marketOpen
        self.marks = marks
    }
}
