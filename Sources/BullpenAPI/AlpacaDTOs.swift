import Foundation

// The Alpaca-compatible API's wire types (`/alpaca/v2/...` and `/alpaca/data/v2/...`). Field
// names are Alpaca's (snake case, written by ``AlpacaJSON/encoder``); amounts are decimal strings
// where Alpaca sends strings and exact JSON numbers (`Decimal`, made from decimal strings, never
// from a binary float) where it sends numbers (bars, quotes, portfolio history).

/// Encoders for the Alpaca-compatible API: snake-case keys, RFC 3339 times.
public enum AlpacaJSON {
    public static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// For market data, whose keys are Alpaca's as written (`latestTrade`, `next_page_token`).
    public static var plainEncoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// A decimal string as an exact JSON number.
    public static func number(_ text: String?) -> Decimal? { text.flatMap { Decimal(string: $0, locale: Locale(identifier: "en_US_POSIX")) } }
}

/// A number or a string in a request body (Alpaca's clients send `"qty": 1.0` or `"qty": "1"`),
/// kept as the decimal text it was sent as: JSON numbers are read by their digits, not as floats.
public struct AlpacaDecimal: Codable, Sendable, Hashable {
    public var text: String

    public init(_ text: String) { self.text = text }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            self.text = text
        } else {
            self.text = try ExactNumber(from: decoder).text
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}

/// `GET /v2/account`.
public struct AlpacaAccount: Codable, Sendable {
    public var id: String
    public var accountNumber: String
    public var status = "ACTIVE"
    public var cryptoStatus = "INACTIVE"
    public var currency = "USD"
    public var buyingPower: String
    public var regtBuyingPower: String
    public var daytradingBuyingPower = "0"
    public var nonMarginableBuyingPower: String
    public var optionsBuyingPower: String
    public var cash: String
    public var accruedFees = "0"
    public var pendingTransferIn = "0"
    public var pendingTransferOut = "0"
    public var portfolioValue: String
    public var equity: String
    public var lastEquity: String
    public var longMarketValue: String
    public var shortMarketValue: String
    public var initialMargin: String
    public var maintenanceMargin: String
    public var lastMaintenanceMargin: String
    public var sma = "0"
    public var multiplier: String
    public var patternDayTrader = false
    public var tradingBlocked: Bool
    public var transfersBlocked = true
    public var accountBlocked = false
    public var tradeSuspendedByUser = false
    public var shortingEnabled: Bool
    public var daytradeCount = 0
    public var optionsApprovedLevel = 0
    public var optionsTradingLevel = 0
    public var createdAt: Date
    /// Bullpen: the portfolio's name, and its replay date when it is a replay.
    public var bullpenPortfolioName: String
    public var bullpenReplayDate: String?

    public init(id: String, accountNumber: String, buyingPower: String, cash: String, equity: String, lastEquity: String,
                longMarketValue: String, shortMarketValue: String, maintenanceMargin: String, multiplier: String,
                tradingBlocked: Bool, shortingEnabled: Bool, createdAt: Date, portfolioName: String, replayDate: String?) {
        self.id = id; self.accountNumber = accountNumber; self.buyingPower = buyingPower; regtBuyingPower = buyingPower
        nonMarginableBuyingPower = buyingPower; optionsBuyingPower = buyingPower; self.cash = cash
        portfolioValue = equity; self.equity = equity; self.lastEquity = lastEquity; self.longMarketValue = longMarketValue
        self.shortMarketValue = shortMarketValue; initialMargin = maintenanceMargin; self.maintenanceMargin = maintenanceMargin
        lastMaintenanceMargin = maintenanceMargin; self.multiplier = multiplier; self.tradingBlocked = tradingBlocked
        self.shortingEnabled = shortingEnabled; self.createdAt = createdAt; bullpenPortfolioName = portfolioName
        bullpenReplayDate = replayDate
    }
}

