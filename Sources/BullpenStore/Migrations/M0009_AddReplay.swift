import FluentKit
import FluentSQL

/// Historical replay: how each replay portfolio began and whether it ended (JSON, nil for live
/// portfolios), and the equity of each portfolio at each session's close.
struct M0009_AddReplay: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("portfolios").field("replay", .string).update()
        try await database.schema("equity_snapshots")
            .id()
            .field("portfolio_id", .uuid, .required, .references("portfolios", "id", onDelete: .cascade))
            .field("period", .int, .required)
            .field("date", .string, .required)
            .field("cash_cents", .int64, .required)
            .field("market_value_cents", .int64, .required)
            .field("equity_cents", .int64, .required)
            .unique(on: "portfolio_id", "period", "date")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("equity_snapshots").delete()
        try await database.schema("portfolios").deleteField("replay").update()
    }
}
