import Foundation

// The SDK's public types. Each is built from the generated wire type of the contract and encodes with
// the API's field names (amounts as decimal strings), so `JSONEncoder` output reads like the API's.

/// A player's account.
public struct User: Sendable, Hashable, Encodable {
    /// The account's opaque id.
    public var id: String
    /// The name the player logs in with and others see.
    public var username: String
    /// When the account was made.
    public var createdAt: Date

    init(_ wire: Components.Schemas.User) {
        id = wire.id
        username = wire.username
        createdAt = wire.createdAt
    }
}

/// A portfolio's summary: cash, holdings' value, equity and profit, at its clock.
public struct Portfolio: Sendable, Hashable, Encodable, Identifiable {
    /// The portfolio's opaque id.
    public var id: String
    /// Its name ("Main" for the one every account starts with).
    public var name: String
    /// `live`, or `replay` for a portfolio that plays the past.
    public var mode: String
    /// A replay's current session (YYYY-MM-DD); nil for a live portfolio.
    public var date: String?
    /// The cash it started with.
    @DecimalString public var startingCash: Decimal
    /// Cash, including what working orders hold.
    @DecimalString public var cash: Decimal
    /// Cash that a new order can spend.
    @OptionalDecimalString public var availableCash: Decimal?
    /// The holdings' value at the portfolio's clock.
    @DecimalString public var marketValue: Decimal
    /// Cash plus holdings.
    @DecimalString public var equity: Decimal
    /// Profit or loss of what was sold.
    @DecimalString public var realizedPnl: Decimal
    /// Profit or loss of what is held.
    @DecimalString public var unrealizedPnl: Decimal
    /// Equity less the starting cash.
    @DecimalString public var totalReturn: Decimal
    /// ``totalReturn`` as a percent of the starting cash.
    @DecimalString public var totalReturnPercent: Decimal
    /// The change of equity since the previous session's close.
    @DecimalString public var dayChange: Decimal
    /// ``dayChange`` in percent.
    @OptionalDecimalString public var dayChangePercent: Decimal?
    /// How many symbols it holds.
    public var holdingsCount: Int
    /// The league it plays in, if any.
    public var leagueId: String?
    /// True when its prices are simulated (the demo exchange).
    public var simulated: Bool
    /// When it was made.
    public var createdAt: Date

    /// True for a replay portfolio.
    public var isReplay: Bool { mode == "replay" }

    init(_ wire: Components.Schemas.Portfolio) throws {
        id = wire.id
        name = wire.name
        mode = wire.clock.mode.rawValue
        date = wire.clock.date
        startingCash = try Money.parse(wire.startingCash, "startingCash")
        cash = try Money.parse(wire.cash, "cash")
        availableCash = try Money.parse(wire.availableCash, "availableCash")
        marketValue = try Money.parse(wire.marketValue, "marketValue")
        equity = try Money.parse(wire.equity, "equity")
        realizedPnl = try Money.parse(wire.realizedPnl, "realizedPnl")
        unrealizedPnl = try Money.parse(wire.unrealizedPnl, "unrealizedPnl")
        totalReturn = try Money.parse(wire.totalReturn, "totalReturn")
        totalReturnPercent = try Money.parse(wire.totalReturnPercent, "totalReturnPercent")
        dayChange = try Money.parse(wire.dayChange, "dayChange")
        dayChangePercent = try Money.parse(wire.dayChangePercent, "dayChangePercent")
        holdingsCount = wire.holdingsCount
        leagueId = wire.leagueId
        simulated = wire.marketData.simulated
        createdAt = wire.createdAt
    }
}

/// One holding, valued at the portfolio's clock.
public struct Position: Sendable, Hashable, Encodable {
    /// The ticker (or an option contract's OCC symbol).
    public var symbol: String
    /// The company's name.
    public var name: String?
    /// Shares (or contracts); negative when sold short or written.
    public var quantity: Decimal
    /// What a share cost on average.
    @DecimalString public var averageCost: Decimal
    /// What the holding cost.
    @DecimalString public var costBasis: Decimal
    /// The latest price.
    @OptionalDecimalString public var lastPrice: Decimal?
    /// The holding's value.
    @DecimalString public var marketValue: Decimal
    /// Value less cost.
    @DecimalString public var unrealizedPnl: Decimal
    /// ``unrealizedPnl`` in percent of the cost.
    @OptionalDecimalString public var unrealizedPnlPercent: Decimal?
    /// The change of its value since the previous close.
    @OptionalDecimalString public var dayChange: Decimal?
    /// False once the symbol's data has ended.
    public var trading: Bool

