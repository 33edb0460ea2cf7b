import FluentKit
import FluentSQL
import SQLKit

/// Achievements, notifications, price alerts and browser push: the grants of achievements (one
/// per player and achievement), each player's notifications, their alerts, the devices that
/// receive pushes, a player's sign-in streak and push preferences, and the index that finds a
/// portfolio's grants (top-ups) in its journal.
struct M0015_AddNotifications: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("users").field("sign_in_day", .string).update()
        try await database.schema("users").field("sign_in_streak", .int, .required, .sql(.default(0))).update()
        // The kinds sent as pushes, comma-separated; nil: every kind.
        try await database.schema("users").field("push_kinds", .string).update()
        // When a league's end was announced to its players (final ranks, achievements).
        try await database.schema("leagues").field("final_announced_at", .datetime).update()
        try await database.schema("achievements_earned")
            .id()
            .field("user_id", .uuid, .required, .references("users", "id", onDelete: .cascade))
            .field("achievement_id", .string, .required)
            .field("earned_at", .datetime, .required)
            .unique(on: "user_id", "achievement_id")
            .create()
        try await database.schema("notifications")
            .id()
            .field("user_id", .uuid, .required, .references("users", "id", onDelete: .cascade))
            .field("kind", .string, .required)
            .field("title", .string, .required)
            .field("body", .string, .required)
            .field("link", .string)
            .field("created_at", .datetime, .required)
            .field("read_at", .datetime)
            .create()
        try await database.schema("price_alerts")
            .id()
            .field("user_id", .uuid, .required, .references("users", "id", onDelete: .cascade))
            .field("symbol", .string, .required)
            .field("kind", .string, .required)
            .field("threshold", .int64, .required)
            .field("created_at", .datetime, .required)
            .field("triggered_at", .datetime)
            .field("triggered_price_ticks", .int64)
            .create()
        try await database.schema("push_subscriptions")
            .id()
            .field("user_id", .uuid, .required, .references("users", "id", onDelete: .cascade))
            .field("endpoint", .string, .required)
            .field("p256dh", .string, .required)
            .field("auth", .string, .required)
            .field("created_at", .datetime, .required)
            .unique(on: "endpoint")
            .create()
        let sql = database as! any SQLDatabase
        try await sql.create(index: "achievements_earned_user").on("achievements_earned").column("user_id").column("earned_at").run()
        try await sql.create(index: "notifications_user").on("notifications").column("user_id").column("created_at").run()
        try await sql.create(index: "price_alerts_user").on("price_alerts").column("user_id").run()
        try await sql.create(index: "price_alerts_armed").on("price_alerts").column("triggered_at").run()
        try await sql.create(index: "push_subscriptions_user").on("push_subscriptions").column("user_id").run()
        try await sql.create(index: "journal_entries_kind").on("journal_entries").column("portfolio_id").column("kind").column("period").run()
    }

    func revert(on database: any Database) async throws {
        let sql = database as! any SQLDatabase
        try await sql.drop(index: "journal_entries_kind").run()
        for table in ["push_subscriptions", "price_alerts", "notifications", "achievements_earned"] { try await database.schema(table).delete() }
        try await database.schema("leagues").deleteField("final_announced_at").update()
        for field in ["push_kinds", "sign_in_streak", "sign_in_day"] { try await database.schema("users").deleteField(FieldKey(stringLiteral: field)).update() }
    }
}
