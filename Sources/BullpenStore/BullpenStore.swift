import BullpenCore
import FluentKit
import FluentSQL
import FluentPostgresDriver
import FluentSQLiteDriver
import Foundation
import Synchronization
import Logging
import NIOCore
import NIOPosix

/// Bullpen's persistence: accounts, sessions, portfolios, orders and the journal, on SQLite
/// (the embedded default) or PostgreSQL, through Fluent. The only type in the app that talks to a
/// database.
///
/// Every change of cash or positions goes through the ``Ledger``, the process's one writer: it
/// batches the commands that arrive together into one durable transaction with their journal
/// entries, guarded by each portfolio row's `version` (optimistic locking), so concurrent
/// requests, even from several server processes, never overdraw or oversell. Portfolio reads
/// come from the ledger's memory.
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
    public let ids: any IDSource
    public let time: any TimeSource
    /// The one writer of cash and positions, and the memory portfolio reads come from.
    let ledger: Ledger
    /// Active sessions, so that checking an access token does not read the database each time.
    let sessions: SessionCache
    /// Hears other instances' revocations (PostgreSQL only).
    let revocations: RevocationListener?
    /// The event loop whose connection the writes use.
    private let writerLoop: any EventLoop
    /// SQLite: the threads this store's connections block on (its own; nil on PostgreSQL).
    private let blockingThreads: NIOThreadPool?
    private let otherWriters: Atomic<Bool>
    /// The ledger's batch writer (a connection of its own), opened at the first batch; `closed`
    /// once the store shut down.
    private let ledgerWriter = Mutex<(writer: (any LedgerBatchWriter)?, closed: Bool)>((nil, false))
    /// Each leaderboard's inputs as last read (by feed: a league's id, or the global feed's).
    let standings = Mutex<[UUID: StandingsBoard]>([:])

    /// Whether other processes may write this database: then a read asks for the portfolio's
    /// version before answering from memory. True for PostgreSQL; for a SQLite file this process
    /// is the only writer, unless ``expectOtherWriters()`` said otherwise.
    public var hasOtherWriters: Bool { otherWriters.load(ordering: .relaxed) }

    /// Whether revocations by other instances are heard as they happen (PostgreSQL, once the
    /// listener is connected).
    public var hearsRevocations: Bool { sessions.isHearingRevocations }

    /// Declares that other processes write this database too (tests open several stores on one
    /// SQLite file, as several servers would).
    public func expectOtherWriters() { otherWriters.store(true, ordering: .relaxed) }

    /// Opens (does not migrate) the database. A request waits up to `connectionWait` for a pooled
    /// connection (on SQLite, for the writer's one connection too: writes queue for it), then
    /// fails as ``StoreError/overloaded(_:)`` (503).
    public init(backend: Backend, ids: any IDSource = TimeOrderedIDSource(), time: any TimeSource = SystemTimeSource(),
                logger: Logger = Logger(label: "bullpen.store"), maxConnectionsPerEventLoop: Int = 4,
                connectionWait: TimeAmount = .seconds(10)) throws {
        self.backend = backend
        self.ids = ids
        self.time = time
        self.logger = logger
        // PostgreSQL may have other instances writing: portfolio reads check the version, and
        // sessions revoked elsewhere are heard at once (NOTIFY), or within seconds while the
        // listener is not connected. A SQLite file has this process as its only writer.
        ledger = Ledger()
        otherWriters = Atomic(!backend.isSQLite)
        switch backend {
        case .sqlite:
            sessions = SessionCache(lifetime: .seconds(300))
            revocations = nil
        case .postgres(let url):
            sessions = SessionCache(lifetime: .seconds(60), unheardLifetime: .seconds(5))
            revocations = try RevocationListener(url: url, sessions: sessions, logger: logger)
        }
        writerLoop = MultiThreadedEventLoopGroup.singleton.next()
        // A SQLite connection blocks a thread for each statement (and for each wait for the
        // file's write lock): each store has threads of its own, so that one store's queue of
        // statements never holds up another's (a process with many stores, as the tests have,
        // waited over a minute for its migrations behind the others on the shared pool).
        if backend.isSQLite {
            let threads = NIOThreadPool(numberOfThreads: max(2, System.coreCount))
            threads.start()
            blockingThreads = threads
        } else {
            blockingThreads = nil
        }
        databases = Databases(threadPool: blockingThreads ?? .singleton, on: MultiThreadedEventLoopGroup.singleton)
        switch backend {
        case .sqlite(let path):
            databases.use(.sqlite(.file(path), connectionPoolTimeout: connectionWait, sqlLogLevel: .trace), as: .sqlite)
            // Every write of this process goes through one connection of its own (see `writer`).
            databases.use(.sqlite(.file(path), connectionPoolTimeout: connectionWait, sqlLogLevel: .trace),
                          as: Self.sqliteWriter, isDefault: false)
        case .postgres(let url):
            databases.use(try .postgres(url: url, maxConnectionsPerEventLoop: maxConnectionsPerEventLoop,
                                        connectionPoolTimeout: connectionWait, sqlLogLevel: .trace), as: .psql)
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

    /// The SQLite configuration the writes use: its own pool, only ever asked on `writerLoop`, so
    /// one connection.
    static let sqliteWriter = DatabaseID(string: "sqlite-writer")

    /// The database handle every write goes through. On SQLite it is one connection: the process
    /// never has two connections competing for the file's write lock (SQLiteNIO's busy handler
    /// retries at once and forever, holding one of the few blocking-pool threads the holder of the
    /// lock needs to finish, which can stall every database in the process). Reads use ``db``
    /// and go on while a write is written. On PostgreSQL, any connection of the pool.
    var writer: any Database {
        get throws {
            guard backend.isSQLite else { return try db }
            guard let database = databases.database(Self.sqliteWriter, logger: logger, on: writerLoop) else {
                throw StoreError.unavailable
            }
            return database
        }
    }

    /// Runs `work` in a transaction on the writer. On SQLite every write is durable on power loss
    /// (the WAL is synced at each commit), and a wait for another process's lock sleeps and gives
    /// up after `busyTimeout` (the retry loops above try again) instead of spinning.
    func writeTransaction<T: Sendable>(_ work: @escaping @Sendable (any Database) async throws -> T) async throws -> T {
        guard backend.isSQLite else {
            // (Fluent's PostgreSQL `withConnection` hands out a handle that believes it is in a
            // transaction already, so the transaction is asked of the pool.)
            return try await writer.transaction(work)
        }
        return try await writer.withConnection { connection in
            try await self.sql(connection).raw("PRAGMA synchronous=FULL").run()
            try await self.sql(connection).raw("PRAGMA busy_timeout=\(unsafeRaw: String(Self.busyTimeoutMilliseconds))").run()
            return try await connection.transaction(work)
        }
    }

    /// How long a SQLite write waits for another process's lock before failing with busy.
    static let busyTimeoutMilliseconds = 2_000

    /// Runs `work` in a read-only transaction (one consistent snapshot) on a reader connection,
    /// retried like ``transaction(retryConstraintFailures:_:)``.
    func readTransaction<T: Sendable>(_ work: @escaping @Sendable (any Database) async throws -> T) async throws -> T {
        try await retrying(retryConstraintFailures: false) { try await self.db.transaction { try await work($0) } }
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
        migrations.add(Migrations.all)
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
        let writer = ledgerWriter.withLock { state in
            defer { state = (nil, true) }
            return state.writer
        }
        await writer?.close()
        await revocations?.stop()
        await databases.shutdownAsync()
        try? await blockingThreads?.shutdownGracefully()
    }

    /// The ledger's batch writer: ``SQLiteBatchWriter`` or ``PostgresBatchWriter``.
    func batchWriter() throws -> any LedgerBatchWriter {
        try ledgerWriter.withLock { state in
            guard !state.closed else { throw StoreError.unavailable }
            if let writer = state.writer { return writer }
            let writer: any LedgerBatchWriter = switch backend {
            case .sqlite(let path): try SQLiteBatchWriter(path: path)
            case .postgres(let url): try PostgresBatchWriter(url: url, logger: logger)
            }
            state.writer = writer
            return writer
        }
    }

    // MARK: - Helpers shared by the store's extensions

    func sql(_ database: any Database) -> any SQLDatabase { database as! any SQLDatabase }

    static let rowDecoder = SQLRowDecoder(keyDecodingStrategy: .convertFromSnakeCase)
    static let rowEncoder = SQLQueryEncoder(keyEncodingStrategy: .convertToSnakeCase)

    /// Runs `work` in a write transaction, retrying from the start when another writer got there first
    /// (version conflict, SQLite busy snapshot, PostgreSQL serialization failure or deadlock) and,
    /// if `retryConstraintFailures`, when a unique constraint fired (the next attempt sees the
    /// winner's row and answers accordingly).
    func transaction<T: Sendable>(retryConstraintFailures: Bool = false,
                                  _ work: @escaping @Sendable (any Database) async throws -> T) async throws -> T {
        try await retrying(retryConstraintFailures: retryConstraintFailures) { try await self.writeTransaction(work) }
    }

    /// Most attempts at a transaction (or a ledger batch) before the store answers ``StoreError/contention``.
    static let maxAttempts = 40

    /// Waits a little, longer after each failed attempt, before the next one.
    static func backOff(after attempt: Int) async {
        try? await Task.sleep(for: .milliseconds(Int.random(in: 1...(2 + attempt * 3))))
    }

    private func retrying<T: Sendable>(retryConstraintFailures: Bool, _ once: () async throws -> T) async throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await once()
            } catch {
                let retry = Self.isTransient(error) || (retryConstraintFailures && Self.isConstraintFailure(error))
                guard retry else { throw error }
                guard attempt < Self.maxAttempts else { throw StoreError.contention }
                logger.debug("retrying transaction", metadata: ["attempt": "\(attempt)", "error": "\(String(reflecting: error))"])
                await Self.backOff(after: attempt)
            }
        }
    }

    static func isTransient(_ error: any Error) -> Bool {
        if error is VersionConflict { return true }
        if let error = error as? SQLiteWriteError { return error.isBusy }
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

    public static func isConstraintFailure(_ error: any Error) -> Bool {
        if let error = error as? SQLiteWriteError { return error.isConstraintFailure }
        return (error as? any DatabaseError)?.isConstraintFailure ?? false
    }
}

/// Thrown inside a transaction when the portfolio row changed since it was read.
struct VersionConflict: Error {}
