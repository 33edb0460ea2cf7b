import FluentKit
import FluentSQL
import SQLKit

/// Orders that wait: each order's time in force, prices (limit, stop, trail), a trailing stop's
/// mark, a stop-limit's trigger, the sessions and time it works in, the price its cash is held
/// at, the order it replaced or was replaced by, why it ended, and how its last fill was priced;
/// each fill's explanation; every status change of an order (`order_events`); and the index that
/// finds the orders still working.
struct M0016_AddWorkingOrders: AsyncMigration {
    static let orderFields: [(String, DatabaseSchema.DataType)] = [
        ("time_in_force", .string), ("limit_price_ticks", .int64), ("stop_price_ticks", .int64), ("trail_ticks", .int64),
        ("trail_basis_points", .int64), ("water_mark_ticks", .int64), ("triggered", .bool), ("placed_on", .string),
        ("last_session", .string), ("expires_at", .datetime), ("hold_price_ticks", .int64), ("replaces_id", .uuid),
        ("replaced_by_id", .uuid), ("updated_at", .datetime), ("reason", .string), ("fill_note", .string),
    ]

    func prepare(on database: any Database) async throws {
        for (name, type) in Self.orderFields {
            try await database.schema("orders").field(FieldKey(stringLiteral: name), type).update()
        }
        try await database.schema("fills").field("note", .string).update()
        try await database.schema("order_events")
            .id()
            .field("order_id", .uuid, .required, .references("orders", "id", onDelete: .cascade))
            .field("portfolio_id", .uuid, .required, .references("portfolios", "id", onDelete: .cascade))
            .field("status", .string, .required)
            .field("at", .datetime, .required)
            .field("note", .string)
            .create()
        let sql = database as! any SQLDatabase
        try await sql.create(index: "order_events_order").on("order_events").column("order_id").column("at").run()
        try await sql.raw("""
            CREATE INDEX "orders_open" ON "orders" ("portfolio_id") WHERE "status" IN ('new', 'partially_filled')
            """).run()
    }

    func revert(on database: any Database) async throws {
        let sql = database as! any SQLDatabase
        try await sql.drop(index: "orders_open").run()
        try await database.schema("order_events").delete()
        try await database.schema("fills").deleteField("note").update()
        for (name, _) in Self.orderFields.reversed() {
            try await database.schema("orders").deleteField(FieldKey(stringLiteral: name)).update()
        }
    }
}