/// An order, as `/v2/orders` answers it.
public struct AlpacaOrder: Codable, Sendable {
    public var id: String
    public var clientOrderId: String
    public var createdAt: Date
    public var updatedAt: Date
    public var submittedAt: Date
    public var filledAt: Date?
    public var expiredAt: Date?
    public var expiresAt: Date?
    public var canceledAt: Date?
    public var failedAt: Date?
    public var replacedAt: Date?
    public var replacedBy: String?
    public var replaces: String?
    public var assetId: String
    public var symbol: String
    public var assetClass: String
    public var notional: String?
    public var qty: String
    public var filledQty: String
    public var filledAvgPrice: String?
    public var orderClass = "simple"
    public var orderType: String
    public var type: String
    public var side: String
    public var timeInForce: String
    public var limitPrice: String?
    public var stopPrice: String?
    public var status: String
    public var extendedHours = false
    public var trailPercent: String?
    public var trailPrice: String?
    public var hwm: String?
    public var positionIntent: String?
    /// Bullpen: why it was cancelled, rejected or expired, and how it filled, in words.
    public var bullpenReason: String?
    public var bullpenPriceNote: String?

    public init(id: String, clientOrderId: String, createdAt: Date, updatedAt: Date, assetId: String, symbol: String,
                assetClass: String, qty: String, filledQty: String, type: String, side: String, timeInForce: String,
                status: String) {
        self.id = id; self.clientOrderId = clientOrderId; self.createdAt = createdAt; self.updatedAt = updatedAt
        submittedAt = createdAt; self.assetId = assetId; self.symbol = symbol; self.assetClass = assetClass; self.qty = qty
        self.filledQty = filledQty; orderType = type; self.type = type; self.side = side; self.timeInForce = timeInForce
        self.status = status
    }
}

/// `POST /v2/orders`: Alpaca's fields; the ones Bullpen does not simulate are refused with a reason.
public struct AlpacaOrderRequest: Codable, Sendable, RequestBody {
    public enum CodingKeys: String, CodingKey, CaseIterable {
        case symbol, qty, notional, side, type
        case timeInForce = "time_in_force", limitPrice = "limit_price", stopPrice = "stop_price"
        case trailPrice = "trail_price", trailPercent = "trail_percent", extendedHours = "extended_hours"
        case clientOrderId = "client_order_id", orderClass = "order_class", takeProfit = "take_profit"
        case stopLoss = "stop_loss", legs, positionIntent = "position_intent"
    }
    public static var acceptsFractionalNumbers: Bool { true }

    public var symbol: String?
    public var qty: AlpacaDecimal?
    public var notional: AlpacaDecimal?
    public var side: String?
    public var type: String?
    public var timeInForce: String?
    public var limitPrice: AlpacaDecimal?
    public var stopPrice: AlpacaDecimal?
    public var trailPrice: AlpacaDecimal?
    public var trailPercent: AlpacaDecimal?
    public var extendedHours: Bool?
    public var clientOrderId: String?
    public var orderClass: String?
    public var takeProfit: AlpacaJSONValue?
    public var stopLoss: AlpacaJSONValue?
    public var legs: AlpacaJSONValue?
    public var positionIntent: String?
}

/// `PATCH /v2/orders/{id}`.
public struct AlpacaReplaceRequest: Codable, Sendable, RequestBody {
    public enum CodingKeys: String, CodingKey, CaseIterable {
        case qty, timeInForce = "time_in_force", limitPrice = "limit_price", stopPrice = "stop_price", trail
        case clientOrderId = "client_order_id"
    }
    public static var acceptsFractionalNumbers: Bool { true }

    public var qty: AlpacaDecimal?
    public var timeInForce: String?
    public var limitPrice: AlpacaDecimal?
    public var stopPrice: AlpacaDecimal?
    public var trail: AlpacaDecimal?
    public var clientOrderId: String?
}

/// Any JSON value, for fields that are read only to be refused (bracket legs and the like).
public struct AlpacaJSONValue: Codable, Sendable {
    public init(from decoder: any Decoder) throws {}
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encodeNil()
    }
}

/// One item of `DELETE /v2/orders`: the order's id, the status of its cancel, and the order.
public struct AlpacaCancelResult: Codable, Sendable {
    public var id: String
    public var status: Int
    public var body: AlpacaOrder?
    public init(id: String, status: Int, body: AlpacaOrder?) { self.id = id; self.status = status; self.body = body }
}

