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
            // Each task reports what became of its order: the shares it moved, or the rejection's code.
            let outcomes = try await withThrowingTaskGroup(of: (PortfolioID, Result<Quantity, OrderRejection>).self) { group in
                for i in 0..<40 {
                    let target = i.isMultiple(of: 3) ? other : store
                    let portfolio = i.isMultiple(of: 2) ? main.id : second.id
                    let side: OrderSide = i % 4 == 0 ? .sell : .buy
                    let quantity = Quantity(whole: Int64(i % 5 + 1))
                    group.addTask {
                        do {
                            let order = try await target.trade(side, quantity, "AAPL", at: "\(90 + i).25", in: portfolio, owner: user.id)
                            return (portfolio, .success(side == .buy ? order.filledQuantity : -order.filledQuantity))
                        } catch let rejection as OrderRejection {
                            return (portfolio, .failure(rejection))
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.count == 40)
            let executed = outcomes.filter { if case .success = $0.1 { true } else { false } }
            let rejectedCodes = outcomes.compactMap { if case .failure(let rejection) = $0.1 { rejection.code } else { nil } }
            // Sells can find too few shares and buys in the small portfolio too little cash; nothing else.
            #expect(executed.count + rejectedCodes.count == 40)
            #expect(Set(rejectedCodes).isSubset(of: ["insufficient_shares", "insufficient_funds"]), "\(rejectedCodes)")
            #expect(executed.count >= 17, "the ten buys in the main portfolio and the first seven in the small one fit: \(executed.count)")
            for (portfolio, start) in [(main.id, Quantity(whole: 20)), (second.id, Quantity.zero)] {
                let moved = outcomes.filter { $0.0 == portfolio }.reduce(Quantity.zero) { sum, outcome in
                    if case .success(let delta) = outcome.1 { sum + delta } else { sum }
                }
                let held = try await store.state(of: portfolio, owner: user.id).book.quantity(of: Symbol("AAPL")!)
                #expect(held == start + moved, "the store holds what the executed orders moved, no more, no less")
            }
            try await store.expectBalancedBooks(main.id, owner: user.id, prices: ["AAPL": "101"])
            try await store.expectBalancedBooks(second.id, owner: user.id, prices: ["AAPL": "101"])
        }
    }
}
