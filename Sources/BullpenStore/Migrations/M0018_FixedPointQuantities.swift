import FluentKit
import SQLKit

/// Quantities become fixed-point with eight places (``Quantity``: 10⁻⁸ of a share, a contract or a
/// coin), so that fractional shares and crypto fit the same columns: every stored quantity is
/// multiplied by 10⁸ and keeps its value (5 shares are 500,000,000 units). Revert divides again
/// (a fraction, which only the new code can write, is cut towards zero).
struct M0018_FixedPointQuantities: AsyncMigration {
    static let columns = [("positions", "quantity"), ("orders", "quantity"), ("orders", "filled_quantity"),
                          ("fills", "quantity"), ("journal_entries", "quantity_delta")]
    static let factor = "100000000"

    func prepare(on database: any Database) async throws {
        // One transaction: a crash halfway never leaves some columns scaled (and scaled again on the rerun).
        try await database.transaction { transaction in
            let sql = transaction as! any SQLDatabase
            for (table, column) in Self.columns {
                try await sql.raw("UPDATE \(ident: table) SET \(ident: column) = \(ident: column) * \(unsafeRaw: Self.factor)").run()
            }
        }
    }

    func revert(on database: any Database) async throws {
        try await database.transaction { transaction in
            let sql = transaction as! any SQLDatabase
            for (table, column) in Self.columns {
                try await sql.raw("UPDATE \(ident: table) SET \(ident: column) = \(ident: column) / \(unsafeRaw: Self.factor)").run()
            }
        }
    }
}
