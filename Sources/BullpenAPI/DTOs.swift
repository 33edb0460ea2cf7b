import Foundation

// The wire types of Bullpen's REST API, version 1, as `openapi.yaml` (in this target) describes
// them. Server, SDK and CLI share them. Amounts and prices are decimal strings ("1234.50"),
// quantities integers, timestamps RFC 3339, ids opaque strings; JSON keys camelCase.

/// The body of every 4xx/5xx response: `{"error": {"code": "insufficient_funds", "message": "..."}}`.
public struct ErrorEnvelope: Codable, Sendable, Hashable {
    public struct Body: Codable, Sendable, Hashable {
        /// Stable, machine-readable: clients switch on it.
        public var code: String
        /// For people; may change wording.
        public var message: String
        public init(code: String, message: String) { self.code = code; self.message = message }
    }

    public var error: Body
    public init(code: String, message: String) { self.error = Body(code: code, message: message) }
}

// MARK: - Accounts

/// `POST /api/v1/auth/register` and `POST /api/v1/auth/login`.
public struct Credentials: Codable, Sendable, Hashable, RequestBody {
    public enum CodingKeys: String, CodingKey, CaseIterable { case username, password }

    public var username: String
    public var password: String
    public init(username: String, password: String) { self.username = username; self.password = password }
}

/// `POST /api/v1/auth/refresh`.
public struct RefreshRequest: Codable, Sendable, Hashable, RequestBody {
    public enum CodingKeys: String, CodingKey, CaseIterable { case refreshToken }

    public var refreshToken: String
    public init(refreshToken: String) { self.refreshToken = refreshToken }
}

/// An account as others may see it.
public struct UserDTO: Codable, Sendable, Hashable {
    public var id: String
    public var username: String
    public var createdAt: Date
    public init(id: String, username: String, createdAt: Date) {
        self.id = id; self.username = username; self.createdAt = createdAt
    }
}

/// A short-lived access token (a JWT for `Authorization: Bearer`) and the refresh token that
/// gets the next one. Each refresh token works once.
public struct TokensDTO: Codable, Sendable, Hashable {
    public var accessToken: String
    /// Nil when the client asked for it as a cookie (`X-Refresh-Cookie: 1`, the web app).
    public var refreshToken: String?
    public var tokenType: String
    /// Seconds until the access token expires.
    public var expiresIn: Int
    public init(accessToken: String, refreshToken: String?, tokenType: String = "Bearer", expiresIn: Int) {
        self.accessToken = accessToken; self.refreshToken = refreshToken
        self.tokenType = tokenType; self.expiresIn = expiresIn
    }
}

/// The answer to register, login and refresh.
public struct AuthResponse: Codable, Sendable, Hashable {
    public var user: UserDTO
    public var tokens: TokensDTO
    public init(user: UserDTO, tokens: TokensDTO) { self.user = user; self.tokens = tokens }
}

// MARK: - Portfolios

/// `POST /api/v1/portfolios`.
public struct CreatePortfolioRequest: Codable, Sendable, Hashable, RequestBody {
    public enum CodingKeys: String, CodingKey, CaseIterable {
        case name, startingCash, replay, optionWriting, volumeCapPercent, slippagePercent, shortSelling, fractionalShares
    }

    /// Stocks may be traded in fractions of a share (to the millionth); whole shares when left out.
    public var fractionalShares: Bool?

    /// Short selling on margin (initial 50 %, maintenance 30 %, a 3 % yearly borrow fee); false when left out.
    public var shortSelling: Bool?

    /// Working orders fill at most this share of a daily bar's volume, `"1"` (percent, 0.01 to 100); no cap when left out.
    public var volumeCapPercent: String?
    /// Market orders fill this much worse than the quote, `"0.05"` (percent, 0 to 5); none when left out.
    public var slippagePercent: String?

    /// Left out: `Profile N` for a replay; required for a live portfolio.
    public var name: String?
    /// `"100.00"` to `"10000000.00"`; `"100000.00"` when left out.
    public var startingCash: String?
    /// A replay portfolio: it starts in the past and moves through time when told.
    public var replay: ReplayRequest?
    /// Whether option contracts may be written (sold to open): covered calls and cash-secured
    /// puts. False when left out.
    public var optionWriting: Bool?
    public init(name: String?, startingCash: String? = nil, replay: ReplayRequest? = nil, optionWriting: Bool? = nil) {
        self.name = name; self.startingCash = startingCash; self.replay = replay; self.optionWriting = optionWriting
    }
}