    init(_ wire: Components.Schemas.Position) throws {
        symbol = wire.symbol
        name = wire.name
        quantity = wire.quantity
        averageCost = try Money.parse(wire.averageCost, "averageCost")
        costBasis = try Money.parse(wire.costBasis, "costBasis")
        lastPrice = try Money.parse(wire.lastPrice, "lastPrice")
        marketValue = try Money.parse(wire.marketValue, "marketValue")
        unrealizedPnl = try Money.parse(wire.unrealizedPnl, "unrealizedPnl")
        unrealizedPnlPercent = try Money.parse(wire.unrealizedPnlPercent, "unrealizedPnlPercent")
        dayChange = try Money.parse(wire.dayChange, "dayChange")
        trading = wire.trading
    }
}

/// Buy or sell.
public enum OrderSide: String, Sendable, Hashable, Encodable, CaseIterable {
    /// Buy (or buy to cover a short).
    case buy
    /// Sell (or sell short, where the rules allow it).
    case sell
}

/// How an order is priced.
public enum OrderType: String, Sendable, Hashable, Encodable, CaseIterable {
    /// At the price now.
    case market
    /// At the limit price or better.
    case limit
    /// A market order once the price reaches the stop.
    case stop
    /// A limit order once the price reaches the stop.
    case stopLimit = "stop_limit"
    /// A stop that follows the best price by a trail.
    case trailingStop = "trailing_stop"
}

/// How long an order works.
public enum TimeInForce: String, Sendable, Hashable, Encodable, CaseIterable {
    /// Until the session's close.
    case day
    /// Until cancelled (at most 90 days).
    case gtc
    /// Fill what can fill at once, cancel the rest.
    case ioc
    /// Fill all at once or nothing.
    case fok
    /// At the next session's open (replays).
    case opg
    /// At the next session's close (replays).
    case cls
}

/// Where an order stands.
public enum OrderStatus: String, Sendable, Hashable, Encodable, CaseIterable {
    /// Working, nothing filled yet.
    case new
    /// Working, part filled.
    case partiallyFilled = "partially_filled"
    /// Done.
    case filled
    /// Cancelled by the player (or an `ioc`/`fok` that could not fill).
    case canceled
    /// Its time ran out.
    case expired
    /// Refused at its fill by a rule.
    case rejected
    /// Replaced by a new order.
    case replaced
}

/// An order to place or preview.
///
/// ```swift
/// let order = OrderRequest.buy("AAPL", 10, limit: 180)
/// ```
public struct OrderRequest: Sendable, Hashable {
    /// The ticker.
    public var symbol: String
    /// Buy or sell.
    public var side: OrderSide
    /// Shares (whole, or a fraction where the portfolio's rules allow it) or contracts; zero for an order by amount.
    public var quantity: Decimal
    /// An order by amount: the dollars to trade (market and limit orders), as much as they buy.
    public var notional: Decimal?
    /// How it is priced.
    public var type: OrderType
    /// How long it works; the server's default (`day`) when nil.
    public var timeInForce: TimeInForce?
    /// Limit and stop-limit orders: dollars a share.
    public var limitPrice: Decimal?
    /// Stop and stop-limit orders: dollars a share.
    public var stopPrice: Decimal?
    /// Trailing stops: the trail in dollars.
    public var trailPrice: Decimal?
    /// Trailing stops: the trail in percent.
    public var trailPercent: Decimal?
    /// Your own id for it, unique per portfolio.
    public var clientOrderId: String?

    /// An order with every term given.
    public init(symbol: String, side: OrderSide, quantity: Decimal, type: OrderType = .market, timeInForce: TimeInForce? = nil,
                limitPrice: Decimal? = nil, stopPrice: Decimal? = nil, trailPrice: Decimal? = nil,
                trailPercent: Decimal? = nil, clientOrderId: String? = nil, notional: Decimal? = nil) {
        self.notional = notional
        self.symbol = symbol
        self.side = side
        self.quantity = quantity
        self.type = type
        self.timeInForce = timeInForce
        self.limitPrice = limitPrice
        self.stopPrice = stopPrice
        self.trailPrice = trailPrice
        self.trailPercent = trailPercent
        self.clientOrderId = clientOrderId
    }

