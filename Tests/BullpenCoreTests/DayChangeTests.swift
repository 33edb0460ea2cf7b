import BullpenCore
import BullpenTestSupport
import Foundation
import Testing

/// "Today" is the change of equity since the previous session's close: shares held overnight
/// count from the previous close, shares bought today from their fill, shares sold today up to
/// their sale. It always agrees with the total return on a portfolio's first day.
@Suite("Today's change")
struct DayChangeTests {
    let msft = Symbol("MSFT")!
    let ko = Symbol("KO")!
    /// The session the quotes stand on, and the one before.
    let today = SessionDate(year: 2026, month: 2, day: 20)
    let yesterday = SessionDate(year: 2026, month: 2, day: 19)
    let ids = SequentialIDSource()

    func quote(_ price: String, previous: String, on session: SessionDate? = nil, trading: Bool = true) -> Quote {
        Quote(price: Price(parsing: price)!, previousClose: Price(parsing: previous)!, asOf: (session ?? today).date,
              trading: trading)
    }

    /// Runs the orders through the engine, pricing each on `session`, and returns the book and journal.
    func trade(_ orders: [(OrderSide, Quantity, Symbol, String, SessionDate)], cash: Money = Money(dollars: 100_000))
        throws -> (Book, [JournalEntry]) {
        var book = Book(startingCash: cash)
        var journal: [JournalEntry] = []
        for (index, (side, quantity, symbol, price, session)) in orders.enumerated() {
            let (fill, after) = try TradingEngine.execute(OrderRequest(symbol: symbol, side: side, quantity: quantity),
                                                          on: book, at: Price(parsing: price)!, rules: .default, trading: true)
            book = after
            journal.append(JournalEntry(
                id: ids.make(), portfolioID: ids.make(), period: 1, sequence: Int64(index + 1), kind: .trade,
                symbol: symbol, side: side, quantityDelta: fill.quantityDelta, price: fill.price, cashDelta: fill.cashDelta,
                commission: fill.commission, realizedPnL: fill.realizedPnL, orderID: nil, fillID: nil,
                priceAsOf: session.date, createdAt: Date(timeIntervalSince1970: 1_790_000_000 + Double(index))))
        }
        return (book, journal)
    }

    func valuation(_ book: Book, _ journal: [JournalEntry], _ quotes: [Symbol: Quote]) -> Valuation {
        Valuation(book: book, quotes: quotes, realizedPnL: .zero, today: SessionTrades(session: today, journal: journal))
    }

    /// Interleaved symbols, runs of one symbol and yesterday's trades: each symbol's totals are
    /// the sums of its own entries of the session, whatever the order.
    @Test func sessionTotalsAddUpEachSymbolsOwnEntries() throws {
        let orders: [(OrderSide, Quantity, Symbol, String, SessionDate)] = [
            (.buy, 10, msft, "400", yesterday), (.buy, 5, ko, "60", today), (.buy, 3, msft, "401", today),
            (.buy, 2, msft, "402", today), (.sell, 1, ko, "61", today), (.buy, 4, ko, "62", today),
            (.sell, 2, msft, "403", today), (.buy, 1, msft, "399", yesterday),
        ]
        let (_, journal) = try trade(orders)
        let trades = SessionTrades(session: today, journal: journal)
        for symbol in [msft, ko] {
            let own = journal.filter { $0.symbol == symbol && SessionDate($0.priceAsOf!) >= today }
            #expect(trades.quantity[symbol] == own.reduce(0) { $0 + $1.quantityDelta })
            #expect(trades.cash[symbol] == own.reduce(Money.zero) { $0 + $1.cashDelta })
        }
        #expect(trades.quantity[msft] == 3)
        #expect(trades.quantity[ko] == 8)
        #expect(trades.symbols == [msft, ko])
        #expect(SessionTrades(session: today, journal: journal.reversed()) == trades)
        // Kept as the journal grows (as the ledger keeps them): the same totals, whatever the cuts.
        for cut in 0...journal.count {
            var grown = SessionTrades(session: today, journal: Array(journal[..<cut]))
            grown.include(Array(journal[cut...]))
            #expect(grown == trades, "cut at \(cut)")
        }
        var entryByEntry = SessionTrades.none(session: today)
        for entry in journal { entryByEntry.include([entry]) }
        #expect(entryByEntry == trades)
    }

    @Test func buyingAtTheLastCloseChangesNothingToday() throws {
        // The review's case: bought at the close the quote shows, with a lower previous close.
        let (book, journal) = try trade([(.buy, 40, msft, "397.23", today)])
        let value = valuation(book, journal, [msft: quote("397.23", previous: "392.73")])
        #expect(value.dayChange == .zero)
        #expect(value.totalReturn == .zero)
        // Without netting today's trades it would have shown 40 × $4.50.
        let naive = Valuation(book: book, quotes: [msft: quote("397.23", previous: "392.73")], realizedPnL: .zero)
        #expect(naive.dayChange == Money(dollars: 180))
    }

