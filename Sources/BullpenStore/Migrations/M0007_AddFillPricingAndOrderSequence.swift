import FluentKit
import FluentSQL

/// How each fill was priced (source, the time of the price, whether the market was open), and a
/// sequence number on orders so that they page by key instead of by offset. Orders placed before
/// take their journal entry's sequence.
struct M0007_AddFillPricingAndOrderSequence: AsyncMigration {
    func prepare(on database: any Database) async throws {
        // One column per statement: SQLite adds columns one at a time.
        let added: [(table: String, field: FieldKey, type: DatabaseSchema.DataType)] = [
            ("orders", "sequence", .int64),
            ("orders", "price_source", .string),
            ("orders", "price_as_of", .datetime),
            ("orders", "market_open", .bool),
            ("fills", "price_source", .string),
            ("fills", "price_as_of", .datetime),
            ("fills", "market_open", .bool),
            ("journal_entries", "price_as_of", .datetime),
        ]
        for column in added {
            try await database.schema(column.table).field(column.field, column.type).update()
        }
        guard let sql = database as? any SQLDatabase else { return }
        try await sql.raw("""
            UPDATE orders SET sequence = (SELECT journal_entries.sequence FROM journal_entries
                                          WHERE journal_entries.order_id = orders.id)
            """).run()
        try await sql.create(index: "orders_portfolio_sequence").on("orders").column("portfolio_id").column("sequence").run()
    }

    func revert(on database: any Database) async throws {
        if let sql = database as? any SQLDatabase {
            try await sql.drop(index: "orders_portfolio_sequence").run()
        }
        for (table, field) in [("orders", "sequence"), ("orders", "price_source"), ("orders", "price_as_of"),
                               ("orders", "market_open"), ("fills", "price_source"), ("fills", "price_as_of"),
                               ("fills", "market_open"), ("journal_entries", "price_as_of")] {
            try await database.schema(table).deleteField(FieldKey(stringLiteral: field)).update()
        }
    }
}
