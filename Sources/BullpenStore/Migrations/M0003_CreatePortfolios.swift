import FluentKit

/// Portfolios. `version` guards every change of cash or positions (optimistic locking);
/// `journal_sequence` is the last journal sequence number used; `realized_pnl_cents` is the
/// current period's realized P&L, kept with the cash so that reading it never sums the journal.
struct M0003_CreatePortfolios: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("portfolios")
            .id()
            .field("user_id", .uuid, .required, .references("users", "id", onDelete: .cascade))
            .field("name", .string, .required)
            .field("name_key", .string, .required)
            .field("starting_cash_cents", .int64, .required)
            .field("cash_cents", .int64, .required)
            .field("realized_pnl_cents", .int64, .required)
            .field("period", .int, .required)
            .field("version", .int64, .required)
            .field("journal_sequence", .int64, .required)
            .field("clock", .string, .required)
            .field("rules", .string, .required)
            .field("created_at", .datetime, .required)
            .field("updated_at", .datetime, .required)
            .unique(on: "user_id", "name_key")
            .create()
        try await database.schema("portfolio_periods")
            .id()
            .field("portfolio_id", .uuid, .required, .references("portfolios", "id", onDelete: .cascade))
            .field("period", .int, .required)
            .field("starting_cash_cents", .int64, .required)
            .field("ending_cash_cents", .int64, .required)
            .field("ending_equity_cents", .int64, .required)
            .field("realized_pnl_cents", .int64, .required)
            .field("started_at", .datetime, .required)
            .field("ended_at", .datetime, .required)
            .unique(on: "portfolio_id", "period")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("portfolio_periods").delete()
        try await database.schema("portfolios").delete()
    }
}
