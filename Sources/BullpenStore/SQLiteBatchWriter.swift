import BullpenCore
import Foundation
import NIOPosix
import Synchronization
import VaporCSQLite

/// The ledger's writer on SQLite: a connection of its own, on a thread of its own, that writes a
/// whole batch in one call: `BEGIN IMMEDIATE`, one prepared statement per kind of row (prepared
/// once, bound and stepped per row), `COMMIT`. Through Fluent each statement of a batch was a trip
/// from the task to the blocking pool and back (nine of them for a lone order, most of its
/// latency), and every row went through two generic encoders.
///
/// It is the same SQLite library Fluent uses (two copies of SQLite in one process would break
/// each other's file locks). The connection is durable (`synchronous=FULL` in WAL mode), waits
/// for another connection's lock by sleeping (`busy_timeout`), and enforces foreign keys like
/// Fluent's connections. It never waits for anything while it holds the write lock: the lock is
/// taken and released inside one call on its own thread.
final class SQLiteBatchWriter: @unchecked Sendable {
    // @unchecked: `handle` and `statements` are only touched on `thread`, one call at a time
    // (the ledger writes one batch at a time), and at `close()` after the last write.
    private let handle: OpaquePointer
    private var statements: [String: OpaquePointer] = [:]
    private let thread: NIOThreadPool
    /// Moves the WAL into the database file on a connection of its own, so that a batch's commit
    /// never waits for a checkpoint (with SQLite's automatic checkpoint, the commit that crossed
    /// 1,000 WAL pages copied and synced them all before it answered).
    private let checkpointer: Checkpointer

