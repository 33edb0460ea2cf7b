import BullpenCore
import BullpenStore
import Crypto
import Foundation
import Synchronization

/// Says whether a login may be tried, before its password is hashed, after OWASP's advice on
/// account lockout: a guess cannot be made faster by sending many at once, and an attacker cannot
/// lock the real owner out.
///
/// - Per account and address: at most ``Policy/perPair`` failures in the window, strictly.
/// - Per account, from every address: past ``Policy/perAccount`` failures each further try waits
///   a delay that doubles with each failure (up to the window). A correct password from an address
///   the account has logged in from before is not held up by it: the owner keeps their way in
///   while someone elsewhere guesses.
/// - Per address, over every account: past ``Policy/perAddress`` failures, the same growing
///   delays, again not for accounts known at that address (a school behind one address).
///
/// An attempt is counted when it begins (``begin(account:address:)`` reserves it) and forgiven
/// only when it succeeds, so twenty guesses sent at once are six tries, not twenty. The counts are
/// kept in a ``ThrottleBook``: this process's memory on SQLite (one process owns the file; a
/// restart forgets, which errs on the side of letting people in), the database on PostgreSQL, so
/// that every instance sharing it counts together.
struct LoginThrottle: Sendable {
    struct Policy: Sendable {
        var perPair = 5
        var perAccount = 10
        var perAddress = 50
        var window: TimeInterval = 15 * 60
    }

    /// A reserved attempt, handed back with its outcome.
    struct Attempt: Sendable {
        fileprivate let id: UUID
        fileprivate let keys: [String]
        fileprivate let account: String
        fileprivate let address: String
        fileprivate var pair: String { keys[0] }
    }

    enum Decision: Sendable {
        case proceed(Attempt)
        /// Seconds until the next try may be made.
        case wait(Int)
    }

    let policy: Policy
    let time: any TimeSource
    let book: any ThrottleBook
    static let knownPerAccount = 10

    init(policy: Policy, time: any TimeSource, book: any ThrottleBook) {
        self.policy = policy
        self.time = time
        self.book = book
    }

    /// Reserves a try of `account` from `address`, or says how long to wait.
    func begin(account: String, address: String) async throws -> Decision {
        let now = time.now()
        let pair = "pair:\(account)\u{1F}\(address)", accountKey = "account:\(account)", addressKey = "address:\(address)"
        let policy = policy
        let reservation = try await book.reserve(keys: [pair, accountKey, addressKey], since: now.addingTimeInterval(-policy.window),
                                                 now: now, known: (account, address), once: nil) { attempts, known in
            var waits = [Self.strictWait(attempts[pair] ?? [], limit: policy.perPair, window: policy.window, now: now)]
            if !known {
                waits.append(Self.growingWait(attempts[accountKey] ?? [], limit: policy.perAccount, window: policy.window, now: now))
                waits.append(Self.growingWait(attempts[addressKey] ?? [], limit: policy.perAddress, window: policy.window, now: now))
            }
            return waits.compactMap { $0 }.max()
        }
        switch reservation {
        case .wait(let seconds): return .wait(seconds)
        case .reserved(let id): return .proceed(Attempt(id: id, keys: [pair, accountKey, addressKey], account: account, address: address))
        }
    }

    /// The password was right: the attempt is forgiven, the pair's failures too (not the
    /// account's: an attacker elsewhere is not let off), and the address is known from now on.
    func succeeded(_ attempt: Attempt) async throws {
        try await book.forget(attempt.id, keys: attempt.keys)
        try await book.clear(key: attempt.pair)
        try await book.remember(account: attempt.account, address: attempt.address, at: time.now(), keep: Self.knownPerAccount)
    }

    /// The attempt was not made after all (the server was too busy to check it): not a failure.
    func abandoned(_ attempt: Attempt) async throws { try await book.forget(attempt.id, keys: attempt.keys) }

    /// At the limit, until the oldest failure leaves the window.
    static func strictWait(_ recent: [Date], limit: Int, window: TimeInterval, now: Date) -> Int? {
        guard recent.count >= limit, let oldest = recent.first else { return nil }
        return max(1, Int((window - now.timeIntervalSince(oldest)).rounded(.up)))
    }

