import Foundation
import NIOPosix
import PostgresKit

extension BullpenStore {
    /// Runs scheduled work (session-close snapshots, league schedules, expiries) on one instance
    /// at a time. On PostgreSQL, where several instances share the database, `body` runs only
    /// while this process holds the job's advisory lock, taken without waiting on a connection of
    /// its own: when another instance holds it, `body` does not run and the answer is nil (that
    /// instance is doing the work; the next round here catches up whatever is left). A process that
    /// dies loses its connection and with it the lock. On SQLite, one process owns the file, and
    /// `body` just runs.
    public func exclusively<T: Sendable>(_ job: String, _ body: @Sendable () async throws -> T) async throws -> T? {
        guard case .postgres(let url) = backend else { return try await body() }
        let configuration = try SQLPostgresConfiguration(url: url).coreConfiguration
        let connection = try await PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration, id: 0, logger: logger)
        let held: Bool
        do {
            let rows = try await connection.query(
                "SELECT pg_try_advisory_lock(\(Self.jobLockSpace), \(Self.jobLockKey(job)))", logger: logger)
            var answer = false
            for try await row in rows { answer = try row.decode(Bool.self) }
            held = answer
        } catch {
            try? await connection.close()
            throw error
        }
        // Closing the connection ends its session, and with it the lock: no unlock to send (nor
        // to hang on, when the connection was cut while the job ran).
        guard held else {
            try? await connection.close()
            return nil
        }
        do {
            let result = try await body()
            try? await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// The first key of every Bullpen job's advisory lock (`pg_try_advisory_lock(int, int)`), so
    /// that they do not meet the locks of other software sharing the database.
    static let jobLockSpace: Int32 = 0x42_50_4e   // "BPN"

    /// A job's second key: FNV-1a of its name, folded to 32 bits (the same in every process).
    static func jobLockKey(_ job: String) -> Int32 {
        var hash: UInt32 = 2_166_136_261
        for byte in job.utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 16_777_619
        }
        return Int32(bitPattern: hash)
    }
}
