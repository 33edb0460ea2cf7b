import BullpenAPI
import Crypto
import Foundation
import NIOConcurrencyHelpers
import NIOPosix
import Vapor

/// bcrypt password hashing without bcrypt's 72-byte truncation: the password is first hashed
/// with SHA-256 and base64-encoded (44 bytes), so every character of a long password counts.
/// Hashing runs on a thread pool of its own, off the event loops and off the blocking pool that
/// SQLite's statements run on (at cost 12 a hash takes a quarter of a second: two logins at once
/// would otherwise hold every thread the database has).
///
/// The hashes waiting or running are bounded (``capacity``): past it, a request is refused at once
/// with 503 `busy` and `Retry-After` instead of queueing without end (a burst of registrations
/// would otherwise make every login wait behind it).
struct PasswordHasher: Sendable {
    static let scheme = "bcrypt-sha256$"
    let cost: Int
    let threadPool: NIOThreadPool
    /// How many hashes may be waiting or running at once.
    let capacity: Int
    private let inFlight = NIOLockedValueBox(0)

    /// The process's hashing threads, started on first use and kept for the life of the process.
    static let sharedPool: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: max(2, System.coreCount))
        pool.start()
        return pool
    }()

    init(cost: Int, threadPool: NIOThreadPool = Self.sharedPool, capacity: Int = max(2, System.coreCount) * 8) {
        self.cost = cost
        self.threadPool = threadPool
        self.capacity = capacity
    }

    static let busy = APIError(.busy, "The server is busy checking passwords. Try again in a second.", headers: ["Retry-After": "1"])

    /// Runs `work` on the hashing threads if there is room for it, else throws ``busy``.
    private func bounded<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        let admitted = inFlight.withLockedValue { count in
            guard count < capacity else { return false }
            count += 1
            return true
        }
        guard admitted else { throw Self.busy }
        defer { inFlight.withLockedValue { $0 -= 1 } }
        return try await threadPool.runIfActive(work)
    }

    /// A hash of a fixed password, verified against when the account does not exist, so that
    /// unknown and known usernames take the same time to refuse.
    private static let decoyPassword = "decoy-password-for-unknown-accounts"

    func hash(_ password: String) async throws -> String {
        let cost = self.cost
        let prepared = Self.prepare(password)
        return try await bounded { Self.scheme + (try Bcrypt.hash(prepared, cost: cost)) }
    }

    func verify(_ password: String, against stored: String?) async throws -> Bool {
        let prepared = Self.prepare(password)
        let cost = self.cost
        return try await bounded {
            guard let stored, stored.hasPrefix(Self.scheme) else {
                // Spend the same work as a real check, then refuse.
                _ = try Bcrypt.hash(Self.prepare(Self.decoyPassword), cost: cost)
                return false
            }
            return try Bcrypt.verify(prepared, created: String(stored.dropFirst(Self.scheme.count)))
        }
    }

    static func prepare(_ password: String) -> String {
        Data(SHA256.hash(data: Data(password.utf8))).base64EncodedString()
    }
}
