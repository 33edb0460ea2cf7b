import BullpenCore
import FluentKit
import FluentSQL
import Foundation

/// The ledger's reads and its one write per batch.
extension BullpenStore {
    /// A portfolio with its positions as stored, for the ledger's memory; nil if it does not exist.
    func loadLedgerPortfolio(_ id: PortfolioID) async throws -> LedgerPortfolio? {
        try await readTransaction { db in
            guard let row = try await self.sql(db).select().column("*").from("portfolios").where("id", .equal, id.uuid)
                .first(decoding: PortfolioRow.self, with: Self.rowDecoder)
            else { return nil }
            let state = try await self.state(of: row, on: db)
            let now = ContinuousClock.now
            let open = try await self.sql(db).select().column("*").from("orders").where("portfolio_id", .equal, id.uuid)
                .where("period", .equal, row.period)
                .where(SQLRaw(#""status" IN ('new', 'partially_filled')"#))
                .orderBy("sequence").all(decoding: OrderRow.self, with: Self.rowDecoder).map { try $0.record() }
            var portfolio = LedgerPortfolio(record: state.portfolio, book: state.book, realizedPnL: state.realizedPnL,
                                            journalSequence: row.journalSequence,
                                            periodStartedAt: try await self.periodStart(of: row, on: db),
                                            usedAt: now, open: open)
            portfolio.refreshHolds()
            return portfolio
        }
    }

    /// The portfolio's version as stored; nil if it does not exist.
    func portfolioVersion(_ id: PortfolioID) async throws -> Int64? {
        try await sql(db).select().column("version").from("portfolios").where("id", .equal, id.uuid).first()?
            .decode(column: "version", as: Int64.self)
    }

    /// The ids of the owner's portfolios, oldest first.
    func portfolioIDs(owner: UserID) async throws -> [PortfolioID] {
        try await sql(db).select().column("id").from("portfolios").where("user_id", .equal, owner.uuid)
            .orderBy("created_at").orderBy("name_key").all()
            .map { PortfolioID(try $0.decode(column: "id", as: UUID.self)) }
    }

    /// The current period's entries that may belong to `session`, as stored.
    func sessionJournal(of portfolio: PortfolioRecord, session: SessionDate,
                        calendar: TradingCalendar = TradingCalendar()) async throws -> [JournalEntry] {
        let previousClose = calendar.sessionBounds(on: calendar.previousTradingDay(before: session))?.close ?? session.date
        return try await sql(db).select().column("*").from("journal_entries")
            .where("portfolio_id", .equal, portfolio.id.uuid).where("period", .equal, portfolio.period)
            .where(group: { dated in
                dated.where("price_as_of", .greaterThanOrEqual, session.date)
                    .orWhere(group: { undated in
                        undated.where("price_as_of", .is, SQLLiteral.null).where("created_at", .greaterThan, previousClose)
                    })
            })
            .orderBy("sequence").all(decoding: JournalRow.self, with: Self.rowDecoder).map { try $0.entry() }
    }

    /// The idempotency keys and client order ids of `commands` seen before, with the orders the keys stand for.
    func batchLookups(for commands: [LedgerCommand]) async throws -> BatchLookups {
        var claims: [(user: UUID, key: String)] = [], clientOrders: [(portfolio: UUID, id: String)] = []
        for case .order(let priced, let portfolio, let owner, let claim) in commands {
            if let claim { claims.append((owner.uuid, claim.key)) }
            if let id = priced.request.clientOrderID { clientOrders.append((portfolio.uuid, id)) }
        }
        var lookups = BatchLookups()
        let sql = try self.sql(db)
        if !claims.isEmpty {
            let rows = try await sql.select().column("*").from("idempotency_keys")
                .where("key", .in, Set(claims.map(\.key)).sorted()).where("user_id", .in, Set(claims.map(\.user)).sorted())
                .all(decoding: IdempotencyRow.self, with: Self.rowDecoder)
            for row in rows { lookups.keys[.init(user: row.userId, key: row.key)] = row }
            let orderIDs = rows.compactMap(\.orderId)
            if !orderIDs.isEmpty {
                for row in try await sql.select().column("*").from("orders").where("id", .in, orderIDs)
                    .all(decoding: OrderRow.self, with: Self.rowDecoder) {
                    lookups.orders[row.id] = try row.record()
                }
            }
        }
        if !clientOrders.isEmpty {
            let rows = try await sql.select().column("portfolio_id").column("client_order_id").from("orders")
                .where("client_order_id", .in, Set(clientOrders.map(\.id)).sorted())
                .where("portfolio_id", .in, Set(clientOrders.map(\.portfolio)).sorted()).all()
            for row in rows {
                lookups.clientOrderIDs.insert(.init(portfolio: try row.decode(column: "portfolio_id", as: UUID.self),
                                                    clientOrderID: try row.decode(column: "client_order_id", as: String.self)))
            }
        }
        return lookups
    }

    /// Writes a batch in one durable transaction: each portfolio row guarded by the version the
    /// batch read, then every new row (see ``SQLiteBatchWriter`` and ``PostgresBatchWriter``).
    /// - Throws: ``BatchConflict`` naming the portfolios another writer moved (nothing is written).
    func write(_ plan: BatchPlan) async throws {
        guard !plan.touched.isEmpty else { return }
        try await batchWriter().write(plan)
    }
}