    @Test func sharesHeldOvernightCountFromThePreviousClose() throws {
        let (book, journal) = try trade([(.buy, 10, msft, "90", yesterday)])
        let value = valuation(book, journal, [msft: quote("110", previous: "100")])
        #expect(value.dayChange == Money(dollars: 100))               // 10 × (110 − 100)
        #expect(value.positions[0].dayChange == Money(dollars: 100))
        #expect(value.dayChangePercent == Money(dollars: 100).percent(of: value.equity - Money(dollars: 100)))
    }

    @Test func sharesBoughtTodayCountFromTheirFill() throws {
        let (book, journal) = try trade([(.buy, 10, msft, "90", yesterday), (.buy, 5, msft, "105", today)])
        let value = valuation(book, journal, [msft: quote("110", previous: "100")])
        #expect(value.dayChange == Money(dollars: 125))               // 10 × 10 + 5 × (110 − 105)
    }

    @Test func sharesSoldTodayCountUpToTheirSale() throws {
        let (book, journal) = try trade([(.buy, 10, msft, "90", yesterday), (.sell, 4, msft, "108", today)])
        let value = valuation(book, journal, [msft: quote("110", previous: "100")])
        #expect(value.dayChange == Money(dollars: 92))                // 6 × 10 + 4 × (108 − 100)
    }

    @Test func aHoldingSoldOutTodayStillCounts() throws {
        let (book, journal) = try trade([(.buy, 10, ko, "50", yesterday), (.sell, 10, ko, "48.5", today),
                                         (.buy, 2, msft, "100", yesterday)])
        #expect(book.positions[ko] == nil)
        let value = valuation(book, journal, [ko: quote("49", previous: "50"), msft: quote("101", previous: "100")])
        #expect(value.dayChange == Money(dollars: -15 + 2))          // 10 × (48.50 − 50) + 2 × 1
    }

    @Test func commissionsPaidTodayAreALossToday() throws {
        var book = Book(startingCash: Money(dollars: 10_000))
        let rules = PortfolioRules(commission: Commission(perOrder: Money(dollars: 5)))
        let (fill, after) = try TradingEngine.execute(OrderRequest(symbol: msft, side: .buy, quantity: 10), on: book,
                                                      at: Price(parsing: "100")!, rules: rules, trading: true)
        book = after
        let entry = JournalEntry(id: ids.make(), portfolioID: ids.make(), period: 1, sequence: 1, kind: .trade, symbol: msft,
                                 side: .buy, quantityDelta: 10, price: fill.price, cashDelta: fill.cashDelta,
                                 commission: fill.commission, realizedPnL: .zero, orderID: nil, fillID: nil,
                                 priceAsOf: today.date, createdAt: Date())
        let value = valuation(book, [entry], [msft: quote("100", previous: "90")])
        #expect(value.dayChange == Money(dollars: -5))
        #expect(value.dayChange == value.totalReturn)
    }

    @Test func aSymbolWhoseDataEndedDoesNotMove() throws {
        let ended = SessionDate(year: 2017, month: 11, day: 10)
        let (book, journal) = try trade([(.buy, 10, ko, "40", ended)])
        let value = valuation(book, journal, [ko: quote("41", previous: "40", on: ended, trading: false)])
        #expect(value.dayChange == .zero)
    }

    @Test func entriesWithoutAPriceDateCountWhenMadeAfterThePreviousClose() throws {
        let calendar = TradingCalendar()
        let previousClose = try #require(calendar.sessionBounds(on: yesterday)?.close)
        func entry(_ quantity: Quantity, _ cash: Int64, at time: Date) -> JournalEntry {
            JournalEntry(id: ids.make(), portfolioID: ids.make(), period: 1, sequence: 1, kind: .trade, symbol: msft, side: .buy,
                         quantityDelta: quantity, price: Price(parsing: "100"), cashDelta: Money(dollars: cash),
                         commission: .zero, realizedPnL: .zero, orderID: nil, fillID: nil, priceAsOf: nil, createdAt: time)
        }
        let before = SessionTrades(session: today, journal: [entry(3, -300, at: previousClose.addingTimeInterval(-60))])
        let after = SessionTrades(session: today, journal: [entry(3, -300, at: previousClose.addingTimeInterval(60))])
        #expect(before.quantity.isEmpty)
        #expect(after.quantity[msft] == 3 && after.cash[msft] == Money(dollars: -300))
    }
}
