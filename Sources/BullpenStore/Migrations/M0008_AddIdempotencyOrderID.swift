import FluentKit

/// An idempotency record names the order it stands for, instead of keeping a copy of the response:
/// a retry gets the stored order, encoded like any other. Older records keep their stored body.
struct M0008_AddIdempotencyOrderID: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("idempotency_keys").field("order_id", .uuid).update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("idempotency_keys").deleteField("order_id").update()
    }
}
