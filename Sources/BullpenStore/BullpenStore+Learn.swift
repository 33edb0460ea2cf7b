import BullpenCore
import FluentKit
import FluentSQL
import Foundation

struct LearnProgressRow: Codable, Sendable {
    var id: UUID
    var userId: UUID
    var lessonId: String
    var readAt: Date?
    var attempts: Int
    var lastCorrect: Int
    var bestCorrect: Int
    var total: Int
    var lastTakenAt: Date?
    var passedAt: Date?
}

/// A player's progress on one lesson: read or not, and how its quiz went.
public struct LessonProgress: Sendable, Hashable {
    public var lesson: String
    public var readAt: Date?
    public var attempts: Int
    public var lastCorrect: Int
    public var bestCorrect: Int
    public var total: Int
    public var lastTakenAt: Date?
    /// When the quiz first passed; nil while it has not.
    public var passedAt: Date?

    init(_ row: LearnProgressRow) {
        lesson = row.lessonId
        readAt = row.readAt
        attempts = row.attempts
        lastCorrect = row.lastCorrect
        bestCorrect = row.bestCorrect
        total = row.total
        lastTakenAt = row.lastTakenAt
        passedAt = row.passedAt
    }
}

extension BullpenStore {
    /// The player's progress on every lesson they opened, by lesson id.
    public func learnProgress(owner: UserID) async throws -> [String: LessonProgress] {
        let rows = try await sql(db).select().column("*").from("learn_progress").where("user_id", .equal, owner.uuid)
            .all(decoding: LearnProgressRow.self, with: Self.rowDecoder)
        return Dictionary(rows.map { ($0.lessonId, LessonProgress($0)) }, uniquingKeysWith: { first, _ in first })
    }

    /// Notes that the player read `lesson` (the first time only: a lesson read before is not written again).
    @discardableResult
    public func markLessonRead(_ lesson: String, owner: UserID) async throws -> LessonProgress {
        if let known = try await progressRow(lesson, owner: owner, on: db) { return LessonProgress(known) }
        return try await transaction { db in
            let row = LearnProgressRow(id: self.ids.makeUUID(), userId: owner.uuid, lessonId: lesson, readAt: self.time.now(),
                                       attempts: 0, lastCorrect: 0, bestCorrect: 0, total: 0, lastTakenAt: nil, passedAt: nil)
            try await self.sql(db).insert(into: "learn_progress").model(row, with: Self.rowEncoder)
                .ignoringConflicts(with: ["user_id", "lesson_id"]).run()
            return LessonProgress(try await self.progressRow(lesson, owner: owner, on: db) ?? row)
        }
    }

    /// Records an attempt at `lesson`'s quiz: the last score, the best, and when it first passed.
    /// One statement adds it to the row (an upsert), so attempts made at once all count and the
    /// best score never goes down, on SQLite and PostgreSQL alike.
    public func recordQuiz(_ lesson: String, result: QuizResult, owner: UserID) async throws -> LessonProgress {
        try await transaction { db in
            let now = self.time.now()
            let row = LearnProgressRow(id: self.ids.makeUUID(), userId: owner.uuid, lessonId: lesson, readAt: now, attempts: 1,
                                       lastCorrect: result.correct, bestCorrect: result.correct, total: result.total,
                                       lastTakenAt: now, passedAt: result.passed ? now : nil)
            let existing = #""learn_progress"."#, new = #""excluded"."#
            try await self.sql(db).insert(into: "learn_progress").model(row, with: Self.rowEncoder)
                .onConflict(with: ["user_id", "lesson_id"]) { update in
                    update.set("attempts", to: SQLRaw(existing + #""attempts" + 1"#))
                        .set(excludedValueOf: "last_correct").set(excludedValueOf: "total").set(excludedValueOf: "last_taken_at")
                        .set("best_correct", to: SQLRaw("CASE WHEN \(new)\"best_correct\" > \(existing)\"best_correct\" THEN \(new)\"best_correct\" ELSE \(existing)\"best_correct\" END"))
                        .set("passed_at", to: SQLRaw("COALESCE(\(existing)\"passed_at\", \(new)\"passed_at\")"))
                        .set("read_at", to: SQLRaw("COALESCE(\(existing)\"read_at\", \(new)\"read_at\")"))
                }.run()
            return LessonProgress(try await self.progressRow(lesson, owner: owner, on: db) ?? row)
        }
    }

    private func progressRow(_ lesson: String, owner: UserID, on db: any Database) async throws -> LearnProgressRow? {
        try await sql(db).select().column("*").from("learn_progress").where("user_id", .equal, owner.uuid)
            .where("lesson_id", .equal, lesson).first(decoding: LearnProgressRow.self, with: Self.rowDecoder)
    }
}
