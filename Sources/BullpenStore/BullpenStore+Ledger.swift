import BullpenCore
import FluentKit
import FluentSQL
import Foundation

/// The ledger's reads and its one write per batch.
extension BullpenStore {
    /// Rows per multi-row insert: well under SQLite's and PostgreSQL's limits on bound values.
    static let insertChunk = 400

    /// Encodes rows for multi-row inserts: every row has every column, nil as NULL.
    static let batchEncoder = SQLQueryEncoder(keyEncodingStrategy: .convertToSnakeCase, nilEncodingStrategy: .asNil)

    /// A portfolio with its positions as stored, for the ledger's memory; nil if it does not exist.
    func loadLedgerPortfolio(_ id: PortfolioID) async throws -> LedgerPortfolio? {
        try await readTransaction { db in
            guard let row = try await self.sql(db).select().column("*").from("portfolios").where("id", .equal, id.uuid)
                .first(decoding: PortfolioRow.self, with: Self.rowDecoder)
            else { return nil }
            let state = try await self.state(of: row, on: db)
            let now = ContinuousClock.now
            return LedgerPortfolio(record: state.portfolio, book: state.book, realizedPnL: state.realizedPnL,
                                   journalSequence: row.journalSequence,
                                   periodStartedAt: try await self.periodStart(of: row, on: db),
                                   usedAt: now)
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
    /// batch read, then every new row in multi-row inserts.
    /// - Throws: ``BatchConflict`` naming the portfolios another writer moved (nothing is written).
    func write(_ plan: BatchPlan) async throws {
        guard !plan.touched.isEmpty else { return }
        if let batchWriter = try batchWriter() { return try await batchWriter.write(plan) }
        try await writeTransaction { db in try await self.writeRows(plan, on: db) }
    }

    private func writeRows(_ plan: BatchPlan, on db: any Database) async throws {
        let sql = self.sql(db)
        let moved = try await updatePortfolios(plan, on: sql)
        guard moved.isEmpty else { throw BatchConflict(portfolios: moved) }

        try await insert(plan.periods, into: "portfolio_periods", on: sql)
        try await insert(plan.orders, into: "orders", on: sql)
        try await insert(plan.fills, into: "fills", on: sql)
        try await insert(plan.journal, into: "journal_entries", on: sql)
        try await insert(plan.keys, into: "idempotency_keys", on: sql)
        if !plan.resets.isEmpty {
            try await sql.delete(from: "positions").where("portfolio_id", .in, plan.resets.map(\.uuid)).run()
        }
        try await savePositions(plan, on: sql)
    }

    /// Updates every touched portfolio row in one statement, each guarded by the version the
    /// batch read; returns the portfolios whose row had moved (nothing of theirs is written).
    private func updatePortfolios(_ plan: BatchPlan, on sql: any SQLDatabase) async throws -> [PortfolioID] {
        let touched = plan.touched.compactMap { id in
            plan.portfolios[id].flatMap { portfolio in plan.startVersions[id].map { (portfolio, $0) } }
        }
        guard !touched.isEmpty else { return [] }
        func column(_ name: String, _ value: (LedgerPortfolio) -> any Encodable & Sendable) -> SQLQueryString {
            var cases: SQLQueryString = "\(ident: name) = CASE \(ident: "id")"
            for (portfolio, _) in touched { cases += " WHEN \(bind: portfolio.record.id.uuid) THEN \(bind: value(portfolio))" }
            return cases + " END"
        }
        let assignments = [
            column("cash_cents") { $0.book.cash.cents },
            column("realized_pnl_cents") { $0.realizedPnL.cents },
            column("period") { $0.record.period },
            column("version") { $0.record.version },
            column("journal_sequence") { $0.journalSequence },
            column("updated_at") { $0.record.updatedAt },
        ].joined(separator: ", ")
        let guards = touched.map { portfolio, version -> SQLQueryString in
            "(\(ident: "id") = \(bind: portfolio.record.id.uuid) AND \(ident: "version") = \(bind: version))"
        }.joined(separator: " OR ")
        let updated = try await sql.raw("UPDATE \(ident: "portfolios") SET \(assignments) WHERE \(guards) RETURNING \(ident: "id")")
            .all().map { PortfolioID(try $0.decode(column: "id", as: UUID.self)) }
        return Set(touched.map(\.0.record.id)).subtracting(updated).sorted { $0.uuid < $1.uuid }
    }

    /// Multi-row inserts of `rows`, ``insertChunk`` at a time; `upsert` says what a conflict updates.
    private func insert(_ rows: [some Encodable & Sendable], into table: String, on sql: any SQLDatabase,
                        upsert: ((SQLInsertBuilder) -> SQLInsertBuilder)? = nil) async throws {
        var start = 0
        while start < rows.count {
            let chunk = rows[start..<min(rows.count, start + Self.insertChunk)]
            let insert = try sql.insert(into: table).models(Array(chunk), with: Self.batchEncoder)
            try await (upsert?(insert) ?? insert).run()
            start += Self.insertChunk
        }
    }

    /// Each changed position's final state: deleted at zero, inserted or updated otherwise.
    private func savePositions(_ plan: BatchPlan, on sql: any SQLDatabase) async throws {
        let (held, emptied) = plan.positionChanges
        if !emptied.isEmpty {
            try await sql.delete(from: "positions").where(group: { any in
                for (portfolio, symbol) in emptied {
                    any.orWhere(group: { $0.where("portfolio_id", .equal, portfolio).where("symbol", .equal, symbol) })
                }
                return any
            }).run()
        }
        try await insert(held, into: "positions", on: sql) { insert in
            insert.onConflict(with: ["portfolio_id", "symbol"]) { update in
                update.set(excludedValueOf: "quantity").set(excludedValueOf: "cost_basis_cents").set(excludedValueOf: "updated_at")
            }
        }
    }
}
