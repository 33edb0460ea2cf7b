import BullpenCore
import FluentKit
import FluentSQL
import Foundation

extension BullpenStore {
    /// Which periods a journal query covers.
    public enum PeriodSelection: Sendable, Hashable {
        case current
        case all
        case number(Int)
    }

    /// Journal entries (every fill and cash movement), newest first, `limit` a page.
    public func activities(of id: PortfolioID, owner: UserID, periods: PeriodSelection, limit: Int,
                           cursor: String?) async throws -> ListPage<JournalEntry> {
        let row = try await portfolioRow(id, owner: owner, on: db)
        let query = try journalQuery(of: row, periods: periods, on: db)
        if let cursor { query.where("sequence", .lessThan, try PageCursor.position(cursor)) }
        let rows = try await query.orderBy("sequence", .descending).limit(limit + 1)
            .all(decoding: JournalRow.self, with: Self.rowDecoder)
        let items = try rows.prefix(limit).map { try $0.entry() }
        return ListPage(items: items, nextCursor: rows.count > limit ? items.last.map { PageCursor.encode(Int($0.sequence)) } : nil)
    }

    /// The whole journal of the selected periods, oldest first.
    public func journal(of id: PortfolioID, owner: UserID, periods: PeriodSelection) async throws -> [JournalEntry] {
        let row = try await portfolioRow(id, owner: owner, on: db)
        return try await journal(of: row, periods: periods, on: db)
    }

    func journal(of row: PortfolioRow, periods: PeriodSelection, on db: any Database) async throws -> [JournalEntry] {
        try await journalQuery(of: row, periods: periods, on: db).orderBy("sequence")
            .all(decoding: JournalRow.self, with: Self.rowDecoder).map { try $0.entry() }
    }

    private func journalQuery(of row: PortfolioRow, periods: PeriodSelection, on db: any Database) throws -> SQLSelectBuilder {
        let query = sql(db).select().column("*").from("journal_entries").where("portfolio_id", .equal, row.id)
        switch periods {
        case .current: query.where("period", .equal, row.period)
        case .number(let n): query.where("period", .equal, n)
        case .all: break
        }
        return query
    }

    /// The portfolio's state with its trades of the trading session `session` (see
    /// ``SessionTrades``), taken together so that they agree; from the ledger's memory once it
    /// has them, where the session's totals are kept as orders are written.
    public func sessionState(of id: PortfolioID, owner: UserID,
                             session: SessionDate) async throws -> (state: PortfolioState, today: SessionTrades) {
        try await ledger.sessionState(of: id, owner: owner, session: session, store: self)
    }

    /// Everything needed to audit the current period of a portfolio (see ``Invariants``).
    public func auditSnapshot(of id: PortfolioID, owner: UserID, prices: [Symbol: Price]) async throws -> Invariants.Snapshot {
        try await readTransaction { db in
            let row = try await self.portfolioRow(id, owner: owner, on: db)
            let fills = try await self.sql(db).select().column("*").from("fills")
                .where("portfolio_id", .equal, row.id).where("period", .equal, row.period)
                .all(decoding: FillRow.self, with: Self.rowDecoder).map { try $0.fill() }
            var snapshot = Invariants.Snapshot(
                startingCash: Money(cents: row.startingCashCents), cash: Money(cents: row.cashCents),
                positions: try await self.positions(of: row.id, on: db),
                journal: try await self.journal(of: row, periods: .current, on: db), fills: fills, prices: prices,
                realizedPnL: Money(cents: row.realizedPnlCents))
            snapshot.allowShort = try row.record().rules.margin != nil
            return snapshot
        }
    }

    /// The current period of a portfolio: when it began, its starting cash and its journal, oldest first.
    public func currentPeriod(of id: PortfolioID, owner: UserID) async throws -> PeriodJournal {
        try await readTransaction { db in
            let row = try await self.portfolioRow(id, owner: owner, on: db)
            return PeriodJournal(startedAt: try await self.periodStart(of: row, on: db),
                                 startingCash: Money(cents: row.startingCashCents),
                                 journal: try await self.journal(of: row, periods: .current, on: db))
        }
    }
}