    /// At the limit, 1 second after the latest failure, doubling with each failure past it (at
    /// most the window).
    static func growingWait(_ recent: [Date], limit: Int, window: TimeInterval, now: Date) -> Int? {
        guard recent.count >= limit, let latest = recent.last else { return nil }
        let delay = min(window, pow(2, Double(min(recent.count - limit, 20))))
        let left = delay - now.timeIntervalSince(latest)
        return left > 0 ? max(1, Int(left.rounded(.up))) : nil
    }
}

/// A sliding-window limit on how often a key may do something: registrations per address,
/// orders per player. Counted in the same ``ThrottleBook`` as logins.
struct RateLimiter: Sendable {
    let name: String
    let limit: Int
    let window: TimeInterval
    let time: any TimeSource
    let book: any ThrottleBook

    /// Counts a use by `key`, or answers the seconds to wait without counting it. A use named
    /// `once` (a request's idempotency key) counts once however often it is retried.
    func take(_ key: String, once: String? = nil) async throws -> Int? {
        let now = time.now()
        let (limit, window) = (limit, window)
        let id = once.map { Self.id(of: "\(name):\(key):\($0)") }
        let reservation = try await book.reserve(keys: ["\(name):\(key)"], since: now.addingTimeInterval(-window), now: now,
                                                 known: nil, once: id) { attempts, _ in
            LoginThrottle.strictWait(attempts.values.first ?? [], limit: limit, window: window, now: now)
        }
        if case .wait(let seconds) = reservation { return seconds }
        return nil
    }

    /// A stable id for a named use: the first 16 bytes of its SHA-256.
    static func id(of text: String) -> UUID {
        let b = Array(SHA256.hash(data: Data(text.utf8)))
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }
}

/// Where throttles keep their counts: each attempt's time under each of its keys, and the
/// addresses each account has logged in from.
protocol ThrottleBook: Sendable {
    /// Atomically: reads `keys`' attempts after `since` (oldest first) and whether the account
    /// knows the address, asks `decide`, and unless it answers a wait records an attempt under
    /// every key at `now`. An attempt `once` already recorded under the keys is not counted again.
    func reserve(keys: [String], since: Date, now: Date, known: (account: String, address: String)?, once: UUID?,
                 decide: @escaping @Sendable (_ attempts: [String: [Date]], _ known: Bool) -> Int?) async throws -> ThrottleReservation
    /// The attempt no longer counts (under `keys`, the ones it was reserved under).
    func forget(_ attempt: UUID, keys: [String]) async throws
    func clear(key: String) async throws
    func remember(account: String, address: String, at: Date, keep: Int) async throws
}

/// This process's memory: one server on its own (SQLite).
actor MemoryThrottleBook: ThrottleBook {
    private var attempts: [String: [(id: UUID, at: Date)]] = [:]
    private var knownAddresses: [String: [String]] = [:]

    func reserve(keys: [String], since: Date, now: Date, known: (account: String, address: String)?, once: UUID?,
                 decide: @escaping @Sendable ([String: [Date]], Bool) -> Int?) -> ThrottleReservation {
        if let once, let first = keys.first, attempts[first]?.contains(where: { $0.id == once && $0.at > since }) == true {
            return .reserved(once)
        }
        if attempts.count > 100_000 {
            // Stale keys of the longest window (logins', 15 minutes) are of no use to anyone.
            attempts = attempts.compactMapValues { list in
                let recent = list.filter { now.timeIntervalSince($0.at) < 3_600 }
                return recent.isEmpty ? nil : recent
            }
        }
        var recent: [String: [Date]] = [:]
        for key in keys {
            let kept = (attempts[key] ?? []).filter { $0.at > since }
            attempts[key] = kept.isEmpty ? nil : kept
            recent[key] = kept.map(\.at)
        }
        let isKnown = known.map { knownAddresses[$0.account]?.contains($0.address) ?? false } ?? false
        if let wait = decide(recent, isKnown) { return .wait(wait) }
        let id = once ?? UUID()
        for key in keys { attempts[key, default: []].append((id, now)) }
        return .reserved(id)
    }

    func forget(_ attempt: UUID, keys: [String]) {
        for key in keys {
            attempts[key]?.removeAll { $0.id == attempt }
            if attempts[key]?.isEmpty == true { attempts[key] = nil }
        }
    }

    func clear(key: String) { attempts[key] = nil }

    func remember(account: String, address: String, at: Date, keep: Int) {
        var addresses = knownAddresses[account, default: []].filter { $0 != address }
        addresses.append(address)
        knownAddresses[account] = Array(addresses.suffix(keep))
    }
}

