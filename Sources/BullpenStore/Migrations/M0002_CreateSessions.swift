import FluentKit

/// Login sessions (one refresh-token family each) and the hashes of every refresh token issued,
/// so that reuse of a rotated token can be recognised and the family revoked.
struct M0002_CreateSessions: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("sessions")
            .id()
            .field("user_id", .uuid, .required, .references("users", "id", onDelete: .cascade))
            .field("created_at", .datetime, .required)
            .field("last_used_at", .datetime, .required)
            .field("revoked_at", .datetime)
            .field("revoke_reason", .string)
            .create()
        try await database.schema("refresh_tokens")
            .id()
            .field("session_id", .uuid, .required, .references("sessions", "id", onDelete: .cascade))
            .field("token_hash", .string, .required)
            .field("created_at", .datetime, .required)
            .field("replaced_at", .datetime)
            .unique(on: "token_hash")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("refresh_tokens").delete()
        try await database.schema("sessions").delete()
    }
}
