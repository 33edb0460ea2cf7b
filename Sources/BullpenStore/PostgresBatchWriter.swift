import BullpenCore
import Foundation
import Logging
import NIOPosix
import PostgresKit

/// Where the ledger writes its batches: one durable transaction per call.
protocol LedgerBatchWriter: Sendable {
    /// Writes `plan` in one transaction.
    /// - Throws: ``BatchConflict`` naming the portfolios whose version moved (nothing is written).
    func write(_ plan: BatchPlan) async throws
    /// Releases the connection. Call once, after the last write.
    func close() async
}

extension SQLiteBatchWriter: LedgerBatchWriter {}

/// The ledger's writer on PostgreSQL: a connection of its own on which a whole batch is one
/// prepared statement, so one round trip and one commit (PostgreSQL runs a lone statement as
/// its own transaction). The rows travel as one JSON array per table, read into the tables'
/// own row types by `jsonb_populate_recordset`; the portfolio updates are guarded by the
/// versions the batch read, and when one of them finds its row moved by another instance the
/// statement fails on purpose, so that nothing of the batch is written (``BatchConflict``).
/// Through Fluent the same batch was seven statements, each a round trip through the pool.
///
/// It never waits for anything but its own statement while the statement runs; a connection
/// lost between batches is opened again at the next one. A batch whose connection broke while it
/// ran fails (it may or may not have committed): the ledger answers with the error and keeps the
/// state it had, and the next batch's version guard finds out which it was.
actor PostgresBatchWriter: LedgerBatchWriter {
    private let configuration: PostgresConnection.Configuration
    private let logger: Logger
    private var connection: PostgresConnection?
    private var closed = false

    init(url: String, logger: Logger) throws {
        configuration = try SQLPostgresConfiguration(url: url).coreConfiguration
        self.logger = logger
    }

    func close() async {
        closed = true
        try? await connection?.close()
        connection = nil
    }

    func write(_ plan: BatchPlan) async throws {
        let statement = try BatchStatement(plan)
        let connection = try await connected()
        do {
            for try await _ in try await connection.execute(statement, logger: logger) {}
        } catch let error as PSQLError where BatchStatement.isConflict(error) {
            throw BatchConflict(portfolios: try await moved(plan, on: connection))
        } catch {
            if connection.isClosed { self.connection = nil }
            throw error
        }
    }

    private func connected() async throws -> PostgresConnection {
        guard !closed else { throw StoreError.unavailable }
        if let connection, !connection.isClosed { return connection }
        let opened = try await PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration, id: 1, logger: logger)
        if closed {
            try? await opened.close()
            throw StoreError.unavailable
        }
        connection = opened
        return opened
    }

    /// The touched portfolios whose row no longer has the version the batch read (or is gone).
    private func moved(_ plan: BatchPlan, on connection: PostgresConnection) async throws -> [PortfolioID] {
        let ids = plan.touched.map(\.uuid)
        var current: [UUID: Int64] = [:]
        for try await (id, version) in try await connection.query(
            #"SELECT "id", "version" FROM "portfolios" WHERE "id" = ANY(\#(ids))"#, logger: logger
        ).decode((UUID, Int64).self) {
            current[id] = version
        }
        let moved = plan.touched.filter { current[$0.uuid] != plan.startVersions[$0] }
        // Versions only move forward, so one that moved stays moved; all of them if none did.
        return (moved.isEmpty ? plan.touched : moved).sorted { $0.uuid < $1.uuid }
    }
}

/// A batch as one statement: the guarded portfolio updates (each stamped with its leaderboard
/// feed's next sequence, ``StandingsBoard``), the new rows of each table, the
/// positions emptied or cleared by a reset deleted and the held ones upserted; it fails (and so
/// writes nothing) unless every portfolio update found its row at the version the batch read.
/// Data-modifying `WITH` parts run on one snapshot, so no two of them touch the same row: a
/// reset's delete spares the positions the batch holds, which the upsert writes. Each table read
/// from JSON is written as a whole `SELECT *` of its row type, so each row struct must have exactly
/// its table's columns (a test holds them to it).
struct BatchStatement: PostgresPreparedStatement {
    typealias Row = Int

    static let conflictMessage = "bullpen batch conflict"

