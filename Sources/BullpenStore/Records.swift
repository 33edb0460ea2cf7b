import BullpenCore
import Foundation

/// A stored account.
public struct UserRecord: Sendable, Hashable {
    public var id: UserID
    public var username: String
    public var passwordHash: String
    public var createdAt: Date
}

/// A stored portfolio with its current book.
public struct PortfolioRecord: Sendable, Hashable {
    public var id: PortfolioID
    public var ownerID: UserID
    public var name: String
    public var startingCash: Money
    public var cash: Money
    public var period: Int
    public var clock: PortfolioClock
    public var rules: PortfolioRules
    public var createdAt: Date
    public var updatedAt: Date
}

/// A portfolio's book with the realized P&L of its current period: all a valuation needs.
public struct PortfolioState: Sendable, Hashable {
    public var portfolio: PortfolioRecord
    public var book: Book
    public var realizedPnL: Money
}

/// A stored order and how it was filled.
public struct OrderRecord: Sendable, Hashable {
    public enum Status: String, Sendable { case filled }

    public var id: OrderID
    public var portfolioID: PortfolioID
    public var period: Int
    public var clientOrderID: String?
    public var symbol: Symbol
    public var side: OrderSide
    public var type: OrderType
    public var quantity: Int64
    public var status: Status
    public var filledQuantity: Int64
    public var fillPrice: Price?
    public var notional: Money
    public var commission: Money
    public var realizedPnL: Money
    public var cashDelta: Money
    public var createdAt: Date
    public var filledAt: Date?
}

/// A response remembered for an idempotency key.
public struct StoredResponse: Sendable, Hashable {
    public var status: Int
    public var body: String

    public init(status: Int, body: String) {
        self.status = status
        self.body = body
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
public struct Page<Item: Sendable>: Sendable {
    public var items: [Item]
    public var nextCursor: String?
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
}
