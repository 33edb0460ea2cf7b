import Foundation
import Testing
@testable import BullpenStore

/// The throttles' shared counts (logins, registrations, orders), as several instances use them.
@Suite("Throttles in the database")
struct ThrottleStoreTests {
    /// At most `limit` attempts in the window, strictly.
    static func limit(_ limit: Int, key: String) -> @Sendable ([String: [Date]], Bool) -> Int? {
        { attempts, _ in (attempts[key]?.count ?? 0) >= limit ? 60 : nil }
    }

    /// Twenty attempts at once, spread over two instances, against a limit of five: five are
    /// counted, fifteen told to wait; none slips through on a count another had not yet written.
    /// (On SQLite, which the server never shares between processes and whose throttles it keeps in
    /// memory, the same twenty come one after the other: its pool is not made for twenty writers.)
    @Test(arguments: TestDatabases.kinds)
    func concurrentAttemptsOverInstancesCountOneAfterTheOther(_ kind: DatabaseKind) async throws {
        try await TestDatabases.withStore(kind) { first, openAnother in
            let second = kind == .postgres ? try openAnother() : first
            let now = Date()
            let attempt: @Sendable (Int) async throws -> ThrottleReservation = { i in
                try await (i % 2 == 0 ? first : second).reserveThrottled(
                    keys: ["pair:x", "account:x"], since: now.addingTimeInterval(-900), now: now, known: nil,
                    decide: Self.limit(5, key: "pair:x"))
            }
            var outcomes: [ThrottleReservation] = []
            if kind == .postgres {
                outcomes = try await withThrowingTaskGroup(of: ThrottleReservation.self) { group in
                    for i in 0..<20 { group.addTask { try await attempt(i) } }
                    return try await group.reduce(into: [ThrottleReservation]()) { $0.append($1) }
                }
            } else {
                for i in 0..<20 { outcomes.append(try await attempt(i)) }
            }
            let reserved = outcomes.compactMap { if case .reserved(let id) = $0 { id } else { nil } }
            #expect(reserved.count == 5)
            #expect(outcomes.filter { $0 == .wait(60) }.count == 15)

            // A forgiven attempt no longer counts; a cleared key starts again; old attempts fall out.
            try await first.forgetThrottled(reserved[0])
            let again = try await second.reserveThrottled(keys: ["pair:x"], since: now.addingTimeInterval(-900), now: now,
                                                           known: nil, decide: Self.limit(5, key: "pair:x"))
            #expect(again != .wait(60))
            #expect(try await second.reserveThrottled(keys: ["pair:x"], since: now.addingTimeInterval(-900), now: now,
                                                      known: nil, decide: Self.limit(5, key: "pair:x")) == .wait(60))
            try await second.clearThrottled(key: "pair:x")
            #expect(try await first.reserveThrottled(keys: ["pair:x"], since: now.addingTimeInterval(-900), now: now,
                                                     known: nil, decide: Self.limit(1, key: "pair:x")) != .wait(60))
            let later = now.addingTimeInterval(901)
            #expect(try await first.reserveThrottled(keys: ["account:x"], since: later.addingTimeInterval(-900), now: later,
                                                     known: nil, decide: Self.limit(1, key: "account:x")) != .wait(60))
        }
    }

    /// A use named once (a retried request's idempotency key) is counted once, however often it
    /// comes back, and is still let through when the limit is reached after it.
    @Test(arguments: TestDatabases.kinds)
    func aNamedUseCountsOnce(_ kind: DatabaseKind) async throws {
        try await TestDatabases.withStore(kind) { (store: BullpenStore, _) async throws -> Void in
            let now = Date(), named = UUID()
            let since = now.addingTimeInterval(-60)
            for _ in 0..<3 {
                #expect(try await store.reserveThrottled(keys: ["orders:u"], since: since, now: now, known: nil, once: named,
                                                         decide: Self.limit(2, key: "orders:u")) == .reserved(named))
            }
            #expect(try await store.reserveThrottled(keys: ["orders:u"], since: since, now: now, known: nil,
                                                     decide: Self.limit(2, key: "orders:u")) != .wait(60))
            #expect(try await store.reserveThrottled(keys: ["orders:u"], since: since, now: now, known: nil,
                                                     decide: Self.limit(2, key: "orders:u")) == .wait(60))
            #expect(try await store.reserveThrottled(keys: ["orders:u"], since: since, now: now, known: nil, once: named,
                                                     decide: Self.limit(2, key: "orders:u")) == .reserved(named))
        }
    }

    /// An account's known addresses: remembered by one instance, known to the other; the latest
    /// `keep` only.
    @Test(arguments: TestDatabases.kinds)
    func knownAddressesAreSharedAndBounded(_ kind: DatabaseKind) async throws {
        try await TestDatabases.withStore(kind) { first, openAnother in
            let second = kind == .postgres ? try openAnother() : first
            let start = Date()
            for i in 0..<4 {
                try await first.rememberAddress(account: "lena", address: "10.0.0.\(i)", at: start.addingTimeInterval(Double(i)), keep: 3)
            }
            try await first.rememberAddress(account: "lena", address: "10.0.0.1", at: start.addingTimeInterval(10), keep: 3)
            func known(_ address: String) async throws -> Bool {
                let answer = try await second.reserveThrottled(keys: ["probe"], since: start, now: start, known: ("lena", address)) { _, known in
                    known ? 1 : 2
                }
                return answer == .wait(1)
            }
            #expect(try await !known("10.0.0.0"), "the oldest of four fell out")
            for address in ["10.0.0.1", "10.0.0.2", "10.0.0.3"] { #expect(try await known(address), "\(address)") }
            #expect(try await !known("10.9.9.9"))
        }
    }
}
