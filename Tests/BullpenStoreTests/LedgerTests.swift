import BullpenCore
import FluentKit
import Foundation
import SQLKit
import Synchronization
import Testing
@testable import BullpenStore

/// The one writer: batches written in one transaction, rejections that reject only themselves,
/// reads from memory, durable settings.
@Suite("Ledger")
struct LedgerTests {
    static func order(_ side: OrderSide, _ quantity: Quantity, _ symbol: String, at price: String, in portfolio: PortfolioID,
                      owner: UserID, clientOrderID: String? = nil, key: String? = nil, hash: String = "h") -> LedgerCommand {
        let request = OrderRequest(symbol: Symbol(symbol)!, side: side, quantity: quantity, clientOrderID: clientOrderID)
        return .order(.at(request, price), portfolio: portfolio, owner: owner,
                      idempotency: key.map { IdempotencyClaim(key: $0, requestHash: hash) })
    }

    /// One batch with accepted and rejected orders commits exactly the accepted ones.
    @Test(arguments: TestDatabases.kinds)
    func aMixedBatchCommitsExactlyTheAcceptedOrders(kind: DatabaseKind) async throws {
        try await TestDatabases.withStore(kind) { store, _ in
            let (user, _) = try await store.makeUser()
            let (stranger, theirs) = try await store.makeUser()
            let tight = try await store.createPortfolio(owner: user.id, name: "Tight", startingCash: Money(dollars: 1_000))
            let id = tight.id, me = user.id
            let before = await store.ledger.batchesWritten
            let results = await store.ledger.submit([
                Self.order(.buy, 5, "MSFT", at: "10", in: id, owner: me),                      // $50
                Self.order(.buy, 200, "MSFT", at: "10", in: id, owner: me),                    // $2,000: too much
                Self.order(.sell, 10, "KO", at: "50", in: id, owner: me),                      // none held
                Self.order(.buy, 3, "KO", at: "50", in: id, owner: me),                        // $150
                Self.order(.buy, 1, "MSFT", at: "10", in: id, owner: me, clientOrderID: "dup"), // $10
                Self.order(.buy, 1, "MSFT", at: "10", in: id, owner: me, clientOrderID: "dup"), // same id again
                Self.order(.buy, 1, "MSFT", at: "10", in: theirs.id, owner: me),               // not mine
                Self.order(.buy, 1, "KO", at: "50", in: id, owner: me, key: "k"),              // $50
                Self.order(.buy, 1, "KO", at: "50", in: id, owner: me, key: "k"),              // a retry: replays
                Self.order(.buy, 2, "KO", at: "50", in: id, owner: me, key: "k", hash: "other"), // the key reused
                Self.order(.sell, 8, "KO", at: "50", in: id, owner: me),                       // only 4 held
                Self.order(.sell, 2, "MSFT", at: "12", in: id, owner: me),                     // +$24
            ], store: store)
            #expect(await store.ledger.batchesWritten == before + 1, "twelve commands, one transaction")

            func outcome(_ result: Result<LedgerResult, any Error>) -> String {
                switch result {
                case .success(.executed): "executed"
                case .success(.replayed): "replayed"
                case .success: "other"
                case .failure(let rejection as OrderRejection): rejection.code
                case .failure(let error as StoreError): error.code
                case .failure(let error): "\(error)"
                }
            }
            #expect(results.map(outcome) == [
                "executed", "insufficient_funds", "insufficient_shares", "executed", "executed",
                "duplicate_client_order_id", "not_found", "executed", "replayed", "idempotency_key_reused",
                "insufficient_shares", "executed",
            ])
            if case .success(.executed(let first, _)) = results[7], case .success(.replayed(let retry)) = results[8] {
                #expect(retry.id == first.id)
            } else {
                Issue.record("the retry must replay the first order")
            }