    init(path: String) throws {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX
        let opened = sqlite_nio_sqlite3_open_v2(path, &handle, flags, nil)
        guard opened == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite_nio_sqlite3_errmsg($0)) } ?? "out of memory"
            if let handle { sqlite_nio_sqlite3_close_v2(handle) }
            throw SQLiteWriteError(code: opened, message: message)
        }
        self.handle = handle
        thread = NIOThreadPool(numberOfThreads: 1)
        do {
            checkpointer = try Checkpointer(path: path)
        } catch {
            sqlite_nio_sqlite3_close_v2(handle)
            throw error
        }
        do {
            for pragma in ["PRAGMA journal_mode=WAL", "PRAGMA synchronous=FULL",
                           "PRAGMA busy_timeout=\(BullpenStore.busyTimeoutMilliseconds)", "PRAGMA foreign_keys=ON",
                           "PRAGMA wal_autocheckpoint=0"] {
                try execute(pragma)
            }
        } catch {
            checkpointer.stop()
            sqlite_nio_sqlite3_close_v2(handle)
            throw error
        }
        thread.start()
    }

    /// Finalizes the statements and closes the connection. Call once, after the last write.
    func close() async {
        checkpointer.stop()
        try? await thread.shutdownGracefully()
        for statement in statements.values { sqlite_nio_sqlite3_finalize(statement) }
        statements = [:]
        sqlite_nio_sqlite3_close_v2(handle)
    }

    /// The value of a pragma on this connection (for tests).
    func pragma(_ name: String) async throws -> Int64? {
        try await thread.runIfActive {
            let statement = try self.statement("PRAGMA \(name)")
            defer { sqlite_nio_sqlite3_reset(statement) }
            guard try self.step(statement) else { return nil }
            return sqlite_nio_sqlite3_column_int64(statement, 0)
        }
    }

    /// Writes `plan` in one transaction.
    /// - Throws: ``BatchConflict`` naming the portfolios whose version moved (nothing is written).
    func write(_ plan: BatchPlan) async throws {
        try await thread.runIfActive { try self.writeNow(plan) }
    }

    private func writeNow(_ plan: BatchPlan) throws {
        try execute("BEGIN IMMEDIATE")
        do {
            try writeRows(plan)
            try execute("COMMIT")
        } catch {
            if sqlite_nio_sqlite3_get_autocommit(handle) == 0 { try? execute("ROLLBACK") }
            throw error
        }
    }

    private func writeRows(_ plan: BatchPlan) throws {
        var moved: [PortfolioID] = []
        let update = try statement("""
            UPDATE "portfolios" SET "cash_cents" = ?1, "realized_pnl_cents" = ?2, "period" = ?3, "version" = ?4,
            "journal_sequence" = ?5, "updated_at" = ?6, "clock" = ?9, "replay" = ?10 WHERE "id" = ?7 AND "version" = ?8
            """)
        for id in plan.touched.sorted(by: { $0.uuid < $1.uuid }) {
            guard let portfolio = plan.portfolios[id], let version = plan.startVersions[id] else { continue }
            try run(update, [.integer(portfolio.book.cash.cents), .integer(portfolio.realizedPnL.cents),
                             .integer(Int64(portfolio.record.period)), .integer(portfolio.record.version),
                             .integer(portfolio.journalSequence), .date(portfolio.record.updatedAt), .uuid(id.uuid), .integer(version),
                             .text(PortfolioRow.encodeClock(portfolio.record.clock)),
                             try PortfolioRow.encodeReplay(portfolio.record.replay).map(RowValues.Value.text) ?? .null])
            if sqlite_nio_sqlite3_changes(handle) != 1 { moved.append(id) }
        }
        guard moved.isEmpty else { throw BatchConflict(portfolios: moved) }
        // Their leaderboards' feeds move (``StandingsBoard``).
        let bump = try statement("""
            UPDATE "standings_feeds" SET "seq" = "seq" + 1
            WHERE "id" = (SELECT "standings_feed" FROM "portfolios" WHERE "id" = ?1)
            """)
        let stamp = try statement("""
            UPDATE "portfolios" SET "standings_seq" = (SELECT "f"."seq" FROM "standings_feeds" AS "f"
                WHERE "f"."id" = "portfolios"."standings_feed")
            WHERE "id" = ?1 AND "standings_feed" IS NOT NULL
            """)
        for id in plan.touched.sorted(by: { $0.uuid < $1.uuid }) {
            try run(bump, [.uuid(id.uuid)])
            try run(stamp, [.uuid(id.uuid)])
        }

        try insert(plan.periods, into: "portfolio_periods")
        try insert(plan.orders, into: "orders", suffix: " " + OrderRow.upsert)
        try insert(plan.orderEvents, into: "order_events")
        try insert(plan.fills, into: "fills")
        try insert(plan.journal, into: "journal_entries")
        try insert(plan.keys, into: "idempotency_keys")
        try insert(plan.snapshots, into: "equity_snapshots", suffix: " " + EquitySnapshotRow.upsert)
        try insert(plan.stats, into: "equity_stats", suffix: " " + EquityStatsRow.upsert)
        if !plan.resets.isEmpty {
            let clear = try statement(#"DELETE FROM "positions" WHERE "portfolio_id" = ?1"#)
            for id in plan.resets { try run(clear, [.uuid(id.uuid)]) }
        }
        try savePositions(plan)
    }

    /// Each changed position's final state: deleted at zero, inserted or updated otherwise.
    private func savePositions(_ plan: BatchPlan) throws {
        let remove = try statement(#"DELETE FROM "positions" WHERE "portfolio_id" = ?1 AND "symbol" = ?2"#)
        let (held, emptied) = plan.positionChanges
        for (portfolio, symbol) in emptied {
            try run(remove, [.uuid(portfolio), .text(symbol)])
        }
        try insert(held, into: "positions", suffix: " " + PositionRow.upsert)
    }

    /// Inserts `rows` one by one through one prepared statement (its columns are the rows' coding keys in snake case).
    private func insert<Row: Encodable>(_ rows: [Row], into table: String, suffix: String = "") throws {
        guard let first = rows.first else { return }
        let columns = try RowValues.encode(first).map(\.column)
        let sql = "INSERT INTO \"\(table)\" (" + columns.map { "\"\($0)\"" }.joined(separator: ", ") + ") VALUES ("
            + (1...columns.count).map { "?\($0)" }.joined(separator: ", ") + ")" + suffix
        let statement = try statement(sql)
        for row in rows {
            let values = try RowValues.encode(row)
            guard values.map(\.column) == columns else {
                throw SQLiteWriteError(code: SQLITE_MISUSE, message: "rows of \(table) with different columns")
            }
            try run(statement, values.map(\.value))
        }
    }

    // MARK: The C API

    private func statement(_ sql: String) throws -> OpaquePointer {
        if let prepared = statements[sql] { return prepared }
        var statement: OpaquePointer?
        let code = sqlite_nio_sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else { throw error(code) }
        statements[sql] = statement
        return statement
    }

    private func execute(_ sql: String) throws {
        let prepared = try statement(sql)
        defer { sqlite_nio_sqlite3_reset(prepared) }
        while try step(prepared) {}
    }

    /// Binds `values` to `statement` and runs it to the end.
    private func run(_ statement: OpaquePointer, _ values: [RowValues.Value]) throws {
        defer {
            sqlite_nio_sqlite3_reset(statement)
            sqlite_nio_sqlite3_clear_bindings(statement)
        }
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value {
            case .null: code = sqlite_nio_sqlite3_bind_null(statement, index)
            case .integer(let number): code = sqlite_nio_sqlite3_bind_int64(statement, index, number)
            case .real(let number): code = sqlite_nio_sqlite3_bind_double(statement, index, number)
            case .text(let text): code = sqlite_nio_sqlite3_bind_text(statement, index, text, -1, SQLiteBatchWriter.transient)
            case .bool(let flag): code = sqlite_nio_sqlite3_bind_int64(statement, index, flag ? 1 : 0)
            case .uuid(let uuid):
                code = sqlite_nio_sqlite3_bind_text(statement, index, uuid.uuidString, -1, SQLiteBatchWriter.transient)
            case .date(let date): code = sqlite_nio_sqlite3_bind_double(statement, index, date.timeIntervalSince1970)
            }
            guard code == SQLITE_OK else { throw error(code) }
        }
        while try step(statement) {}
    }

    /// Steps once: true when a row is ready.
    private func step(_ statement: OpaquePointer) throws -> Bool {
        switch sqlite_nio_sqlite3_step(statement) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code: throw error(code)
        }
    }

    private func error(_ code: Int32) -> SQLiteWriteError {
        let extended = sqlite_nio_sqlite3_extended_errcode(handle)
        return SQLiteWriteError(code: extended & 0xFF == code & 0xFF ? extended : code,
                                message: String(cString: sqlite_nio_sqlite3_errmsg(handle)))
    }

    /// SQLite copies bound text at once (`SQLITE_TRANSIENT`).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}

