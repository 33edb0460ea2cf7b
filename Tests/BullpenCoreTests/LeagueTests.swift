import BullpenCore
import Foundation
import Testing

@Suite("Leagues in the core")
struct LeagueTests {
    let msft = Symbol("MSFT")!, acme = Symbol("ACME")!

    func snapshots(_ equities: [Int64], from start: SessionDate = SessionDate(year: 2024, month: 1, day: 2)) -> [EquitySnapshot] {
        TradingCalendar().tradingDays(from: start, through: start.adding(days: 60)).prefix(equities.count).enumerated().map {
            EquitySnapshot(date: $0.element, cash: Money(cents: equities[$0.offset]), marketValue: .zero)
        }
    }

    @Test func statsFoldTheSameFiguresComputedDirectly() {
        let equities: [Int64] = [1_000_000, 1_020_000, 990_000, 1_050_000, 1_010_000, 1_080_000]
        var stats = EquityStats(startingCash: Money(cents: 1_000_000))
        let all = snapshots(equities)
        stats.add(Array(all.prefix(3)))
        stats.add(all)   // the first three again are ignored
        #expect(stats.sessions == 6 && stats.last == Money(cents: 1_080_000) && stats.previous == Money(cents: 1_010_000))
        // The deepest fall: 1,050,000 to 1,010,000 is 3.81 %.
        #expect(stats.maxDrawdown == 381 && stats.peak == Money(cents: 1_080_000))
        var previous = 1_000_000.0, returns: [Double] = []
        for e in equities { returns.append(Double(e) / previous - 1); previous = Double(e) }
        let mean = returns.reduce(0, +) / 6
        let sd = (returns.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / 5).squareRoot()
        #expect(Leaderboard.sharpe(stats) == Int64((mean / sd * 252.0.squareRoot() * 100).rounded()))
    }

    @Test func rankingTiesAndMissingFigures() {
        func entry(_ name: String, _ equity: Int64, days: [Int64]) -> Leaderboard.Entry {
            var stats = EquityStats(startingCash: Money(cents: 100_000))
            stats.add(snapshots(days))
            return Leaderboard.Entry(player: UserID(UUID()), name: name, startingCash: Money(cents: 100_000),
                                     equity: Money(cents: equity), stats: stats, session: stats.through!, benchmarkReturn: 500, trades: 0)
        }
        let entries = [entry("cat", 110_000, days: [105_000, 110_000]), entry("ann", 110_000, days: [101_000, 110_000]),
                       entry("bob", 90_000, days: [95_000, 90_000]), entry("dan", 100_000, days: [100_000])]
        let byReturn = Leaderboard.rank(entries, by: .return)
        #expect(byReturn.map(\.name) == ["ann", "cat", "dan", "bob"] && byReturn.map(\.rank) == [1, 1, 3, 4])
        #expect(byReturn[0].totalReturn == 1_000 && byReturn[0].vsBenchmark == 500 && byReturn[0].todayChange == Money(cents: 9_000))
        // Dan's one flat day has no Sharpe: he ranks last.
        let bySharpe = Leaderboard.rank(entries, by: .sharpe)
        #expect(bySharpe.last?.name == "dan" && bySharpe.last?.sharpe == nil)
        let byDrawdown = Leaderboard.rank(entries, by: .drawdown)
        #expect(byDrawdown.map(\.maxDrawdown) == [0, 0, 0, 1_000] && byDrawdown.map(\.rank) == [1, 1, 1, 4])
    }

    @Test func theCurrentValuationCountsAsTheLatestDay() {
        var stats = EquityStats(startingCash: Money(cents: 100_000))
        stats.add(snapshots([100_000, 120_000]))
        let today = stats.through!.adding(days: 1)
        let standing = Leaderboard.figures(of: Leaderboard.Entry(
            player: UserID(UUID()), name: "x", startingCash: Money(cents: 100_000), equity: Money(cents: 90_000), stats: stats,
            session: today, benchmarkReturn: nil, trades: 3))
        #expect(standing.todayChange == Money(cents: -30_000) && standing.maxDrawdown == 2_500 && standing.vsBenchmark == nil)
    }

    @Test func joinCodesAreUnambiguous() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let code = JoinCode.generate(using: &random)
            #expect(code.count == 8 && !code.contains { "01ILO".contains($0) })
            #expect(JoinCode.normalize(code.lowercased()) == code)
        }
        #expect(JoinCode.normalize("abcd-efgh") == "ABCDEFGH" && JoinCode.normalize("ABCDEFG0") == nil && JoinCode.normalize("ABC") == nil)
        #expect(LeagueAdvance.interval(parsing: "1h") == 3_600 && LeagueAdvance.interval(parsing: "10m") == nil
                && LeagueAdvance.interval(parsing: "8d") == nil && LeagueAdvance.describe(seconds: 5_400) == "90m")
    }

    @Test func leagueRulesOnOrders() throws {
        let book = Book(startingCash: Money(dollars: 10_000))
        let open = Date(timeIntervalSince1970: 1_000_000), close = Date(timeIntervalSince1970: 2_000_000)
        let rules = PortfolioRules(maxPositionBasisPoints: 2_500, minimumPrice: Money(dollars: 5), marketHoursOnly: true,
                                   tradingOpens: open, tradingCloses: close)
        func problems(_ quantity: Quantity, _ price: String, now: Date, marketOpen: Bool = true, side: OrderSide = .buy) -> [String] {
            TradingEngine.problems(OrderRequest(symbol: msft, side: side, quantity: quantity), on: book, at: Price(parsing: price)!,
                                   rules: rules, context: OrderContext(now: now, marketOpen: marketOpen)).map(\.code)
        }
        let during = open.addingTimeInterval(10)
        #expect(problems(25, "100", now: during).isEmpty)
        #expect(problems(26, "100", now: during) == ["position_limit"])
        #expect(problems(1, "4.99", now: during) == ["below_minimum_price"])
        #expect(problems(1, "100", now: during, marketOpen: false) == ["market_closed"])
        #expect(problems(1, "100", now: open.addingTimeInterval(-1)) == ["league_not_started"])
        #expect(problems(1, "100", now: close) == ["league_ended"])
        // A replay's orders carry no market-hours answer: the rule does not apply.
        #expect(TradingEngine.problems(OrderRequest(symbol: msft, side: .buy, quantity: 1), on: book, at: Price(parsing: "100")!,
                                       rules: rules, context: OrderContext(now: during, marketOpen: nil)).isEmpty)
        // Other holdings count at their marks: 20 MSFT at 100 is 2,000 of 10,000 equity.
        var held = book
        _ = try TradingEngine.execute(OrderRequest(symbol: acme, side: .buy, quantity: 10), on: book, at: Price(parsing: "100")!,
                                      rules: .default, trading: true)
        held.cash = Money(dollars: 9_000)
        held.positions[acme] = Position(symbol: acme, quantity: 10, costBasis: Money(dollars: 1_000))
        let marked = TradingEngine.problems(OrderRequest(symbol: msft, side: .buy, quantity: 40), on: held, at: Price(parsing: "100")!,
                                            rules: rules, context: OrderContext(now: during, marketOpen: true, marks: [acme: Price(parsing: "1")!]))
        // ACME marked at 1: equity 9,010 after the buy's 4,000 of MSFT is 44 %.
        #expect(marked.map(\.code) == ["position_limit"])
    }
}
