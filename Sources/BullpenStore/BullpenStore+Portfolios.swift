import BullpenCore
import FluentKit
import FluentSQL
import Foundation

extension BullpenStore {
    func newPortfolioRow(owner: UUID, name: String, startingCash: Money, rules: PortfolioRules,
                         replay: ReplayInfo? = nil, now: Date) throws -> PortfolioRow {
        PortfolioRow(id: ids.makeUUID(), userId: owner, name: name, nameKey: name.lowercased(),
                     startingCashCents: startingCash.cents, cashCents: startingCash.cents, realizedPnlCents: 0,
                     period: 1, version: 1, journalSequence: 0,
                     clock: PortfolioRow.encodeClock(replay.map { .replay($0.start.date) } ?? .live),
                     rules: try PortfolioRow.encodeRules(rules), createdAt: now, updatedAt: now,
                     replay: try PortfolioRow.encodeReplay(replay))
    }

    /// Creates a portfolio: live, or with `replay` a replay standing on its start date. Names are
    /// unique per owner, ignoring case.
    /// - Throws: ``StoreError/portfolioNameTaken``, ``StoreError/tooManyPortfolios(limit:)``.
    public func createPortfolio(owner: UserID, name: String, startingCash: Money,
                                rules: PortfolioRules = .default, replay: ReplayInfo? = nil) async throws -> PortfolioRecord {
        let row = try newPortfolioRow(owner: owner.uuid, name: name, startingCash: startingCash, rules: rules,
                                      replay: replay, now: time.now())
        do {
            try await transaction { db in
                let count = try await self.sql(db).select().column(SQLFunction("COUNT", args: SQLLiteral.all), as: "n")
                    .from("portfolios").where("user_id", .equal, owner.uuid).first()?.decode(column: "n", as: Int.self) ?? 0
                guard count < Self.maxPortfoliosPerUser else { throw StoreError.tooManyPortfolios(limit: Self.maxPortfoliosPerUser) }
                try await self.sql(db).insert(into: "portfolios").model(row, with: Self.rowEncoder).run()
                try await self.markStandings([row.id], on: db)
            }
        } catch where Self.isConstraintFailure(error) {
            throw StoreError.portfolioNameTaken
        }
        await ledger.dropOwner(owner)
        return try row.record()
    }

    /// The owner's portfolios, oldest first (from the ledger's memory).
    public func portfolios(owner: UserID) async throws -> [PortfolioRecord] {
        try await ledger.portfolios(of: owner, store: self)
    }

    /// The portfolio `id` if `owner` owns it; otherwise ``StoreError/notFound(_:)`` (never "forbidden",
    /// so that ids of other people's portfolios cannot be probed). From the ledger's memory.
    public func portfolio(_ id: PortfolioID, owner: UserID) async throws -> PortfolioRecord {
        try await state(of: id, owner: owner).portfolio
    }

    /// The portfolio as this instance last saw it, without asking the database whether another
    /// instance changed it since: enough to price an order by its clock and rules. The ledger
    /// then executes the order on the current state (its version guard catches a portfolio
    /// another instance changed or deleted, and an order priced at another date than the
    /// portfolio's clock now stands on is refused with ``StoreError/portfolioChanged``).
    public func portfolioForPricing(_ id: PortfolioID, owner: UserID) async throws -> PortfolioRecord {
        try await ledger.heldRecord(of: id, owner: owner, store: self)
    }

    func portfolioRow(_ id: PortfolioID, owner: UserID, on db: any Database) async throws -> PortfolioRow {
        guard let row = try await sql(db).select().column("*").from("portfolios")
            .where("id", .equal, id.uuid).where("user_id", .equal, owner.uuid)
            .first(decoding: PortfolioRow.self, with: Self.rowDecoder)
        else { throw StoreError.notFound("Portfolio") }
        return row
    }

    /// Renames a portfolio. The version moves, so that a ledger batch in flight reads it again.
    public func renamePortfolio(_ id: PortfolioID, owner: UserID, to name: String) async throws -> PortfolioRecord {
        do {
            let record = try await transaction { db in
                var row = try await self.portfolioRow(id, owner: owner, on: db)
                row.name = name
                row.nameKey = name.lowercased()
                row.updatedAt = self.time.now()
                row.version += 1
                try await self.sql(db).update("portfolios").set("name", to: row.name).set("name_key", to: row.nameKey)
                    .set("updated_at", to: row.updatedAt).set("version", to: SQLRaw("version + 1"))
                    .where("id", .equal, id.uuid).run()
                try await self.markStandings([id.uuid], on: db)
                return try row.record()
            }
            await ledger.drop(id)
            await ledger.dropOwner(owner)
            return record
        } catch where Self.isConstraintFailure(error) {
            throw StoreError.portfolioNameTaken
        }
    }

