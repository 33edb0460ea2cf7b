import FluentKit

/// Accounts. `username_key` is the lower-cased username, unique, so names are unique case-insensitively.
struct M0001_CreateUsers: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("users")
            .id()
            .field("username", .string, .required)
            .field("username_key", .string, .required)
            .field("password_hash", .string, .required)
            .field("created_at", .datetime, .required)
            .unique(on: "username_key")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("users").delete()
    }
}
