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
        var sequence: Int64 = 1
        for (request, price) in orders {
            let (fill, after) = try TradingEngine.execute(request, on: book, at: Price(parsing: price)!, rules: rules, trading: true)
            book = after
            fills.append(fill)
            // As the store journals it: the trade, then its commission as an entry of its own.
            let entries = JournalEntry.entries(of: fill, portfolioID: portfolio, period: 1, sequence: sequence, orderID: nil,
                                               fillID: nil, priceAsOf: nil, createdAt: when, ids: ids)
            journal += entries
            sequence += Int64(entries.count)
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
        // Each commission is a cash entry of its own: four trades, four commission entries.
        let commissions = snapshot.journal.filter { $0.kind == .commission }
        #expect(commissions.count == 4 && snapshot.journal.count == 8)
        #expect(commissions.reduce(Money.zero) { $0 + $1.cashDelta } == -snapshot.fills.reduce(Money.zero) { $0 + $1.commission })
        #expect(snapshot.journal.filter { $0.kind == .trade }.allSatisfy { $0.cashDelta.cents.magnitude == $0.fill!.notional.cents.magnitude })
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
