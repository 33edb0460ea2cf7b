import BullpenCore
import Foundation
import SQLKit
import Testing
@testable import BullpenStore

/// The store's contract, run against SQLite and PostgreSQL alike.
@Suite("Store contract")
struct StoreContractTests {
    @Test(arguments: TestDatabases.kinds)
    func registeringCreatesAMainPortfolioWithAHundredThousandDollars(kind: DatabaseKind) async throws {
        try await TestDatabases.withStore(kind) { store, _ in
            let (user, main) = try await store.makeUser("Alice")
            #expect(main.name == "Main")
            #expect(main.startingCash == Money(dollars: 100_000))
            #expect(main.cash == Money(dollars: 100_000))
            #expect(main.period == 1)
            #expect(try await store.user(usernameKey: "alice")?.id == user.id)
        }
    }

    @Test(arguments: TestDatabases.kinds)
    func usernamesAreUniqueIgnoringCase(kind: DatabaseKind) async throws {
        try await TestDatabases.withStore(kind) { store, _ in
            _ = try await store.makeUser("Alice")
            await #expect(throws: StoreError.usernameTaken) { try await store.makeUser("aLiCe") }
        }
    }

    @Test(arguments: TestDatabases.kinds)
    func portfolioNamesAreUniquePerOwnerAndCapped(kind: DatabaseKind) async throws {
        try await TestDatabases.withStore(kind) { store, _ in
            let (alice, _) = try await store.makeUser()
            let (bob, _) = try await store.makeUser()
            _ = try await store.createPortfolio(owner: alice.id, name: "Growth", startingCash: Money(dollars: 5_000))
            await #expect(throws: StoreError.portfolioNameTaken) {
                try await store.createPortfolio(owner: alice.id, name: "GROWTH", startingCash: Money(dollars: 5_000))
            }
            _ = try await store.createPortfolio(owner: bob.id, name: "Growth", startingCash: Money(dollars: 5_000))
            for n in 3...BullpenStore.maxPortfoliosPerUser {
                _ = try await store.createPortfolio(owner: alice.id, name: "P\(n)", startingCash: Money(dollars: 1_000))
            }
            await #expect(throws: StoreError.tooManyPortfolios(limit: 20)) {
                try await store.createPortfolio(owner: alice.id, name: "One too many", startingCash: Money(dollars: 1_000))
            }
            #expect(try await store.portfolios(owner: alice.id).count == 20)
        }
    }

    @Test(arguments: TestDatabases.kinds)
    func buysAndPartialSellsKeepTheBooksBalanced(kind: DatabaseKind) async throws {
        try await TestDatabases.withStore(kind) { store, _ in
            let (user, main) = try await store.makeUser()
            try await store.trade(.buy, 10, "MSFT", at: "100.0001", in: main.id, owner: user.id)
            try await store.trade(.buy, 7, "MSFT", at: "103.3333", in: main.id, owner: user.id)
            try await store.trade(.buy, 100, "KO", at: "25.03", in: main.id, owner: user.id)
            let sell = try await store.trade(.sell, 5, "MSFT", at: "110", in: main.id, owner: user.id)
            try await store.trade(.sell, 12, "MSFT", at: "90.5", in: main.id, owner: user.id)

            // basis 10 × 100.0001 = 1000.00 and 7 × 103.3333 = 723.33 → 1723.33 for 17; 5 sold carry 506.86
            #expect(sell.realizedPnL == Money(cents: 55_000 - 50_686))
            let state = try await store.state(of: main.id, owner: user.id)
            #expect(state.book.positions[Symbol("MSFT")!] == nil)
            #expect(state.book.positions[Symbol("KO")!]?.quantity == 100)
            // realized over the round trip: proceeds 550 + 1086 - basis 1723.33
            #expect(state.realizedPnL == Money(cents: 55_000 + 108_600 - 172_333))
            try await store.expectBalancedBooks(main.id, owner: user.id, prices: ["KO": "26"])
        }
    }

    @Test(arguments: TestDatabases.kinds)
    func rejectedOrdersChangeNothing(kind: DatabaseKind) async throws {
        try await TestDatabases.withStore(kind) { store, _ in
            let (user, main) = try await store.makeUser()
            await #expect(throws: OrderRejection.insufficientFunds(required: Money(dollars: 100_001), available: Money(dollars: 100_000))) {
                try await store.trade(.buy, 1, "BRK-A", at: "100001", in: main.id, owner: user.id)
            }
            await #expect(throws: OrderRejection.insufficientShares(requested: 1, held: 0)) {
                try await store.trade(.sell, 1, "MSFT", at: "10", in: main.id, owner: user.id)
            }
            let state = try await store.state(of: main.id, owner: user.id)
            #expect(state.book.cash == Money(dollars: 100_000))
            #expect(try await store.activities(of: main.id, owner: user.id, periods: .all, limit: 10, cursor: nil).items.isEmpty)
            try await store.expectBalancedBooks(main.id, owner: user.id)
        }
    }

    @Test(arguments: TestDatabases.kinds)
    func activitiesPageNewestFirstWithACursor(kind: DatabaseKind) async throws {
        try await TestDatabases.withStore(kind) { store, _ in
            let (user, main) = try await store.makeUser()
            for i in 1...7 { try await store.trade(.buy, Quantity(whole: Int64(i)), "AAPL", at: "10", in: main.id, owner: user.id) }
            var sequences: [Int64] = []
            var cursor: String? = nil
            repeat {
                let page = try await store.activities(of: main.id, owner: user.id, periods: .current, limit: 3, cursor: cursor)
                sequences += page.items.map(\.sequence)
                cursor = page.nextCursor
            } while cursor != nil
            #expect(sequences == [7, 6, 5, 4, 3, 2, 1])

            let orders = try await store.orders(of: main.id, owner: user.id, limit: 5, cursor: nil)
            #expect(orders.items.count == 5 && orders.nextCursor != nil)
            let rest = try await store.orders(of: main.id, owner: user.id, limit: 5, cursor: orders.nextCursor)
            #expect(rest.items.count == 2 && rest.nextCursor == nil)
            #expect(Set((orders.items + rest.items).map(\.quantity.wholePart)) == Set(1...7))
            await #expect(throws: StoreError.invalidCursor) {
                try await store.activities(of: main.id, owner: user.id, periods: .current, limit: 3, cursor: "garbage!")
            }
        }
    }

    @Test(arguments: TestDatabases.kinds)
    func anIdempotencyKeyExecutesOnceAndRefusesADifferentRequest(kind: DatabaseKind) async throws {
        try await TestDatabases.withStore(kind) { store, _ in
            let (user, main) = try await store.makeUser()
            let request = OrderRequest(symbol: Symbol("MSFT")!, side: .buy, quantity: 3)
            let claim = IdempotencyClaim(key: "key-1", requestHash: "hash-a")
            let first = try await store.placeOrder(.at(request, "10"), in: main.id, owner: user.id, idempotency: claim)
            guard case .executed(let order, _) = first else { Issue.record("first must execute"); return }
            let second = try await store.placeOrder(.at(request, "11"), in: main.id, owner: user.id, idempotency: claim)
            guard case .replayed(let stored) = second else { Issue.record("second must replay"); return }
            #expect(stored.id == order.id && stored.fillPrice == Price(parsing: "10") && stored.cashDelta == order.cashDelta,
                    "the retry gets the order the key placed, at its price of then")
            await #expect(throws: StoreError.idempotencyKeyReused) {
                try await store.placeOrder(.at(request, "10"), in: main.id, owner: user.id,
                                           idempotency: IdempotencyClaim(key: "key-1", requestHash: "hash-b"))
            }
            #expect(try await store.state(of: main.id, owner: user.id).book.quantity(of: Symbol("MSFT")!) == 3)
        }
    }

    @Test(arguments: TestDatabases.kinds)
    func concurrentRetriesWithOneKeyExecuteOnce(kind: DatabaseKind) async throws {
        try await TestDatabases.withStore(kind) { store, openAnother in
            let (user, main) = try await store.makeUser()
            let other = try openAnother()
            let request = OrderRequest(symbol: Symbol("MSFT")!, side: .buy, quantity: 1)
            let claim = IdempotencyClaim(key: "retry", requestHash: "same")
            try await withThrowingTaskGroup(of: Void.self) { group in
                for i in 0..<10 {
                    let target = i.isMultiple(of: 2) ? store : other
                    group.addTask {
                        _ = try await target.placeOrder(.at(request, "10"), in: main.id, owner: user.id, idempotency: claim)
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await store.state(of: main.id, owner: user.id).book.quantity(of: Symbol("MSFT")!) == 1)
        }
    }

    @Test(arguments: TestDatabases.kinds)
    func clientOrderIDsAreUniquePerPortfolioForever(kind: DatabaseKind) async throws {
        try await TestDatabases.withStore(kind) { store, _ in
            let (user, main) = try await store.makeUser()
            try await store.trade(.buy, 1, "MSFT", at: "10", in: main.id, owner: user.id, clientOrderID: "mine-1")
            await #expect(throws: StoreError.duplicateClientOrderID("mine-1")) {
                try await store.trade(.buy, 1, "MSFT", at: "10", in: main.id, owner: user.id, clientOrderID: "mine-1")
            }
            try await store.reset(main.id, owner: user.id) { _ in Money(dollars: 100_000) }
            await #expect(throws: StoreError.duplicateClientOrderID("mine-1")) {
                try await store.trade(.buy, 1, "MSFT", at: "10", in: main.id, owner: user.id, clientOrderID: "mine-1")
            }
            let other = try await store.createPortfolio(owner: user.id, name: "Other", startingCash: Money(dollars: 1_000))
            try await store.trade(.buy, 1, "MSFT", at: "10", in: other.id, owner: user.id, clientOrderID: "mine-1")
        }
    }

    @Test(arguments: TestDatabases.kinds)
    func resetStartsANewPeriodAndKeepsTheOldOne(kind: DatabaseKind) async throws {
        try await TestDatabases.withStore(kind) { store, _ in
            let (user, main) = try await store.makeUser()
            try await store.trade(.buy, 10, "MSFT", at: "100", in: main.id, owner: user.id)
            try await store.trade(.sell, 4, "MSFT", at: "150", in: main.id, owner: user.id)
            let reset = try await store.reset(main.id, owner: user.id) { state in
                state.book.cash + Money(dollars: 6 * 160)
            }
            #expect(reset.period == 2)
            #expect(reset.cash == Money(dollars: 100_000))
            let state = try await store.state(of: main.id, owner: user.id)
            #expect(state.book.positions.isEmpty && state.realizedPnL == .zero)

            let closed = try await store.closedPeriods(of: main.id, owner: user.id)
            #expect(closed.count == 1)
            #expect(closed[0].realizedPnL == Money(dollars: 200))
            #expect(closed[0].endingCash == Money(dollars: 100_000 - 1_000 + 600))
            #expect(closed[0].endingEquity == Money(dollars: 100_000 - 1_000 + 600 + 960))

            let all = try await store.activities(of: main.id, owner: user.id, periods: .all, limit: 10, cursor: nil)
            #expect(all.items.count == 2)
            #expect(try await store.activities(of: main.id, owner: user.id, periods: .current, limit: 10, cursor: nil).items.isEmpty)
            #expect(try await store.activities(of: main.id, owner: user.id, periods: .number(1), limit: 10, cursor: nil).items.count == 2)

            try await store.trade(.buy, 1, "KO", at: "50", in: main.id, owner: user.id)
            try await store.expectBalancedBooks(main.id, owner: user.id)
        }
    }

    @Test(arguments: TestDatabases.kinds)
    func otherPeoplesPortfoliosAreNotFound(kind: DatabaseKind) async throws {
        try await TestDatabases.withStore(kind) { store, _ in
            let (alice, main) = try await store.makeUser()
            let (bob, _) = try await store.makeUser()
            _ = alice
            await #expect(throws: StoreError.notFound("Portfolio")) { try await store.portfolio(main.id, owner: bob.id) }
            await #expect(throws: StoreError.notFound("Portfolio")) {
                try await store.trade(.buy, 1, "MSFT", at: "1", in: main.id, owner: bob.id)
            }
            await #expect(throws: StoreError.notFound("Portfolio")) { try await store.deletePortfolio(main.id, owner: bob.id) }
            await #expect(throws: StoreError.notFound("Portfolio")) {
                try await store.renamePortfolio(main.id, owner: bob.id, to: "Mine now")
            }
        }
    }

    @Test(arguments: TestDatabases.kinds)
    func deletingAPortfolioRemovesItsHistory(kind: DatabaseKind) async throws {
        try await TestDatabases.withStore(kind) { store, _ in
            let (user, _) = try await store.makeUser()
            let extra = try await store.createPortfolio(owner: user.id, name: "Scratch", startingCash: Money(dollars: 2_000))
            try await store.trade(.buy, 2, "MSFT", at: "10", in: extra.id, owner: user.id)
            try await store.deletePortfolio(extra.id, owner: user.id)
            await #expect(throws: StoreError.notFound("Portfolio")) { try await store.portfolio(extra.id, owner: user.id) }
            let leftovers = try await store.sql(store.db).raw("SELECT COUNT(*) AS n FROM journal_entries").first()?
                .decode(column: "n", as: Int.self)
            #expect(leftovers == 0)
        }
    }

    @Test(arguments: TestDatabases.kinds)
    func refreshTokensRotateAndReuseEndsTheSession(kind: DatabaseKind) async throws {
        try await TestDatabases.withStore(kind) { store, _ in
            let (user, _) = try await store.makeUser()
            let session = try await store.createSession(for: user.id, refreshTokenHash: "t1")
            let rotated = try await store.rotateRefreshToken(presentedHash: "t1", newHash: "t2")
            #expect(rotated.user == user.id && rotated.session == session)
            #expect(try await store.activeSessionOwner(session) == user.id)
            await #expect(throws: StoreError.refreshTokenReused) {
                try await store.rotateRefreshToken(presentedHash: "t1", newHash: "t3")
            }
            #expect(try await store.activeSessionOwner(session) == nil)
            await #expect(throws: StoreError.invalidRefreshToken) {
                try await store.rotateRefreshToken(presentedHash: "t2", newHash: "t4")
            }
            await #expect(throws: StoreError.invalidRefreshToken) {
                try await store.rotateRefreshToken(presentedHash: "never-issued", newHash: "t5")
            }
        }
    }

    @Test(arguments: TestDatabases.kinds)
    func revokedSessionsStayRevoked(kind: DatabaseKind) async throws {
        try await TestDatabases.withStore(kind) { store, _ in
            let (user, _) = try await store.makeUser()
            let session = try await store.createSession(for: user.id, refreshTokenHash: "a")
            try await store.revokeSession(session, reason: "logout")
            #expect(try await store.activeSessionOwner(session) == nil)
            await #expect(throws: StoreError.invalidRefreshToken) {
                try await store.rotateRefreshToken(presentedHash: "a", newHash: "b")
            }
        }
    }

    @Test(arguments: TestDatabases.kinds)
    func migratingTwiceIsHarmless(kind: DatabaseKind) async throws {
        try await TestDatabases.withStore(kind) { store, _ in
            #expect(try await store.pendingMigrations().isEmpty)
            try await store.migrate()
            try await store.ping()
        }
    }

    /// Quantities written before fixed-point quantities (whole shares in the columns) keep their
    /// values through M0018: the positions, orders, fills and journal of a portfolio read the same.
    @Test(arguments: TestDatabases.kinds)
    func fixedPointMigrationKeepsEveryQuantity(kind: DatabaseKind) async throws {
        try await TestDatabases.withStore(kind) { store, openAnother in
            let (user, main) = try await store.makeUser()
            try await store.trade(.buy, 7, "MSFT", at: "10", in: main.id, owner: user.id)
            try await store.trade(.sell, 2, "MSFT", at: "12", in: main.id, owner: user.id)
            try await store.trade(.buy, 3, "KO", at: "60", in: main.id, owner: user.id)
            // The database as the release before wrote it: whole shares, and M0018 not yet run.
            let sql = try store.sql(store.db)
            try await M0018_FixedPointQuantities().revert(on: try store.db)
            try await sql.raw("DELETE FROM \(ident: "_fluent_migrations") WHERE \(ident: "name") LIKE '%M0018%'").run()
            let old = try await sql.raw("SELECT \(ident: "quantity") FROM \(ident: "positions") ORDER BY \(ident: "symbol")").all()
            #expect(try old.map { try $0.decode(column: "quantity", as: Int64.self) } == [3, 5])
            #expect(try await store.pendingMigrations().count == 1)

            let later = try openAnother()   // a new release starting on that database
            try await later.migrate()
            #expect(try await later.pendingMigrations().isEmpty)
            let book = try await later.state(of: main.id, owner: user.id).book
            #expect(book.quantity(of: Symbol("MSFT")!) == 5 && book.quantity(of: Symbol("KO")!) == 3)
            let orders = try await later.orders(of: main.id, owner: user.id, limit: 10, cursor: nil).items
            #expect(Set(orders.map(\.quantity)) == [7, 2, 3] && orders.allSatisfy { $0.filledQuantity == $0.quantity })
            try await later.expectBalancedBooks(main.id, owner: user.id, prices: ["MSFT": "12", "KO": "60"])
            // And trading goes on in whole shares.
            try await later.trade(.sell, 5, "MSFT", at: "11", in: main.id, owner: user.id)
            #expect(try await later.state(of: main.id, owner: user.id).book.quantity(of: Symbol("MSFT")!) == 0)
            try await later.expectBalancedBooks(main.id, owner: user.id, prices: ["KO": "60"])
        }
    }

    /// A row that does not decode is an error naming the row, never a guess.
    @Test(arguments: TestDatabases.kinds)
    func aCorruptRowIsAnErrorNamingTheRow(kind: DatabaseKind) async throws {
        try await TestDatabases.withStore(kind) { store, _ in
            let (user, main) = try await store.makeUser()
            let order = try await store.trade(.buy, 2, "MSFT", at: "10", in: main.id, owner: user.id)
            try await store.sql(store.db).update("orders").set("side", to: "sideways").where("id", .equal, order.id.uuid).run()
            await #expect(throws: StoreError.corruptRow(table: "orders", id: order.id.description)) {
                try await store.orders(of: main.id, owner: user.id, limit: 10, cursor: nil)
            }
            await #expect(throws: StoreError.corruptRow(table: "orders", id: order.id.description)) {
                try await store.order(order.id, in: main.id, owner: user.id)
            }
            try await store.sql(store.db).update("positions").set("symbol", to: "not a symbol!").where("portfolio_id", .equal, main.id.uuid).run()
            await store.ledger.drop(main.id)  // as after a restart: the ledger reads the portfolio again
            await #expect(throws: StoreError.self) { try await store.state(of: main.id, owner: user.id) }
            try await store.sql(store.db).update("journal_entries").set("kind", to: "gift").where("portfolio_id", .equal, main.id.uuid).run()
            await #expect(throws: StoreError.self) {
                try await store.activities(of: main.id, owner: user.id, periods: .all, limit: 10, cursor: nil)
            }
        }
    }

    /// A reset computed on a version the portfolio has moved past is refused, so that the closed
    /// period's figures are never those of a stale book.
    @Test(arguments: TestDatabases.kinds)
    func aResetOnAStaleVersionIsRefused(kind: DatabaseKind) async throws {
        try await TestDatabases.withStore(kind) { store, _ in
            let (user, main) = try await store.makeUser()
            let before = try await store.state(of: main.id, owner: user.id)
            try await store.trade(.buy, 1, "MSFT", at: "10", in: main.id, owner: user.id)
            await #expect(throws: StoreError.portfolioChanged) {
                try await store.resetPortfolio(main.id, owner: user.id, version: before.portfolio.version, endingEquity: .zero)
            }
            #expect(try await store.closedPeriods(of: main.id, owner: user.id).isEmpty)
            try await store.reset(main.id, owner: user.id) { $0.book.cash + Money(dollars: 10) }
            #expect(try await store.closedPeriods(of: main.id, owner: user.id).first?.endingEquity == Money(dollars: 100_000))
        }
    }

    /// PostgreSQL's text cannot hold a NUL (SQLite would cut the text short at it): a NUL typed
    /// into a login or a description is the client's mistake, told apart from the server's.
    @Test(.enabled(if: TestDatabases.kinds.contains(.postgres)))
    func aNulInTextIsTheClientsMistakeOnPostgreSQL() async throws {
        try await TestDatabases.withStore(.postgres) { store, _ in
            do {
                _ = try await store.user(usernameKey: "a\u{0}b")
                Issue.record("a NUL in a lookup was expected to be refused by PostgreSQL")
            } catch {
                #expect(StoreError.refusedText(error) == .nulInText, "\(String(reflecting: error))")
            }
            #expect(StoreError.refusedText(StoreError.notMember) == nil)
            #expect(StoreError.nulInText.code == "validation_failed")
        }
    }
}
