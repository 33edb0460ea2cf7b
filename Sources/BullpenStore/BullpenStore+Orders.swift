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

    /// The replay day it stands on when the exchange is closed then (a replay holding coins counts
    /// every day) and it is not a coin's order, with the next session; nil otherwise. The calendar
    /// is the one the replay knows: no unscheduled closure after its date (Hurricane Sandy).
    public var closedExchange: (day: SessionDate, opens: SessionDate)? {
        guard case .replay(let date) = clock, request.assetClass != .crypto else { return nil }
        let day = SessionDate(date), calendar = TradingCalendar(closuresKnownThrough: day)
        return calendar.isTradingDay(day) ? nil : (day, calendar.nextTradingDay(after: day))
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
        case .reset, .advanced, .settled, .granted, .ordersChanged: throw StoreError.unavailable
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
                case .reset, .advanced, .settled, .granted, .ordersChanged: .failure(StoreError.unavailable)
                }
            }
        }
    }

    /// The portfolio's orders, newest first, `limit` a page, paged by sequence number: an order
    /// placed between two page requests neither repeats nor hides a row. With `open`, only the
    /// orders still working (true) or only those that ended (false).
    public func orders(of id: PortfolioID, owner: UserID, limit: Int, cursor: String?, open: Bool? = nil) async throws -> ListPage<OrderRecord> {
        _ = try await portfolioRow(id, owner: owner, on: db)
        let query = try sql(db).select().column("*").from("orders").where("portfolio_id", .equal, id.uuid)
        let working = [OrderStatus.new.rawValue, OrderStatus.partiallyFilled.rawValue]
        if let open { query.where("status", open ? .in : .notIn, working) }
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

    /// Every change of the order's status, oldest first. Orders that filled at once have no
    /// stored changes: they were placed and filled in the same moment.
    public func orderEvents(_ order: OrderRecord) async throws -> [OrderEvent] {
        let rows = try await sql(db).select().column("*").from("order_events").where("order_id", .equal, order.id.uuid)
            .orderBy("at").all(decoding: OrderEventRow.self, with: Self.rowDecoder)
        if rows.isEmpty, order.status == .filled, let filledAt = order.filledAt {
            return [OrderEvent(status: .new, at: order.createdAt), OrderEvent(status: .filled, at: filledAt)]
        }
        return try rows.map { try $0.event() }
    }

    // MARK: Working orders

    /// Cancels a working order through the ledger.
    /// - Throws: ``StoreError/orderNotOpen(status:)`` when it is no longer working.
    public func cancelOrder(_ orderID: OrderID, in id: PortfolioID, owner: UserID) async throws -> OrderRecord {
        guard case .ordersChanged(let changed, _) = try await ledger.submit(.cancel(orderID, portfolio: id, owner: owner), store: self),
              let order = changed.first else { throw StoreError.unavailable }
        return order
    }

    /// Replaces a working order with `priced` (a new order linked to it); the old one's hold is
    /// released and the new one's taken in the same batch.
    public func replaceOrder(_ orderID: OrderID, with priced: PricedOrder, in id: PortfolioID,
                             owner: UserID) async throws -> (old: OrderRecord, new: OrderRecord) {
        guard case .ordersChanged(let changed, let replacement?) = try await ledger.submit(
            .replace(orderID, priced, portfolio: id, owner: owner), store: self), let old = changed.first
        else { throw StoreError.unavailable }
        return (old, replacement)
    }

    /// Fills a working order at a live quote (the evaluation decided it); the order as it leaves it
    /// (filled, partly filled, or rejected when the fill broke a rule).
    public func fillWorkingOrder(_ fill: WorkingFill, pricing: FillPricing, in id: PortfolioID,
                                 owner: UserID) async throws -> (order: OrderRecord, book: Book) {
        guard case .executed(let order, let book) = try await ledger.submit(.fill(fill, pricing: pricing, portfolio: id, owner: owner),
                                                                        store: self)
        else { throw StoreError.unavailable }
        return (order, book)
    }

    /// A working order the monitor evaluates: where it is, and whose it is.
    public struct OpenOrder: Sendable {
        public var portfolio: PortfolioID
        public var owner: UserID
        public var order: WorkingOrder
    }

    /// Every order working on the live clock, across portfolios (the monitor's list), read
    /// through the partial index of open orders.
    public func openLiveOrders() async throws -> [OpenOrder] {
        let rows = try await sql(db).select().column(SQLColumn("*", table: "o")).column(SQLColumn("user_id", table: "p"))
            .column(SQLColumn("rules", table: "p"))
            .from(SQLAlias(SQLIdentifier("orders"), as: SQLIdentifier("o")))
            .join(SQLAlias(SQLIdentifier("portfolios"), as: SQLIdentifier("p")), on: SQLColumn("portfolio_id", table: "o"), .equal, SQLColumn("id", table: "p"))
            // Literal statuses, as the partial index `orders_open` names them, so that SQLite uses it.
            .where(SQLRaw(#""o"."status" IN ('new', 'partially_filled')"#))
            .where(SQLColumn("clock", table: "p"), .equal, SQLBind(PortfolioRow.encodeClock(.live)))
            .where(SQLColumn("period", table: "o"), .equal, SQLColumn("period", table: "p"))
            .where(SQLColumn("closed_at", table: "p"), .is, SQLLiteral.null)
            .all()
        return try rows.compactMap { row in
            let order = try row.decode(model: OrderRow.self, with: Self.rowDecoder).record()
            let owner = UserID(try row.decode(column: "user_id", as: UUID.self))
            let text = try row.decode(column: "rules", as: String.self)
            let rules = try StoreError.decoding("portfolios", order.portfolioID.uuid) {
                try JSONDecoder().decode(PortfolioRules.self, from: Data(text.utf8))
            }
            guard let working = order.working(commission: rules.commission) else { return nil }
            return OpenOrder(portfolio: order.portfolioID, owner: owner, order: working)
        }
    }

    /// Submits the monitor's commands together; each answers for itself.
    public func applyWorkingOrderChanges(_ changes: [WorkingOrderChange]) async -> [Result<OrderRecord?, any Error>] {
        let commands = changes.map { change -> LedgerCommand in
            switch change.kind {
            case .fill(let fill, let pricing): .fill(fill, pricing: pricing, portfolio: change.portfolio, owner: change.owner)
            case .expire(let ids): .expireOrders(ids, portfolio: change.portfolio, owner: change.owner)
            case .track(let order): .track(order, portfolio: change.portfolio, owner: change.owner)
            }
        }
        return await ledger.submit(commands, store: self).map { result in
            result.map { outcome in
                switch outcome {
                case .executed(let order, _): order
                case .ordersChanged(let orders, _): orders.first
                default: nil
                }
            }
        }
    }
}

/// A change the working-order monitor asks the ledger for.
public struct WorkingOrderChange: Sendable {
    public enum Kind: Sendable {
        case fill(WorkingFill, FillPricing)
        case expire([OrderID])
        case track(WorkingOrder)
    }

    public var portfolio: PortfolioID
    public var owner: UserID
    public var kind: Kind

    public init(portfolio: PortfolioID, owner: UserID, kind: Kind) {
        self.portfolio = portfolio
        self.owner = owner
        self.kind = kind
    }
}

// MARK: Margin

extension BullpenStore {
    /// The live portfolios whose rules allow short selling (the closing job's margin checks).
    public func liveMarginPortfolios() async throws -> [(portfolio: PortfolioID, owner: UserID)] {
        try await sql(db).select().column("id").column("user_id").from("portfolios")
            .where("clock", .equal, SQLBind(PortfolioRow.encodeClock(.live)))
            .where("closed_at", .is, SQLLiteral.null)
            .where("rules", .like, SQLBind(#"%"margin":{%"#))
            .all().map { row in
                (PortfolioID(try row.decode(column: "id", as: UUID.self)), UserID(try row.decode(column: "user_id", as: UUID.self)))
            }
    }

    /// Applies a live session's close under the margin rule (fee, call, its end, buy-back), if the
    /// portfolio still stands at `version`.
    /// - Throws: ``StoreError/portfolioChanged`` when it moved: decide again.
    public func closeMarginSession(_ actions: [Margin.CloseAction], session: SessionDate, version: Int64, in id: PortfolioID,
                                   owner: UserID) async throws {
        _ = try await ledger.submit(.marginClose(actions, session: session, version: version, portfolio: id, owner: owner), store: self)
    }
}

// MARK: Splits and dividends

/// A split or a dividend with the price of its ex-date (for a split's fraction paid in cash).
public struct CorporateActionAt: Sendable {
    public var action: CorporateAction
    public var price: Price?
    /// The part of the position held when the ex-date's session opened (nil: all of it).
    public var entitled: Quantity?
    public init(action: CorporateAction, price: Price?, entitled: Quantity? = nil) {
        self.action = action; self.price = price; self.entitled = entitled
    }
}

extension BullpenStore {
    /// The live portfolios holding, or with working orders for, any of `symbols`.
    public func liveHolders(of symbols: [Symbol]) async throws -> [(portfolio: PortfolioID, owner: UserID)] {
        guard !symbols.isEmpty else { return [] }
        let names = symbols.map(\.rawValue)
        let rows = try await sql(db).raw("""
            SELECT DISTINCT "p"."id", "p"."user_id" FROM "portfolios" AS "p"
            WHERE "p"."clock" = \(bind: PortfolioRow.encodeClock(.live)) AND "p"."closed_at" IS NULL AND (
                EXISTS (SELECT 1 FROM "positions" AS "x" WHERE "x"."portfolio_id" = "p"."id" AND "x"."symbol" IN (\(binds: names)))
                OR EXISTS (SELECT 1 FROM "orders" AS "o" WHERE "o"."portfolio_id" = "p"."id" AND "o"."symbol" IN (\(binds: names))
                           AND "o"."status" IN ('new', 'partially_filled')))
            """).all()
        return try rows.map { row in
            (PortfolioID(try row.decode(column: "id", as: UUID.self)), UserID(try row.decode(column: "user_id", as: UUID.self)))
        }
    }

    /// Applies splits and dividends to a live portfolio, if it still stands at `version`.
    public func applyCorporateActions(_ actions: [CorporateActionAt], version: Int64, in id: PortfolioID, owner: UserID) async throws {
        _ = try await ledger.submit(.corporate(actions, version: version, portfolio: id, owner: owner), store: self)
    }
}