/// Checkpoints the WAL every quarter of a second, and once more when stopped, on a connection and
/// a thread of its own. `PASSIVE`: it copies what no reader still needs and never blocks the
/// writer, which goes on appending to the WAL meanwhile; the WAL file is reused from its start
/// once a checkpoint has copied everything.
final class Checkpointer: @unchecked Sendable {
    // @unchecked: `handle` is used only by the checkpoint thread, and closed by it when it stops.
    private let handle: OpaquePointer
    private let stopped = Mutex(false)
    /// Signalled by `stop()`, so the thread does not sleep out its interval first.
    private let wake = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    static let interval: TimeInterval = 0.25

    init(path: String) throws {
        var handle: OpaquePointer?
        let opened = sqlite_nio_sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX, nil)
        guard opened == SQLITE_OK, let handle else {
            if let handle { sqlite_nio_sqlite3_close_v2(handle) }
            throw SQLiteWriteError(code: opened, message: "cannot open the checkpoint connection")
        }
        sqlite_nio_sqlite3_busy_timeout(handle, Int32(BullpenStore.busyTimeoutMilliseconds))
        self.handle = handle
        let thread = Thread { [self] in run() }
        thread.name = "bullpen-checkpoint"
        thread.start()
    }

    private func run() {
        while !stopped.withLock({ $0 }) {
            _ = wake.wait(timeout: .now() + Self.interval)
            _ = sqlite_nio_sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
        }
        sqlite_nio_sqlite3_close_v2(handle)
        done.signal()
    }

    /// Stops the thread after its current checkpoint and closes the connection.
    func stop() {
        let first = stopped.withLock { stopped in defer { stopped = true }; return !stopped }
        guard first else { return }
        wake.signal()
        done.wait()
    }
}

/// A failure of the ledger's SQLite writer, with SQLite's (extended) result code.
struct SQLiteWriteError: Error, CustomStringConvertible {
    var code: Int32
    var message: String

    /// Another connection holds the lock: safe to retry.
    var isBusy: Bool { [SQLITE_BUSY, SQLITE_LOCKED].contains(code & 0xFF) }
    var isConstraintFailure: Bool { code & 0xFF == SQLITE_CONSTRAINT }
    var description: String { "SQLite error \(code): \(message)" }
}
