import BullpenCore
import Foundation
import Testing

@Suite("Replay")
struct ReplayTests {
    static func day(_ text: String) -> SessionDate { SessionDate(iso: text)! }
    let first = day("1990-01-02"), last = day("2026-02-20")

    @Test func startsParseAndResolveOnTradingDays() throws {
        var random = SystemRandomNumberGenerator()
        func resolve(_ text: String) throws -> SessionDate {
            try #require(ReplayStart(parsing: text)).resolve(first: first, last: last, random: &random)
        }
        #expect(try resolve("2009-03") == Self.day("2009-03-02"))        // March 1st 2009 was a Sunday
        #expect(try resolve("2009-03-02") == Self.day("2009-03-02"))
        #expect(try resolve("2008-12-25") == Self.day("2008-12-26"))     // Christmas: the next trading day
        #expect(try resolve("2001-09-11") == Self.day("2001-09-17"))     // closed after the attacks
        #expect(try resolve("1990-01") == Self.day("1990-01-02"))
        #expect(try ReplayStart.earliest.resolve(first: first, last: last, random: &random) == first)
        for text in ["2009-13", "2009-3", "09-03", "2009-03-32", "random!", "", "2009-03-02T00:00"] {
            #expect(ReplayStart(parsing: text) == nil, "\(text)")
        }
        #expect(throws: ReplayStart.Problem.outsideData(first: first, last: last)) { try resolve("1989-12") }
        #expect(throws: ReplayStart.Problem.outsideData(first: first, last: last)) { try resolve("2026-03") }
        for _ in 0..<200 {
            let date = try resolve("random")
            #expect(TradingCalendar().isTradingDay(date) && date >= first && date.adding(days: 365) <= last)
        }
        #expect(throws: ReplayStart.Problem.tooLittleData) {
            try ReplayStart.random.resolve(first: Self.day("2026-01-02"), last: last, random: &random)
        }
    }

    @Test func advanceDaysFollowTheCalendarAndStopAtTheEnd() {
        let days = ReplayAdvance.days(after: Self.day("2008-12-23"), count: 4, last: last)
        #expect(days == ["2008-12-24", "2008-12-26", "2008-12-29", "2008-12-30"].map(Self.day))
        let capped = ReplayAdvance.days(after: Self.day("2026-02-17"), count: 252, last: last)
        #expect(capped == ["2026-02-18", "2026-02-19", "2026-02-20"].map(Self.day))
        #expect(ReplayAdvance.days(after: last, count: 1, last: last).isEmpty)
        #expect(ReplayAdvance.days(after: Self.day("2009-04-08"), through: Self.day("2009-04-12"), last: last)
                == ["2009-04-09"].map(Self.day))   // Good Friday and a weekend
    }

    /// A portfolio holding coins counts every calendar day: weekends and holidays included, up to
    /// a year of them, and still never past the data's last day.
    @Test func advanceDaysCountEveryDayForCoins() {
        let days = ReplayAdvance.days(after: Self.day("2009-04-08"), count: 5, last: last, counting: .everyDay)
        #expect(days == ["2009-04-09", "2009-04-10", "2009-04-11", "2009-04-12", "2009-04-13"].map(Self.day))
        #expect(ReplayAdvance.days(after: Self.day("2009-04-08"), through: Self.day("2009-04-12"), last: last, counting: .everyDay)
                == ["2009-04-09", "2009-04-10", "2009-04-11", "2009-04-12"].map(Self.day))
        #expect(ReplayAdvance.days(after: Self.day("2026-02-17"), count: 366, last: last, counting: .everyDay)
                == ["2026-02-18", "2026-02-19", "2026-02-20"].map(Self.day))
        #expect(ReplayAdvance.days(after: Self.day("2009-04-08"), through: Self.day("2009-04-08"), last: last, counting: .everyDay).isEmpty)
        #expect(ReplayAdvance.DayCount.everyDay.maxDays == 366 && ReplayAdvance.DayCount.sessions.maxDays == 252)
        #expect(ReplayAdvance.DayCount.everyDay.words(1) == "day" && ReplayAdvance.DayCount.sessions.words(2) == "trading days")
    }

    /// Walked over a weekend, a coin's close moves every day while a stock keeps Friday's; the
    /// margin rule's borrow fee is a session's, so the weekend charges none.
    @Test func aWalkOverAWeekendMovesCoinsAndChargesNoFeeOnClosedDays() {
        let coin = Symbol("BTC-USD")!, stock = Symbol("MSFT")!
        var book = Book(startingCash: Money(dollars: 10_000))
        book.cash = Money(dollars: 1_000)
        book.positions[coin] = Position(symbol: coin, quantity: Quantity(units: 50_000_000), costBasis: Money(dollars: 5_000))
        book.positions[stock] = Position(symbol: stock, quantity: 10, costBasis: Money(dollars: 4_000))
        let friday = Self.day("2024-03-08")
        let days = ReplayAdvance.days(after: friday, count: 3, last: last, counting: .everyDay)
        #expect(days == ["2024-03-09", "2024-03-10", "2024-03-11"].map(Self.day))
        let closes: [Symbol: [SessionDate: Price]] = [
            coin: [Self.day("2024-03-09"): Price(cents: 11_000_00), Self.day("2024-03-10"): Price(cents: 12_000_00),
                   Self.day("2024-03-11"): Price(cents: 9_000_00)],
            stock: [Self.day("2024-03-11"): Price(cents: 410_00)],
        ]
        let start: [Symbol: Price] = [coin: Price(cents: 10_000_00), stock: Price(cents: 400_00)]
        let walk = ReplayAdvance.walk(book: book, from: friday, days: days, startPrices: start, closes: closes)
        // Half a coin and ten shares: $1,000 cash + the coin's half + the shares.
        #expect(walk.snapshots.map(\.equity) == [10_000, 10_500, 11_000, 9_600].map { Money(dollars: $0) })
        #expect(walk.snapshots.map(\.date) == [friday] + days)
        // Short shares under the margin rule: only Monday, a session, charges the borrow fee.
        var short = Book(startingCash: Money(dollars: 10_000))
        short.positions[stock] = Position(symbol: stock, quantity: -10, costBasis: Money(dollars: -4_000))
        let rule = MarginRule()
        let margin = ReplayAdvance.walk(book: short, from: friday, days: days, startPrices: start, closes: closes,
                                        margin: MarginWalk(rule: rule, callSince: nil, sessionsSince: 0, commission: .free))
        let feeDays = zip(margin.snapshots.dropFirst(), margin.snapshots).filter { $0.cash != $1.cash }.map { $0.0.date }
        #expect(feeDays == [Self.day("2024-03-11")], "\(margin.snapshots)")
    }

    /// Each day's equity is the cash plus each holding at its close, or its last close before.
    @Test func snapshotsCarryTheLastClose() {
        let msft = Symbol("MSFT")!, ko = Symbol("KO")!
        var book = Book(startingCash: Money(dollars: 1_000))
        book.cash = Money(dollars: 400)
        book.positions[msft] = Position(symbol: msft, quantity: 10, costBasis: Money(dollars: 300))
        book.positions[ko] = Position(symbol: ko, quantity: 4, costBasis: Money(dollars: 300))
        let d1 = Self.day("2009-03-03"), d2 = Self.day("2009-03-04")
        let snapshots = ReplayAdvance.snapshots(
            book: book, from: Self.day("2009-03-02"), days: [d1, d2],
            startPrices: [msft: Price(parsing: "30")!, ko: Price(parsing: "75")!],
            closes: [msft: [d1: Price(parsing: "31.005")!, d2: Price(parsing: "29.5")!], ko: [d2: Price(parsing: "80.1234")!]])
        // 10 × 30 + 4 × 75; then 10 × 31.005 = 310.05 + 300; then 295 + 4 × 80.1234 = 320.4936 → 320.49.
        #expect(snapshots.map(\.marketValue) == [Money(cents: 60_000), Money(cents: 61_005), Money(cents: 61_549)])
        #expect(snapshots.allSatisfy { $0.cash == Money(dollars: 400) })
        #expect(snapshots.map(\.equity) == [Money(cents: 100_000), Money(cents: 101_005), Money(cents: 101_549)])
    }

    @Test func equalWeightsSpendAtMostEachShare() {
        let a = Symbol("A")!, b = Symbol("B")!, c = Symbol("C")!
        let weights = ReplayAdvance.equalWeights(budget: Money(dollars: 50),
                                                 prices: [a: Price(parsing: "3.33")!, b: Price(parsing: "20")!, c: Price(parsing: "17")!])
        // $16.66 each: 5 × 3.33, 0 × 20 (left out), 0 × 17 (left out).
        #expect(weights == [a: 5])
        let even = ReplayAdvance.equalWeights(budget: Money(dollars: 100), prices: [a: Price(parsing: "10")!, b: Price(parsing: "24.99")!])
        #expect(even == [a: 5, b: 2])
    }

    /// The report's figures against values worked out by hand.
    @Test func reportFigures() throws {
        let msft = Symbol("MSFT")!
        let dates = ["2009-03-02", "2009-03-03", "2009-03-04", "2009-03-05", "2009-03-06"].map(Self.day)
        let equities: [Int64] = [10_000_00, 10_500_00, 9_450_00, 9_800_00, 11_000_00]
        let invested: [Int64] = [5_000_00, 5_500_00, 4_450_00, 0, 0]
        let snapshots = zip(dates, zip(equities, invested)).map { date, figures in
            EquitySnapshot(date: date, cash: Money(cents: figures.0 - figures.1), marketValue: Money(cents: figures.1))
        }
        func sale(_ sequence: Int64, _ quantity: Quantity, _ pnl: Int64, _ date: String) -> JournalEntry {
            JournalEntry(id: JournalEntryID(UUID()), portfolioID: PortfolioID(UUID()), period: 1, sequence: sequence, kind: .trade,
                         symbol: msft, side: .sell, quantityDelta: -quantity, price: Price(parsing: "20")!, cashDelta: .zero,
                         commission: .zero, realizedPnL: Money(cents: pnl), orderID: nil, fillID: nil,
                         priceAsOf: Self.day(date).date, createdAt: Date())
        }
        var bought = sale(1, -16, 0, "2009-03-02")
        bought.side = .buy
        let journal = [bought, sale(2, 10, -150_00, "2009-03-04"), sale(3, 5, 420_00, "2009-03-05"), sale(4, 1, 420_00, "2009-03-05")]
        let spx = Dictionary(uniqueKeysWithValues: zip(dates, ["700", "710", "690", "680", "735"].map { Price(parsing: $0)! }))
        let report = try #require(ReplayReport.build(
            startingCash: Money(dollars: 10_000), snapshots: snapshots, journal: journal, benchmark: spx,
            startHoldings: [msft: 250], startPrices: [msft: Price(parsing: "20")!], endPrices: [msft: Price(parsing: "22.5")!]))
        #expect(report.totalReturn == Money(dollars: 1_000) && report.totalReturnPercent?.decimalString == "10.00")
        #expect(report.benchmarkReturnPercent?.decimalString == "5.00")            // 735 / 700
        #expect(report.maxDrawdown == Money(dollars: 1_050))                        // 10,500 → 9,450
        #expect(report.maxDrawdownPercent?.decimalString == "10.00")
        #expect(report.drawdownPeak == dates[1] && report.drawdownTrough == dates[2])
        #expect(report.bestTrade?.realizedPnL == Money(dollars: 420) && report.bestTrade?.quantity == 5)  // the first of a tie
        #expect(report.worstTrade?.realizedPnL == Money(dollars: -150) && report.worstTrade?.date == dates[2])
        #expect(report.daysInvested == 3 && report.days == 5 && report.daysInvestedPercent?.decimalString == "60.00")
        #expect(report.buyAndHoldStocks == Money(dollars: 10_625))                  // 250 × 2.50 more
        #expect(report.buyAndHoldBenchmark == Money(dollars: 10_500))
        #expect(report.points.map(\.equity) == equities.map { Money(cents: $0) })
    }

    /// Closed trades are the sales of what was held and the buy backs of written contracts: writing
    /// a contract opens a position (it realizes nothing yet), and so does a buy.
    @Test func closedTradesAreSalesOfHoldingsAndBuyBacksOfWrittenContracts() throws {
        let ko = Symbol("KO")!
        let call = OptionContract(underlying: ko, type: .call, expiration: SessionDate(iso: "2020-01-17")!, strike: Price(parsing: "65")!).symbol
        var sequence: Int64 = 0
        func entry(_ symbol: Symbol, _ side: OrderSide, _ delta: Quantity, _ pnl: Int64, period: Int = 1) -> JournalEntry {
            sequence += 1
            return JournalEntry(id: JournalEntryID(UUID()), portfolioID: PortfolioID(UUID()), period: period, sequence: sequence,
                                kind: .trade, symbol: symbol, side: side, quantityDelta: delta, price: Price(parsing: "1.20")!,
                                cashDelta: .zero, commission: .zero, realizedPnL: Money(cents: pnl), orderID: nil, fillID: nil,
                                priceAsOf: Self.day("2019-12-02").date, createdAt: Date())
        }
        let journal = [entry(ko, .buy, 100, 0), entry(call, .sell, -1, 0), entry(call, .buy, 1, -45_00),
                       entry(call, .sell, -1, 0), entry(ko, .sell, -50, 80_00),
                       entry(ko, .buy, 10, 0, period: 2), entry(ko, .sell, -10, -5_00, period: 2)]
        let closing = JournalEntry.closingTrades(in: journal.reversed())
        #expect(closing.map(\.sequence) == [3, 5, 7])
        let summary = RealizedSummary(journal)
        #expect(summary.profits == Money(dollars: 80) && summary.losses == Money(dollars: -50))
        #expect(summary.buys == 3 && summary.sells == 4)
    }
}