/// Where a replay portfolio starts, and with what.
public struct ReplayRequest: Codable, Sendable, Hashable, RequestBody {
    public enum CodingKeys: String, CodingKey, CaseIterable { case start, holdings, scenario }

    /// `YYYY-MM` (the month's first trading day), `YYYY-MM-DD` (that day or the next trading
    /// day) or `random`; the data's first day when left out.
    public var start: String?
    /// `random`: five random stocks listed on the start date, bought with half the cash.
    public var holdings: String?
    /// A scenario's id, instead of `start`: its start date and stocks.
    public var scenario: String?

    public init(start: String? = nil, holdings: String? = nil, scenario: String? = nil) {
        self.start = start; self.holdings = holdings; self.scenario = scenario
    }

    public init(from decoder: any Decoder) throws {
        try StrictFields.check(Self.self, decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        start = try container.decodeIfPresent(String.self, forKey: .start)
        holdings = try container.decodeIfPresent(String.self, forKey: .holdings)
        scenario = try container.decodeIfPresent(String.self, forKey: .scenario)
    }
}

/// Request bodies refuse the fields they do not accept: the server checks the top level, and a
/// nested object checks itself while it decodes.
public enum StrictFields {
    public struct AnyField: CodingKey {
        public var stringValue: String
        public var intValue: Int? { nil }
        public init(stringValue: String) { self.stringValue = stringValue }
        public init?(intValue: Int) { nil }
    }

    /// What to say of the first field of `fields` that `T` does not accept (`path` names where the
    /// object sits: `replay.when`); nil when all are accepted.
    public static func unknownField<T: RequestBody>(_ type: T.Type, in fields: KeyedDecodingContainer<AnyField>) -> String? {
        guard let unknown = fields.allKeys.map(\.stringValue).filter({ T.CodingKeys(stringValue: $0) == nil }).min() else {
            return nil
        }
        let name = (fields.codingPath.map(\.stringValue) + [unknown]).joined(separator: ".")
        return "The field '\(name)' is not accepted here; accepted: \(T.fieldNames.sorted().joined(separator: ", "))."
    }

    /// For a nested object: the message starts with "The field", and the server shows it as it is.
    public static func check<T: RequestBody>(_ type: T.Type, _ decoder: any Decoder) throws {
        guard let fields = try? decoder.container(keyedBy: AnyField.self), let message = unknownField(T.self, in: fields) else { return }
        throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: message))
    }
}

/// `POST /api/v1/portfolios/{id}/advance`: `days` trading days, or up `to` a date.
public struct AdvanceRequest: Codable, Sendable, Hashable, RequestBody {
    public enum CodingKeys: String, CodingKey, CaseIterable { case days, to }
    public var days: Int?
    public var to: String?
    public init(days: Int? = nil, to: String? = nil) { self.days = days; self.to = to }
}

/// How one holding moved over an advance.
public struct HoldingChangeDTO: Codable, Sendable, Hashable {
    public var symbol: String
    public var quantity: ExactNumber
    public var priceBefore: String?
    public var priceAfter: String?
    public var valueChange: String
    public var changePercent: String?
    /// The contract's terms for an option holding (its prices are then per share).
    public var option: OptionContractDTO?
    public init(symbol: String, quantity: ExactNumber, priceBefore: String?, priceAfter: String?, valueChange: String,
                changePercent: String?) {
        self.symbol = symbol; self.quantity = quantity; self.priceBefore = priceBefore; self.priceAfter = priceAfter
        self.valueChange = valueChange; self.changePercent = changePercent
    }
}

/// What an advance did.
public struct AdvanceDTO: Codable, Sendable, Hashable {
    public var from: String
    public var to: String
    /// Days passed, counted as `dayCount` says.
    public var days: Int
    /// How the clock counts days: `sessions` (the exchange's trading days) or `calendar` (every
    /// day, for a portfolio holding coins or with a coin's order working).
    public var dayCount: String = "sessions"
    /// True when the data ran out: the clock stopped on its last day.
    public var endOfData: Bool
    public var message: String
    public var equityBefore: String
    public var equityAfter: String
    public var change: String
    public var changePercent: String?
    /// The S&P 500's (or the demo index's) change over the same days.
    public var benchmarkChangePercent: String?
    public var holdings: [HoldingChangeDTO]
    public var portfolio: PortfolioDTO
    /// The option contracts that expired on the way, each at its own date, in order.
    public var settlements: [OptionSettlementDTO]?
    public init(from: String, to: String, days: Int, endOfData: Bool, message: String, equityBefore: String,
                equityAfter: String, change: String, changePercent: String?, benchmarkChangePercent: String?,
                holdings: [HoldingChangeDTO], portfolio: PortfolioDTO) {
        self.from = from; self.to = to; self.days = days; self.endOfData = endOfData; self.message = message
        self.equityBefore = equityBefore; self.equityAfter = equityAfter; self.change = change
        self.changePercent = changePercent; self.benchmarkChangePercent = benchmarkChangePercent
        self.holdings = holdings; self.portfolio = portfolio
    }
}