/// One item of `DELETE /v2/positions`: the order that closes it, or why it could not be placed.
public struct AlpacaCloseResult: Encodable, Sendable {
    public var symbol: String
    public var status: Int
    public var orderId: String?
    public var order: AlpacaOrder?
    public var failure: AlpacaFailure?

    public init(symbol: String, status: Int, order: AlpacaOrder?, failure: AlpacaFailure?) {
        self.symbol = symbol; self.status = status; self.order = order; self.failure = failure; orderId = order?.id
    }

    enum CodingKeys: String, CodingKey { case symbol, status, orderId, body }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(symbol, forKey: .symbol)
        try container.encode(status, forKey: .status)
        try container.encodeIfPresent(orderId, forKey: .orderId)
        if let order { try container.encode(order, forKey: .body) } else { try container.encodeIfPresent(failure, forKey: .body) }
    }
}

public struct AlpacaFailure: Codable, Sendable {
    public var code: Int
    public var message: String
    public init(code: Int, message: String) { self.code = code; self.message = message }
}

/// A position, as `/v2/positions` answers it.
public struct AlpacaPosition: Codable, Sendable {
    public var assetId: String
    public var symbol: String
    public var exchange: String
    public var assetClass: String
    public var assetMarginable: Bool
    public var avgEntryPrice: String
    public var qty: String
    public var qtyAvailable: String
    public var side: String
    public var marketValue: String
    public var costBasis: String
    public var unrealizedPl: String
    public var unrealizedPlpc: String?
    public var unrealizedIntradayPl: String?
    public var unrealizedIntradayPlpc: String?
    public var currentPrice: String?
    public var lastdayPrice: String?
    public var changeToday: String?

    public init(assetId: String, symbol: String, exchange: String, assetClass: String, avgEntryPrice: String, qty: String,
                qtyAvailable: String, side: String, marketValue: String, costBasis: String, unrealizedPl: String) {
        self.assetId = assetId; self.symbol = symbol; self.exchange = exchange; self.assetClass = assetClass
        assetMarginable = true; self.avgEntryPrice = avgEntryPrice; self.qty = qty; self.qtyAvailable = qtyAvailable
        self.side = side; self.marketValue = marketValue; self.costBasis = costBasis; self.unrealizedPl = unrealizedPl
    }
}

/// An asset, as `/v2/assets` answers it (its class under the key `class`, as Alpaca writes it).
public struct AlpacaAsset: Codable, Sendable {
    public var id: String
    public var assetClass = "us_equity"
    public var exchange: String
    public var symbol: String
    public var name: String
    public var status: String
    public var tradable: Bool
    public var marginable = true
    public var shortable = true
    public var easyToBorrow = true
    public var fractionable = false
    public var attributes: [String] = []
    /// A coin's smallest step of quantity (`0.00000001`); absent for stocks.
    public var minTradeIncrement: String?

    public init(id: String, exchange: String, symbol: String, name: String, status: String, tradable: Bool) {
        self.id = id; self.exchange = exchange; self.symbol = symbol; self.name = name; self.status = status
        self.tradable = tradable
    }

    enum CodingKeys: String, CodingKey {
        case id, assetClass = "class", exchange, symbol, name, status, tradable, marginable, shortable, easyToBorrow
        case fractionable, attributes, minTradeIncrement
    }
}

/// `GET /v2/clock`.
public struct AlpacaClock: Codable, Sendable {
    public var timestamp: String
    public var isOpen: Bool
    public var nextOpen: String
    public var nextClose: String
    /// Bullpen: `live`, or `replay` for a replay portfolio, whose clock stands on its date.
    public var bullpenClock: String
    public init(timestamp: String, isOpen: Bool, nextOpen: String, nextClose: String, bullpenClock: String) {
        self.timestamp = timestamp; self.isOpen = isOpen; self.nextOpen = nextOpen; self.nextClose = nextClose
        self.bullpenClock = bullpenClock
    }
}

