import Foundation

/// A stored account.
public struct UserRecord: Sendable, Hashable {
    public var id: UserID
    public var username: String
    public var passwordHash: String
    public var createdAt: Date

    public init(id: UserID, username: String, passwordHash: String, createdAt: Date) {
        self.id = id
        self.username = username
        self.passwordHash = passwordHash
        self.createdAt = createdAt
    }
}

/// A stored portfolio with its current cash.
public struct PortfolioRecord: Sendable, Hashable {
    public var id: PortfolioID
    public var ownerID: UserID
    public var name: String
    public var startingCash: Money
    public var cash: Money
    public var period: Int
    /// Moves on every change of cash or positions; a change made on a stale version is refused.
    public var version: Int64
    public var clock: PortfolioClock
    /// How a replay began and whether it ended; nil for live portfolios.
    public var replay: ReplayInfo?
    public var rules: PortfolioRules
    public var createdAt: Date
    public var updatedAt: Date
    /// The league this portfolio plays in; nil for a player's own portfolios.
    public var leagueID: LeagueID?
    /// Set when the portfolio was closed (its player left the league): read-only from then on.
    public var closedAt: Date?
    /// Who sees it on its owner's profile and in followers' feeds.
    public var visibility: PortfolioVisibility

    public init(id: PortfolioID, ownerID: UserID, name: String, startingCash: Money, cash: Money, period: Int,
                version: Int64, clock: PortfolioClock, replay: ReplayInfo? = nil, rules: PortfolioRules,
                createdAt: Date, updatedAt: Date, leagueID: LeagueID? = nil, closedAt: Date? = nil,
                visibility: PortfolioVisibility = .private) {
        self.visibility = visibility
        self.leagueID = leagueID
        self.closedAt = closedAt
        self.id = id
        self.ownerID = ownerID
        self.name = name
        self.startingCash = startingCash
        self.cash = cash
        self.period = period
        self.version = version
        self.clock = clock
        self.replay = replay
        self.rules = rules
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// A portfolio's book with the realized P&L of its current period: all a valuation needs.
public struct PortfolioState: Sendable, Hashable {
    public var portfolio: PortfolioRecord
    public var book: Book
    public var realizedPnL: Money
    /// The orders still working, oldest first (their holds are in `book`).
    public var working: [WorkingOrder] = []

    public init(portfolio: PortfolioRecord, book: Book, realizedPnL: Money) {
        self.portfolio = portfolio
        self.book = book
        self.realizedPnL = realizedPnL
    }
}

/// A stored order and how it was filled.
public struct OrderRecord: Sendable, Hashable {
    public typealias Status = OrderStatus

    public var id: OrderID
    public var portfolioID: PortfolioID
    public var period: Int
    /// The portfolio's sequence number when the order was placed: orders page by it.
    public var sequence: Int64
    public var clientOrderID: String?
    public var symbol: Symbol
    public var side: OrderSide
    public var type: OrderType
    public var quantity: Quantity
    public var status: Status
    public var filledQuantity: Quantity
    public var fillPrice: Price?
    /// Where the fill price came from; nil for orders filled before this was recorded.
    public var pricing: FillPricing?
    public var notional: Money
    public var commission: Money
    public var realizedPnL: Money
    public var cashDelta: Money
    public var createdAt: Date
    public var filledAt: Date?
    /// The order's prices and time in force (a market order of the day for orders before them).
    public var terms: OrderTerms = .market
    /// A trailing stop's best price so far.
    public var waterMark: Price?
    /// A stop-limit whose stop was reached.
    public var triggered = false
    /// The session it was placed on, the last it works in, and when a good-'til-cancelled one expires.
    public var placedOn: SessionDate?
    public var lastSession: SessionDate?
    public var expiresAt: Date?
    /// The per-share price a working buy holds cash at.
    public var holdPrice: Price?
    /// The order this one replaced, and the one that replaced it.
    public var replacesID: OrderID?
    public var replacedByID: OrderID?
    /// The last change of status.
    public var updatedAt: Date?
    /// Why it was cancelled, rejected or expired, in words.
    public var reason: String?
    /// How its last fill was priced, in words (working orders).
    public var fillNote: String?

    /// The order as the evaluation sees it, while it works.
    public func working(commission: Commission) -> WorkingOrder? {
        guard status.isOpen else { return nil }
        return WorkingOrder(id: id, symbol: symbol, side: side, quantity: quantity, filledQuantity: filledQuantity, terms: terms,
                            waterMark: waterMark, triggered: triggered, placedOn: placedOn ?? SessionDate(createdAt),
                            placedAt: createdAt, lastSession: lastSession, expiresAt: expiresAt, holdPrice: holdPrice,
                            commission: commission)
    }

    public init(id: OrderID, portfolioID: PortfolioID, period: Int, sequence: Int64, clientOrderID: String?,
                symbol: Symbol, side: OrderSide, type: OrderType, quantity: Quantity, status: Status,
                filledQuantity: Quantity, fillPrice: Price?, pricing: FillPricing?, notional: Money, commission: Money,
                realizedPnL: Money, cashDelta: Money, createdAt: Date, filledAt: Date?) {
        self.id = id
        self.portfolioID = portfolioID
        self.period = period
        self.sequence = sequence
        self.clientOrderID = clientOrderID
        self.symbol = symbol
        self.side = side
        self.type = type
        self.quantity = quantity
        self.status = status
        self.filledQuantity = filledQuantity
        self.fillPrice = fillPrice
        self.pricing = pricing
        self.notional = notional
        self.commission = commission
        self.realizedPnL = realizedPnL
        self.cashDelta = cashDelta
        self.createdAt = createdAt
        self.filledAt = filledAt
    }
}

/// What a repeated request with the same idempotency key gets back: opaque to the store, which
/// keeps it beside the key; the server decides what `outcome` and `payload` mean.
public struct IdempotentResult: Sendable, Hashable {
    public var outcome: Int
    public var payload: String

    public init(outcome: Int, payload: String) {
        self.outcome = outcome
        self.payload = payload
    }
}

/// The idempotency key of a request and the hash of what was asked.
public struct IdempotencyClaim: Sendable, Hashable {
    public var key: String
    public var requestHash: String

    public init(key: String, requestHash: String) {
        self.key = key
        self.requestHash = requestHash
    }
}

/// One page of a list, newest first, with the cursor of the next page.
public struct ListPage<Item: Sendable>: Sendable {
    public var items: [Item]
    public var nextCursor: String?

    public init(items: [Item], nextCursor: String?) {
        self.items = items
        self.nextCursor = nextCursor
    }
}

/// A closed period of a portfolio, kept when it is reset.
public struct PeriodRecord: Sendable, Hashable {
    public var period: Int
    public var startingCash: Money
    public var endingCash: Money
    public var endingEquity: Money
    public var realizedPnL: Money
    public var startedAt: Date
    public var endedAt: Date

    public init(period: Int, startingCash: Money, endingCash: Money, endingEquity: Money, realizedPnL: Money,
                startedAt: Date, endedAt: Date) {
        self.period = period
        self.startingCash = startingCash
        self.endingCash = endingCash
        self.endingEquity = endingEquity
        self.realizedPnL = realizedPnL
        self.startedAt = startedAt
        self.endedAt = endedAt
    }
}

/// The current period of a portfolio: when it began, its starting cash and its journal, oldest first.
public struct PeriodJournal: Sendable {
    public var startedAt: Date
    public var startingCash: Money
    public var journal: [JournalEntry]

    public init(startedAt: Date, startingCash: Money, journal: [JournalEntry]) {
        self.startedAt = startedAt
        self.startingCash = startingCash
        self.journal = journal
    }
}

/// A named list of symbols a player follows.
public struct WatchlistRecord: Sendable, Hashable {
    public var id: UUID
    public var name: String
    public var symbols: [Symbol]
    public var createdAt: Date

    public init(id: UUID, name: String, symbols: [Symbol], createdAt: Date) {
        self.id = id
        self.name = name
        self.symbols = symbols
        self.createdAt = createdAt
    }
}

/// One change of an order's status, with when and why.
public struct OrderEvent: Sendable, Hashable {
    public var status: OrderStatus
    public var at: Date
    public var note: String?

    public init(status: OrderStatus, at: Date, note: String? = nil) {
        self.status = status
        self.at = at
        self.note = note
    }
}

/// What an API key may do: read its portfolio, or trade in it too.
public enum APIKeyScope: String, Sendable, Hashable, Codable, CaseIterable {
    case readOnly = "read_only"
    case trading
}

/// An API key: it speaks for one portfolio of its owner (bots use it in place of a login).
public struct APIKeyRecord: Sendable, Hashable {
    public var id: UUID
    public var ownerID: UserID
    public var portfolioID: PortfolioID
    /// The public half, sent as `APCA-API-KEY-ID`.
    public var keyID: String
    public var name: String
    public var scope: APIKeyScope
    public var createdAt: Date
    public var lastUsedAt: Date?

    public init(id: UUID, ownerID: UserID, portfolioID: PortfolioID, keyID: String, name: String, scope: APIKeyScope,
                createdAt: Date, lastUsedAt: Date?) {
        self.id = id
        self.ownerID = ownerID
        self.portfolioID = portfolioID
        self.keyID = keyID
        self.name = name
        self.scope = scope
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }
}
