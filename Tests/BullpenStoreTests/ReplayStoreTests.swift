import BullpenCore
@testable import BullpenStore
import Foundation
import SQLKit
import Testing

@Suite("Replay store")
struct ReplayStoreTests {
    static func day(_ text: String) -> SessionDate { SessionDate(iso: text)! }

    static func order(_ side: OrderSide, _ quantity: Quantity, _ symbol: String, at price: String, on date: String) -> PricedOrder {
        var priced = PricedOrder.at(OrderRequest(symbol: Symbol(symbol)!, side: side, quantity: quantity), price)
        priced.clock = .replay(day(date).date)
        priced.pricing = FillPricing(source: .replayClose, asOf: day(date).date, marketOpen: false)
        return priced
    }

    /// An advance moves the clock and stores its snapshots in one batch, on both databases; an
    /// order priced at the old date is refused; ending freezes; a reset goes back to the start.
    @Test(arguments: TestDatabases.kinds)
    func advanceEndAndReset(kind: DatabaseKind) async throws {
        try await TestDatabases.withStore(kind) { store, openAnother in
            let (user, _) = try await store.makeUser()
            let replay = ReplayInfo(start: Self.day("2009-03-02"), holdings: [Symbol("MSFT")!: 5])
            let portfolio = try await store.createPortfolio(owner: user.id, name: "Jim", startingCash: Money(dollars: 100),
                                                            rules: PortfolioRules(maxDistinctHoldings: 10), replay: replay)
            #expect(portfolio.clock == .replay(Self.day("2009-03-02").date) && portfolio.replay == replay)
            _ = try await store.placeOrder(Self.order(.buy, 5, "MSFT", at: "15.5", on: "2009-03-02"), in: portfolio.id,
                                           owner: user.id, idempotency: nil)
            let state = try await store.state(of: portfolio.id, owner: user.id)
            let snapshots = [
                EquitySnapshot(date: Self.day("2009-03-02"), cash: state.book.cash, marketValue: Money(cents: 7_750)),
                EquitySnapshot(date: Self.day("2009-03-03"), cash: state.book.cash, marketValue: Money(cents: 8_000)),
                EquitySnapshot(date: Self.day("2009-03-04"), cash: state.book.cash, marketValue: Money(cents: 7_900)),
            ]
            let moved = try await store.advanceReplay(portfolio.id, owner: user.id, version: state.portfolio.version,
                                                      from: Self.day("2009-03-02"), to: Self.day("2009-03-04"), snapshots: snapshots)
            #expect(moved.clock == .replay(Self.day("2009-03-04").date))
            // A stale advance (same starting point) is refused.
            await #expect(throws: StoreError.portfolioChanged) {
                try await store.advanceReplay(portfolio.id, owner: user.id, version: state.portfolio.version,
                                              from: Self.day("2009-03-02"), to: Self.day("2009-03-04"), snapshots: snapshots)
            }
            // An order priced at the old date is refused; at the new date it fills.
            await #expect(throws: StoreError.portfolioChanged) {
                try await store.placeOrder(Self.order(.sell, 5, "MSFT", at: "15.8", on: "2009-03-02"), in: portfolio.id,
                                           owner: user.id, idempotency: nil)
            }
            _ = try await store.placeOrder(Self.order(.sell, 5, "MSFT", at: "15.8", on: "2009-03-04"), in: portfolio.id,
                                           owner: user.id, idempotency: nil)

            // A store that reads the database afresh sees the same clock and snapshots.
            let other = try openAnother()
            let read = try await other.state(of: portfolio.id, owner: user.id)
            #expect(read.portfolio.clock == .replay(Self.day("2009-03-04").date) && read.book.cash == Money(cents: 10_150))
            #expect(try await other.equitySnapshots(of: portfolio.id, owner: user.id) == snapshots)

            // The next advance rewrites the day it leaves (after its trades) and adds the new one.
            let later = try await other.state(of: portfolio.id, owner: user.id)
            let next = [EquitySnapshot(date: Self.day("2009-03-04"), cash: later.book.cash, marketValue: .zero),
                        EquitySnapshot(date: Self.day("2009-03-05"), cash: later.book.cash, marketValue: .zero)]
            _ = try await other.advanceReplay(portfolio.id, owner: user.id, version: later.portfolio.version,
                                              from: Self.day("2009-03-04"), to: Self.day("2009-03-05"), snapshots: next)
            #expect(try await other.equitySnapshots(of: portfolio.id, owner: user.id) == Array(snapshots.prefix(2)) + next)

            let ended = try await other.endReplay(portfolio.id, owner: user.id)
            #expect(ended.replay?.ended == true)
            await #expect(throws: StoreError.replayEnded) {
                try await other.placeOrder(Self.order(.buy, 1, "MSFT", at: "16", on: "2009-03-05"), in: portfolio.id,
                                           owner: user.id, idempotency: nil)
            }
            let fresh = try await other.state(of: portfolio.id, owner: user.id)
            let reset = try await other.resetPortfolio(portfolio.id, owner: user.id, version: fresh.portfolio.version,
                                                       endingEquity: fresh.book.cash)
            #expect(reset.clock == .replay(Self.day("2009-03-02").date) && reset.replay?.ended == false)
            #expect(reset.replay?.holdings.isEmpty == true)
            #expect(try await other.equitySnapshots(of: portfolio.id, owner: user.id).isEmpty)
            try await other.expectBalancedBooks(portfolio.id, owner: user.id)

            // A live portfolio cannot move through time.
            let main = try #require(try await store.portfolios(owner: user.id).first { $0.clock == .live })
            await #expect(throws: StoreError.notReplay) { try await store.endReplay(main.id, owner: user.id) }

            // Deleting the portfolio deletes its snapshots.
            try await other.deletePortfolio(portfolio.id, owner: user.id)
            let left = try await other.sql(other.db).select().column("*").from("equity_snapshots").all()
            #expect(left.isEmpty)
        }
    }
}
