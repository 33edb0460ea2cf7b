import Foundation

/// An option contract's terms. Prices of options on the wire are per share, as brokers quote
/// them; one contract is `multiplier` (100) shares.
public struct OptionContractDTO: Codable, Sendable, Hashable {
    /// The OCC symbol, root padded to six characters: `AAPL  260320C00250000`.
    public var symbol: String
    /// The symbol positions and orders use (the OCC symbol without padding, the underlying as listed).
    public var positionSymbol: String
    public var underlying: String
    /// `call` or `put`.
    public var type: String
    public var expiration: String
    public var strike: String
    public var multiplier: Int64
    /// "AAPL 20 Mar 2026 $250 call".
    public var title: String

    public init(symbol: String, positionSymbol: String, underlying: String, type: String, expiration: String,
                strike: String, multiplier: Int64, title: String) {
        self.symbol = symbol; self.positionSymbol = positionSymbol; self.underlying = underlying; self.type = type
        self.expiration = expiration; self.strike = strike; self.multiplier = multiplier; self.title = title
    }
}

/// What the model says about one contract at the clock.
public struct OptionQuoteDTO: Codable, Sendable, Hashable {
    public var contract: OptionContractDTO
    public var bid: String
    public var ask: String
    /// The model's value (never below intrinsic value): what a holding is valued at.
    public var mid: String
    /// The change of `mid` since the previous session's close.
    public var change: String?
    public var intrinsic: String
    /// The volatility the model used (0.25 is 25 % a year).
    public var impliedVolatility: String
    /// Per $1 of the underlying.
    public var delta: String
    public var gamma: String
    /// Per calendar day.
    public var theta: String
    /// Per point (1 %) of volatility.
    public var vega: String
    /// Per point (1 %) of the rate.
    public var rho: String
    public var daysToExpiration: Int
    /// The underlying's price at expiry at which buying at the ask breaks even.
    public var breakEven: String
    public var inTheMoney: Bool

    public init(contract: OptionContractDTO, bid: String, ask: String, mid: String, change: String?, intrinsic: String,
                impliedVolatility: String, delta: String, gamma: String, theta: String, vega: String, rho: String,
                daysToExpiration: Int, breakEven: String, inTheMoney: Bool) {
        self.contract = contract; self.bid = bid; self.ask = ask; self.mid = mid; self.change = change
        self.intrinsic = intrinsic; self.impliedVolatility = impliedVolatility; self.delta = delta; self.gamma = gamma
        self.theta = theta; self.vega = vega; self.rho = rho; self.daysToExpiration = daysToExpiration
        self.breakEven = breakEven; self.inTheMoney = inTheMoney
    }
}

/// How the chain was priced, for the sentence every options screen shows.
public struct OptionModelDTO: Codable, Sendable, Hashable {
    /// `black-scholes-merton`.
    public var name: String
    /// The session whose prices were used.
    public var asOf: String
    public var spot: String
    public var volatility: String
    public var rate: String
    public var description: String

    public init(name: String, asOf: String, spot: String, volatility: String, rate: String, description: String) {
        self.name = name; self.asOf = asOf; self.spot = spot; self.volatility = volatility; self.rate = rate
        self.description = description
    }
}

/// One strike of a chain: its call and its put.
public struct OptionStrikeDTO: Codable, Sendable, Hashable {
    public var strike: String
    /// One of the two strikes either side of the spot.
    public var nearTheMoney: Bool
    public var call: OptionQuoteDTO
    public var put: OptionQuoteDTO

    public init(strike: String, nearTheMoney: Bool, call: OptionQuoteDTO, put: OptionQuoteDTO) {
        self.strike = strike; self.nearTheMoney = nearTheMoney; self.call = call; self.put = put
    }
}

/// `GET /api/v1/options/{symbol}/chain`.
public struct OptionChainDTO: Codable, Sendable, Hashable {
    public var underlying: String
    public var model: OptionModelDTO
    /// Every expiration listed at the clock, nearest first.
    public var expirations: [String]
    /// The expiration shown.
    public var expiration: String
    public var strikes: [OptionStrikeDTO]

