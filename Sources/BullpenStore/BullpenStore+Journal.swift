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
                           cursor: String?) async throws -> Page<JournalEntry> {
        let row = try await portfolioRow(id, owner: owner, on: db)
        let query = try sql(db).select().column("*").from("journal_entries").where("portfolio_id", .equal, id.uuid)
        switch periods {
        case .current: query.where("period", .equal, row.period)
        case .number(let n): query.where("period", .equal, n)
        case .all: break
        }
        if let cursor { query.where("sequence", .lessThan, try PageCursor.position(cursor)) }
        let rows = try await query.orderBy("sequence", .descending).limit(limit + 1)
            .all(decoding: JournalRow.self, with: Self.rowDecoder)
        let items = rows.prefix(limit).map(\.entry)
        return Page(items: Array(items),
                    nextCursor: rows.count > limit ? items.last.map { PageCursor.encode(Int($0.sequence)) } : nil)
    }

    /// Everything needed to audit the current period of a portfolio (see ``Invariants``).
    public func auditSnapshot(of id: PortfolioID, owner: UserID, prices: [Symbol: Price]) async throws -> Invariants.Snapshot {
        try await transaction { db in
            let row = try await self.portfolioRow(id, owner: owner, on: db)
            let journal = try await self.sql(db).select().column("*").from("journal_entries")
                .where("portfolio_id", .equal, row.id).where("period", .equal, row.period).orderBy("sequence")
                .all(decoding: JournalRow.self, with: Self.rowDecoder).map(\.entry)
            let fills = try await self.sql(db).select().column("*").from("fills")
                .where("portfolio_id", .equal, row.id).where("period", .equal, row.period)
                .all(decoding: FillRow.self, with: Self.rowDecoder).map(\.fill)
            return Invariants.Snapshot(
                startingCash: Money(cents: row.startingCashCents), cash: Money(cents: row.cashCents),
                positions: try await self.positions(of: row.id, on: db), journal: journal, fills: fills, prices: prices,
                realizedPnL: Money(cents: row.realizedPnlCents))
        }
    }
}

extension PageCursor {
    /// The position of `cursor`, or ``StoreError/invalidCursor``.
    static func position(_ cursor: String) throws -> Int {
        guard let position = decode(cursor) else { throw StoreError.invalidCursor }
        return position
    }
}

extension BullpenStore {
    /// The current period of a portfolio: when it began, its starting cash and its journal, oldest first.
    public func currentPeriod(of id: PortfolioID, owner: UserID) async throws -> (startedAt: Date, startingCash: Money, journal: [JournalEntry]) {
        try await transaction { db in
            let row = try await self.portfolioRow(id, owner: owner, on: db)
            let startedAt = try await self.sql(db).select().column("ended_at").from("portfolio_periods")
                .where("portfolio_id", .equal, row.id).where("period", .equal, row.period - 1)
                .first()?.decode(column: "ended_at", as: Date.self) ?? row.createdAt
            let journal = try await self.sql(db).select().column("*").from("journal_entries")
                .where("portfolio_id", .equal, row.id).where("period", .equal, row.period).orderBy("sequence")
                .all(decoding: JournalRow.self, with: Self.rowDecoder).map(\.entry)
            return (startedAt, Money(cents: row.startingCashCents), journal)
        }
    }
}
