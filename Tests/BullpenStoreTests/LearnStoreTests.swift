import BullpenCore
import Foundation
import Testing
@testable import BullpenStore

/// A player's progress in Learn, on both databases.
@Suite("Learn progress")
struct LearnStoreTests {
    /// Twenty attempts at one quiz at once, from two store instances (two server processes), while
    /// the lesson is opened ten times too (more at once waits past the connection pool's limit on a
    /// loaded machine, as CI once found): every attempt counts, the best score is the best of them, the
    /// first pass and the first reading are kept.
    @Test(arguments: TestDatabases.kinds)
    func attemptsMadeAtOnceAllCount(kind: DatabaseKind) async throws {
        try await TestDatabases.withStore(kind) { store, openAnother in
            let other = try openAnother()
            let (user, _) = try await store.makeUser()
            let read = try await store.markLessonRead("fees", owner: user.id)
            #expect(read.readAt != nil && read.attempts == 0)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for i in 0..<20 {
                    let target = i.isMultiple(of: 2) ? store : other
                    // One attempt in ten is all right; the others score 1 of 4.
                    let result = QuizResult(correct: i % 10 == 3 ? 4 : 1, total: 4, right: [], passed: i % 10 == 3)
                    group.addTask { _ = try await target.recordQuiz("fees", result: result, owner: user.id) }
                    if i.isMultiple(of: 2) { group.addTask { _ = try await target.markLessonRead("fees", owner: user.id) } }
                }
                try await group.waitForAll()
            }
            let progress = try #require(try await store.learnProgress(owner: user.id)["fees"])
            #expect(progress.attempts == 20 && progress.bestCorrect == 4 && progress.total == 4 && progress.passedAt != nil)
            #expect(progress.readAt == read.readAt, "the first reading stays")
            // A worse attempt afterwards keeps the best and the pass.
            let worse = try await store.recordQuiz("fees", result: QuizResult(correct: 0, total: 4, right: [], passed: false), owner: user.id)
            #expect(worse.attempts == 21 && worse.bestCorrect == 4 && worse.lastCorrect == 0 && worse.passedAt == progress.passedAt)
        }
    }
}
