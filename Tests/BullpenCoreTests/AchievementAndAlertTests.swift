import BullpenCore
import BullpenTestSupport
import Foundation
import Testing

@Suite("Achievements: each rule, one by one")
struct AchievementTests {
    func earned(_ event: AchievementEvent, already: Set<String> = []) -> Set<String> {
        Set(Achievement.earned(by: event, already: already).map(\.id))
    }

    @Test func theCatalogIsWellFormed() {
        let ids = Achievement.catalog.map(\.id)
        #expect(Set(ids).count == ids.count, "ids are unique")
        #expect(ids.allSatisfy { !$0.isEmpty && $0 == $0.lowercased() && !$0.contains(" ") })
        #expect(Achievement.catalog.allSatisfy { !$0.name.isEmpty && $0.description.hasSuffix(".") })
        #expect(Achievement.catalog.count >= 12)
        #expect(Achievement.benchmarkWindow == 21)
    }

    @Test func tradingRules() {
        let first = AchievementEvent.traded(fills: 1, realizedPnL: .zero, option: false, sectorsHeld: 1)
        #expect(earned(first) == ["first-trade"])
        #expect(earned(.traded(fills: 9, realizedPnL: .zero, option: false, sectorsHeld: 1), already: ["first-trade"]).isEmpty)
        #expect(earned(.traded(fills: 10, realizedPnL: .zero, option: false, sectorsHeld: 1), already: ["first-trade"]) == ["ten-trades"])
        #expect(earned(.traded(fills: 100, realizedPnL: .zero, option: false, sectorsHeld: 1), already: ["first-trade", "ten-trades"]) == ["hundred-trades"])
        // A sale at a loss is not a profit; one cent of gain is.
        #expect(!earned(.traded(fills: 2, realizedPnL: Money(cents: -1), option: false, sectorsHeld: 0)).contains("first-profit"))
        #expect(earned(.traded(fills: 2, realizedPnL: Money(cents: 1), option: false, sectorsHeld: 0)).contains("first-profit"))
        #expect(!earned(.traded(fills: 2, realizedPnL: .zero, option: false, sectorsHeld: 4)).contains("diversified"))
        #expect(earned(.traded(fills: 2, realizedPnL: .zero, option: false, sectorsHeld: 5)).contains("diversified"))
        #expect(earned(.traded(fills: 2, realizedPnL: .zero, option: true, sectorsHeld: 0)).contains("first-option"))
    }

    @Test func eachIsGrantedOnce() {
        let event = AchievementEvent.traded(fills: 10, realizedPnL: Money(cents: 5), option: true, sectorsHeld: 5)
        let all = earned(event)
        #expect(all == ["first-trade", "ten-trades", "first-profit", "diversified", "first-option"])
        #expect(earned(event, already: all).isEmpty)
    }

    @Test func marketLeagueReplayAndSocialRules() {
        #expect(earned(.closes(sessions: 21, portfolioReturn: Percent(hundredths: 101), benchmarkReturn: Percent(hundredths: 100))) == ["beat-the-market"])
        #expect(earned(.closes(sessions: 21, portfolioReturn: Percent(hundredths: 100), benchmarkReturn: Percent(hundredths: 100))).isEmpty, "a tie does not beat it")
        #expect(earned(.closes(sessions: 20, portfolioReturn: Percent(hundredths: 900), benchmarkReturn: Percent(hundredths: 0))).isEmpty, "less than a month")
        #expect(earned(.leagueEnded(rank: 1, players: 5)) == ["league-podium", "league-winner"])
        #expect(earned(.leagueEnded(rank: 3, players: 5)) == ["league-podium"])
        #expect(earned(.leagueEnded(rank: 4, players: 30)).isEmpty)
        #expect(earned(.leagueEnded(rank: 1, players: 4)).isEmpty, "a league of four is too small")
        #expect(earned(.scenarioPassed(kind: "bear", heldEveryClose: true)) == ["diamond-hands"])
        #expect(earned(.scenarioPassed(kind: "bear", heldEveryClose: false)).isEmpty)
        #expect(earned(.scenarioPassed(kind: "bubble", heldEveryClose: true)).isEmpty)
        #expect(earned(.replayEnded) == ["time-traveller"])
        #expect(earned(.signedIn(streak: 6)).isEmpty)
        #expect(earned(.signedIn(streak: 7)) == ["streak-7"])
        #expect(earned(.signedIn(streak: 30), already: ["streak-7"]) == ["streak-30"])
        #expect(earned(.followed(followers: 9)).isEmpty)
        #expect(earned(.followed(followers: 10)) == ["followed-10"])
        #expect(earned(.joinedLeague(leagues: 1)) == ["league-joiner"])
        #expect(earned(.sharedPortfolio) == ["open-book"])
    }

    @Test func signInStreaksCountUTCDaysInARow() {
        let day = SessionDate(year: 2026, month: 3, day: 1)
        #expect(SignInStreak.after(signingInOn: day, last: nil, streak: 0) == 1)
        #expect(SignInStreak.after(signingInOn: day, last: day, streak: 4) == 4, "twice a day counts once")
        #expect(SignInStreak.after(signingInOn: day.adding(days: 1), last: day, streak: 4) == 5)
        #expect(SignInStreak.after(signingInOn: day.adding(days: 2), last: day, streak: 4) == 1, "a missed day starts over")
    }

