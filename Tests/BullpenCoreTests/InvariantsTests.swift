import BullpenCore
import BullpenTestSupport
import Foundation
import Testing

@Suite("Accounting invariants")
struct InvariantsTests {
    let portfolio = PortfolioID(SequentialIDSource().makeUUID())
    let msft = Symbol("MSFT")!
    let when = Date(timeIntervalSince1970: 1_700_000_000)

    /// Runs orders through the engine and records journal and fills as the store would.
    func simulate(_ orders: [(OrderRequest, String)], rules: PortfolioRules = .default) throws -> Invariants.Snapshot {
        var book = Book(startingCash: Money(dollars: 10_000))
        var journal: [JournalEntry] = []
        var fills: [Fill] = []
        let ids = SequentialIDSource()
        for (index, (request, price)) in orders.enumerated() {
            let (fill, after) = try TradingEngine.execute(request, on: book, at: Price(parsing: price)!, rules: rules, trading: true)
            book = after
            fills.append(fill)
            journal.append(JournalEntry(id: ids.make(), portfolioID: portfolio, period: 1, sequence: Int64(index + 1),
                                        kind: .trade, symbol: fill.symbol, side: fill.side, quantityDelta: fill.quantityDelta,
                                        price: fill.price, cashDelta: fill.cashDelta, commission: fill.commission,
                                        realizedPnL: fill.realizedPnL, orderID: nil, fillID: nil, priceAsOf: nil, createdAt: when))
        }
        return Invariants.Snapshot(startingCash: book.startingCash, cash: book.cash,
                                   positions: Array(book.positions.values), journal: journal, fills: fills,
                                   prices: [msft: Price(parsing: "123.4567")!])
    }

    @Test func aConsistentHistoryHasNoViolations() throws {
        let rules = PortfolioRules(commission: Commission(perOrder: Money(cents: 99), basisPoints: 7))
        let snapshot = try simulate([
            (OrderRequest(symbol: msft, side: .buy, quantity: 7), "101.3333"),
            (OrderRequest(symbol: msft, side: .buy, quantity: 3), "99.9999"),
            (OrderRequest(symbol: msft, side: .sell, quantity: 4), "120.0001"),
            (OrderRequest(symbol: msft, side: .sell, quantity: 1), "80.5"),
        ], rules: rules)
        #expect(Invariants.check(snapshot).isEmpty)
    }

    @Test func cashThatDoesNotMatchTheJournalIsReported() throws {
        var snapshot = try simulate([(OrderRequest(symbol: msft, side: .buy, quantity: 2), "100")])
        snapshot.cash += Money(cents: 1)
        let violations = Invariants.check(snapshot)
        #expect(violations.contains { $0.description.hasPrefix("cash") })
    }

    @Test func aPositionThatDoesNotMatchItsFillsIsReported() throws {
        var snapshot = try simulate([(OrderRequest(symbol: msft, side: .buy, quantity: 2), "100")])
        snapshot.positions[0].quantity = 3
        #expect(Invariants.check(snapshot).contains { $0.description.contains("sum of fills") })
    }

    @Test func replayingTheJournalRebuildsTheBook() throws {
        let snapshot = try simulate([
            (OrderRequest(symbol: msft, side: .buy, quantity: 9), "33.3333"),
            (OrderRequest(symbol: msft, side: .sell, quantity: 2), "40"),
        ])
        let replayed = Book.replaying(snapshot.journal, startingCash: snapshot.startingCash)
        #expect(replayed.cash == snapshot.cash)
        #expect(replayed.positions[msft] == snapshot.positions.first)
    }
}

extension InvariantsTests {
    @Test func storedRealizedPnLThatDisagreesWithTheJournalIsReported() throws {
        var snapshot = try simulate([
            (OrderRequest(symbol: msft, side: .buy, quantity: 2), "100"),
            (OrderRequest(symbol: msft, side: .sell, quantity: 1), "110"),
        ])
        snapshot.realizedPnL = Money(dollars: 10)
        #expect(Invariants.check(snapshot).isEmpty)
        snapshot.realizedPnL = Money(dollars: 11)
        #expect(Invariants.check(snapshot).contains { $0.description.hasPrefix("stored realized") })
    }
}
