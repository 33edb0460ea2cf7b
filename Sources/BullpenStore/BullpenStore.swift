import BullpenCore
import FluentKit
import FluentSQL
import FluentPostgresDriver
import FluentSQLiteDriver
import Foundation
import Logging
import NIOCore
import NIOPosix

/// Bullpen's persistence: accounts, sessions, portfolios, orders and the journal, on SQLite
/// (the embedded default) or PostgreSQL, through Fluent. The only type in the app that talks to a
/// database.
///
/// Every change of cash or positions happens in one database transaction together with its
/// journal entries, guarded by the portfolio row's `version` (optimistic locking), so concurrent
/// requests, even from several server processes, never overdraw or oversell.
public final class BullpenStore: Sendable {
    /// Which database to use.
    public enum Backend: Sendable, Hashable, CustomStringConvertible {
        /// A SQLite file (created if missing), in WAL mode.
        case sqlite(path: String)
        /// A PostgreSQL server, `postgres://user:pass@host:port/db`.
        case postgres(url: String)

        public var description: String {
            switch self {
            case .sqlite(let path): "SQLite at \(path)"
            case .postgres: "PostgreSQL"
            }
        }

        public var isSQLite: Bool { if case .sqlite = self { true } else { false } }
    }

    /// Most portfolios one user may own.
    public static let maxPortfoliosPerUser = 20

    public let backend: Backend
    let databases: Databases
    let logger: Logger
    let ids: any IDSource
    let time: any TimeSource
    let portfolioLocks = KeyedLocks()

    /// Opens (does not migrate) the database.
    public init(backend: Backend, ids: any IDSource = RandomIDSource(), time: any TimeSource = SystemTimeSource(),
                logger: Logger = Logger(label: "bullpen.store"), maxConnectionsPerEventLoop: Int = 4) throws {
        self.backend = backend
        self.ids = ids
        self.time = time
        self.logger = logger
        databases = Databases(threadPool: .singleton, on: MultiThreadedEventLoopGroup.singleton)
        switch backend {
        case .sqlite(let path):
            databases.use(.sqlite(.file(path), sqlLogLevel: .trace), as: .sqlite)
        case .postgres(let url):
            databases.use(try .postgres(url: url, maxConnectionsPerEventLoop: maxConnectionsPerEventLoop,
                                        sqlLogLevel: .trace), as: .psql)
        }
    }

    /// A database handle on any event loop; fails once the store is shut down.
    var db: any Database {
        get throws {
            guard let database = databases.database(logger: logger, on: databases.eventLoopGroup.any()) else {
                throw StoreError.unavailable
            }
            return database
        }
    }

    /// Brings the schema up to date (runs the migrations not yet applied), and switches SQLite to WAL.
    public func migrate() async throws {
        if backend.isSQLite {
            try await sql(db).raw("PRAGMA journal_mode=WAL").run()
        }
        let migrator = makeMigrator()
        try await migrator.setupIfNeeded().get()
        let pending = try await migrator.previewPrepareBatch().get().map { $0.0.name }
        try await migrator.prepareBatch().get()
        if !pending.isEmpty {
            logger.notice("applied \(pending.count) migration(s)", metadata: ["migrations": "\(pending.joined(separator: ", "))"])
        }
    }

    private func makeMigrator() -> Migrator {
        let migrations = Migrations()
        migrations.add(Migrations.bullpen)
        return Migrator(databases: databases, migrations: migrations, logger: logger,
                        on: databases.eventLoopGroup.any(), migrationLogLevel: .debug)
    }

    /// The names of the migrations that have not run yet.
    public func pendingMigrations() async throws -> [String] {
        let migrator = makeMigrator()
        try await migrator.setupIfNeeded().get()
        return try await migrator.previewPrepareBatch().get().map { $0.0.name }
    }

    /// Succeeds when the database answers a trivial query.
    public func ping() async throws {
        _ = try await sql(db).raw("SELECT 1 AS one").all()
    }

    /// Closes every connection. Call once, last.
    public func shutdown() async {
        await databases.shutdownAsync()
    }

    // MARK: - Helpers shared by the store's extensions

    func sql(_ database: any Database) -> any SQLDatabase { database as! any SQLDatabase }

    static let rowDecoder = SQLRowDecoder(keyDecodingStrategy: .convertFromSnakeCase)
    static let rowEncoder = SQLQueryEncoder(keyEncodingStrategy: .convertToSnakeCase)

    /// Runs `work` in a transaction, retrying from the start when another writer got there first
    /// (version conflict, SQLite busy snapshot, PostgreSQL serialization failure or deadlock) and,
    /// if `retryConstraintFailures`, when a unique constraint fired (the next attempt sees the
    /// winner's row and answers accordingly).
    func transaction<T: Sendable>(retryConstraintFailures: Bool = false,
                                  _ work: @escaping @Sendable (any Database) async throws -> T) async throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await db.transaction { try await work($0) }
            } catch {
                let retry = Self.isTransient(error) || (retryConstraintFailures && Self.isConstraintFailure(error))
                guard retry else { throw error }
                guard attempt < 40 else { throw StoreError.contention }
                logger.debug("retrying transaction", metadata: ["attempt": "\(attempt)", "error": "\(String(reflecting: error))"])
                try await Task.sleep(for: .milliseconds(Int.random(in: 1...(2 + attempt * 3))))
            }
        }
    }

    static func isTransient(_ error: any Error) -> Bool {
        if error is VersionConflict { return true }
        if let error = error as? SQLiteError {
            switch error.reason {
            case .busy, .locked, .busyInSnapshot, .busyTimeout, .busyInRecovery: return true
            default: return false
            }
        }
        if let error = error as? PSQLError, let state = error.serverInfo?[.sqlState] {
            return state == "40001" || state == "40P01"
        }
        return false
    }

    static func isConstraintFailure(_ error: any Error) -> Bool {
        (error as? any DatabaseError)?.isConstraintFailure ?? false
    }

    /// The in-process lock a change of `portfolio` takes. SQLite has one writer at a time anyway,
    /// so there every change queues on one lock instead of colliding in the database and retrying;
    /// PostgreSQL writes different portfolios in parallel.
    func writeLockKey(for portfolio: PortfolioID) -> UUID {
        backend.isSQLite ? Self.sqliteWriterKey : portfolio.uuid
    }

    private static let sqliteWriterKey = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
}

/// Thrown inside a transaction when the portfolio row changed since it was read.
struct VersionConflict: Error {}

/// Serialises work per key within this process, so that orders on one portfolio queue up instead
/// of colliding in the database (the database still guards across processes).
actor KeyedLocks {
    private var held: Set<UUID> = []
    private var waiters: [UUID: [CheckedContinuation<Void, Never>]] = [:]

    func withLock<T: Sendable>(_ key: UUID, _ work: @Sendable () async throws -> T) async throws -> T {
        await acquire(key)
        do {
            let result = try await work()
            release(key)
            return result
        } catch {
            release(key)
            throw error
        }
    }

    private func acquire(_ key: UUID) async {
        if held.insert(key).inserted { return }
        await withCheckedContinuation { waiters[key, default: []].append($0) }
    }

    private func release(_ key: UUID) {
        if var queue = waiters[key], !queue.isEmpty {
            let next = queue.removeFirst()
            waiters[key] = queue.isEmpty ? nil : queue
            next.resume()  // ownership passes straight to the next waiter
        } else {
            held.remove(key)
        }
    }
}