    /// Deletes a portfolio with its orders, positions and journal.
    public func deletePortfolio(_ id: PortfolioID, owner: UserID) async throws {
        try await transaction { db in
            let row = try await self.portfolioRow(id, owner: owner, on: db)
            // A league portfolio in play is left, not deleted; once closed it may go.
            if row.leagueId != nil && row.closedAt == nil { throw StoreError.leaguePortfolio }
            try await self.retireStandings([id.uuid], on: db)
            try await self.deleteChildren(ofPortfolios: [id.uuid], on: db)
            try await self.sql(db).delete(from: "portfolios").where("id", .equal, id.uuid).run()
        }
        await ledger.drop(id)
        await ledger.dropOwner(owner)
    }

    /// The portfolio's current book: cash, positions and the period's realized P&L, from the
    /// ledger's memory (read from the database on first use).
    public func state(of id: PortfolioID, owner: UserID) async throws -> PortfolioState {
        try await ledger.state(of: id, owner: owner, store: self)
    }

    func state(of row: PortfolioRow, on db: any Database) async throws -> PortfolioState {
        let positions = try await self.positions(of: row.id, on: db)
        let book = Book(startingCash: Money(cents: row.startingCashCents), cash: Money(cents: row.cashCents),
                        positions: Dictionary(positions.map { ($0.symbol, $0) }, uniquingKeysWith: { a, _ in a }),
                        deposits: try await deposits(of: row.id, period: row.period, on: db))
        return PortfolioState(portfolio: try row.record(), book: book, realizedPnL: Money(cents: row.realizedPnlCents))
    }

    /// The grants journaled in a period (zero for nearly every portfolio: the index on the journal
    /// by portfolio and period finds none at once).
    func deposits(of portfolio: UUID, period: Int, on db: any Database) async throws -> Money {
        let row = try await sql(db).raw("""
            SELECT CAST(COALESCE(SUM("cash_delta_cents"), 0) AS BIGINT) AS "total" FROM "journal_entries"
            WHERE "portfolio_id" = \(bind: portfolio) AND "period" = \(bind: period) AND "kind" = \(bind: JournalEntry.Kind.grant.rawValue)
            """).first()
        return Money(cents: try row?.decode(column: "total", as: Int64.self) ?? 0)
    }

    func positions(of portfolio: UUID, on db: any Database) async throws -> [Position] {
        try await sql(db).select().column("*").from("positions").where("portfolio_id", .equal, portfolio)
            .where("quantity", .notEqual, 0).orderBy("symbol")
            .all(decoding: PositionRow.self, with: Self.rowDecoder).map { try $0.position() }
    }

    /// The tables whose rows belong to a portfolio, children first.
    static let portfolioChildTables = ["journal_entries", "fills", "order_events", "orders", "positions", "portfolio_periods",
                                       "equity_snapshots", "equity_stats"]

    /// Deletes every row belonging to `portfolios` but the portfolio rows themselves. (SQLite
    /// enforces the cascades only where foreign keys are on, so they are not relied on.)
    func deleteChildren(ofPortfolios portfolios: [UUID], on db: any Database) async throws {
        guard !portfolios.isEmpty else { return }
        for table in Self.portfolioChildTables {
            try await sql(db).delete(from: table).where("portfolio_id", .in, portfolios).run()
        }
    }

    /// When the current period of the portfolio began: the end of the previous one, or its creation.
    func periodStart(of row: PortfolioRow, on db: any Database) async throws -> Date {
        try await sql(db).select().column("ended_at").from("portfolio_periods")
            .where("portfolio_id", .equal, row.id).where("period", .equal, row.period - 1)
            .first()?.decode(column: "ended_at", as: Date.self) ?? row.createdAt
    }

    /// Starts the portfolio over: cash back to the starting cash, no positions, a new period.
    /// The old period's orders and journal stay, and a summary of it is kept with `endingEquity`.
    /// Goes through the ledger like every change of cash or positions.
    ///
    /// The caller values the book before calling (prices come from the network, which is never
    /// awaited inside a transaction or the ledger) and passes the version it valued.
    /// - Throws: ``StoreError/portfolioChanged`` when the portfolio moved past `version` since.
    public func resetPortfolio(_ id: PortfolioID, owner: UserID, version: Int64, endingEquity: Money) async throws -> PortfolioRecord {
        let command = LedgerCommand.reset(portfolio: id, owner: owner, version: version, endingEquity: endingEquity)
        guard case .reset(let record) = try await ledger.submit(command, store: self) else { throw StoreError.unavailable }
        return record
    }