/// A scenario a replay can start from.
public struct ScenarioDTO: Codable, Sendable, Hashable {
    public var id: String
    public var name: String
    /// `bubble`, `bull`, `bear`, `crash` or `recovery`.
    public var kind: String
    public var description: String
    public var start: String
    public var end: String
    public var symbols: [String]
    public init(id: String, name: String, kind: String, description: String, start: String, end: String, symbols: [String]) {
        self.id = id; self.name = name; self.kind = kind; self.description = description
        self.start = start; self.end = end; self.symbols = symbols
    }
}

/// `GET /api/v1/replay/scenarios`: the dates a replay can start on, and the scenarios the data supports.
public struct ScenarioList: Codable, Sendable, Hashable {
    public var firstDate: String?
    public var lastDate: String?
    public var scenarios: [ScenarioDTO]
    public init(firstDate: String?, lastDate: String?, scenarios: [ScenarioDTO]) {
        self.firstDate = firstDate; self.lastDate = lastDate; self.scenarios = scenarios
    }
}

/// A closed trade in a replay report.
public struct ClosedTradeDTO: Codable, Sendable, Hashable {
    public var symbol: String
    /// `sell` for a sale of what was held, `buy` for written contracts bought back.
    public var side: String
    public var date: String
    /// Shares, or contracts.
    public var quantity: ExactNumber
    /// A share's price, or a contract's per share.
    public var price: String
    public var realizedPnl: String
    /// The contract's terms, when the trade was an option's.
    public var option: OptionContractDTO?
    public init(symbol: String, side: String, date: String, quantity: ExactNumber, price: String, realizedPnl: String,
                option: OptionContractDTO? = nil) {
        self.symbol = symbol; self.side = side; self.date = date; self.quantity = quantity; self.price = price
        self.realizedPnl = realizedPnl; self.option = option
    }
}

/// `GET /api/v1/portfolios/{id}/report`: how a finished replay went.
public struct ReplayReportDTO: Codable, Sendable, Hashable {
    public var start: String
    public var end: String
    public var ended: Bool
    public var endOfData: Bool
    public var startingCash: String
    public var endingEquity: String
    public var totalReturn: String
    public var totalReturnPercent: String?
    public var benchmark: String
    public var benchmarkReturnPercent: String?
    public var maxDrawdown: String
    public var maxDrawdownPercent: String?
    public var drawdownPeak: String?
    public var drawdownTrough: String?
    public var bestTrade: ClosedTradeDTO?
    public var worstTrade: ClosedTradeDTO?
    public var daysInvested: Int
    public var days: Int
    public var daysInvestedPercent: String?
    public var buyAndHoldStocks: String?
    public var buyAndHoldBenchmark: String?
    public var points: [EquityPointDTO]
    public init(start: String, end: String, ended: Bool, endOfData: Bool, startingCash: String, endingEquity: String,
                totalReturn: String, totalReturnPercent: String?, benchmark: String, benchmarkReturnPercent: String?,
                maxDrawdown: String, maxDrawdownPercent: String?, drawdownPeak: String?, drawdownTrough: String?,
                bestTrade: ClosedTradeDTO?, worstTrade: ClosedTradeDTO?, daysInvested: Int, days: Int,
                daysInvestedPercent: String?, buyAndHoldStocks: String?, buyAndHoldBenchmark: String?,
                points: [EquityPointDTO]) {
        self.start = start; self.end = end; self.ended = ended; self.endOfData = endOfData
        self.startingCash = startingCash; self.endingEquity = endingEquity; self.totalReturn = totalReturn
        self.totalReturnPercent = totalReturnPercent; self.benchmark = benchmark
        self.benchmarkReturnPercent = benchmarkReturnPercent; self.maxDrawdown = maxDrawdown
        self.maxDrawdownPercent = maxDrawdownPercent; self.drawdownPeak = drawdownPeak; self.drawdownTrough = drawdownTrough
        self.bestTrade = bestTrade; self.worstTrade = worstTrade; self.daysInvested = daysInvested; self.days = days
        self.daysInvestedPercent = daysInvestedPercent; self.buyAndHoldStocks = buyAndHoldStocks
        self.buyAndHoldBenchmark = buyAndHoldBenchmark; self.points = points
    }
}