    @Test func aMonthAgainstTheBenchmarkIsMeasuredFromTheCloseBeforeIt() {
        let start = SessionDate(year: 2024, month: 1, day: 1)
        // 23 closes: the window is the last 21, measured from the close before them (the second, 100,000).
        let snapshots = (0..<23).map { i in
            EquitySnapshot(date: start.adding(days: i), cash: Money(dollars: i < 1 ? 50_000 : 100_000 + Int64(i - 1) * 100), marketValue: .zero)
        }
        var benchmark: [SessionDate: Price] = [:]
        for i in 0..<23 { benchmark[start.adding(days: i)] = Price(cents: 100_000 + Int64(i) * 10) }
        let event = AchievementEvent.closes(snapshots, benchmark: benchmark, sessions: 21)
        // Portfolio: 100,000 → 102,100 (+2.10%); benchmark 1,000.10 → 1,002.20 (+0.21%).
        #expect(event == .closes(sessions: 21, portfolioReturn: Percent(hundredths: 210), benchmarkReturn: Percent(hundredths: 21)))
        #expect(AchievementEvent.closes(Array(snapshots.prefix(21)), benchmark: benchmark, sessions: 21) == nil, "too few closes")
        benchmark[start.adding(days: 22)] = nil
        #expect(AchievementEvent.closes(snapshots, benchmark: benchmark, sessions: 21) == nil, "no benchmark close at the end")
    }

    @Test func heldThroughMeansSharesAtEveryCloseToTheEnd() {
        let start = SessionDate(year: 2008, month: 9, day: 1), end = start.adding(days: 5)
        func closes(_ values: [Int64]) -> [EquitySnapshot] {
            values.enumerated().map { EquitySnapshot(date: start.adding(days: $0.offset), cash: Money(dollars: 10), marketValue: Money(dollars: $0.element)) }
        }
        #expect(AchievementEvent.heldThrough(closes([0, 5, 5, 4, 3, 2]), from: start, through: end), "the first close may be cash")
        #expect(!AchievementEvent.heldThrough(closes([0, 5, 5, 0, 3, 2]), from: start, through: end), "sold out for a day")
        #expect(!AchievementEvent.heldThrough(closes([0, 5, 5, 4]), from: start, through: end), "the end not reached")
    }
}

@Suite("Price alerts")
struct PriceAlertTests {
    let user = UserID(UUID())
    let aapl = Symbol("AAPL")!, msft = Symbol("MSFT")!

    func alert(_ symbol: Symbol, _ condition: AlertCondition, fired: Bool = false) -> PriceAlert {
        PriceAlert(id: UUID(), user: user, symbol: symbol, condition: condition, createdAt: Date(),
                   triggeredAt: fired ? Date() : nil, triggeredPrice: fired ? Price(cents: 1) : nil)
    }

    @Test func aBatchFiresExactlyTheAlertsItMeets() {
        let above = [150, 200, 200, 250].map { alert(aapl, .above(Price(cents: Int64($0) * 100))) }
        let below = [100, 180, 199].map { alert(aapl, .below(Price(cents: Int64($0) * 100))) }
        let moves = [100, 250, 500].map { alert(aapl, .move(Percent(hundredths: Int64($0)))) }
        let other = alert(msft, .above(Price(cents: 1)))
        let spent = alert(aapl, .above(Price(cents: 1)), fired: true)
        let book = AlertBook(above + below + moves + [other, spent])
        #expect(book.count == 11, "a fired alert is not armed")
        #expect(Set(book.symbols) == [aapl, msft])
        // AAPL at exactly 200.00, up 2.5% from 195.12: "above 200" fires at the threshold, "below 199" does not.
        let quote = Quote(price: Price(cents: 20_000), previousClose: Price(parsing: "195.1220")!)
        let fired = Set(book.fired(by: [aapl: quote]).map(\.id))
        #expect(fired == Set([above[0], above[1], above[2], moves[0], moves[1]].map(\.id)))
        // A fall of 10% fires every move; the "below" thresholds at or above the price fire, and "above 150" still holds.
        let down = Quote(price: Price(cents: 18_000), previousClose: Price(cents: 20_000))
        #expect(Set(book.fired(by: [aapl: down]).map(\.id)) == Set([above[0], below[1], below[2], moves[0], moves[1], moves[2]].map(\.id)))
        #expect(book.fired(by: [:]).isEmpty)
        #expect(book.fired(by: [msft: Quote(price: Price(cents: 1))]).map(\.id) == [other.id])
    }

    @Test func aMoveNeedsAPreviousClose() {
        let book = AlertBook([alert(aapl, .move(Percent(hundredths: 10)))])
        #expect(book.fired(by: [aapl: Quote(price: Price(cents: 100))]).isEmpty)
    }