    /// The equity snapshots of the portfolio's current period, oldest first.
    public func equitySnapshots(of id: PortfolioID, owner: UserID) async throws -> [EquitySnapshot] {
        let portfolio = try await portfolio(id, owner: owner)
        return try await sql(db).select().column("*").from("equity_snapshots").where("portfolio_id", .equal, id.uuid)
            .where("period", .equal, portfolio.period).orderBy("date")
            .all(decoding: EquitySnapshotRow.self, with: Self.rowDecoder).map { try $0.snapshot() }
    }

    /// A live portfolio as the closing-equity job needs it.
    public struct LivePortfolio: Sendable {
        public var id: PortfolioID
        public var owner: UserID
        public var period: Int
        /// When the current period began.
        public var startedAt: Date
        /// The last day of the period with its closing equity stored.
        public var lastSnapshot: SessionDate?
        /// When its league ends: sessions after it are not stored, so that the final standings
        /// stay as they were.
        public var tradingCloses: Date?
    }

    /// Every live portfolio, with when its period began and its last stored closing equity: one
    /// query, so that the job reads journals only for portfolios with sessions to store.
    public func livePortfolios() async throws -> [LivePortfolio] {
        try await sql(db).raw("""
            SELECT "p"."id", "p"."user_id", "p"."period", "p"."created_at", "l"."ends_at",
                (SELECT "pp"."ended_at" FROM "portfolio_periods" AS "pp"
                 WHERE "pp"."portfolio_id" = "p"."id" AND "pp"."period" = "p"."period" - 1) AS "started_at",
                (SELECT MAX("s"."date") FROM "equity_snapshots" AS "s"
                 WHERE "s"."portfolio_id" = "p"."id" AND "s"."period" = "p"."period") AS "last_snapshot"
            FROM "portfolios" AS "p" LEFT JOIN "leagues" AS "l" ON "l"."id" = "p"."league_id"
            WHERE "p"."clock" = \(bind: PortfolioRow.encodeClock(.live)) ORDER BY "p"."id"
            """).all().map { row in
                LivePortfolio(id: PortfolioID(try row.decode(column: "id", as: UUID.self)),
                              owner: UserID(try row.decode(column: "user_id", as: UUID.self)),
                              period: try row.decode(column: "period", as: Int.self),
                              startedAt: try row.decode(column: "started_at", as: Date?.self)
                                  ?? row.decode(column: "created_at", as: Date.self),
                              lastSnapshot: try row.decode(column: "last_snapshot", as: String?.self).flatMap { SessionDate(iso: $0) },
                              tradingCloses: try row.decode(column: "ends_at", as: Date?.self))
            }
    }

    /// Stores a live portfolio's closing equity of some sessions (a figure, not a change of cash
    /// or positions: written directly, each date once, a later write replacing an earlier one).
    public func saveClosingEquity(of id: PortfolioID, period: Int, _ snapshots: [EquitySnapshot]) async throws {
        guard !snapshots.isEmpty else { return }
        let rows = snapshots.map { snapshot in
            EquitySnapshotRow(id: ids.makeUUID(), portfolioId: id.uuid, period: period, date: snapshot.date.description,
                              cashCents: snapshot.cash.cents, marketValueCents: snapshot.marketValue.cents,
                              equityCents: snapshot.equity.cents)
        }
        try await transaction { db in
            // Only while the portfolio is still in that period (a reset meanwhile makes them moot).
            guard let row = try await self.sql(db).select().column("starting_cash_cents").from("portfolios")
                .where("id", .equal, id.uuid).where("period", .equal, period).first() else { return }
            try await self.sql(db).insert(into: "equity_snapshots").models(rows, with: Self.rowEncoder)
                .onConflict(with: ["portfolio_id", "period", "date"]) { update in
                    update.set(excludedValueOf: "cash_cents").set(excludedValueOf: "market_value_cents")
                        .set(excludedValueOf: "equity_cents")
                }.run()
            try await self.markStandings([id.uuid], on: db)
            // The leaderboard's figures fold in the sessions after the last one folded.
            let startingCash = Money(cents: try row.decode(column: "starting_cash_cents", as: Int64.self))
            var stats = try await self.equityStats(of: id.uuid, period: period, startingCash: startingCash, on: db)
            let before = stats.sessions
            stats.add(snapshots)
            guard stats.sessions > before else { return }
            try await self.sql(db).insert(into: "equity_stats")
                .model(EquityStatsRow(portfolio: id.uuid, period: period, stats: stats), with: Self.rowEncoder)
                .onConflict(with: ["portfolio_id", "period"]) { update in
                    var update = update
                    for column in ["through", "sessions", "last_cents", "previous_cents", "peak_cents", "max_drawdown",
                                   "sum_returns", "sum_squares"] { update = update.set(excludedValueOf: column) }
                    return update
                }.run()
        }
    }