    /// A buy at the market, or at `limit` or better.
    public static func buy(_ symbol: String, _ quantity: Decimal, limit: Decimal? = nil) -> OrderRequest {
        OrderRequest(symbol: symbol, side: .buy, quantity: quantity, type: limit == nil ? .market : .limit, limitPrice: limit)
    }

    /// A sell at the market, or at `limit` or better.
    public static func sell(_ symbol: String, _ quantity: Decimal, limit: Decimal? = nil) -> OrderRequest {
        OrderRequest(symbol: symbol, side: .sell, quantity: quantity, type: limit == nil ? .market : .limit, limitPrice: limit)
    }

    /// A buy of `amount` dollars' worth at the market (or at `limit`): as much as it buys, rounded
    /// down to the lot (a whole share unless the portfolio's rules allow fractional shares).
    public static func buy(_ symbol: String, amount: Decimal, limit: Decimal? = nil) -> OrderRequest {
        OrderRequest(symbol: symbol, side: .buy, quantity: 0, type: limit == nil ? .market : .limit, limitPrice: limit, notional: amount)
    }

    /// A sell of `amount` dollars' worth at the market (or at `limit`).
    public static func sell(_ symbol: String, amount: Decimal, limit: Decimal? = nil) -> OrderRequest {
        OrderRequest(symbol: symbol, side: .sell, quantity: 0, type: limit == nil ? .market : .limit, limitPrice: limit, notional: amount)
    }
}

/// An order as the server keeps it.
public struct Order: Sendable, Hashable, Encodable, Identifiable {
    /// The order's id.
    public var id: String
    /// The portfolio it belongs to.
    public var portfolioId: String
    /// The caller's own id for it.
    public var clientOrderId: String?
    /// The ticker.
    public var symbol: String
    /// Buy or sell.
    public var side: OrderSide
    /// How it is priced.
    public var type: OrderType
    /// Shares asked for.
    public var quantity: Decimal
    /// Where it stands.
    public var status: OrderStatus
    /// Shares filled so far.
    public var filledQuantity: Decimal
    /// The average fill price.
    @OptionalDecimalString public var fillPrice: Decimal?
    /// Shares times price.
    @DecimalString public var notional: Decimal
    /// The fee paid.
    @DecimalString public var commission: Decimal
    /// The profit or loss a sale realized.
    @DecimalString public var realizedPnl: Decimal
    /// How the cash changed (negative for a buy).
    @DecimalString public var cashDelta: Decimal
    /// How long it works.
    public var timeInForce: TimeInForce?
    /// A limit order's price.
    @OptionalDecimalString public var limitPrice: Decimal?
    /// A stop order's price.
    @OptionalDecimalString public var stopPrice: Decimal?
    /// Where the price came from, in a sentence.
    public var priceNote: String?
    /// What the order does, in a sentence.
    public var summary: String?
    /// Why it was cancelled, rejected or expired.
    public var reason: String?
    /// When it was placed.
    public var createdAt: Date
    /// When it filled.
    public var filledAt: Date?

    init(_ wire: Components.Schemas.Order) throws {
        id = wire.id
        portfolioId = wire.portfolioId
        clientOrderId = wire.clientOrderId
        symbol = wire.symbol
        side = OrderSide(rawValue: wire.side.rawValue) ?? .buy
        type = OrderType(rawValue: wire._type.rawValue) ?? .market
        quantity = wire.quantity
        status = OrderStatus(rawValue: wire.status.rawValue) ?? .new
        filledQuantity = wire.filledQuantity
        fillPrice = try Money.parse(wire.fillPrice, "fillPrice")
        notional = try Money.parse(wire.notional, "notional")
        commission = try Money.parse(wire.commission, "commission")
        realizedPnl = try Money.parse(wire.realizedPnl, "realizedPnl")
        cashDelta = try Money.parse(wire.cashDelta, "cashDelta")
        timeInForce = wire.timeInForce.flatMap { TimeInForce(rawValue: $0.rawValue) }
        limitPrice = try Money.parse(wire.limitPrice, "limitPrice")
        stopPrice = try Money.parse(wire.stopPrice, "stopPrice")
        priceNote = wire.priceNote
        summary = wire.summary
        reason = wire.reason
        createdAt = wire.createdAt
        filledAt = wire.filledAt
    }
}

