import BullpenCore
import FluentKit
import FluentSQL
import Foundation

/// An order with the price it is to fill at, as the market data gave it.
public struct PricedOrder: Sendable {
    public var request: OrderRequest
    public var price: Price
    public var pricing: FillPricing
    /// Whether the symbol trades on the portfolio's date (false once its data has ended).
    public var trading: Bool
    /// The clock it was priced at: the order executes only if the portfolio still stands there.
    public var clock: PortfolioClock
    /// The prices of the portfolio's other holdings when it was priced, for the rules that value
    /// the whole portfolio (a position's share of equity); empty when its rules do not ask.
    public var marks: [Symbol: Price]
    /// How the price was found when a sentence of `pricing` does not say it all (an option's
    /// model inputs).
    public var note: String?
    /// For an option contract: whether the chain lists it at the clock (see ``OrderContext/listed``).
    public var listed = true

    public init(request: OrderRequest, price: Price, pricing: FillPricing, trading: Bool, clock: PortfolioClock = .live,
                marks: [Symbol: Price] = [:]) {
        self.request = request
        self.price = price
        self.pricing = pricing
        self.trading = trading
        self.clock = clock
        self.marks = marks
    }

    /// What the rules are checked against when the ledger executes it at `now`.
    func context(now: Date) -> OrderContext {
        var live = false
        if case .live = clock { live = true }
        return OrderContext(trading: trading, now: now, marketOpen: live ? pricing.marketOpen : nil, marks: marks, listed: listed)
    }
}

extension BullpenStore {
    /// What became of an order request.
    public enum OrderOutcome: Sendable {
        /// Executed now; the book is the portfolio's after the fill.
        case executed(OrderRecord, Book)
        /// The idempotency key was seen before with the same request: the order it placed.
        case replayed(OrderRecord)
        /// The idempotency key was seen before, by a version of Bullpen that kept the response
        /// itself: that response.
        case remembered(IdempotentResult)
    }

    /// Executes a market order through the ledger: it is validated and executed once, against
    /// the portfolio's current state, and written (the order, its fill, the journal entry, the
    /// position, the cash and the idempotency record) in the ledger's next batch transaction.
    /// It returns only once that transaction committed.
    ///
    /// - Throws: ``OrderRejection`` for rule breaks; ``StoreError`` for unknown portfolios,
    ///   duplicate client order ids and reused idempotency keys.
    public func placeOrder(_ order: PricedOrder, in id: PortfolioID, owner: UserID,
                           idempotency: IdempotencyClaim?) async throws -> OrderOutcome {
        switch try await ledger.submit(.order(order, portfolio: id, owner: owner, idempotency: idempotency), store: self) {
        case .executed(let order, let book): .executed(order, book)
        case .replayed(let order): .replayed(order)
        case .remembered(let result): .remembered(result)
        case .reset, .advanced, .settled, .granted: throw StoreError.unavailable
        }
    }

    /// Executes several orders of one portfolio together: they go in one batch, in this order,
    /// and each succeeds or fails on its own (a replay's starting stocks).
    public func placeOrders(_ orders: [PricedOrder], in id: PortfolioID, owner: UserID) async -> [Result<OrderOutcome, any Error>] {
        let commands = orders.map { LedgerCommand.order($0, portfolio: id, owner: owner, idempotency: nil) }
        return await ledger.submit(commands, store: self).map { result in
            result.flatMap { outcome in
                switch outcome {
                case .executed(let order, let book): .success(.executed(order, book))
                case .replayed(let order): .success(.replayed(order))
                case .remembered(let result): .success(.remembered(result))
                case .reset, .advanced, .settled, .granted: .failure(StoreError.unavailable)
                }
            }
        }
    }

    /// The portfolio's orders, newest first, `limit` a page, paged by sequence number: an order
    /// placed between two page requests neither repeats nor hides a row.
    public func orders(of id: PortfolioID, owner: UserID, limit: Int, cursor: String?) async throws -> ListPage<OrderRecord> {
        _ = try await portfolioRow(id, owner: owner, on: db)
        let query = try sql(db).select().column("*").from("orders").where("portfolio_id", .equal, id.uuid)
        if let cursor { query.where("sequence", .lessThan, try PageCursor.position(cursor)) }
        let rows = try await query.orderBy("sequence", .descending).limit(limit + 1)
            .all(decoding: OrderRow.self, with: Self.rowDecoder)
        let items = try rows.prefix(limit).map { try $0.record() }
        return ListPage(items: items, nextCursor: rows.count > limit ? items.last.map { PageCursor.encode(Int($0.sequence)) } : nil)
    }

    /// One order of the portfolio.
    public func order(_ orderID: OrderID, in id: PortfolioID, owner: UserID) async throws -> OrderRecord {
        _ = try await portfolioRow(id, owner: owner, on: db)
        guard let row = try await sql(db).select().column("*").from("orders")
            .where("id", .equal, orderID.uuid).where("portfolio_id", .equal, id.uuid)
            .first(decoding: OrderRow.self, with: Self.rowDecoder)
        else { throw StoreError.notFound("Order") }
        return try row.record()
    }
}
