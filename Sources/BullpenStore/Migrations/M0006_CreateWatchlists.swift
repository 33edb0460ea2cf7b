import FluentKit

/// Named watchlists per user and the symbols on them.
struct M0006_CreateWatchlists: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("watchlists")
            .id()
            .field("user_id", .uuid, .required, .references("users", "id", onDelete: .cascade))
            .field("name", .string, .required)
            .field("name_key", .string, .required)
            .field("created_at", .datetime, .required)
            .unique(on: "user_id", "name_key")
            .create()
        try await database.schema("watchlist_items")
            .id()
            .field("watchlist_id", .uuid, .required, .references("watchlists", "id", onDelete: .cascade))
            .field("symbol", .string, .required)
            .field("added_at", .datetime, .required)
            .unique(on: "watchlist_id", "symbol")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("watchlist_items").delete()
        try await database.schema("watchlists").delete()
    }
}