    public init(underlying: String, model: OptionModelDTO, expirations: [String], expiration: String, strikes: [OptionStrikeDTO]) {
        self.underlying = underlying; self.model = model; self.expirations = expirations; self.expiration = expiration
        self.strikes = strikes
    }
}

/// One session of a contract's modelled history.
public struct OptionHistoryPointDTO: Codable, Sendable, Hashable {
    public var date: String
    /// The model's value per share at that close.
    public var value: String
    public var underlying: String

    public init(date: String, value: String, underlying: String) { self.date = date; self.value = value; self.underlying = underlying }
}

/// `GET /api/v1/options/contracts/{occSymbol}`.
public struct OptionContractDetailDTO: Codable, Sendable, Hashable {
    public var contract: OptionContractDTO
    /// Whether the contract is listed at the clock (its expiration and strike are ones the chain
    /// offers): only listed contracts can be bought.
    public var listed: Bool
    public var expired: Bool
    /// The quote at the clock; absent once expired.
    public var quote: OptionQuoteDTO?
    public var model: OptionModelDTO?
    /// The contract's value at expiry for a range of the underlying's prices (for the payoff chart).
    public var payoff: [OptionPayoffPointDTO]
    public var history: [OptionHistoryPointDTO]

    public init(contract: OptionContractDTO, listed: Bool, expired: Bool, quote: OptionQuoteDTO?, model: OptionModelDTO?,
                payoff: [OptionPayoffPointDTO], history: [OptionHistoryPointDTO]) {
        self.contract = contract; self.listed = listed; self.expired = expired; self.quote = quote; self.model = model
        self.payoff = payoff; self.history = history
    }
}

/// A point of a payoff diagram: bought at the ask, the profit or loss of one contract at expiry
/// with the underlying at `underlying`.
public struct OptionPayoffPointDTO: Codable, Sendable, Hashable {
    public var underlying: String
    public var profit: String

    public init(underlying: String, profit: String) { self.underlying = underlying; self.profit = profit }
}

/// `POST /api/v1/portfolios/{id}/options/{occSymbol}/exercise`.
public struct ExerciseRequest: Codable, Sendable, Hashable, RequestBody {
    public enum CodingKeys: String, CodingKey, CaseIterable { case contracts }
    public var contracts: Int64
    public init(contracts: Int64) { self.contracts = contracts }
}

/// `POST /api/v1/portfolios/{id}/options/{contract}/exercise/preview`: what exercising would do
/// now, or why it cannot.
public struct ExercisePreviewDTO: Codable, Sendable, Hashable {
    /// The exercise as it would happen; nil when a problem stops it.
    public var settlement: OptionSettlementDTO?
    public var cashBefore: String
    public var cashAfter: String
    /// Contracts held now.
    public var held: Int64
    public var problems: [ProblemDTO]
    public init(settlement: OptionSettlementDTO?, cashBefore: String, cashAfter: String, held: Int64, problems: [ProblemDTO]) {
        self.settlement = settlement; self.cashBefore = cashBefore; self.cashAfter = cashAfter; self.held = held
        self.problems = problems
    }
}

/// An exercise or an expiry, as it changed the portfolio.
public struct OptionSettlementDTO: Codable, Sendable, Hashable {
    public var contract: OptionContractDTO
    public var contracts: Int64
    /// `exercised`, `assigned`, `cash_settled` or `expired_worthless`.
    public var outcome: String
    public var automatic: Bool
    /// The underlying's price used.
    public var underlyingPrice: String
    public var date: String
    /// Shares bought (a call) or sold (a put) at the strike; 0 when not exercised.
    public var shares: Int64
    public var cashDelta: String
    public var realizedPnl: String
    public var message: String

    public init(contract: OptionContractDTO, contracts: Int64, outcome: String, automatic: Bool, underlyingPrice: String,
                date: String, shares: Int64, cashDelta: String, realizedPnl: String, message: String) {
        self.contract = contract; self.contracts = contracts; self.outcome = outcome; self.automatic = automatic
        self.underlyingPrice = underlyingPrice; self.date = date; self.shares = shares; self.cashDelta = cashDelta
        self.realizedPnl = realizedPnl; self.message = message
    }
}