/// Which orders to list.
public enum OrderFilter: String, Sendable, Hashable, CaseIterable {
    /// Still working.
    case open
    /// Filled, cancelled, expired, rejected or replaced.
    case closed
    /// Every order.
    case all
}

/// What an order would do, computed by the engine that executes orders; nothing changes.
public struct OrderPreview: Sendable, Hashable, Encodable {
    /// A rule the order would break.
    public struct Problem: Sendable, Hashable, Encodable {
        /// The error code placing it would get.
        public var code: String
        /// The rule in a sentence.
        public var message: String
    }
    /// The ticker.
    public var symbol: String
    /// Buy or sell.
    public var side: OrderSide
    /// Shares.
    public var quantity: Decimal
    /// The estimated price a share.
    @DecimalString public var price: Decimal
    /// Shares times price.
    @DecimalString public var notional: Decimal
    /// The fee.
    @DecimalString public var commission: Decimal
    /// A buy's cost or a sell's proceeds, commission included.
    @DecimalString public var total: Decimal
    /// Cash now.
    @DecimalString public var cashBefore: Decimal
    /// Cash after the order.
    @DecimalString public var cashAfter: Decimal
    /// The most shares affordable (a buy) or held (a sell).
    public var maxQuantity: Decimal
    /// Shares held now.
    public var held: Decimal
    /// Whether the exchange is in a session.
    public var marketOpen: Bool
    /// Every rule the order would break; empty when it would go through.
    public var problems: [Problem]
    /// Where the price comes from, in a sentence.
    public var priceNote: String?
    /// What a working order will do, in a sentence.
    public var summary: String?

    init(_ wire: Components.Schemas.OrderPreview) throws {
        symbol = wire.symbol
        side = OrderSide(rawValue: wire.side.rawValue) ?? .buy
        quantity = wire.quantity
        price = try Money.parse(wire.price, "price")
        notional = try Money.parse(wire.notional, "notional")
        commission = try Money.parse(wire.commission, "commission")
        total = try Money.parse(wire.total, "total")
        cashBefore = try Money.parse(wire.cashBefore, "cashBefore")
        cashAfter = try Money.parse(wire.cashAfter, "cashAfter")
        maxQuantity = wire.maxQuantity
        held = wire.held
        marketOpen = wire.marketOpen
        problems = wire.problems.map { Problem(code: $0.code.rawValue, message: $0.message) }
        priceNote = wire.priceNote
        summary = wire.summary
    }
}

/// One entry of a portfolio's journal: a trade, a fee, a dividend, a split.
public struct Activity: Sendable, Hashable, Encodable {
    /// The entry's id.
    public var id: String
    /// `buy`, `sell`, `commission`, `dividend`, `split`, `borrow_fee`, ...
    public var type: String
    /// The ticker, when it concerns one.
    public var symbol: String?
    /// Shares.
    public var quantity: Decimal
    /// The price a share.
    @OptionalDecimalString public var price: Decimal?
    /// How the cash changed.
    @DecimalString public var amount: Decimal
    /// The fee.
    @DecimalString public var commission: Decimal
    /// The profit or loss it realized.
    @OptionalDecimalString public var realizedPnl: Decimal?
    /// The session it belongs to (a replay's date then).
    public var date: String?
    /// When it was written.
    public var createdAt: Date

    init(_ wire: Components.Schemas.Activity) throws {
        id = wire.id
        type = wire._type.rawValue
        symbol = wire.symbol
        quantity = wire.quantity
        price = try Money.parse(wire.price, "price")
        amount = try Money.parse(wire.amount, "amount")
        commission = try Money.parse(wire.commission, "commission")
        realizedPnl = try Money.parse(wire.realizedPnl, "realizedPnl")
        date = wire.date
        createdAt = wire.createdAt
    }
}

/// A page of activities, newest first.
public struct ActivityPage: Sendable, Hashable, Encodable {
    /// The entries.
    public var activities: [Activity]
    /// Pass it back for the next page; nil on the last.
    public var nextCursor: String?
}

/// A company in search results.
public struct AssetSummary: Sendable, Hashable, Encodable {
    /// The ticker.
    public var symbol: String
    /// The company's name.
    public var name: String
    /// Its sector.
    public var sector: String?
    /// The latest price.
    @OptionalDecimalString public var price: Decimal?
    /// The change since the previous close.
    @OptionalDecimalString public var change: Decimal?
    /// ``change`` in percent.
    @OptionalDecimalString public var changePercent: Decimal?
    /// False once its data has ended.
    public var trading: Bool

