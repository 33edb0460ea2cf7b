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

    public init(request: OrderRequest, price: Price, pricing: FillPricing, trading: Bool) {
        self.request = request
        self.price = price
        self.pricing = pricing
        self.trading = trading
    }
}

extension BullpenStore {
    /// What became of an order request.
    public enum OrderOutcome: Sendable {
        /// Executed now; the book is the portfolio's after the fill.
        case executed(OrderRecord, Book)
        /// The idempotency key was seen before with the same request: what was remembered then.
        case replayed(IdempotentResult)
    }

    /// The result remembered for `claim`, if this user used its key before.
    /// - Throws: ``StoreError/idempotencyKeyReused`` when the key came with a different request.
    public func rememberedResult(for claim: IdempotencyClaim, user: UserID) async throws -> IdempotentResult? {
        try await rememberedResult(for: claim, user: user, on: db)
    }

    func rememberedResult(for claim: IdempotencyClaim, user: UserID, on db: any Database) async throws -> IdempotentResult? {
        guard let row = try await sql(db).select().column("*").from("idempotency_keys")
            .where("user_id", .equal, user.uuid).where("key", .equal, claim.key)
            .first(decoding: IdempotencyRow.self, with: Self.rowDecoder)
        else { return nil }
        guard row.requestHash == claim.requestHash else { throw StoreError.idempotencyKeyReused }
        return IdempotentResult(outcome: row.statusCode, payload: row.responseBody)
    }

    /// Executes a market order in one transaction: the order, its fill, the journal entry, the
    /// position, the cash, and the idempotency record with `remember(order)`.
    ///
    /// The portfolio row's version guards the change: if another order changed the portfolio
    /// after this one read it, this one starts over on the new state, so cash never goes below
    /// zero and no more shares are sold than held, whatever the concurrency.
    ///
    /// - Throws: ``OrderRejection`` for rule breaks; ``StoreError`` for unknown portfolios,
    ///   duplicate client order ids and reused idempotency keys.
    public func placeOrder(_ order: PricedOrder, in id: PortfolioID, owner: UserID, idempotency: IdempotencyClaim?,
                           remember: @escaping @Sendable (OrderRecord) throws -> IdempotentResult) async throws -> OrderOutcome {
        try await portfolioLocks.withLock(writeLockKey(for: id)) {
            try await self.transaction(retryConstraintFailures: true) { db in
                try await self.placeOrderOnce(order, in: id, owner: owner, idempotency: idempotency,
                                              remember: remember, on: db)
            }
        }
    }

