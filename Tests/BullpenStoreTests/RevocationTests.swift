import BullpenCore
import Foundation
import SQLKit
import Testing
@testable import BullpenStore

@Suite("Session revocations across instances")
struct RevocationTests {
    @Test func noticesReadBackWhatWasWritten() throws {
        let session = SessionID(UUID())
        let user = UserID(UUID())
        for revocation in [Revocation.session(session), .user(user, keeping: nil), .user(user, keeping: session)] {
            #expect(Revocation(payload: revocation.payload) == revocation)
        }
        for bad in ["", "session", "session nope", "user \(user.uuid) nope", "user a b c", "everyone"] {
            #expect(Revocation(payload: bad) == nil)
        }
    }

    /// Waits (up to `seconds`) for `condition`; false if it never held.
    static func eventually(within seconds: Int = 5, _ condition: () async throws -> Bool) async rethrows -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return try await condition()
    }

    /// Two instances on one PostgreSQL: a revocation by one reaches the other's session cache at
    /// once (its entries would otherwise be trusted for a minute), also after the listening
    /// connection was cut and came back.
    @Test(.enabled(if: TestDatabases.kinds.contains(.postgres)))
    func revocationsReachTheOtherInstanceAtOnce() async throws {
        try await TestDatabases.withStore(.postgres) { first, openAnother in
            let second = try openAnother()
            #expect(second.sessions.lifetime == .seconds(60))
            let (user, _) = try await first.makeUser()
            let loggedOut = try await first.createSession(for: user.id, refreshTokenHash: "a")
            let kept = try await first.createSession(for: user.id, refreshTokenHash: "b")
            let other = try await first.createSession(for: user.id, refreshTokenHash: "c")
            // The listener starts with the first session check, not with the store.
            try await Task.sleep(for: .milliseconds(200))
            #expect(!second.hearsRevocations)
            _ = try await second.activeSessionOwner(loggedOut)
            #expect(await Self.eventually { second.hearsRevocations })
            for session in [loggedOut, kept, other] {
                #expect(try await second.activeSessionOwner(session) == user.id)
                #expect(second.sessions.owner(of: session) == user.id)
            }

            try await first.revokeSession(loggedOut, reason: "logout")
            #expect(await Self.eventually(within: 3) { second.sessions.owner(of: loggedOut) == nil })
            #expect(try await second.activeSessionOwner(loggedOut) == nil)
            #expect(second.sessions.owner(of: kept) == user.id)

            // Cut the listening connection: the instance trusts its cache briefly only, then hears again.
            let cut = try await first.sql(first.db).raw("""
                SELECT pg_terminate_backend(pid) AS cut FROM pg_stat_activity
                WHERE datname = current_database() AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()
                """).all()
            #expect(!cut.isEmpty)
            // (Reconnecting waits 200 ms, then for a connection: generous bounds, for a loaded machine.)
            #expect(await Self.eventually(within: 20) { !second.hearsRevocations || second.sessions.owner(of: kept) == nil })
            #expect(await Self.eventually(within: 20) { second.hearsRevocations })
            #expect(try await second.activeSessionOwner(kept) == user.id)
            #expect(try await second.activeSessionOwner(other) == user.id)

            try await first.updatePassword(of: user.id, hash: "y", keeping: kept)
            #expect(await Self.eventually(within: 3) { second.sessions.owner(of: other) == nil })
            #expect(second.sessions.owner(of: kept) == user.id)
            #expect(try await second.activeSessionOwner(other) == nil)
            #expect(try await second.activeSessionOwner(kept) == user.id)
        }
    }

    /// Scheduled work runs on one instance at a time: while one holds a job's advisory lock, the
    /// other skips the job (nil) instead of running it twice; another job is not held up; once
    /// released (or its holder is gone), the next round runs.
    @Test(.enabled(if: TestDatabases.kinds.contains(.postgres)))
    func oneInstanceRunsEachScheduledJob() async throws {
        try await TestDatabases.withStore(.postgres) { first, openAnother in
            let second = try openAnother()
            let (entered, inside) = AsyncStream<Void>.makeStream()
            let (released, release) = AsyncStream<Void>.makeStream()
            let holding = Task {
                try await first.exclusively("closing-equity") { () async -> Int in
                    inside.yield()
                    for await _ in released { break }
                    return 1
                }
            }
            for await _ in entered { break }
            #expect(try await second.exclusively("closing-equity") { 2 } == nil)
            #expect(try await first.exclusively("closing-equity") { 3 } == nil)   // not re-entrant across connections
            #expect(try await second.exclusively("league-schedule") { 4 } == 4)
            release.yield()
            #expect(try await holding.value == 1)
            // (The lock goes with the holder's session, which ends a moment after it hangs up.)
            #expect(await Self.eventually { (try? await second.exclusively("closing-equity") { 5 }) == 5 })

            // A holder whose connection is cut (a killed instance) frees the job.
            let (entered2, inside2) = AsyncStream<Void>.makeStream()
            let orphan = Task {
                try await first.exclusively("closing-equity") { () async throws -> Int in
                    inside2.yield()
                    try await Task.sleep(for: .seconds(60))
                    return 6
                }
            }
            for await _ in entered2 { break }
            _ = try await second.sql(second.db).raw("""
                SELECT pg_terminate_backend(pid) AS cut FROM pg_locks
                WHERE locktype = 'advisory' AND classid = \(literal: Int(BullpenStore.jobLockSpace))
                """).all()
            #expect(await Self.eventually(within: 10) { (try? await second.exclusively("closing-equity") { 7 }) == 7 })
            orphan.cancel()
            _ = await orphan.result
        }
    }
}