    @Test func conditionsSayWhatTheyWatch() {
        #expect(AlertCondition.above(Price(cents: 20_050)).phrase == "rises to $200.50 or above")
        #expect(AlertCondition.below(Price(cents: 100)).phrase == "falls to $1.00 or below")
        #expect(AlertCondition.move(Percent(hundredths: 250)).phrase == "moves 2.50% or more in a session")
    }
}

@Suite("Top-ups: a deposit, not a gain")
struct TopUpTests {
    let start = Money(dollars: 100_000)
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func onlyBelowATenthAndOnceAWeek() {
        #expect(TopUp.threshold(startingCash: start) == Money(dollars: 10_000))
        #expect(TopUp.grant(equity: Money(dollars: 10_000), startingCash: start, lastGrant: nil, now: now)
                == .failure(.notBelowThreshold(equity: Money(dollars: 10_000), threshold: Money(dollars: 10_000))))
        #expect(TopUp.grant(equity: Money(cents: 999_999), startingCash: start, lastGrant: nil, now: now)
                == .success(Money(cents: 9_000_001)), "back to the starting cash")
        let lastWeek = now.addingTimeInterval(-TopUp.interval + 1)
        #expect(TopUp.grant(equity: Money(dollars: 5), startingCash: start, lastGrant: lastWeek, now: now)
                == .failure(.tooSoon(next: lastWeek.addingTimeInterval(TopUp.interval))))
        #expect(TopUp.grant(equity: Money(dollars: 5), startingCash: start,
                            lastGrant: now.addingTimeInterval(-TopUp.interval), now: now) == .success(Money(dollars: 99_995)))
    }

    func grant(_ amount: Money, sequence: Int64) -> JournalEntry {
        JournalEntry(id: JournalEntryID(UUID()), portfolioID: PortfolioID(UUID()), period: 1, sequence: sequence, kind: .grant,
                     symbol: nil, side: nil, quantityDelta: 0, price: nil, cashDelta: amount, commission: .zero, realizedPnL: .zero,
                     orderID: nil, fillID: nil, priceAsOf: nil, createdAt: now)
    }

    @Test func aGrantIsMoneyPutInForReturnsAndTheInvariants() throws {
        let msft = Symbol("MSFT")!
        var book = Book(startingCash: Money(dollars: 1_000))
        let (fill, after) = try TradingEngine.execute(OrderRequest(symbol: msft, side: .buy, quantity: 10), on: book,
                                                      at: Price(cents: 9_500), rules: .default, trading: true)
        book = after
        var journal = JournalEntry.entries(of: fill, portfolioID: PortfolioID(UUID()), period: 1, sequence: 1, orderID: nil, fillID: nil,
                                           priceAsOf: nil, createdAt: now, ids: SequentialIDSource())
        // MSFT falls to $5: equity $50 + $50 cash = $100, a tenth of the start... minus a cent.
        let top = grant(Money(dollars: 900), sequence: 2)
        journal.append(top)
        book.apply(top)
        #expect(book.cash == Money(dollars: 950) && book.deposits == Money(dollars: 900) && book.invested == Money(dollars: 1_900))
        let valuation = Valuation(book: book, quotes: [msft: Quote(price: Price(cents: 500))], realizedPnL: .zero)
        #expect(valuation.equity == Money(dollars: 1_000))
        #expect(valuation.totalReturn == Money(dollars: -900), "the loss stays a loss")
        #expect(valuation.totalReturnPercent == Percent(hundredths: -4_737))
        let snapshot = Invariants.Snapshot(startingCash: Money(dollars: 1_000), cash: book.cash, positions: Array(book.positions.values),
                                           journal: journal, fills: [fill], prices: [msft: Price(cents: 500)])
        #expect(Invariants.check(snapshot).isEmpty)
        #expect(Book.replaying(journal, startingCash: Money(dollars: 1_000)) == book)
        // A grant that carries shares, or takes money, is refused by the audit.
        var forged = grant(Money(dollars: -5), sequence: 3)
        forged.quantityDelta = 0
        var bad = snapshot
        bad.journal.append(forged)
        bad.cash += forged.cashDelta
        #expect(Invariants.check(bad).contains { $0.description.contains("moves more than cash in") })
    }

    @Test func theBenchmarkLineBuysTheIndexWithEachDeposit() {
        let d1 = SessionDate(year: 2024, month: 1, day: 2), d2 = d1.adding(days: 1), d3 = d1.adding(days: 2)
        var entry = grant(Money(dollars: 1_000), sequence: 1)
        entry.createdAt = d2.date.addingTimeInterval(3600)   // during the second session
        let points = EquityCurve.build(startingCash: Money(dollars: 1_000), journal: [entry], dates: [d1, d2, d3], closes: [:], latest: [:],
                                       benchmark: [d1: Price(cents: 10_000), d2: Price(cents: 20_000), d3: Price(cents: 40_000)], closing: true)
        #expect(points.map(\.equity) == [Money(dollars: 1_000), Money(dollars: 2_000), Money(dollars: 2_000)])
        // The start doubles twice (1,000 → 4,000); the deposit, made at 200, doubles once (1,000 → 2,000).
        #expect(points.map(\.benchmark) == [Money(dollars: 1_000), Money(dollars: 3_000), Money(dollars: 6_000)])
    }
}