    static let sql = """
        WITH "input" AS (
            SELECT * FROM jsonb_to_recordset($1::jsonb) AS "u"("id" uuid, "cash_cents" bigint,
                "realized_pnl_cents" bigint, "period" bigint, "version" bigint, "journal_sequence" bigint,
                "updated_at" timestamptz, "clock" text, "replay" text, "old_version" bigint)
        ), "feeds" AS (
            UPDATE "standings_feeds" AS "f" SET "seq" = "f"."seq" + 1
            WHERE "f"."id" IN (SELECT "standings_feed" FROM "portfolios" WHERE "id" IN (SELECT "id" FROM "input"))
            RETURNING "f"."id", "f"."seq"
        ), "moved" AS (
            UPDATE "portfolios" AS "p" SET "cash_cents" = "u"."cash_cents",
                "realized_pnl_cents" = "u"."realized_pnl_cents", "period" = "u"."period", "version" = "u"."version",
                "journal_sequence" = "u"."journal_sequence", "updated_at" = "u"."updated_at", "clock" = "u"."clock",
                "replay" = "u"."replay",
                "standings_seq" = COALESCE((SELECT "seq" FROM "feeds" WHERE "feeds"."id" = "p"."standings_feed"), "p"."standings_seq")
            FROM "input" AS "u" WHERE "p"."id" = "u"."id" AND "p"."version" = "u"."old_version"
            RETURNING "p"."id"
        ), "new_periods" AS (
            INSERT INTO "portfolio_periods" SELECT * FROM jsonb_populate_recordset(NULL::"portfolio_periods", $2::jsonb)
        ), "new_orders" AS (
            INSERT INTO "orders" SELECT * FROM jsonb_populate_recordset(NULL::"orders", $3::jsonb)
            \(OrderRow.upsert)
        ), "new_order_events" AS (
            INSERT INTO "order_events" SELECT * FROM jsonb_populate_recordset(NULL::"order_events", $13::jsonb)
        ), "new_fills" AS (
            INSERT INTO "fills" SELECT * FROM jsonb_populate_recordset(NULL::"fills", $4::jsonb)
        ), "new_entries" AS (
            INSERT INTO "journal_entries" SELECT * FROM jsonb_populate_recordset(NULL::"journal_entries", $5::jsonb)
        ), "new_keys" AS (
            INSERT INTO "idempotency_keys" SELECT * FROM jsonb_populate_recordset(NULL::"idempotency_keys", $6::jsonb)
        ), "new_snapshots" AS (
            INSERT INTO "equity_snapshots" SELECT * FROM jsonb_populate_recordset(NULL::"equity_snapshots", $9::jsonb)
            \(EquitySnapshotRow.upsert)
        ), "new_stats" AS (
            INSERT INTO "equity_stats" SELECT * FROM jsonb_populate_recordset(NULL::"equity_stats", $12::jsonb)
            \(EquityStatsRow.upsert)
        ), "held" AS (
            SELECT * FROM jsonb_populate_recordset(NULL::"positions", $7::jsonb)
        ), "emptied" AS (
            SELECT * FROM jsonb_to_recordset($8::jsonb) AS "e"("portfolio_id" uuid, "symbol" text)
        ), "cleared" AS (
            DELETE FROM "positions" AS "p"
            WHERE ("p"."portfolio_id", "p"."symbol") IN (SELECT "portfolio_id", "symbol" FROM "emptied")
               OR ("p"."portfolio_id" = ANY($10::uuid[])
                   AND ("p"."portfolio_id", "p"."symbol") NOT IN (SELECT "portfolio_id", "symbol" FROM "held"))
        ), "saved" AS (
            INSERT INTO "positions" SELECT * FROM "held" \(PositionRow.upsert)
        )
        SELECT CAST(CASE WHEN (SELECT count(*) FROM "moved") = $11 THEN '0' ELSE '\(conflictMessage)' END AS integer)
        """

    static let bindingDataTypes: [PostgresDataType] = [.text, .text, .text, .text, .text, .text, .text, .text, .text,
                                                        .uuidArray, .int8, .text, .text]

    /// The failure the statement raises on purpose when a portfolio's version moved.
    static func isConflict(_ error: PSQLError) -> Bool {
        error.serverInfo?[.sqlState] == "22P02" && (error.serverInfo?[.message]?.contains(conflictMessage) ?? false)
    }

    private struct PortfolioUpdate: Encodable {
        var id: UUID
        var cashCents: Int64
        var realizedPnlCents: Int64
        var period: Int
        var version: Int64
        var journalSequence: Int64
        var updatedAt: Date
        var clock: String
        var replay: String?
        var oldVersion: Int64
    }

    private struct PositionKey: Encodable {
        var portfolioId: UUID
        var symbol: String
    }

    private let values: [String]
    private let resets: [UUID]
    private let updates: Int

    init(_ plan: BatchPlan) throws {
        let portfolios = try plan.touched.sorted { $0.uuid < $1.uuid }.compactMap { id -> PortfolioUpdate? in
            guard let portfolio = plan.portfolios[id], let version = plan.startVersions[id] else { return nil }
            return PortfolioUpdate(id: id.uuid, cashCents: portfolio.book.cash.cents, realizedPnlCents: portfolio.realizedPnL.cents,
                                   period: portfolio.record.period, version: portfolio.record.version,
                                   journalSequence: portfolio.journalSequence, updatedAt: portfolio.record.updatedAt,
                                   clock: PortfolioRow.encodeClock(portfolio.record.clock),
                                   replay: try PortfolioRow.encodeReplay(portfolio.record.replay), oldVersion: version)
        }
        let (held, emptied) = plan.positionChanges
        values = [try RowValues.json(portfolios), try RowValues.json(plan.periods), try RowValues.json(plan.orders),
                  try RowValues.json(plan.fills), try RowValues.json(plan.journal), try RowValues.json(plan.keys),
                  try RowValues.json(held), try RowValues.json(emptied.map { PositionKey(portfolioId: $0.portfolio, symbol: $0.symbol) }),
                  try RowValues.json(plan.snapshots), try RowValues.json(plan.stats), try RowValues.json(plan.orderEvents)]
        resets = plan.resets.map(\.uuid).sorted()
        updates = portfolios.count
    }

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 13)
        for value in values.prefix(9) { bindings.append(value) }
        bindings.append(resets)
        bindings.append(Int64(updates))
        bindings.append(values[9])
        bindings.append(values[10])
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Int {
        try row.decode(Int.self)
    }
}