/// `PATCH /api/v1/portfolios/{id}`: only the name can change.
public struct UpdatePortfolioRequest: Codable, Sendable, Hashable, RequestBody {
    public enum CodingKeys: String, CodingKey, CaseIterable { case name, visibility }

    public var name: String?
    /// `private`, `public` (holdings as weights) or `full` (amounts too).
    public var visibility: String?
    public init(name: String? = nil, visibility: String? = nil) { self.name = name; self.visibility = visibility }
}

/// The rules a portfolio trades under.
public struct RulesDTO: Codable, Sendable, Hashable {
    public var maxDistinctHoldings: Int?
    public var commissionPerOrder: String
    public var commissionBasisPoints: Int64
    public var allowedInstruments: [String]
    public var maxOrderQuantity: Int64
    /// The largest share of equity one position may reach, in percent (`"25.00"`).
    public var maxPositionPercent: String?
    /// Stocks priced below this cannot be bought.
    public var minimumPrice: String?
    public var marketHoursOnly: Bool?
    /// Orders are taken from `tradingOpens` until `tradingCloses` (a league's dates).
    public var tradingOpens: Date?
    public var tradingCloses: Date?
    /// Whether option contracts may be written (covered calls, cash-secured puts).
    public var optionWriting: Bool?
    /// Realism: working orders fill at most this share of a bar's volume; market orders slip this much.
    public var volumeCapPercent: String?
    public var slippagePercent: String?
    /// Short selling on margin, when allowed: the initial and maintenance margins and the yearly borrow fee, in percent.
    public var shortSelling: Bool?
    public var initialMarginPercent: String?
    public var maintenanceMarginPercent: String?
    public var borrowFeePercent: String?
    /// Whether stocks trade in fractions of a share (to the millionth); whole shares otherwise.
    public var fractionalShares: Bool?
    /// Whether cryptocurrencies may be traded.
    public var allowCrypto: Bool?
    public init(maxDistinctHoldings: Int?, commissionPerOrder: String, commissionBasisPoints: Int64,
                allowedInstruments: [String], maxOrderQuantity: Int64) {
        self.maxDistinctHoldings = maxDistinctHoldings; self.commissionPerOrder = commissionPerOrder
        self.commissionBasisPoints = commissionBasisPoints; self.allowedInstruments = allowedInstruments
        self.maxOrderQuantity = maxOrderQuantity
    }
}

/// The time a portfolio lives at: `live`, or `replay` at `date`.
public struct ClockDTO: Codable, Sendable, Hashable {
    /// `live` or `replay`.
    public var mode: String
    /// A replay's current session.
    public var date: String?
    /// A replay's first session.
    public var start: String?
    public var scenario: String?
    /// True once the player ended the replay.
    public var ended: Bool?
    /// How a replay's advance counts days: `sessions`, or `calendar` while it holds coins (or has a
    /// coin's order working). Nil on the live clock.
    public var dayCount: String?
    public init(mode: String, date: String? = nil, start: String? = nil, scenario: String? = nil, ended: Bool? = nil) {
        self.mode = mode; self.date = date; self.start = start; self.scenario = scenario; self.ended = ended
    }
}

/// Where prices come from and whether they are real.
public struct MarketDataDTO: Codable, Sendable, Hashable {
    /// `pack`, `demo`, ... or `none`.
    public var source: String
    public var simulated: Bool
    public var available: Bool
    public init(source: String, simulated: Bool, available: Bool) {
        self.source = source; self.simulated = simulated; self.available = available
    }
}

