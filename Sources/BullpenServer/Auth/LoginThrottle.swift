import BullpenCore
import Foundation

/// Counts failed logins per account and per client address in a sliding window and says when
/// a key must wait. In memory: a restart forgets, which errs on the side of letting people in.
actor LoginThrottle {
    private let limitPerAccount: Int
    private let limitPerAddress: Int
    private let window: TimeInterval
    private let time: any TimeSource
    private var failures: [String: [Date]] = [:]

    init(limitPerAccount: Int, limitPerAddress: Int, window: TimeInterval, time: any TimeSource) {
        self.limitPerAccount = limitPerAccount
        self.limitPerAddress = limitPerAddress
        self.window = window
        self.time = time
    }

    /// Seconds to wait before `account` may try again from `address`, or nil if it may try now.
    func retryAfter(account: String, address: String) -> Int? {
        let now = time.now()
        let waits = [wait(for: "account:" + account, limit: limitPerAccount, now: now),
                     wait(for: "address:" + address, limit: limitPerAddress, now: now)].compactMap { $0 }
        return waits.max()
    }

    func recordFailure(account: String, address: String) {
        let now = time.now()
        for key in ["account:" + account, "address:" + address] {
            failures[key, default: []].append(now)
        }
        if failures.count > 100_000 { prune(now: now) }
    }

    /// A successful login clears the account's failures (not the address's).
    func recordSuccess(account: String) {
        failures["account:" + account] = nil
    }

    private func wait(for key: String, limit: Int, now: Date) -> Int? {
        let recent = (failures[key] ?? []).filter { now.timeIntervalSince($0) < window }
        failures[key] = recent.isEmpty ? nil : recent
        guard recent.count >= limit, let oldest = recent.first else { return nil }
        return max(1, Int((window - now.timeIntervalSince(oldest)).rounded(.up)))
    }

    private func prune(now: Date) {
        failures = failures.compactMapValues { dates in
            let recent = dates.filter { now.timeIntervalSince($0) < window }
            return recent.isEmpty ? nil : recent
        }
    }
}
