import FluentKit
import FluentSQL
import SQLKit

/// Profiles, follows and blocks: a player's display name and bio, an uploaded avatar, each
/// portfolio's visibility (private unless its owner says), who follows whom, who blocked whom,
/// and the index the feed reads fills by.
struct M0014_AddSocial: AsyncMigration {
    func prepare(on database: any Database) async throws {
        // One column per statement: SQLite adds columns one at a time.
        try await database.schema("users").field("display_name", .string).update()
        try await database.schema("users").field("bio", .string).update()
        try await database.schema("portfolios").field("visibility", .string, .required, .sql(.default("private"))).update()
        try await database.schema("avatars")
            .field("user_id", .uuid, .required, .references("users", "id", onDelete: .cascade))
            .field("content_type", .string, .required)
            .field("bytes", .data, .required)
            .field("updated_at", .datetime, .required)
            .unique(on: "user_id")
            .create()
        try await database.schema("follows")
            .field("follower_id", .uuid, .required, .references("users", "id", onDelete: .cascade))
            .field("followee_id", .uuid, .required, .references("users", "id", onDelete: .cascade))
            .field("created_at", .datetime, .required)
            .unique(on: "follower_id", "followee_id")
            .create()
        try await database.schema("blocks")
            .field("blocker_id", .uuid, .required, .references("users", "id", onDelete: .cascade))
            .field("blocked_id", .uuid, .required, .references("users", "id", onDelete: .cascade))
            .field("created_at", .datetime, .required)
            .unique(on: "blocker_id", "blocked_id")
            .create()
        let sql = database as! any SQLDatabase
        try await sql.create(index: "follows_followee").on("follows").column("followee_id").column("created_at").run()
        try await sql.create(index: "follows_follower").on("follows").column("follower_id").column("created_at").run()
        try await sql.create(index: "blocks_blocked").on("blocks").column("blocked_id").run()
        try await sql.create(index: "fills_portfolio_created").on("fills").column("portfolio_id").column("created_at").run()
        try await sql.create(index: "portfolios_owner_visibility").on("portfolios").column("user_id").column("visibility").run()
    }

    func revert(on database: any Database) async throws {
        let sql = database as! any SQLDatabase
        for index in ["portfolios_owner_visibility", "fills_portfolio_created"] { try await sql.drop(index: index).run() }
        for table in ["blocks", "follows", "avatars"] { try await database.schema(table).delete() }
        try await database.schema("portfolios").deleteField("visibility").update()
        try await database.schema("users").deleteField("bio").update()
        try await database.schema("users").deleteField("display_name").update()
    }
}