/// One day of `GET /v2/calendar`.
public struct AlpacaCalendarDay: Codable, Sendable {
    public var date: String
    public var open: String
    public var close: String
    public var sessionOpen: String
    public var sessionClose: String
    public var settlementDate: String
    public init(date: String, open: String, close: String, settlementDate: String) {
        self.date = date; self.open = open; self.close = close; sessionOpen = "0400"; sessionClose = "2000"
        self.settlementDate = settlementDate
    }
}

/// A watchlist, as `/v2/watchlists` answers it.
public struct AlpacaWatchlist: Codable, Sendable {
    public var id: String
    public var accountId: String
    public var name: String
    public var createdAt: Date
    public var updatedAt: Date
    public var assets: [AlpacaAsset]?
    public init(id: String, accountId: String, name: String, createdAt: Date, assets: [AlpacaAsset]?) {
        self.id = id; self.accountId = accountId; self.name = name; self.createdAt = createdAt; updatedAt = createdAt
        self.assets = assets
    }
}

/// `POST /v2/watchlists` and `PUT /v2/watchlists/{id}`.
public struct AlpacaWatchlistRequest: Codable, Sendable, RequestBody {
    public enum CodingKeys: String, CodingKey, CaseIterable { case name, symbols }
    public var name: String?
    public var symbols: [String]?
}

/// `POST /v2/watchlists/{id}`.
public struct AlpacaWatchlistSymbol: Codable, Sendable, RequestBody {
    public enum CodingKeys: String, CodingKey, CaseIterable { case symbol }
    public var symbol: String
}

/// A fill in `GET /v2/account/activities` (`activity_type` FILL).
public struct AlpacaActivity: Encodable, Sendable {
    public var id: String
    public var accountId: String
    public var activityType: String
    // A fill's fields.
    public var transactionTime: Date?
    public var type: String?
    public var price: String?
    public var qty: String?
    public var side: String?
    public var symbol: String?
    public var leavesQty: String?
    public var cumQty: String?
    public var orderId: String?
    public var orderStatus: String?
    // Every other activity's fields.
    public var date: String?
    public var netAmount: String?
    public var description: String?
    public var status: String?
    public var perShareAmount: String?

    public init(id: String, accountId: String, activityType: String) {
        self.id = id; self.accountId = accountId; self.activityType = activityType
    }
}

/// `GET /v2/account/portfolio/history`.
public struct AlpacaPortfolioHistory: Encodable, Sendable {
    public var timestamp: [Int64]
    public var equity: [Decimal]
    public var profitLoss: [Decimal]
    public var profitLossPct: [Decimal?]
    public var baseValue: Decimal
    public var baseValueAsof: String?
    public var timeframe: String

    public init(timestamp: [Int64], equity: [Decimal], profitLoss: [Decimal], profitLossPct: [Decimal?], baseValue: Decimal,
                baseValueAsof: String?, timeframe: String) {
        self.timestamp = timestamp; self.equity = equity; self.profitLoss = profitLoss; self.profitLossPct = profitLossPct
        self.baseValue = baseValue; self.baseValueAsof = baseValueAsof; self.timeframe = timeframe
    }

    enum CodingKeys: String, CodingKey { case timestamp, equity, profitLoss, profitLossPct, baseValue, baseValueAsof, timeframe }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(timestamp, forKey: .timestamp)
        try container.encode(equity, forKey: .equity)
        try container.encode(profitLoss, forKey: .profitLoss)
        try container.encode(profitLossPct, forKey: .profitLossPct)   // nulls kept: the key is required
        try container.encode(baseValue, forKey: .baseValue)
        try container.encodeIfPresent(baseValueAsof, forKey: .baseValueAsof)
        try container.encode(timeframe, forKey: .timeframe)
    }
}

/// `POST /alpaca/bullpen/advance`: move a replay portfolio on.
public struct AlpacaAdvanceRequest: Codable, Sendable, RequestBody {
    public enum CodingKeys: String, CodingKey, CaseIterable { case days, to }
    public var days: Int?
    public var to: String?
}

