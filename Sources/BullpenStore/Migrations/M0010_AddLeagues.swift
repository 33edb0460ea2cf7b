import FluentKit
import FluentSQL

/// Leagues: the league, its members (each with the portfolio they play it in), each portfolio's
/// league and whether it was closed (read-only), each portfolio period's folded daily figures for
/// leaderboards, and a user's choice to appear on the global leaderboard.
struct M0010_AddLeagues: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("leagues")
            .id()
            .field("owner_id", .uuid, .required, .references("users", "id"))
            .field("name", .string, .required)
            .field("name_key", .string, .required)
            .field("description", .string, .required)
            .field("visibility", .string, .required)
            .field("code", .string, .required)
            .field("starting_cash_cents", .int64, .required)
            .field("clock", .string, .required)
            .field("rules", .string, .required)
            .field("settings", .string, .required)
            .field("default_metric", .string, .required)
            .field("starts_at", .datetime, .required)
            .field("ends_at", .datetime)
            .field("replay_start", .string)
            .field("replay_date", .string)
            .field("next_advance_at", .datetime)
            .field("created_at", .datetime, .required)
            .field("updated_at", .datetime, .required)
            .field("deleted_at", .datetime)
            .field("version", .int64, .required)
            .unique(on: "code")
            .create()
        try await database.schema("league_members")
            .id()
            .field("league_id", .uuid, .required, .references("leagues", "id", onDelete: .cascade))
            .field("user_id", .uuid, .required, .references("users", "id", onDelete: .cascade))
            .field("portfolio_id", .uuid)
            .field("status", .string, .required)
            .field("may_rejoin", .bool, .required)
            .field("joined_at", .datetime, .required)
            .field("left_at", .datetime)
            .unique(on: "league_id", "user_id")
            .create()
        try await database.schema("equity_stats")
            .field("portfolio_id", .uuid, .required, .references("portfolios", "id", onDelete: .cascade))
            .field("period", .int, .required)
            .field("through", .string, .required)
            .field("sessions", .int, .required)
            .field("last_cents", .int64, .required)
            .field("previous_cents", .int64, .required)
            .field("peak_cents", .int64, .required)
            .field("max_drawdown", .int64, .required)
            .field("sum_returns", .double, .required)
            .field("sum_squares", .double, .required)
            .unique(on: "portfolio_id", "period")
            .create()
        // One column per statement: SQLite adds columns one at a time.
        try await database.schema("portfolios").field("league_id", .uuid).update()
        try await database.schema("portfolios").field("closed_at", .datetime).update()
        try await database.schema("users").field("public_leaderboard", .bool, .required, .sql(.default(false))).update()
        guard let sql = database as? any SQLDatabase else { return }
        try await sql.create(index: "league_members_user").on("league_members").column("user_id").run()
        try await sql.create(index: "league_members_portfolio").on("league_members").column("portfolio_id").run()
        try await sql.create(index: "portfolios_league").on("portfolios").column("league_id").run()
        try await sql.create(index: "leagues_visibility").on("leagues").column("visibility").column("name_key").run()
    }

    func revert(on database: any Database) async throws {
        if let sql = database as? any SQLDatabase {
            try await sql.drop(index: "portfolios_league").run()
        }
        try await database.schema("users").deleteField("public_leaderboard").update()
        try await database.schema("portfolios").deleteField("closed_at").update()
        try await database.schema("portfolios").deleteField("league_id").update()
        try await database.schema("equity_stats").delete()
        try await database.schema("league_members").delete()
        try await database.schema("leagues").delete()
    }
}