/// A portfolio with its summary figures, valued at the portfolio's clock.
public struct PortfolioDTO: Codable, Sendable, Hashable {
    public var id: String
    public var name: String
    public var period: Int
    public var clock: ClockDTO
    public var rules: RulesDTO
    public var startingCash: String
    public var cash: String
    public var marketValue: String
    public var equity: String
    public var realizedPnl: String
    public var unrealizedPnl: String
    /// Equity less starting cash.
    public var totalReturn: String
    /// Percent, two places: `"12.34"`.
    public var totalReturnPercent: String
    /// The change of equity since the previous session's close, net of deposits: shares held
    /// overnight count from the previous close, shares bought today from their fill price,
    /// shares sold today up to their sale.
    public var dayChange: String
    public var dayChangePercent: String?
    public var holdingsCount: Int
    public var marketData: MarketDataDTO
    public var createdAt: Date
    public var updatedAt: Date
    /// The league this portfolio plays in (its clock and rules are the league's).
    public var leagueId: String?
    /// Set once the portfolio was closed (its player left the league): read-only.
    public var closedAt: Date?
    /// Who sees it on the owner's profile: `private`, `public` (weights) or `full` (amounts too).
    public var visibility: String?
    /// The cash that open orders (and written puts) hold back, and what is left to spend.
    public var reservedCash: String?
    public var availableCash: String?
    /// Short positions against the maintenance requirement (portfolios that allow short selling and hold shorts).
    public var margin: MarginStatusDTO?

    public init(id: String, name: String, period: Int, clock: ClockDTO, rules: RulesDTO, startingCash: String,
                cash: String, marketValue: String, equity: String, realizedPnl: String, unrealizedPnl: String,
                totalReturn: String, totalReturnPercent: String, dayChange: String, dayChangePercent: String?, holdingsCount: Int,
                marketData: MarketDataDTO, createdAt: Date, updatedAt: Date) {
        self.id = id; self.name = name; self.period = period; self.clock = clock; self.rules = rules
        self.startingCash = startingCash; self.cash = cash; self.marketValue = marketValue; self.equity = equity
        self.realizedPnl = realizedPnl; self.unrealizedPnl = unrealizedPnl; self.totalReturn = totalReturn
        self.totalReturnPercent = totalReturnPercent; self.dayChange = dayChange
        self.dayChangePercent = dayChangePercent; self.holdingsCount = holdingsCount
        self.marketData = marketData; self.createdAt = createdAt; self.updatedAt = updatedAt
    }
}

/// Short positions against the maintenance requirement, with their risk in words.
public struct MarginStatusDTO: Codable, Sendable, Hashable {
    public var shortValue: String
    public var equity: String
    public var requirement: String
    /// The collateral short sales hold: their proceeds and the initial margin.
    public var collateral: String
    public var met: Bool
    public var words: String
    public init(shortValue: String, equity: String, requirement: String, collateral: String, met: Bool, words: String) {
        self.shortValue = shortValue; self.equity = equity; self.requirement = requirement; self.collateral = collateral
        self.met = met; self.words = words
    }
}

/// `GET /api/v1/portfolios`.
public struct PortfolioList: Codable, Sendable, Hashable {
    public var portfolios: [PortfolioDTO]
    public init(portfolios: [PortfolioDTO]) { self.portfolios = portfolios }
}

/// One holding, valued at the portfolio's clock.
public struct PositionDTO: Codable, Sendable, Hashable {
    public var symbol: String
    public var name: String?
    /// `us_equity` (shares and option contracts) or `crypto`.
    public var assetClass: String = "us_equity"
    public var quantity: ExactNumber
    public var averageCost: String
    public var costBasis: String
    public var lastPrice: String?
    public var priceAsOf: Date?
    public var marketValue: String
    public var unrealizedPnl: String
    public var unrealizedPnlPercent: String?
    public var dayChange: String?
    /// False once the symbol's data has ended: valued and sold at its final close, not bought.
    public var trading: Bool
    /// The contract's terms when the position is an option's (its prices are then per share;
    /// a contract is `multiplier` shares).
    public var option: OptionContractDTO?
    /// An option position: the underlying's price at the clock, and whether the contract is in the
    /// money there (exercising it would gain: a call's strike below the price, a put's above).
    public var underlyingPrice: String?
    public var inTheMoney: Bool?

    public init(symbol: String, name: String?, quantity: ExactNumber, averageCost: String, costBasis: String,
                lastPrice: String?, priceAsOf: Date?, marketValue: String, unrealizedPnl: String,
                unrealizedPnlPercent: String?, dayChange: String?, trading: Bool) {
        self.symbol = symbol; self.name = name; self.quantity = quantity; self.averageCost = averageCost
        self.costBasis = costBasis; self.lastPrice = lastPrice; self.priceAsOf = priceAsOf
        self.marketValue = marketValue; self.unrealizedPnl = unrealizedPnl
        self.unrealizedPnlPercent = unrealizedPnlPercent; self.dayChange = dayChange; self.trading = trading
    }
}

