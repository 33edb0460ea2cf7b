import FluentKit
import FluentSQL
import SQLKit

/// Option exercises move a contract's premium into (or out of) the shares' cost basis without
/// moving cash: each journal entry says how much it carried (zero for every entry before).
struct M0012_AddCarriedBasis: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("journal_entries")
            .field("carried_basis_cents", .int64, .required, .sql(.default(0))).update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("journal_entries").deleteField("carried_basis_cents").update()
    }
}
