import BullpenCore
import Foundation
import Testing
@testable import BullpenStore

/// A player's progress in Learn, on both databases.
@Suite("Learn progress")
struct LearnStoreTests {
    /// Twenty attempts at one quiz at once, from two store instances (two server processes), while
    /// the lesson is opened ten times too: every attempt counts, the best score is the best of them,
    /// the first pass and the first reading are kept.
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

    /// The first run on both databases: a new account's starts with it; a purchase (a fill of any
    /// portfolio of the player's) counts from the run's start; steps marked at once from two
    /// instances finish it once; a run started again counts only later purchases; the account's
    /// deletion takes it along.
    @Test(arguments: TestDatabases.kinds)
    func theFirstRunFollowsThePlayersFills(kind: DatabaseKind) async throws {
        try await TestDatabases.withStore(kind) { store, openAnother in
            let other = try openAnother()
            let (user, main) = try await store.makeUser()
            let fresh = try await store.firstRun(owner: user.id)
            #expect(fresh.run.status == .active && !fresh.bought && fresh.run.next(bought: false) == .find)
            // Someone else's purchase is theirs.
            let (stranger, theirs) = try await store.makeUser()
            try await store.trade(.buy, Quantity(whole: 1), "MSFT", at: "10", in: theirs.id, owner: stranger.id)
            #expect(try await store.firstRun(owner: user.id).bought == false)
            #expect(try await store.markFirstRun(.see, owner: user.id) == .failure(.outOfOrder(.see, first: .buy)))

            try await store.trade(.buy, Quantity(whole: 1), "MSFT", at: "10", in: main.id, owner: user.id)
            let bought = try await other.firstRun(owner: user.id)
            #expect(bought.bought && bought.run.next(bought: true) == .see)
            // Two instances mark the last step at once: one finish, and it stays.
            async let first = store.markFirstRun(.see, owner: user.id)
            async let second = other.markFirstRun(.see, owner: user.id)
            let (a, b) = try await (first, second)
            let finishedAt = try #require(try await store.firstRun(owner: user.id).run.finishedAt)
            #expect((try? a.get().run.status) == .finished && (try? b.get().run.status) == .finished)

            // Started again: the purchase before no longer counts; a sale is not a purchase.
            let again = try await store.startFirstRun(owner: user.id)
            #expect(again.run.status == .active && !again.bought && again.run.startedAt! >= finishedAt)
            try await store.trade(.sell, Quantity(whole: 1), "MSFT", at: "11", in: main.id, owner: user.id)
            #expect(try await store.firstRun(owner: user.id).bought == false)
            let skipped = try await store.skipFirstRun(owner: user.id)
            #expect(skipped.run.status == .skipped)
            #expect(try await store.markFirstRun(.find, owner: user.id) == .failure(.notRunning(.skipped)))

            let audit = try await store.auditSnapshot(of: main.id, owner: user.id, prices: [:])
            #expect(Invariants.check(audit).isEmpty, "\(Invariants.check(audit))")
            try await store.deleteUser(user.id)
            let gone = try await store.firstRun(owner: user.id)
            #expect(gone.run.status == .available, "the account's run went with it")
        }
    }
}
