import BullpenCore
import Foundation
import NIOCore
import Logging
import SQLKit
import Testing
@testable import BullpenStore

/// The databases every store test runs against: a real SQLite file in a temp directory, and a
/// real PostgreSQL database (created for the test, dropped after) when
/// `BULLPEN_TEST_POSTGRES_URL` is set. `BULLPEN_REQUIRE_POSTGRES=1` (CI) makes a missing server
/// a failure instead of a skip.
enum DatabaseKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgres
    var testDescription: String { rawValue }
}

enum TestDatabases {
    static let postgresURL = ProcessInfo.processInfo.environment["BULLPEN_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    static let postgresRequired = ProcessInfo.processInfo.environment["BULLPEN_REQUIRE_POSTGRES"] == "1"

    static let quietLogger: Logger = {
        var logger = Logger(label: "bullpen.test.store")
        logger.logLevel = .warning
        return logger
    }()

    /// The kinds to run; PostgreSQL is left out, with a line saying so, when no server is configured.
    static let kinds: [DatabaseKind] = {
        if postgresURL != nil || postgresRequired { return [.sqlite, .postgres] }
        print("note: PostgreSQL store suites skipped: BULLPEN_TEST_POSTGRES_URL is not set (scripts/test starts a server)")
        return [.sqlite]
    }()

    /// Runs `work` on a store on the server's administrative database, shut down after even when it fails.
    static func asAdmin(_ url: String, _ work: (BullpenStore) async throws -> Void) async throws {
        let admin = try BullpenStore(backend: .postgres(url: url), logger: quietLogger, maxConnectionsPerEventLoop: 1)
        do {
            try await work(admin)
        } catch {
            await admin.shutdown()
            throw error
        }
        await admin.shutdown()
    }

    /// Opens a fresh, migrated database of `kind`, runs `body` with a way to open more stores on
    /// the same database (as other server processes would), and removes the database after.
    static func withStore<T: Sendable>(
        _ kind: DatabaseKind, ids: any IDSource = RandomIDSource(), time: any TimeSource = SystemTimeSource(),
        _ body: (_ store: BullpenStore, _ openAnother: () throws -> BullpenStore) async throws -> T
    ) async throws -> T {
        let backend: BullpenStore.Backend
        var cleanup: () async throws -> Void
        switch kind {
        case .sqlite:
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bullpen-test-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            backend = .sqlite(path: dir.appendingPathComponent("test.sqlite").path)
            cleanup = { try? FileManager.default.removeItem(at: dir) }
        case .postgres:
            let adminURL = try #require(postgresURL, "BULLPEN_TEST_POSTGRES_URL must be set (BULLPEN_REQUIRE_POSTGRES=1)")
            let name = "bp_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
            try await asAdmin(adminURL) { admin in
                try await admin.sql(admin.db).raw("CREATE DATABASE \(unsafeRaw: name)").run()
            }
            var components = URLComponents(string: adminURL)!
            components.path = "/" + name
            backend = .postgres(url: components.string!)
            cleanup = {
                try await asAdmin(adminURL) { admin in
                    try await admin.sql(admin.db).raw("DROP DATABASE IF EXISTS \(unsafeRaw: name) WITH (FORCE)").run()
                }
            }
        }
        var opened: [BullpenStore] = []
        func open() throws -> BullpenStore {
            // A whole suite runs at once on two cores: a transaction may wait long for a connection.
            let store = try BullpenStore(backend: backend, ids: ids, time: time, logger: quietLogger, connectionWait: .seconds(60))
            opened.append(store)
            // Stores on one database are several servers: each must see what the others write.
            if opened.count > 1 { opened.forEach { $0.expectOtherWriters() } }
            return store
        }
        do {
            let store = try open()
            try await store.migrate()
            let result = try await body(store, open)
            for store in opened { await store.shutdown() }
            try await cleanup()
            return result
        } catch {
            for store in opened { await store.shutdown() }
            try? await cleanup()
            throw error
        }
    }
}

extension BullpenStore {
    /// Registers a user (with a dummy hash) and returns it with its "Main" portfolio.
    func makeUser(_ name: String = "user-\(UUID().uuidString.prefix(8))") async throws -> (UserRecord, PortfolioRecord) {
        let user = try await createUser(username: name, usernameKey: name.lowercased(), passwordHash: "x")
        let main = try await portfolios(owner: user.id)[0]
        return (user, main)
    }

    /// A market order at `price` without idempotency.
    @discardableResult
    func trade(_ side: OrderSide, _ quantity: Quantity, _ symbol: String, at price: String, in portfolio: PortfolioID,
               owner: UserID, clientOrderID: String? = nil) async throws -> OrderRecord {
        let request = OrderRequest(symbol: Symbol(symbol)!, side: side, quantity: quantity, clientOrderID: clientOrderID)
        let outcome = try await placeOrder(.at(request, price), in: portfolio, owner: owner, idempotency: nil)
        guard case .executed(let order, _) = outcome else { Issue.record("expected an execution"); throw CancellationError() }
        return order
    }

    /// Resets the portfolio at its current version, closing the period at `endingEquity`.
    @discardableResult
    func reset(_ portfolio: PortfolioID, owner: UserID, endingEquity: (PortfolioState) -> Money) async throws -> PortfolioRecord {
        let state = try await state(of: portfolio, owner: owner)
        return try await resetPortfolio(portfolio, owner: owner, version: state.portfolio.version,
                                        endingEquity: endingEquity(state))
    }

    /// Checks every accounting invariant of the portfolio's current period.
    func expectBalancedBooks(_ portfolio: PortfolioID, owner: UserID, prices: [String: String] = [:],
                             sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let quotes = Dictionary(uniqueKeysWithValues: prices.map { (Symbol($0.key)!, Price(parsing: $0.value)!) })
        let snapshot = try await auditSnapshot(of: portfolio, owner: owner, prices: quotes)
        let violations = Invariants.check(snapshot)
        #expect(violations.isEmpty, "\(violations)", sourceLocation: sourceLocation)
        // What working orders hold is what the open orders stored hold, within the cash and shares there are.
        let state = try await state(of: portfolio, owner: owner)
        let open = try await orders(of: portfolio, owner: owner, limit: 1_000, cursor: nil, open: true).items
        let stored = OrderHolds(open.compactMap { $0.working(commission: state.portfolio.rules.commission) })
        #expect(state.book.holds == stored, "holds in memory \(state.book.holds), stored \(stored)", sourceLocation: sourceLocation)
        #expect(state.book.holds.cash <= max(state.book.cash, .zero), "held \(state.book.holds.cash) of \(state.book.cash)", sourceLocation: sourceLocation)
        for (symbol, shares) in stored.shares {
            #expect(shares <= state.book.quantity(of: symbol), "\(symbol): \(shares) held of \(state.book.quantity(of: symbol))",
                    sourceLocation: sourceLocation)
        }
    }
}

extension PricedOrder {
    /// `request` at a close of `price` on 2026-02-20, a symbol that trades.
    static func at(_ request: OrderRequest, _ price: String, trading: Bool = true) -> PricedOrder {
        PricedOrder(request: request, price: Price(parsing: price)!,
                    pricing: FillPricing(source: trading ? .close : .finalClose, asOf: SessionDate(year: 2026, month: 2, day: 20).date,
                                         marketOpen: false),
                    trading: trading)
    }
}