/// The database (PostgreSQL): every instance sharing it counts together. Keys, accounts and
/// addresses are stored as their SHA-256 (a login's username is whatever was typed: any length,
/// any character, NUL included, which PostgreSQL's text refuses).
///
/// Attempts on the same key take turns in this process before they take a database connection:
/// a flood of logins from one address waits here, in memory, not in the pool's few connections
/// (each would otherwise wait in its transaction on the key's advisory lock, and every other
/// request with it).
final class DatabaseThrottleBook: ThrottleBook {
    let store: BullpenStore
    /// When attempts older than an hour were last deleted (every throttle's window is shorter).
    private let pruned = Mutex<Date>(.distantPast)
    private let turns = KeyTurns()

    init(store: BullpenStore) { self.store = store }

    func reserve(keys: [String], since: Date, now: Date, known: (account: String, address: String)?, once: UUID?,
                 decide: @escaping @Sendable ([String: [Date]], Bool) -> Int?) async throws -> ThrottleReservation {
        let prune = pruned.withLock { last in
            guard now.timeIntervalSince(last) > 600 else { return false }
            last = now
            return true
        }
        if prune { try await store.pruneThrottles(before: now.addingTimeInterval(-3_600)) }
        let hashed = keys.map(Self.digest)
        let originals = Dictionary(zip(hashed, keys), uniquingKeysWith: { first, _ in first })
        let store = store
        return try await turns.inTurn(for: keys) {
            try await store.reserveThrottled(keys: hashed, since: since, now: now,
                                             known: known.map { (Self.digest($0.account), Self.digest($0.address)) }, once: once) { attempts, known in
                decide(Dictionary(attempts.map { (originals[$0.key] ?? $0.key, $0.value) }, uniquingKeysWith: +), known)
            }
        }
    }

    func forget(_ attempt: UUID, keys: [String]) async throws { try await store.forgetThrottled(attempt) }
    func clear(key: String) async throws { try await store.clearThrottled(key: Self.digest(key)) }
    func remember(account: String, address: String, at: Date, keep: Int) async throws {
        try await store.rememberAddress(account: Self.digest(account), address: Self.digest(address), at: at, keep: keep)
    }

    static func digest(_ text: String) -> String { SHA256.hash(data: Data(text.utf8)).hex }
}

/// One at a time per key, in this process: `inTurn(for:)` runs its work once no other work on any
/// of the same keys is running, in the order they asked.
actor KeyTurns {
    private var busy: Set<String> = []
    private var waiting: [(keys: Set<String>, resume: CheckedContinuation<Void, Never>)] = []

    func inTurn<T: Sendable>(for keys: [String], _ work: @Sendable () async throws -> T) async throws -> T {
        let keys = Set(keys)
        if !busy.isDisjoint(with: keys) || waiting.contains(where: { !$0.keys.isDisjoint(with: keys) }) {
            await withCheckedContinuation { waiting.append((keys, $0)) }
        }
        busy.formUnion(keys)
        defer { release(keys) }
        return try await work()
    }

    private func release(_ keys: Set<String>) {
        busy.subtract(keys)
        // Wake, in order, every waiter whose keys are now all free and not promised to an earlier one.
        var promised = busy
        var still: [(keys: Set<String>, resume: CheckedContinuation<Void, Never>)] = []
        for waiter in waiting {
            if waiter.keys.isDisjoint(with: promised) {
                promised.formUnion(waiter.keys)
                busy.formUnion(waiter.keys)
                waiter.resume.resume()
            } else {
                promised.formUnion(waiter.keys)
                still.append(waiter)
            }
        }
        waiting = still
    }
}
