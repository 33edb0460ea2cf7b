import FluentKit
import FluentSQL
import Foundation

/// Leaderboards kept in memory and refreshed by what changed: one feed per league and one for
/// the global leaderboard, each with a sequence that moves with every change of one of its
/// portfolios (and an epoch that moves when one is deleted), and on each portfolio its feed and
/// the feed's sequence at its last change.
struct M0011_AddStandingsFeeds: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("standings_feeds")
            .field("id", .uuid, .identifier(auto: false))
            .field("seq", .int64, .required)
            .field("epoch", .int64, .required)
            .create()
        // One column per statement: SQLite adds columns one at a time.
        try await database.schema("portfolios").field("standings_feed", .uuid).update()
        try await database.schema("portfolios").field("standings_seq", .int64, .required, .sql(.default(0))).update()
        guard let sql = database as? any SQLDatabase else { return }
        let global = BullpenStore.globalStandingsFeed
        try await sql.raw("""
            INSERT INTO "standings_feeds" ("id", "seq", "epoch") VALUES (\(bind: global), 0, 0)
            """).run()
        try await sql.raw(#"INSERT INTO "standings_feeds" ("id", "seq", "epoch") SELECT "id", 0, 0 FROM "leagues""#).run()
        try await sql.raw(#"UPDATE "portfolios" SET "standings_feed" = "league_id" WHERE "league_id" IS NOT NULL"#).run()
        try await sql.raw("""
            UPDATE "portfolios" SET "standings_feed" = \(bind: global) WHERE "league_id" IS NULL
            AND "user_id" IN (SELECT "id" FROM "users" WHERE "public_leaderboard" = \(bind: true))
            """).run()
        try await sql.create(index: "portfolios_standings").on("portfolios").column("standings_feed").column("standings_seq").run()
    }

    func revert(on database: any Database) async throws {
        if let sql = database as? any SQLDatabase {
            try await sql.drop(index: "portfolios_standings").run()
        }
        try await database.schema("portfolios").deleteField("standings_seq").update()
        try await database.schema("portfolios").deleteField("standings_feed").update()
        try await database.schema("standings_feeds").delete()
    }
}
