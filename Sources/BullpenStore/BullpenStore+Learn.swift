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

    /// Notes that the player read `lesson` (the first time only).
    @discardableResult
    public func markLessonRead(_ lesson: String, owner: UserID) async throws -> LessonProgress {
        try await changeProgress(lesson, owner: owner) { row, now in
            if row.readAt == nil { row.readAt = now }
        }
    }

    /// Records an attempt at `lesson`'s quiz: the last score, the best, and when it first passed.
    public func recordQuiz(_ lesson: String, result: QuizResult, owner: UserID) async throws -> LessonProgress {
        try await changeProgress(lesson, owner: owner) { row, now in
            row.readAt = row.readAt ?? now
            row.attempts += 1
            row.lastCorrect = result.correct
            row.bestCorrect = max(row.bestCorrect, result.correct)
            row.total = result.total
            row.lastTakenAt = now
            if result.passed, row.passedAt == nil { row.passedAt = now }
        }
    }

    /// Reads the row (or a new one), changes it, writes it, in one transaction; two requests at
    /// once both count (the loser of a first insert tries again as an update).
    private func changeProgress(_ lesson: String, owner: UserID,
                                _ change: @escaping @Sendable (inout LearnProgressRow, Date) -> Void) async throws -> LessonProgress {
        for attempt in 1...3 {
            do {
                return try await transaction { db in
                    let sql = self.sql(db)
                    let now = self.time.now()
                    let existing = try await sql.select().column("*").from("learn_progress").where("user_id", .equal, owner.uuid)
                        .where("lesson_id", .equal, lesson).first(decoding: LearnProgressRow.self, with: Self.rowDecoder)
                    var row = existing ?? LearnProgressRow(id: self.ids.makeUUID(), userId: owner.uuid, lessonId: lesson, readAt: nil,
                                                            attempts: 0, lastCorrect: 0, bestCorrect: 0, total: 0,
                                                            lastTakenAt: nil, passedAt: nil)
                    change(&row, now)
                    if existing == nil {
                        try await sql.insert(into: "learn_progress").model(row, with: Self.rowEncoder).run()
                    } else {
                        try await sql.update("learn_progress").set(model: row, with: Self.rowEncoder).where("id", .equal, row.id).run()
                    }
                    return LessonProgress(row)
                }
            } catch where Self.isConstraintFailure(error) && attempt < 3 {
                continue
            }
        }
        throw StoreError.unavailable
    }
}