    private func placeOrderOnce(_ priced: PricedOrder, in id: PortfolioID, owner: UserID,
                                idempotency: IdempotencyClaim?,
                                remember: @Sendable (OrderRecord) throws -> IdempotentResult,
                                on db: any Database) async throws -> OrderOutcome {
        let sql = self.sql(db)
        let request = priced.request
        if let idempotency, let stored = try await rememberedResult(for: idempotency, user: owner, on: db) {
            return .replayed(stored)
        }
        let row = try await portfolioRow(id, owner: owner, on: db)
        if let clientOrderID = request.clientOrderID {
            let existing = try await sql.select().column("id").from("orders")
                .where("portfolio_id", .equal, row.id).where("client_order_id", .equal, clientOrderID).first()
            if existing != nil { throw StoreError.duplicateClientOrderID(clientOrderID) }
        }
        let state = try await self.state(of: row, on: db)
        let (fill, book) = try TradingEngine.execute(request, on: state.book, at: priced.price,
                                                     rules: state.portfolio.rules, trading: priced.trading)

        let now = time.now()
        let orderID = OrderID(ids.makeUUID()), fillID = FillID(ids.makeUUID())
        let sequence = row.journalSequence + 1
        let pricing = priced.pricing
        let order = OrderRow(
            id: orderID.uuid, portfolioId: row.id, period: row.period, sequence: sequence,
            clientOrderId: request.clientOrderID, symbol: request.symbol.rawValue, side: request.side.rawValue,
            type: request.type.rawValue, quantity: request.quantity, status: OrderRecord.Status.filled.rawValue,
            filledQuantity: fill.quantity, fillPriceTicks: fill.price.ticks, priceSource: pricing.source.rawValue,
            priceAsOf: pricing.asOf, marketOpen: pricing.marketOpen, notionalCents: fill.notional.cents,
            commissionCents: fill.commission.cents, realizedPnlCents: fill.realizedPnL.cents,
            cashDeltaCents: fill.cashDelta.cents, createdAt: now, filledAt: now)
        let fillRow = FillRow(
            id: fillID.uuid, orderId: orderID.uuid, portfolioId: row.id, period: row.period, symbol: fill.symbol.rawValue,
            side: fill.side.rawValue, quantity: fill.quantity, priceTicks: fill.price.ticks,
            priceSource: pricing.source.rawValue, priceAsOf: pricing.asOf, marketOpen: pricing.marketOpen,
            notionalCents: fill.notional.cents, commissionCents: fill.commission.cents,
            realizedPnlCents: fill.realizedPnL.cents, createdAt: now)
        let entry = JournalEntry(
            id: JournalEntryID(ids.makeUUID()), portfolioID: id, period: row.period, sequence: sequence, kind: .trade,
            symbol: fill.symbol, side: fill.side, quantityDelta: fill.quantityDelta, price: fill.price,
            cashDelta: fill.cashDelta, commission: fill.commission, realizedPnL: fill.realizedPnL,
            orderID: orderID, fillID: fillID, priceAsOf: pricing.asOf, createdAt: now)

        try await sql.insert(into: "orders").model(order, with: Self.rowEncoder).run()
        try await sql.insert(into: "fills").model(fillRow, with: Self.rowEncoder).run()
        try await sql.insert(into: "journal_entries").model(JournalRow(entry), with: Self.rowEncoder).run()
        try await savePosition(book.positions[fill.symbol] ?? Position(symbol: fill.symbol), in: row.id, now: now, on: db)

        let updated = try await sql.update("portfolios")
            .set("cash_cents", to: book.cash.cents)
            .set("realized_pnl_cents", to: row.realizedPnlCents + fill.realizedPnL.cents)
            .set("version", to: row.version + 1)
            .set("journal_sequence", to: sequence).set("updated_at", to: now)
            .where("id", .equal, row.id).where("version", .equal, row.version)
            .returning("id").all()
        guard !updated.isEmpty else { throw VersionConflict() }

        let record = try order.record()
        if let idempotency {
            let result = try remember(record)
            let key = IdempotencyRow(id: ids.makeUUID(), userId: owner.uuid, key: idempotency.key,
                                     requestHash: idempotency.requestHash, statusCode: result.outcome,
                                     responseBody: result.payload, createdAt: now)
            try await sql.insert(into: "idempotency_keys").model(key, with: Self.rowEncoder).run()
        }
        return .executed(record, book)
    }

    /// Writes a position's new state: updated, inserted, or deleted when it reaches zero.
    private func savePosition(_ position: Position, in portfolio: UUID, now: Date, on db: any Database) async throws {
        let sql = self.sql(db)
        if position.quantity == 0 {
            try await sql.delete(from: "positions").where("portfolio_id", .equal, portfolio)
                .where("symbol", .equal, position.symbol.rawValue).run()
            return
        }
        let changed = try await sql.update("positions")
            .set("quantity", to: position.quantity).set("cost_basis_cents", to: position.costBasis.cents)
            .set("updated_at", to: now)
            .where("portfolio_id", .equal, portfolio).where("symbol", .equal, position.symbol.rawValue)
            .returning("id").all()
        if changed.isEmpty {
            let row = PositionRow(id: ids.makeUUID(), portfolioId: portfolio, symbol: position.symbol.rawValue,
                                  quantity: position.quantity, costBasisCents: position.costBasis.cents, updatedAt: now)
            try await sql.insert(into: "positions").model(row, with: Self.rowEncoder).run()
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