/// `GET /api/v1/portfolios/{id}/positions`.
public struct PositionList: Codable, Sendable, Hashable {
    public var positions: [PositionDTO]
    public init(positions: [PositionDTO]) { self.positions = positions }
}

// MARK: - Orders

/// `POST /api/v1/portfolios/{id}/orders`.
public struct PlaceOrderRequest: Codable, Sendable, Hashable, RequestBody {
    public enum CodingKeys: String, CodingKey, CaseIterable {
        case symbol, side, quantity, notional, type, clientOrderId, instrument, timeInForce, limitPrice, stopPrice, trailPrice, trailPercent
    }
    /// Quantities are JSON numbers with a fraction (`0.5` of a share).
    public static var acceptsFractionalNumbers: Bool { true }

    public var symbol: String
    /// `stock` or `option`: optional, and when given it must be the symbol's (an OCC symbol is an option's).
    public var instrument: String?
    /// `buy` or `sell`.
    public var side: String
    /// Shares (whole, or to the millionth where the rules allow fractional shares), contracts
    /// (whole), or coins (to 10⁻⁸). Give this or `notional`.
    public var quantity: ExactNumber?
    /// Dollars to trade instead of a quantity (`"250.00"`): as much as that buys at the fill price
    /// (at the limit price for a limit order), rounded down to the lot. Market and limit orders.
    public var notional: String?
    /// `market` (the default), `limit`, `stop`, `stop_limit` or `trailing_stop`.
    public var type: String?
    /// Your own id for the order, unique per portfolio forever.
    public var clientOrderId: String?
    /// `day` (the default), `gtc`, `ioc`, `fok`, `opg` or `cls`.
    public var timeInForce: String?
    /// Decimal strings, dollars a share: `"180.00"`.
    public var limitPrice: String?
    public var stopPrice: String?
    /// A trailing stop's distance: in dollars (`trailPrice`) or as a percent of the best price (`trailPercent`, `"5"`).
    public var trailPrice: String?
    public var trailPercent: String?

    public init(symbol: String, side: String, quantity: ExactNumber?, type: String? = nil, clientOrderId: String? = nil,
                notional: String? = nil) {
        self.symbol = symbol; self.side = side; self.quantity = quantity; self.type = type
        self.clientOrderId = clientOrderId; self.notional = notional
    }
}

/// An order and its fill.
public struct OrderDTO: Codable, Sendable, Hashable {
    public var id: String
    public var portfolioId: String
    public var clientOrderId: String?
    public var symbol: String
    public var side: String
    public var type: String
    public var quantity: ExactNumber
    /// `filled`.
    public var status: String
    public var filledQuantity: ExactNumber
    public var fillPrice: String?
    /// Where the fill price came from: `last_trade`, `close`, `replay_close`, `demo_tick` or
    /// `final_close` (the last close before the symbol's data ended). Absent on orders filled
    /// before prices were recorded.
    public var priceSource: String?
    /// The time of that price (daily closes are stamped at midnight UTC of their session).
    public var priceAsOf: Date?
    /// Whether the exchange was in a session when the order filled.
    public var marketOpen: Bool?
    /// The same, in a sentence for the player.
    public var priceNote: String?
    /// Fill price × quantity.
    public var notional: String
    public var commission: String
    /// For sells: proceeds less commission less cost basis.
    public var realizedPnl: String
    /// What the order did to cash (negative for buys).
    public var cashDelta: String
    public var createdAt: Date
    public var filledAt: Date?
    /// The contract's terms for an option order (its prices are then per share).
    public var option: OptionContractDTO?
    public var timeInForce: String?
    public var limitPrice: String?
    public var stopPrice: String?
    public var trailPrice: String?
    public var trailPercent: String?
    /// A trailing stop's best price so far (the high-water mark of a sell, the low of a buy) and
    /// the stop it makes now.
    public var waterMark: String?
    public var currentStop: String?
    /// A stop-limit whose stop was reached (a limit order since).
    public var triggered: Bool?
    /// What a working buy holds of the cash, and a working sell of the shares.
    public var heldCash: String?
    public var heldShares: ExactNumber?
    /// When it expires, or the last session it works in (daily bars).
    public var expiresAt: Date?
    public var lastSession: String?
    public var replacesOrderId: String?
    public var replacedByOrderId: String?
    public var updatedAt: Date?
    /// Why it was cancelled, rejected or expired.
    public var reason: String?
    /// How the last fill was priced, in words (the bar or the quote, the gap, the volume cap).
    public var fillNote: String?
    /// What the order does, in one sentence.
    public var summary: String?
    /// Every change of its status (one order's page only).
    public var history: [OrderEventDTO]?

