import FluentKit
import FluentSQL
import SQLKit

/// Login throttles and rate limits kept in the database, so that several instances on one
/// PostgreSQL count together: each attempt or use under each of its keys (`pair:…`, `account:…`,
/// `address:…`, `register:…`, `orders:…`), and the addresses each account has logged in from.
struct M0013_AddThrottles: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("throttle_events")
            .field("key", .string, .required)
            .field("attempt", .uuid, .required)
            .field("at", .double, .required)
            .create()
        let sql = database as! any SQLDatabase
        try await sql.create(index: "throttle_events_key_at").on("throttle_events").column("key").column("at").run()
        try await sql.create(index: "throttle_events_attempt").on("throttle_events").column("attempt").run()
        try await database.schema("throttle_known_addresses")
            .field("account", .string, .required)
            .field("address", .string, .required)
            .field("at", .double, .required)
            .unique(on: "account", "address")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("throttle_known_addresses").delete()
        try await database.schema("throttle_events").delete()
    }
}
