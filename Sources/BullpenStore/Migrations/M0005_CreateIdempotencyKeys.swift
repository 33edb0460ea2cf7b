import FluentKit

/// Responses remembered per (user, Idempotency-Key) so that a retried request executes once.
struct M0005_CreateIdempotencyKeys: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("idempotency_keys")
            .id()
            .field("user_id", .uuid, .required, .references("users", "id", onDelete: .cascade))
            .field("key", .string, .required)
            .field("request_hash", .string, .required)
            .field("status_code", .int, .required)
            .field("response_body", .string, .required)
            .field("created_at", .datetime, .required)
            .unique(on: "user_id", "key")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("idempotency_keys").delete()
    }
}