public struct AlpacaAdvanceResult: Encodable, Sendable {
    public var from: String
    public var to: String
    public var days: Int
    public var endOfData: Bool
    public var message: String?
    public var equity: String
    public var clock: AlpacaClock
    public init(from: String, to: String, days: Int, endOfData: Bool, message: String?, equity: String, clock: AlpacaClock) {
        self.from = from; self.to = to; self.days = days; self.endOfData = endOfData; self.message = message
        self.equity = equity; self.clock = clock
    }
}

// MARK: Market data

/// A bar: `t`, `o`, `h`, `l`, `c`, `v`, `n`, `vw` (the last two always present, null when unknown).
public struct AlpacaBar: Encodable, Sendable {
    public var t: Date
    public var o: Decimal
    public var h: Decimal
    public var l: Decimal
    public var c: Decimal
    public var v: Int64
    public init(t: Date, o: Decimal, h: Decimal, l: Decimal, c: Decimal, v: Int64) {
        self.t = t; self.o = o; self.h = h; self.l = l; self.c = c; self.v = v
    }

    enum CodingKeys: String, CodingKey { case t, o, h, l, c, v, n, vw }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(t, forKey: .t)
        try container.encode(o, forKey: .o)
        try container.encode(h, forKey: .h)
        try container.encode(l, forKey: .l)
        try container.encode(c, forKey: .c)
        try container.encode(v, forKey: .v)
        try container.encodeNil(forKey: .n)
        try container.encodeNil(forKey: .vw)
    }
}

/// A quote: the simulator fills at the last price, so bid and ask are both that price.
public struct AlpacaQuote: Encodable, Sendable {
    public var t: Date
    public var price: Decimal
    public init(t: Date, price: Decimal) { self.t = t; self.price = price }

    enum CodingKeys: String, CodingKey { case t, ax, ap, `as`, bx, bp, bs, c, z }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(t, forKey: .t)
        try container.encode("", forKey: .ax)
        try container.encode(price, forKey: .ap)
        try container.encode(0, forKey: .as)
        try container.encode("", forKey: .bx)
        try container.encode(price, forKey: .bp)
        try container.encode(0, forKey: .bs)
        try container.encode([String](), forKey: .c)
        try container.encode("", forKey: .z)
    }
}

/// A trade: the last price.
public struct AlpacaTrade: Encodable, Sendable {
    public var t: Date
    public var p: Decimal
    public var s: Int64
    public init(t: Date, p: Decimal, s: Int64) { self.t = t; self.p = p; self.s = s }

    enum CodingKeys: String, CodingKey { case t, x, p, s, c, i, z }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(t, forKey: .t)
        try container.encode("", forKey: .x)
        try container.encode(p, forKey: .p)
        try container.encode(s, forKey: .s)
        try container.encode([String](), forKey: .c)
        try container.encode(0, forKey: .i)
        try container.encode("", forKey: .z)
    }
}

/// A snapshot: the latest trade and quote, the session's bar and the one before.
public struct AlpacaSnapshot: Encodable, Sendable {
    public var latestTrade: AlpacaTrade?
    public var latestQuote: AlpacaQuote?
    public var dailyBar: AlpacaBar?
    public var prevDailyBar: AlpacaBar?
    public var symbol: String?
    public init(latestTrade: AlpacaTrade?, latestQuote: AlpacaQuote?, dailyBar: AlpacaBar?, prevDailyBar: AlpacaBar?) {
        self.latestTrade = latestTrade; self.latestQuote = latestQuote; self.dailyBar = dailyBar; self.prevDailyBar = prevDailyBar
    }

    // Alpaca writes these keys in camel case (market data is written by ``AlpacaJSON/plainEncoder``).
    enum CodingKeys: String, CodingKey { case latestTrade, latestQuote, minuteBar, dailyBar, prevDailyBar, symbol }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(symbol, forKey: .symbol)
        try container.encode(latestTrade, forKey: .latestTrade)
        try container.encode(latestQuote, forKey: .latestQuote)
        try container.encodeNil(forKey: .minuteBar)
        try container.encode(dailyBar, forKey: .dailyBar)
        try container.encode(prevDailyBar, forKey: .prevDailyBar)
    }
}