    init(_ wire: Components.Schemas.AssetSummary) throws {
        symbol = wire.symbol
        name = wire.name
        sector = wire.sector
        price = try Money.parse(wire.price, "price")
        change = try Money.parse(wire.change, "change")
        changePercent = try Money.parse(wire.changePercent, "changePercent")
        trading = wire.trading
    }
}

/// A company's details and price.
public struct Asset: Sendable, Hashable, Encodable {
    /// The ticker.
    public var symbol: String
    /// The company's name.
    public var name: String
    /// Its sector.
    public var sector: String?
    /// Its industry.
    public var industry: String?
    /// Where it trades.
    public var exchange: String?
    /// What it does.
    public var description: String?
    /// The latest price.
    @OptionalDecimalString public var price: Decimal?
    /// The previous session's close.
    @OptionalDecimalString public var previousClose: Decimal?
    /// The change since the previous close.
    @OptionalDecimalString public var change: Decimal?
    /// ``change`` in percent.
    @OptionalDecimalString public var changePercent: Decimal?
    /// The lowest close of the last 52 weeks.
    @OptionalDecimalString public var fiftyTwoWeekLow: Decimal?
    /// The highest close of the last 52 weeks.
    @OptionalDecimalString public var fiftyTwoWeekHigh: Decimal?
    /// The first day of its data.
    public var firstDate: String?
    /// The last day of its data.
    public var lastDate: String?
    /// True on the demo exchange.
    public var simulated: Bool
    /// False once its data has ended.
    public var trading: Bool

    init(_ wire: Components.Schemas.AssetDetail) throws {
        symbol = wire.symbol
        name = wire.name
        sector = wire.sector
        industry = wire.industry
        exchange = wire.exchange
        description = wire.description
        price = try Money.parse(wire.price, "price")
        previousClose = try Money.parse(wire.previousClose, "previousClose")
        change = try Money.parse(wire.change, "change")
        changePercent = try Money.parse(wire.changePercent, "changePercent")
        fiftyTwoWeekLow = try Money.parse(wire.fiftyTwoWeekLow, "fiftyTwoWeekLow")
        fiftyTwoWeekHigh = try Money.parse(wire.fiftyTwoWeekHigh, "fiftyTwoWeekHigh")
        firstDate = wire.firstDate
        lastDate = wire.lastDate
        simulated = wire.simulated
        trading = wire.trading
    }
}

/// The span of a chart.
public enum ChartRange: String, Sendable, Hashable, CaseIterable {
    /// Five sessions.
    case fiveDays = "5D"
    /// One month.
    case oneMonth = "1M"
    /// Three months.
    case threeMonths = "3M"
    /// Six months.
    case sixMonths = "6M"
    /// One year.
    case oneYear = "1Y"
    /// Five years.
    case fiveYears = "5Y"
    /// Everything there is.
    case max = "MAX"
}

/// One bar of a chart.
public struct Bar: Sendable, Hashable, Encodable {
    /// Its session (YYYY-MM-DD), the first of a week's or month's bar.
    public var date: String
    /// The first price.
    @DecimalString public var open: Decimal
    /// The highest price.
    @DecimalString public var high: Decimal
    /// The lowest price.
    @DecimalString public var low: Decimal
    /// The last price.
    @DecimalString public var close: Decimal
    /// Shares traded.
    public var volume: Int

    init(_ wire: Components.Schemas.Bar) throws {
        date = wire.date
        open = try Money.parse(wire.open, "open")
        high = try Money.parse(wire.high, "high")
        low = try Money.parse(wire.low, "low")
        close = try Money.parse(wire.close, "close")
        volume = wire.volume
    }
}

/// A symbol's bars over a range, oldest first.
public struct BarSeries: Sendable, Hashable, Encodable {
    /// The ticker.
    public var symbol: String
    /// The range asked for.
    public var range: String
    /// The bar size: `1d`, `1w` or `1mo`.
    public var interval: String
    /// The bars.
    public var bars: [Bar]
    /// True on the demo exchange.
    public var simulated: Bool
}