    /// Moves a replay portfolio's clock to `to` with the equity of each day passed, if it still
    /// stands on `from` at `version` (the state the snapshots were computed from).
    /// - Throws: ``StoreError/portfolioChanged`` when it moved meanwhile, ``StoreError/replayEnded``,
    ///   ``StoreError/notReplay``.
    public func advanceReplay(_ id: PortfolioID, owner: UserID, version: Int64, from: SessionDate, to: SessionDate,
                              snapshots: [EquitySnapshot]) async throws -> PortfolioRecord {
        try await advanceReplays([ReplayMove(portfolio: id, owner: owner, version: version, from: from, to: to,
                                             snapshots: snapshots)])[0].get()
    }

    /// One replay portfolio's move: to `to` from `from`, where it stood at `version`.
    public struct ReplayMove: Sendable {
        public var portfolio: PortfolioID
        public var owner: UserID
        public var version: Int64
        public var from: SessionDate
        public var to: SessionDate
        /// The equity at the close of `from` and of each session through `to`.
        public var snapshots: [EquitySnapshot]
        /// The option contracts that expire on the way, in order.
        public var settlements: [OptionSettlement]
        /// What happened to working orders (and expiring contracts) on the way, in order.
        public var events: [ReplayOrderEvent]
        public init(portfolio: PortfolioID, owner: UserID, version: Int64, from: SessionDate, to: SessionDate,
                    snapshots: [EquitySnapshot], settlements: [OptionSettlement] = [], events: [ReplayOrderEvent] = []) {
            self.portfolio = portfolio; self.owner = owner; self.version = version; self.from = from; self.to = to
            self.snapshots = snapshots; self.settlements = settlements; self.events = events
        }
    }

    /// Moves replay portfolios' clocks (one, or a league's members together: submitted to the
    /// ledger at once, so that they go in as few batches as its size allows), each with its
    /// snapshots and its folded daily figures, if it still stands where its move was computed
    /// from. Each answers for itself: ``StoreError/portfolioChanged`` when it moved meanwhile,
    /// ``StoreError/replayEnded``, ``StoreError/notReplay``, ``StoreError/portfolioClosed``.
    public func advanceReplays(_ moves: [ReplayMove]) async -> [Result<PortfolioRecord, any Error>] {
        // The figures so far, in one query; a portfolio that moves meanwhile fails its version check.
        let stats: [PortfolioID: EquityStats]
        do {
            stats = try await currentEquityStats(of: moves.map(\.portfolio))
        } catch {
            return moves.map { _ in .failure(error) }
        }
        let commands = moves.map { move in
            var folded = stats[move.portfolio]
            folded?.add(move.snapshots)
            return LedgerCommand.advance(ReplayStep(version: move.version, from: move.from, to: move.to, snapshots: move.snapshots,
                                                    stats: folded, settlements: move.settlements, events: move.events),
                                         portfolio: move.portfolio, owner: move.owner)
        }
        return await ledger.submit(commands, store: self).map { result in
            result.flatMap { outcome in
                guard case .advanced(let record) = outcome else { return .failure(StoreError.unavailable) }
                return .success(record)
            }
        }
    }

    /// Ends a replay: nothing more is traded or advanced, and its report is final.
    public func endReplay(_ id: PortfolioID, owner: UserID) async throws -> PortfolioRecord {
        guard case .advanced(let record) = try await ledger.submit(.endReplay(portfolio: id, owner: owner), store: self)
        else { throw StoreError.unavailable }
        return record
    }

    /// The closed periods of a portfolio, oldest first.
    public func closedPeriods(of id: PortfolioID, owner: UserID) async throws -> [PeriodRecord] {
        _ = try await portfolio(id, owner: owner)
        return try await sql(db).select().column("*").from("portfolio_periods").where("portfolio_id", .equal, id.uuid)
            .orderBy("period").all(decoding: PeriodRow.self, with: Self.rowDecoder).map(\.record)
    }
}