    public init(id: String, portfolioId: String, clientOrderId: String?, symbol: String, side: String, type: String,
                quantity: ExactNumber, status: String, filledQuantity: ExactNumber, fillPrice: String?, priceSource: String?,
                priceAsOf: Date?, marketOpen: Bool?, priceNote: String? = nil, notional: String,
                commission: String, realizedPnl: String, cashDelta: String, createdAt: Date, filledAt: Date?) {
        self.priceNote = priceNote
        self.id = id; self.portfolioId = portfolioId; self.clientOrderId = clientOrderId; self.symbol = symbol
        self.side = side; self.type = type; self.quantity = quantity; self.status = status
        self.filledQuantity = filledQuantity; self.fillPrice = fillPrice; self.priceSource = priceSource
        self.priceAsOf = priceAsOf; self.marketOpen = marketOpen; self.notional = notional
        self.commission = commission; self.realizedPnl = realizedPnl; self.cashDelta = cashDelta
        self.createdAt = createdAt; self.filledAt = filledAt
    }
}

/// One change of an order's status.
public struct OrderEventDTO: Codable, Sendable, Hashable {
    /// `new`, `partially_filled`, `filled`, `canceled`, `expired`, `rejected` or `replaced`.
    public var status: String
    public var at: Date
    public var note: String?
    public init(status: String, at: Date, note: String?) { self.status = status; self.at = at; self.note = note }
}

/// `PATCH /portfolios/{id}/orders/{orderId}`: the new order's terms; what is left out is kept.
public struct ReplaceOrderRequest: Codable, Sendable, Hashable, RequestBody {
    public enum CodingKeys: String, CodingKey, CaseIterable { case quantity, timeInForce, limitPrice, stopPrice, trailPrice, trailPercent }
    public static var acceptsFractionalNumbers: Bool { true }
    public var quantity: ExactNumber?
    public var timeInForce: String?
    public var limitPrice: String?
    public var stopPrice: String?
    public var trailPrice: String?
    public var trailPercent: String?
    public init(quantity: ExactNumber? = nil, timeInForce: String? = nil, limitPrice: String? = nil, stopPrice: String? = nil,
                trailPrice: String? = nil, trailPercent: String? = nil) {
        self.quantity = quantity; self.timeInForce = timeInForce; self.limitPrice = limitPrice; self.stopPrice = stopPrice
        self.trailPrice = trailPrice; self.trailPercent = trailPercent
    }
}

/// The answer to a replace: the old order (now `replaced`) and the new one.
public struct ReplacedOrderDTO: Codable, Sendable, Hashable {
    public var replaced: OrderDTO
    public var order: OrderDTO
    public init(replaced: OrderDTO, order: OrderDTO) { self.replaced = replaced; self.order = order }
}

/// A rule an order would break, in a preview.
public struct ProblemDTO: Codable, Sendable, Hashable {
    public var code: String
    public var message: String
    public init(code: String, message: String) { self.code = code; self.message = message }
}

/// `POST /api/v1/portfolios/{id}/orders/preview`: what the order would do, computed by the
/// same engine that executes it.
public struct OrderPreviewDTO: Codable, Sendable, Hashable {
    public var symbol: String
    public var side: String
    public var quantity: ExactNumber
    public var price: String
    public var priceSource: String
    public var priceAsOf: Date
    public var marketOpen: Bool
    public var trading: Bool
    public var notional: String
    public var commission: String
    /// The cost of a buy (notional plus commission) or the proceeds of a sell (notional less commission).
    public var total: String
    public var cashBefore: String
    public var cashAfter: String
    /// The most whole shares affordable (buy), or the shares held (sell).
    public var maxQuantity: ExactNumber
    public var held: ExactNumber
    /// Every rule the order would break; empty when it would go through.
    public var problems: [ProblemDTO]
    /// The contract's terms for an option (`price` is then per share; `notional` is for the contracts).
    public var option: OptionContractDTO?
    /// How the price was found, in a sentence (an option's: the model, the spread, the
    /// underlying's price and its time).
    /// What a working order will do, in one sentence (absent for market orders).
    public var summary: String?
    public var priceNote: String?