/// A symbol's price now.
public struct Quote: Sendable, Hashable, Encodable {
    /// The ticker.
    public var symbol: String
    /// The latest price.
    @DecimalString public var price: Decimal
    /// The previous session's close.
    @OptionalDecimalString public var previousClose: Decimal?
    /// The change since then.
    @OptionalDecimalString public var change: Decimal?
    /// ``change`` in percent.
    @OptionalDecimalString public var changePercent: Decimal?
    /// Shares traded in the session.
    public var volume: Int?
    /// The time of the price.
    public var asOf: Date?
    /// False once its data has ended.
    public var trading: Bool

    init(_ wire: Components.Schemas.Quote) throws {
        symbol = wire.symbol
        price = try Money.parse(wire.price, "price")
        previousClose = try Money.parse(wire.previousClose, "previousClose")
        change = try Money.parse(wire.change, "change")
        changePercent = try Money.parse(wire.changePercent, "changePercent")
        volume = wire.volume
        asOf = wire.asOf
        trading = wire.trading
    }
}

/// Where the prices come from.
public struct MarketStatus: Sendable, Hashable, Encodable {
    /// `pack`, `demo`, a live provider's name, or `none`.
    public var source: String
    /// True on the demo exchange.
    public var simulated: Bool
    /// True when quotes are delayed.
    public var delayed: Bool
    /// A sentence about the source.
    public var description: String
    /// A short label to show next to prices ("demo market, simulated prices").
    public var label: String?
}

/// A replay scenario: a stretch of history worth playing.
public struct Scenario: Sendable, Hashable, Encodable {
    /// Its id, for ``BullpenClient/createReplay(name:start:scenario:startingCash:)``.
    public var id: String
    /// Its name.
    public var name: String
    /// `bubble`, `bull`, `bear`, `crash` or `recovery`.
    public var kind: String
    /// What happened then.
    public var description: String
    /// Its first session.
    public var start: String
    /// Its last session.
    public var end: String
    /// The companies that made it.
    public var symbols: [String]
}

/// What advancing a replay did.
public struct Advance: Sendable, Hashable, Encodable {
    /// The session before.
    public var from: String
    /// The session now.
    public var to: String
    /// Days passed: trading days, or calendar days when `countsEveryDay`.
    public var days: Int
    /// True when the portfolio holds coins, so its clock counts every calendar day.
    public var countsEveryDay: Bool
    /// True when the clock stands on the data's last day.
    public var endOfData: Bool
    /// What happened, in a sentence.
    public var message: String
    /// Equity before.
    @DecimalString public var equityBefore: Decimal
    /// Equity after.
    @DecimalString public var equityAfter: Decimal
    /// The change.
    @DecimalString public var change: Decimal
    /// The change in percent.
    @OptionalDecimalString public var changePercent: Decimal?
    /// The portfolio after.
    public var portfolio: Portfolio

    init(_ wire: Components.Schemas.Advance) throws {
        from = wire.from
        to = wire.to
        days = wire.days
        countsEveryDay = wire.dayCount == .calendar
        endOfData = wire.endOfData
        message = wire.message
        equityBefore = try Money.parse(wire.equityBefore, "equityBefore")
        equityAfter = try Money.parse(wire.equityAfter, "equityAfter")
        change = try Money.parse(wire.change, "change")
        changePercent = try Money.parse(wire.changePercent, "changePercent")
        portfolio = try Portfolio(wire.portfolio)
    }
}

/// A league: players competing with the same cash and rules.
public struct League: Sendable, Hashable, Encodable, Identifiable {
    /// Its id.
    public var id: String
    /// Its name.
    public var name: String
    /// What it is about.
    public var description: String
    /// `public` or `private`.
    public var visibility: String
    /// `upcoming`, `active` or `ended`.
    public var status: String
    /// Its owner's username.
    public var ownerName: String
    /// The cash each member starts with.
    @DecimalString public var startingCash: Decimal
    /// `live`, or `replay` for a league on one shared historical clock.
    public var clockMode: String
    /// A replay league's current session.
    public var date: String?
    /// How many play.
    public var memberCount: Int
    /// Whether the caller plays in it.
    public var isMember: Bool
    /// Whether the caller owns it.
    public var isOwner: Bool
    /// The caller's portfolio in it.
    public var myPortfolioId: String?
    /// The caller's rank.
    public var myRank: Int?
    /// When it starts.
    public var startsAt: Date
    /// When it ends, if it does.
    public var endsAt: Date?

