import FluentKit
import Foundation
import SQLKit

/// What a throttle decided: the attempt was counted (under this id, to forgive it later), or the
/// caller must wait this many seconds.
public enum ThrottleReservation: Sendable, Equatable {
    case reserved(UUID)
    case wait(Int)
}

extension BullpenStore {
    /// The throttles' shared counts, for instances that share this database: atomically reads the
    /// times of `keys`' attempts after `since` (oldest first), and whether `known.account` has
    /// logged in from `known.address`; asks `decide`; unless it answers a wait, records a new
    /// attempt under every key at `now`. On PostgreSQL each key is locked for the transaction
    /// (`pg_advisory_xact_lock`), so that concurrent attempts on any instance are counted one after
    /// the other, never both let through on the same count. Older attempts of these keys are
    /// deleted on the way. An attempt `once` already recorded under the keys is not counted again.
    public func reserveThrottled(keys: [String], since: Date, now: Date, known: (account: String, address: String)?,
                                 once: UUID? = nil,
                                 decide: @escaping @Sendable (_ attempts: [String: [Date]], _ known: Bool) -> Int?) async throws -> ThrottleReservation {
        let attempt = once ?? UUID()
        let knownPair = known.map { [$0.account, $0.address] }
        return try await transaction { db in
            let sql = self.sql(db)
            if !self.backend.isSQLite {
                for key in Set(keys).sorted() {
                    try await sql.raw("SELECT pg_advisory_xact_lock(\(literal: Int(Self.throttleLockSpace)), hashtext(\(bind: key)))").run()
                }
            }
            try await sql.delete(from: "throttle_events")
                .where("key", .in, keys).where("at", .lessThanOrEqual, since.timeIntervalSince1970).run()
            // The same attempt again (a retried request): counted already.
            if once != nil, try await !sql.select().column("key").from("throttle_events")
                .where("attempt", .equal, attempt).where("key", .in, keys).limit(1).all().isEmpty {
                return .reserved(attempt)
            }
            let rows = try await sql.select().columns("key", "at").from("throttle_events")
                .where("key", .in, keys).orderBy("at").all()
            var attempts: [String: [Date]] = [:]
            for row in rows {
                attempts[try row.decode(column: "key", as: String.self), default: []]
                    .append(Date(timeIntervalSince1970: try row.decode(column: "at", as: Double.self)))
            }
            var isKnown = false
            if let knownPair {
                isKnown = try await !sql.select().column("account").from("throttle_known_addresses")
                    .where("account", .equal, knownPair[0]).where("address", .equal, knownPair[1]).all().isEmpty
            }
            if let wait = decide(attempts, isKnown) { return .wait(wait) }
            let insert = sql.insert(into: "throttle_events").columns("key", "attempt", "at")
            for key in keys { insert.values(SQLBind(key), SQLBind(attempt), SQLBind(now.timeIntervalSince1970)) }
            try await insert.run()
            return .reserved(attempt)
        }
    }

    /// Forgives an attempt: it no longer counts under any of its keys.
    public func forgetThrottled(_ attempt: UUID) async throws {
        try await transaction { db in
            try await self.sql(db).delete(from: "throttle_events").where("attempt", .equal, attempt).run()
        }
    }

    /// Forgets every attempt under `key`.
    public func clearThrottled(key: String) async throws {
        try await transaction { db in
            try await self.sql(db).delete(from: "throttle_events").where("key", .equal, key).run()
        }
    }

    /// Remembers that `account` logged in from `address`, keeping its latest `keep` addresses.
    public func rememberAddress(account: String, address: String, at: Date, keep: Int) async throws {
        try await transaction { db in
            let sql = self.sql(db)
            try await sql.insert(into: "throttle_known_addresses").columns("account", "address", "at")
                .values(SQLBind(account), SQLBind(address), SQLBind(at.timeIntervalSince1970))
                .onConflict(with: ["account", "address"]) { $0.set(excludedValueOf: "at") }
                .run()
            try await sql.raw("""
                DELETE FROM throttle_known_addresses WHERE account = \(bind: account) AND address NOT IN (
                  SELECT address FROM throttle_known_addresses WHERE account = \(bind: account) ORDER BY at DESC LIMIT \(literal: keep))
                """).run()
        }
    }

    /// Deletes every attempt made before `date` (a throttle's keys it no longer sees).
    public func pruneThrottles(before date: Date) async throws {
        try await transaction { db in
            try await self.sql(db).delete(from: "throttle_events").where("at", .lessThan, date.timeIntervalSince1970).run()
        }
    }

    /// The first key of the throttles' transaction locks (the jobs' locks use ``jobLockSpace``).
    static let throttleLockSpace: Int32 = 0x42_50_54   // "BPT"
}