    public init(symbol: String, side: String, quantity: ExactNumber, price: String, priceSource: String, priceAsOf: Date,
                marketOpen: Bool, trading: Bool, notional: String, commission: String, total: String,
                cashBefore: String, cashAfter: String, maxQuantity: ExactNumber, held: ExactNumber, problems: [ProblemDTO]) {
        self.symbol = symbol; self.side = side; self.quantity = quantity; self.price = price
        self.priceSource = priceSource; self.priceAsOf = priceAsOf; self.marketOpen = marketOpen
        self.trading = trading; self.notional = notional; self.commission = commission; self.total = total
        self.cashBefore = cashBefore; self.cashAfter = cashAfter; self.maxQuantity = maxQuantity
        self.held = held; self.problems = problems
    }
}

/// `GET /api/v1/portfolios/{id}/orders`.
public struct OrderList: Codable, Sendable, Hashable {
    public var orders: [OrderDTO]
    public var nextCursor: String?
    public init(orders: [OrderDTO], nextCursor: String?) { self.orders = orders; self.nextCursor = nextCursor }
}

/// One fill or cash movement of a portfolio.
public struct ActivityDTO: Codable, Sendable, Hashable {
    public var id: String
    public var sequence: Int64
    public var period: Int
    /// `buy` or `sell` (later also `deposit`, `dividend`, ...).
    public var type: String
    public var symbol: String?
    public var quantity: ExactNumber
    public var price: String?
    /// The change of cash.
    public var amount: String
    public var commission: String
    public var realizedPnl: String?
    public var orderId: String?
    public var createdAt: Date
    /// The session the entry belongs to (`YYYY-MM-DD`): the date of the price it used, which for a
    /// replay is the replay's date, not `createdAt`'s.
    public var date: String?
    /// The contract's terms when the symbol is an option's (`price` is then per share).
    public var option: OptionContractDTO?

    public init(id: String, sequence: Int64, period: Int, type: String, symbol: String?, quantity: ExactNumber,
                price: String?, amount: String, commission: String, realizedPnl: String?, orderId: String?,
                createdAt: Date) {
        self.id = id; self.sequence = sequence; self.period = period; self.type = type; self.symbol = symbol
        self.quantity = quantity; self.price = price; self.amount = amount; self.commission = commission
        self.realizedPnl = realizedPnl; self.orderId = orderId; self.createdAt = createdAt
    }
}

/// `GET /api/v1/portfolios/{id}/activities`.
public struct ActivityPage: Codable, Sendable, Hashable {
    public var activities: [ActivityDTO]
    public var nextCursor: String?
    public init(activities: [ActivityDTO], nextCursor: String?) { self.activities = activities; self.nextCursor = nextCursor }
}

/// `GET /api/v1/portfolios/{id}/activities/summary`: realized totals over the chosen periods.
public struct RealizedSummaryDTO: Codable, Sendable, Hashable {
    /// `current`, `all` or a period number.
    public var period: String
    public var realizedProfits: String
    public var realizedLosses: String
    public var realizedNet: String
    public var trades: Int
    public var buys: Int
    public var sells: Int
    public init(period: String, realizedProfits: String, realizedLosses: String, realizedNet: String,
                trades: Int, buys: Int, sells: Int) {
        self.period = period; self.realizedProfits = realizedProfits; self.realizedLosses = realizedLosses
        self.realizedNet = realizedNet; self.trades = trades; self.buys = buys; self.sells = sells
    }
}

// MARK: - Service

/// `GET /health` and `GET /ready`.
public struct HealthDTO: Codable, Sendable, Hashable {
    public var status: String
    public var database: String?
    public var marketData: MarketDataDTO?
    public init(status: String, database: String? = nil, marketData: MarketDataDTO? = nil) {
        self.status = status; self.database = database; self.marketData = marketData
    }
}

/// The contract document, `openapi.yaml`, as shipped in this target.
public enum APIContract {
    /// The text of `openapi.yaml`.
    public static func openAPIDocument() throws -> String { try document("openapi") }

    /// The Alpaca-compatible API's description, `alpaca.yaml`.
    public static func alpacaDocument() throws -> String { try document("alpaca") }

    private static func document(_ name: String) throws -> String {
        guard let url = Bundle.module.url(forResource: name, withExtension: "yaml") else {
            throw CocoaError(.fileNoSuchFile)
        }
        return try String(contentsOf: url, encoding: .utf8)
    }

    /// JSON coders with the wire conventions (RFC 3339 dates, stable key order).
    public static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    public static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
