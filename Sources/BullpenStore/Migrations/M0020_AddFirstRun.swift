import FluentKit

/// The guided first run: one row per player, written when an account is made (the run starts) and
/// as its steps are taken, skipped, or started again from Help. Accounts from before have no row:
/// their run is "available". Whether the player bought is read from the fills, not stored.
struct M0020_AddFirstRun: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("first_runs")
            .id()
            .field("user_id", .uuid, .required, .references("users", "id", onDelete: .cascade))
            .field("started_at", .datetime)
            .field("found_at", .datetime)
            .field("seen_at", .datetime)
            .field("skipped_at", .datetime)
            .field("finished_at", .datetime)
            .unique(on: "user_id")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("first_runs").delete()
    }
}
