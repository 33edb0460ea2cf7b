import FluentKit

/// API keys: each speaks for one portfolio of its owner, read-only or trading. The secret is kept
/// only as its SHA-256 (it is random, 240 bits: a slow hash adds nothing); `key_id` is public and
/// unique. A revoked key keeps its row (revoked_at set) so that its id is never given out again.
struct M0017_AddAPIKeys: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("api_keys")
            .id()
            .field("user_id", .uuid, .required, .references("users", "id", onDelete: .cascade))
            .field("portfolio_id", .uuid, .required, .references("portfolios", "id", onDelete: .cascade))
            .field("key_id", .string, .required)
            .field("secret_hash", .string, .required)
            .field("scope", .string, .required)
            .field("name", .string, .required)
            .field("created_at", .datetime, .required)
            .field("last_used_at", .datetime)
            .field("revoked_at", .datetime)
            .unique(on: "key_id")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("api_keys").delete()
    }
}