    init(_ wire: Components.Schemas.League) throws {
        id = wire.id
        name = wire.name
        description = wire.description
        visibility = wire.visibility.rawValue
        status = wire.status.rawValue
        ownerName = wire.ownerName
        startingCash = try Money.parse(wire.startingCash, "startingCash")
        clockMode = wire.clock.mode.rawValue
        date = wire.clock.date
        memberCount = wire.memberCount
        isMember = wire.isMember
        isOwner = wire.isOwner
        myPortfolioId = wire.myPortfolioId
        myRank = wire.myRank
        startsAt = wire.startsAt
        endsAt = wire.endsAt
    }
}

/// What a leaderboard ranks by.
public enum LeaderboardMetric: String, Sendable, Hashable, CaseIterable {
    /// Total return.
    case `return`
    /// The Sharpe ratio of daily returns.
    case sharpe
    /// The smallest peak-to-trough fall.
    case drawdown
    /// Return less the S&P 500's.
    case vsBenchmark = "vs_benchmark"
}

/// One line of a leaderboard.
public struct Standing: Sendable, Hashable, Encodable {
    /// The rank; equal figures share one.
    public var rank: Int
    /// The player.
    public var username: String
    /// The portfolio's name.
    public var portfolioName: String?
    /// Equity now.
    @DecimalString public var equity: Decimal
    /// Total return in percent.
    @DecimalString public var totalReturnPercent: Decimal
    /// The change today.
    @DecimalString public var todayChange: Decimal
    /// The annualised Sharpe ratio, after two days.
    @OptionalDecimalString public var sharpe: Decimal?
    /// The largest fall from a peak, in percent.
    @DecimalString public var maxDrawdownPercent: Decimal
    /// Return less the S&P 500's.
    @OptionalDecimalString public var vsBenchmarkPercent: Decimal?
    /// Orders filled.
    public var trades: Int
    /// Whether it is the caller's line.
    public var isMe: Bool

    init(_ wire: Components.Schemas.Standing) throws {
        rank = wire.rank
        username = wire.username
        portfolioName = wire.portfolioName
        equity = try Money.parse(wire.equity, "equity")
        totalReturnPercent = try Money.parse(wire.totalReturnPercent, "totalReturnPercent")
        todayChange = try Money.parse(wire.todayChange, "todayChange")
        sharpe = try Money.parse(wire.sharpe, "sharpe")
        maxDrawdownPercent = try Money.parse(wire.maxDrawdownPercent, "maxDrawdownPercent")
        vsBenchmarkPercent = try Money.parse(wire.vsBenchmarkPercent, "vsBenchmarkPercent")
        trades = wire.trades
        isMe = wire.isMe
    }
}

/// A league's standings.
public struct Leaderboard: Sendable, Hashable, Encodable {
    /// What it ranks by.
    public var metric: String
    /// The session the figures stand on.
    public var asOf: String?
    /// True once the league ended.
    public var final: Bool
    /// How many are ranked.
    public var total: Int
    /// The lines, best first.
    public var standings: [Standing]
    /// The caller's own line, wherever it is.
    public var me: Standing?

    init(_ wire: Components.Schemas.Leaderboard) throws {
        metric = wire.metric.rawValue
        asOf = wire.asOf
        final = wire.final
        total = wire.total
        standings = try wire.standings.map(Standing.init)
        me = try wire.me.map(Standing.init)
    }
}

/// An API key: it lets a bot trade or read one portfolio through the Alpaca-compatible API.
public struct APIKey: Sendable, Hashable, Encodable, Identifiable {
    /// Its record's id (to revoke it).
    public var id: String
    /// The public half, sent as `APCA-API-KEY-ID`.
    public var keyId: String
    /// What it is for.
    public var name: String
    /// `read_only` or `trading`.
    public var scope: String
    /// The portfolio it speaks for.
    public var portfolioId: String
    /// That portfolio's name.
    public var portfolioName: String?
    /// When it was made.
    public var createdAt: Date
    /// When it was last used (to the minute), if ever.
    public var lastUsedAt: Date?
    /// The secret, sent as `APCA-API-SECRET-KEY`: only right after ``BullpenClient/createKey(portfolioID:name:trading:)``.
    public var secret: String?

    init(_ wire: Components.Schemas.APIKey) {
        id = wire.id
        keyId = wire.keyId
        name = wire.name
        scope = wire.scope.rawValue
        portfolioId = wire.portfolioId
        portfolioName = wire.portfolioName
        createdAt = wire.createdAt
        lastUsedAt = wire.lastUsedAt
        secret = wire.secret
    }
}
