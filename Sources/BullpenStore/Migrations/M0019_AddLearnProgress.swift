import FluentKit

/// Learning: one row per player and lesson, written when the lesson is first read and at each
/// attempt of its quiz (retakes allowed: the last and the best score are kept, and when it first
/// passed).
struct M0019_AddLearnProgress: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("learn_progress")
            .id()
            .field("user_id", .uuid, .required, .references("users", "id", onDelete: .cascade))
            .field("lesson_id", .string, .required)
            .field("read_at", .datetime)
            .field("attempts", .int, .required)
            .field("last_correct", .int, .required)
            .field("best_correct", .int, .required)
            .field("total", .int, .required)
            .field("last_taken_at", .datetime)
            .field("passed_at", .datetime)
            .unique(on: "user_id", "lesson_id")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("learn_progress").delete()
    }
}
