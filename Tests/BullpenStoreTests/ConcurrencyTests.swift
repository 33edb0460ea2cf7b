import BullpenCore
import Foundation
import Testing
@testable import BullpenStore

/// Money is never lost or created under concurrency: simultaneous orders from two store
/// instances (as two server processes would be) never overdraw cash nor oversell shares.
@Suite("Concurrency")
struct ConcurrencyTests {
    /// Runs `order` fifty times at once, alternating between two stores; true for each that
    /// executed, false for each rejected with `code` (any other error fails the test).
    static func fifty(alternating first: BullpenStore, _ second: BullpenStore, expecting code: String,
                      _ order: @escaping @Sendable (BullpenStore) async throws -> Void) async throws -> [Bool] {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for i in 0..<50 {
                let target = i.isMultiple(of: 2) ? first : second
                group.addTask {
                    do {
                        try await order(target)
                        return true
                    } catch let rejection as OrderRejection where rejection.code == code {
                        return false
                    }
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
    }

    @Test(arguments: TestDatabases.kinds)
    func fiftySimultaneousBuysNeverOverdraw(kind: DatabaseKind) async throws {
        try await TestDatabases.withStore(kind) { store, openAnother in
            let other = try openAnother()
            let (user, _) = try await store.makeUser()
            let portfolio = try await store.createPortfolio(owner: user.id, name: "Tight", startingCash: Money(dollars: 1_000))
            // 50 buys of $70 each = $3,500 against $1,000: exactly 14 can succeed.
            let results = try await Self.fifty(alternating: store, other, expecting: "insufficient_funds") { target in
                try await target.trade(.buy, 7, "MSFT", at: "10", in: portfolio.id, owner: user.id)
            }
            #expect(results.filter { $0 }.count == 14)
            let state = try await store.state(of: portfolio.id, owner: user.id)
            #expect(state.book.cash == Money(dollars: 20))
            #expect(state.book.quantity(of: Symbol("MSFT")!) == 98)
            try await store.expectBalancedBooks(portfolio.id, owner: user.id, prices: ["MSFT": "10"])
        }
    }

    @Test(arguments: TestDatabases.kinds)
    func fiftySimultaneousSellsNeverOversell(kind: DatabaseKind) async throws {
        try await TestDatabases.withStore(kind) { store, openAnother in
            let other = try openAnother()
            let (user, main) = try await store.makeUser()
            try await store.trade(.buy, 30, "KO", at: "50", in: main.id, owner: user.id)
            let results = try await Self.fifty(alternating: store, other, expecting: "insufficient_shares") { target in
                try await target.trade(.sell, 1, "KO", at: "55", in: main.id, owner: user.id)
            }
            #expect(results.filter { $0 }.count == 30)
            let state = try await store.state(of: main.id, owner: user.id)
            #expect(state.book.quantity(of: Symbol("KO")!) == 0)
            #expect(state.book.cash == Money(dollars: 100_000 + 30 * 5))
            #expect(state.realizedPnL == Money(dollars: 150))
            try await store.expectBalancedBooks(main.id, owner: user.id)
        }
    }

    @Test(arguments: TestDatabases.kinds)
    func interleavedBuysAndSellsAcrossPortfoliosBalance(kind: DatabaseKind) async throws {
        try await TestDatabases.withStore(kind) { store, openAnother in
            let other = try openAnother()
            let (user, main) = try await store.makeUser()
            let second = try await store.createPortfolio(owner: user.id, name: "Second", startingCash: Money(dollars: 5_000))
            try await store.trade(.buy, 20, "AAPL", at: "100", in: main.id, owner: user.id)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for i in 0..<40 {
                    let target = i.isMultiple(of: 3) ? other : store
                    let portfolio = i.isMultiple(of: 2) ? main.id : second.id
                    let side: OrderSide = i % 4 == 0 ? .sell : .buy
                    group.addTask {
                        do {
                            try await target.trade(side, Int64(i % 5 + 1), "AAPL", at: "\(90 + i).25", in: portfolio, owner: user.id)
                        } catch is OrderRejection {}
                    }
                }
                try await group.waitForAll()
            }
            try await store.expectBalancedBooks(main.id, owner: user.id, prices: ["AAPL": "101"])
            try await store.expectBalancedBooks(second.id, owner: user.id, prices: ["AAPL": "101"])
        }
    }
}
