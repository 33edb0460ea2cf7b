import BullpenCore
import Foundation

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
/// only when it succeeds, so twenty guesses sent at once are six tries, not twenty. In memory,
/// per process: a restart forgets, which errs on the side of letting people in.
actor LoginThrottle {
    struct Policy: Sendable {
        var perPair = 5
        var perAccount = 10
        var perAddress = 50
        var window: TimeInterval = 15 * 60
    }

    /// A reserved attempt, handed back with its outcome.
    struct Attempt: Sendable {
        fileprivate let id: UInt64
        fileprivate let keys: [String]
        fileprivate let account: String
        fileprivate let address: String
    }

    enum Decision: Sendable {
        case proceed(Attempt)
        /// Seconds until the next try may be made.
        case wait(Int)
    }

    private let policy: Policy
    private let time: any TimeSource
    /// Each key's recent failures (reserved attempts included): the attempt's id and when.
    private var failures: [String: [(id: UInt64, at: Date)]] = [:]
    /// The addresses each account has logged in from (the latest few).
    private var knownAddresses: [String: [String]] = [:]
    private var nextID: UInt64 = 0
    private static let knownPerAccount = 10

    init(policy: Policy, time: any TimeSource) {
        self.policy = policy
        self.time = time
    }

    /// Reserves a try of `account` from `address`, or says how long to wait.
    func begin(account: String, address: String) -> Decision {
        let now = time.now()
        if failures.count > 100_000 { prune(now: now) }
        let known = knownAddresses[account]?.contains(address) ?? false
        let pair = "pair:\(account)\u{0}\(address)", accountKey = "account:\(account)", addressKey = "address:\(address)"
        var waits = [strictWait(pair, limit: policy.perPair, now: now)]
        if !known {
            waits.append(growingWait(accountKey, limit: policy.perAccount, now: now))
            waits.append(growingWait(addressKey, limit: policy.perAddress, now: now))
        }
        if let wait = waits.compactMap({ $0 }).max() { return .wait(wait) }
        nextID += 1
        let keys = [pair, accountKey, addressKey]
        for key in keys { failures[key, default: []].append((nextID, now)) }
        return .proceed(Attempt(id: nextID, keys: keys, account: account, address: address))
    }

    /// The password was right: the attempt is forgiven, the pair's failures too (not the
    /// account's: an attacker elsewhere is not let off), and the address is known from now on.
    func succeeded(_ attempt: Attempt) {
        forget(attempt)
        failures[attempt.keys[0]] = nil
        var addresses = knownAddresses[attempt.account, default: []].filter { $0 != attempt.address }
        addresses.append(attempt.address)
        knownAddresses[attempt.account] = Array(addresses.suffix(Self.knownPerAccount))
    }

    /// The attempt was not made after all (the server was too busy to check it): not a failure.
    func abandoned(_ attempt: Attempt) { forget(attempt) }

    private func forget(_ attempt: Attempt) {
        for key in attempt.keys {
            failures[key]?.removeAll { $0.id == attempt.id }
            if failures[key]?.isEmpty == true { failures[key] = nil }
        }
    }

    /// The window's failures of `key`, dropping older ones.
    private func recent(_ key: String, now: Date) -> [(id: UInt64, at: Date)] {
        let recent = (failures[key] ?? []).filter { now.timeIntervalSince($0.at) < policy.window }
        failures[key] = recent.isEmpty ? nil : recent
        return recent
    }

    /// At the limit, until the oldest failure leaves the window.
    private func strictWait(_ key: String, limit: Int, now: Date) -> Int? {
        let recent = recent(key, now: now)
        guard recent.count >= limit, let oldest = recent.first else { return nil }
        return max(1, Int((policy.window - now.timeIntervalSince(oldest.at)).rounded(.up)))
    }

    /// At the limit, 1 second after the latest failure, doubling with each failure past it (at
    /// most the window).
    private func growingWait(_ key: String, limit: Int, now: Date) -> Int? {
        let recent = recent(key, now: now)
        guard recent.count >= limit, let latest = recent.last else { return nil }
        let delay = min(policy.window, pow(2, Double(min(recent.count - limit, 20))))
        let left = delay - now.timeIntervalSince(latest.at)
        return left > 0 ? max(1, Int(left.rounded(.up))) : nil
    }

    private func prune(now: Date) {
        failures = failures.compactMapValues { entries in
            let recent = entries.filter { now.timeIntervalSince($0.at) < policy.window }
            return recent.isEmpty ? nil : recent
        }
    }
}

/// A sliding-window limit on how often a key (an address) may do something: registrations.
actor RateLimiter {
    private let limit: Int
    private let window: TimeInterval
    private let time: any TimeSource
    private var uses: [String: [Date]] = [:]

    init(limit: Int, window: TimeInterval, time: any TimeSource) {
        self.limit = limit
        self.window = window
        self.time = time
    }

    /// Counts a use by `key`, or answers the seconds to wait without counting it.
    func take(_ key: String) -> Int? {
        let now = time.now()
        if uses.count > 100_000 {
            uses = uses.compactMapValues { dates in
                let recent = dates.filter { now.timeIntervalSince($0) < window }
                return recent.isEmpty ? nil : recent
            }
        }
        let recent = (uses[key] ?? []).filter { now.timeIntervalSince($0) < window }
        if recent.count >= limit, let oldest = recent.first {
            uses[key] = recent
            return max(1, Int((window - now.timeIntervalSince(oldest)).rounded(.up)))
        }
        uses[key] = recent + [now]
        return nil
    }
}