            let expectedCash = Money(dollars: 1_000 - 50 - 150 - 10 - 50 + 24)
            let stored = try await store.orders(of: id, owner: me, limit: 50, cursor: nil).items
            #expect(stored.count == 5, "the five accepted orders, nothing else")
            await store.ledger.drop(id)  // read back what the database holds
            let state = try await store.state(of: id, owner: me)
            #expect(state.book.cash == expectedCash)
            #expect(state.book.quantity(of: Symbol("MSFT")!) == 4)
            #expect(state.book.quantity(of: Symbol("KO")!) == 4)
            try await store.expectBalancedBooks(id, owner: me, prices: ["MSFT": "12", "KO": "50"])
            #expect(try await store.orders(of: theirs.id, owner: stranger.id, limit: 5, cursor: nil).items.isEmpty)
        }
    }

    /// Once loaded, a portfolio is read from memory: on SQLite (this process its only writer) a
    /// change made behind the ledger's back is not seen, which shows no query was made.
    @Test
    func readsComeFromMemoryOnceLoaded() async throws {
        try await TestDatabases.withStore(.sqlite) { store, _ in
            let (user, main) = try await store.makeUser()
            try await store.trade(.buy, 2, "MSFT", at: "10", in: main.id, owner: user.id)
            try await store.sql(store.db).update("portfolios").set("cash_cents", to: 1).where("id", .equal, main.id.uuid).run()
            #expect(try await store.state(of: main.id, owner: user.id).book.cash == Money(dollars: 100_000 - 20))
            #expect(try await store.portfolios(owner: user.id).map(\.cash) == [Money(dollars: 100_000 - 20)])
            await store.ledger.drop(main.id)
            #expect(try await store.state(of: main.id, owner: user.id).book.cash == Money(cents: 1))
        }
    }

    /// With other writers (PostgreSQL, or stores sharing a file), a read sees what another
    /// instance wrote.
    @Test(arguments: TestDatabases.kinds)
    func anotherInstancesWriteIsSeenByTheNextRead(kind: DatabaseKind) async throws {
        try await TestDatabases.withStore(kind) { store, openAnother in
            let other = try openAnother()
            let (user, main) = try await store.makeUser()
            #expect(try await store.state(of: main.id, owner: user.id).book.cash == Money(dollars: 100_000))
            try await other.trade(.buy, 3, "MSFT", at: "10", in: main.id, owner: user.id)
            #expect(try await store.state(of: main.id, owner: user.id).book.quantity(of: Symbol("MSFT")!) == 3)
            try await store.trade(.buy, 1, "MSFT", at: "10", in: main.id, owner: user.id)
            #expect(try await other.state(of: main.id, owner: user.id).book.quantity(of: Symbol("MSFT")!) == 4)
            try await store.expectBalancedBooks(main.id, owner: user.id, prices: ["MSFT": "10"])
        }
    }

    /// A batch that finds one of its portfolios moved by another instance writes nothing, not
    /// even for the portfolio beside it that had not moved, and runs again on the new state:
    /// every order lands exactly once.
    @Test(arguments: TestDatabases.kinds)
    func aBatchOnAMovedPortfolioWritesNothingAndRunsAgain(kind: DatabaseKind) async throws {
        try await TestDatabases.withStore(kind) { store, openAnother in
            let other = try openAnother()
            let (user, main) = try await store.makeUser()
            let second = try await store.createPortfolio(owner: user.id, name: "Second", startingCash: Money(dollars: 1_000))
            let me = user.id
            // Both held in this instance's memory, then the second moved behind its back.
            try await store.trade(.buy, 1, "MSFT", at: "10", in: main.id, owner: me)
            try await store.trade(.buy, 1, "MSFT", at: "10", in: second.id, owner: me)
            try await other.trade(.buy, 3, "MSFT", at: "10", in: second.id, owner: me)

            let conflicts = await store.ledger.batchConflicts
            let results = await store.ledger.submit([
                Self.order(.buy, 2, "MSFT", at: "10", in: main.id, owner: me),
                Self.order(.buy, 2, "MSFT", at: "10", in: second.id, owner: me),
            ], store: store)
            #expect(await store.ledger.batchConflicts == conflicts + 1, "the first attempt met the moved portfolio")
            for case .failure(let error) in results { Issue.record("every order executes on the retry: \(error)") }

            for instance in [store, other] {
                await instance.ledger.drop(main.id)
                await instance.ledger.drop(second.id)
            }
            let mainState = try await other.state(of: main.id, owner: me)
            let secondState = try await other.state(of: second.id, owner: me)
            #expect(mainState.book.quantity(of: Symbol("MSFT")!) == 3)
            #expect(mainState.book.cash == Money(dollars: 100_000 - 30))
            #expect(secondState.book.quantity(of: Symbol("MSFT")!) == 6)
            #expect(secondState.book.cash == Money(dollars: 1_000 - 60))
            #expect(try await store.orders(of: main.id, owner: me, limit: 10, cursor: nil).items.count == 2)
            #expect(try await store.orders(of: second.id, owner: me, limit: 10, cursor: nil).items.count == 3)
            try await store.expectBalancedBooks(main.id, owner: me, prices: ["MSFT": "10"])
            try await store.expectBalancedBooks(second.id, owner: me, prices: ["MSFT": "10"])
        }
    }

    /// On PostgreSQL a batch writes each table as the whole row type read from JSON: the row
    /// structs must have exactly the tables' columns (one they lacked would be written NULL),
    /// and what is read back equals what the ledger answered with, to the microsecond.
    @Test(.enabled(if: TestDatabases.kinds.contains(.postgres)))
    func postgresBatchRowsHaveExactlyTheTablesColumns() async throws {
        try await TestDatabases.withStore(.postgres) { store, _ in
            let (user, main) = try await store.makeUser()
            try await store.trade(.buy, 2, "MSFT", at: "10", in: main.id, owner: user.id)
            try await store.reset(main.id, owner: user.id) { $0.book.cash }
            let start = SessionDate(year: 2009, month: 3, day: 2), next = SessionDate(year: 2009, month: 3, day: 3)
            let replay = try await store.createPortfolio(owner: user.id, name: "Replay", startingCash: Money(dollars: 100),
                                                         replay: ReplayInfo(start: start))
            // The advance writes its snapshot and the period's folded figures.
            _ = try await store.advanceReplay(replay.id, owner: user.id, version: replay.version, from: start, to: next,
                                              snapshots: [EquitySnapshot(date: next, cash: Money(dollars: 100), marketValue: .zero)])
            let results = await store.ledger.submit(
                [Self.order(.buy, 3, "KO", at: "50.25", in: main.id, owner: user.id, clientOrderID: "c-1", key: "k-1")],
                store: store)
            guard case .success(.executed(let placed, _)) = results.first else {
                Issue.record("the order must execute: \(results)")
                return
            }
            // PostgreSQL keeps microseconds: a time read back is the same microsecond, not
            // always the same Double.
            func microseconds(_ order: OrderRecord) -> OrderRecord {
                func rounded(_ date: Date) -> Date { Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1e6).rounded() / 1e6) }
                var order = order
                order.createdAt = rounded(order.createdAt)
                order.filledAt = order.filledAt.map(rounded)
                order.updatedAt = order.updatedAt.map(rounded)
                order.expiresAt = order.expiresAt.map(rounded)
                return order
            }
            let stored = try await store.order(placed.id, in: main.id, owner: user.id)
            #expect(microseconds(stored) == microseconds(placed))
            // A working order, placed and cancelled: its status changes are rows of their own.
            guard case .order(var limit, _, _, _) = Self.order(.buy, 1, "KO", at: "50.25", in: main.id, owner: user.id) else { return }
            limit.request.terms = OrderTerms(type: .limit, timeInForce: .gtc, limit: Price(parsing: "40")!)
            guard case .success(.executed(let working, _)) = await store.ledger.submit([.order(limit, portfolio: main.id, owner: user.id, idempotency: nil)],
                                                                                      store: store).first else {
                Issue.record("the limit order must be placed")
                return
            }
            #expect(working.status == .new)
            let cancelled = try await store.cancelOrder(working.id, in: main.id, owner: user.id)
            #expect(cancelled.status == .canceled)
            #expect(microseconds(try await store.order(working.id, in: main.id, owner: user.id)) == microseconds(cancelled))

            let sql = store.sql(try store.db)
            func tableColumns(_ table: String) async throws -> Set<String> {
                Set(try await sql.raw("SELECT column_name FROM information_schema.columns WHERE table_name = \(bind: table)")
                    .all().map { try $0.decode(column: "column_name", as: String.self) })
            }
            func rowColumns<Row: Codable>(_ table: String, _ type: Row.Type) async throws -> Set<String> {
                let row = try #require(try await sql.select().column("*").from(table).limit(1)
                    .first(decoding: Row.self, with: BullpenStore.rowDecoder), "a row of \(table)")
                return Set(try RowValues.encode(row).map(\.column))
            }
            let written: [(String, Set<String>)] = [
                ("portfolio_periods", try await rowColumns("portfolio_periods", PeriodRow.self)),
                ("orders", try await rowColumns("orders", OrderRow.self)),
                ("fills", try await rowColumns("fills", FillRow.self)),
                ("journal_entries", try await rowColumns("journal_entries", JournalRow.self)),
                ("idempotency_keys", try await rowColumns("idempotency_keys", IdempotencyRow.self)),
                ("positions", try await rowColumns("positions", PositionRow.self)),
                ("equity_snapshots", try await rowColumns("equity_snapshots", EquitySnapshotRow.self)),
                ("equity_stats", try await rowColumns("equity_stats", EquityStatsRow.self)),
                ("order_events", try await rowColumns("order_events", OrderEventRow.self)),
            ]
            // Every table the statement reads from JSON is checked here.
            let populated = BatchStatement.sql.matches(of: /jsonb_populate_recordset\(NULL::"(\w+)"/).map { String($0.output.1) }
            #expect(Set(populated) == Set(written.map(\.0)) && populated.count == written.count)
            for (table, columns) in written {
                #expect(columns == (try await tableColumns(table)), "\(table)")
            }
        }
    }

    /// Dates go to PostgreSQL as text, to the nearest microsecond.
    @Test
    func timestampsAreWrittenToTheNearestMicrosecond() {
        #expect(RowValues.timestamp(Date(timeIntervalSince1970: 0)) == "1970-01-01 00:00:00.000000+00")
        #expect(RowValues.timestamp(Date(timeIntervalSince1970: 1_709_164_800.25)) == "2024-02-29 00:00:00.250000+00")
        #expect(RowValues.timestamp(Date(timeIntervalSince1970: 946_684_799.5)) == "1999-12-31 23:59:59.500000+00")
        #expect(RowValues.timestamp(Date(timeIntervalSince1970: -86_400)) == "1969-12-31 00:00:00.000000+00")
        #expect(RowValues.timestamp(Date(timeIntervalSince1970: 4_107_542_400)) == "2100-03-01 00:00:00.000000+00")
        // A whole millisecond a hair below its decimal value is still that millisecond.
        let millisecond = Date(timeIntervalSince1970: 1_763_900_298.123)
        #expect(RowValues.timestamp(millisecond) == "2025-11-23 12:18:18.123000+00")
        let formatter = ISO8601DateFormatter()
        for seconds in stride(from: -2_000_000_000.0, through: 4_000_000_000, by: 7_654_321.123) {
            let date = Date(timeIntervalSince1970: seconds)
            let micros = Int64((date.timeIntervalSince(Date(timeIntervalSince1970: 946_684_800)) * 1_000_000).rounded())
                + 946_684_800_000_000
            let fraction = ((micros % 1_000_000) + 1_000_000) % 1_000_000
            let whole = Date(timeIntervalSince1970: Double((micros - fraction) / 1_000_000))
            let text = RowValues.timestamp(date)
            #expect(String(text.prefix(19)) == formatter.string(from: whole).prefix(19).replacingOccurrences(of: "T", with: " "))
            #expect(text.dropFirst(20).prefix(6) == String(format: "%06lld", fraction))
        }
    }

    /// SQLite commits are durable: WAL with `synchronous=FULL` on the writer's connection, which
    /// sleeps (not spins) while another process holds the lock.
    @Test
    func sqliteWritesAreDurable() async throws {
        try await TestDatabases.withStore(.sqlite) { store, _ in
            let (user, main) = try await store.makeUser()
            try await store.trade(.buy, 1, "MSFT", at: "10", in: main.id, owner: user.id)
            let settings = try await store.writer.withConnection { connection in
                let sql = store.sql(connection)
                let mode = try await sql.raw("PRAGMA journal_mode").first()?.decode(column: "journal_mode", as: String.self)
                let sync = try await sql.raw("PRAGMA synchronous").first()?.decode(column: "synchronous", as: Int.self)
                let timeout = try await sql.raw("PRAGMA busy_timeout").first()?.decode(column: "timeout", as: Int.self)
                return (mode, sync, timeout)
            }
            #expect(settings.0 == "wal")
            #expect(settings.1 == 2, "2 is FULL: the WAL is synced at every commit")
            #expect(settings.2 == BullpenStore.busyTimeoutMilliseconds)
            // The ledger's batches go through a connection of their own, set up the same way.
            let batches = try #require(try store.batchWriter() as? SQLiteBatchWriter)
            #expect(try await batches.pragma("synchronous") == 2)
            #expect(try await batches.pragma("busy_timeout") == Int64(BullpenStore.busyTimeoutMilliseconds))
            #expect(try await batches.pragma("foreign_keys") == 1)
        }
    }

    /// Several stores in one process (as the test suites are) write at once: account, session,
    /// watchlist and portfolio writes beside ledger batches. They share the process's few blocking
    /// threads; with two connections per file competing for its write lock, a connection waiting
    /// for the lock held a thread while the holder waited for one, and everything stalled.
    @Test
    func concurrentWritesOnSeveralSQLiteStoresNeverStall() async throws {
        // A stall is no step finishing for three minutes: a stall never ends, while the whole
        // suite running beside this test on two cores makes its steps slow (its stores took up to
        // 90 s to open and migrate), not none.
        let finished = try await Self.finishes(stallingAfter: .seconds(180)) { progressed in
            try await withThrowingTaskGroup(of: Void.self) { stores in
                for _ in 0..<4 {
                    stores.addTask {
                        try await TestDatabases.withStore(.sqlite) { store, _ in
                            progressed()
                            let (user, main) = try await store.makeUser()
                            progressed()
                            try await withThrowingTaskGroup(of: Void.self) { writes in
                                for i in 0..<30 {
                                    writes.addTask {
                                        // A connection not free within the pool's ten seconds is slow,
                                        // not stuck (the server answers 503 then): asked again, without
                                        // counting as progress, so that a stall is still the watch's to tell.
                                        // (An attempt may have written before its answer was lost: each
                                        // attempt names its own things.)
                                        while true {
                                            let attempt = UUID().uuidString.prefix(8)
                                            do {
                                                switch i % 4 {
                                                case 0: _ = try await store.trade(.buy, 1, "MSFT", at: "10", in: main.id, owner: user.id)
                                                case 1: _ = try await store.makeUser()
                                                case 2: _ = try await store.createWatchlist(owner: user.id, name: "list \(i) \(attempt)")
                                                default:
                                                    let session = try await store.createSession(for: user.id, refreshTokenHash: "hash-\(i)-\(attempt)")
                                                    try await store.revokeSession(session, reason: "test")
                                                }
                                                break
                                            } catch where StoreError.overloaded(error) != nil {
                                                continue
                                            }
                                        }
                                        progressed()
                                    }
                                }
                                try await writes.waitForAll()
                            }
                            let state = try await store.state(of: main.id, owner: user.id)
                            #expect(state.book.positions[Symbol("MSFT")!]?.quantity == 8)
                            try await store.expectBalancedBooks(main.id, owner: user.id, prices: ["MSFT": "10"])
                        }
                    }
                }
                try await stores.waitForAll()
            }
        }
        #expect(finished, "the writes stalled")
    }

    /// The stall watch tells a stall from slow progress.
    @Test
    func theStallWatchTellsAStallFromSlowProgress() async throws {
        // Steps a tenth of a second apart (slower when the suite loads the machine) are progress...
        let slow = try await Self.finishes(stallingAfter: .seconds(10)) { progressed in
            for _ in 0..<10 { try await Task.sleep(for: .milliseconds(100)); progressed() }
        }
        #expect(slow)
        // ... a minute without a step is a stall, told after the quiet time (the work is left behind).
        let stuck = try await Self.finishes(stallingAfter: .seconds(2)) { _ in try await Task.sleep(for: .seconds(60)) }
        #expect(!stuck)
    }

    /// Whether `work` finishes without going `quiet` long without calling `progressed` (a
    /// stalled `work` is left behind, not awaited).
    static func finishes(stallingAfter quiet: Duration,
                         _ work: @escaping @Sendable (_ progressed: @escaping @Sendable () -> Void) async throws -> Void) async throws -> Bool {
        let outcome = Mutex<Result<Bool, any Error>?>(nil)
        let lastProgress = Mutex(ContinuousClock.now)
        let settle: @Sendable (Result<Bool, any Error>, CheckedContinuation<Bool, any Error>) -> Void = { result, answer in
            let first = outcome.withLock { slot -> Bool in
                guard slot == nil else { return false }
                slot = result
                return true
            }
            if first { answer.resume(with: result) }
        }
        let progressed: @Sendable () -> Void = { lastProgress.withLock { $0 = .now } }
        let stalled: @Sendable () -> Bool = { ContinuousClock.now - lastProgress.withLock { $0 } > quiet }
        let pending: @Sendable () -> Bool = { outcome.withLock { $0 == nil } }
        return try await withCheckedThrowingContinuation { answer in
            Task {
                do {
                    try await work(progressed)
                    settle(.success(true), answer)
                } catch {
                    settle(.failure(error), answer)
                }
            }
            Task {
                while pending() {
                    try? await Task.sleep(for: .seconds(1))
                    if stalled() { settle(.success(false), answer) }
                }
            }
        }
    }

    /// Memory stays bounded: past its capacity the ledger forgets the least recently used
    /// portfolios, and reads them again when asked.
    @Test
    func theLedgerForgetsTheLeastRecentlyUsed() async throws {
        try await TestDatabases.withStore(.sqlite) { store, _ in
            let ledger = Ledger(capacity: 10)
            var owned: [(UserID, PortfolioID)] = []
            for i in 0..<25 {
                let (user, main) = try await store.makeUser("player\(i)")
                owned.append((user.id, main.id))
            }
            for (user, id) in owned { _ = try await ledger.state(of: id, owner: user, store: store) }
            #expect(await ledger.loadedCount <= 10)
            for (user, id) in owned {
                #expect(try await ledger.state(of: id, owner: user, store: store).book.cash == Money(dollars: 100_000))
            }
        }
    }
}
