import BullpenAPI
import BullpenCore
import BullpenMarketData
import BullpenStore
import Foundation
import Logging

/// Historical replay (Bazhanga's game): creating a portfolio that starts in the past, moving its
/// clock forward, ending it and reporting on it. Every price is asked "as of" the portfolio's own
/// date or a date it is moving to, never later; every change goes through the ledger.
struct ReplayService: Sendable {
    let store: BullpenStore
    let source: any MarketDataSource
    let time: any TimeSource

    /// A replay holds at most this many different stocks at once (the seed's rule).
    static let maxHoldings = 10
    /// Random starting stocks: how many, and the share of the cash they take.
    static let randomStocks = 5

    var portfolios: PortfolioService { PortfolioService(store: store, marketData: source, time: time) }

    /// The sessions a replay can stand on, or `replay_unavailable`.
    func range() async throws -> ClosedRange<SessionDate> {
        guard let range = await source.replayRange() else {
            throw APIError(.replayUnavailable, "The current market data has no history to replay.")
        }
        return range
    }

    // MARK: Creating

    /// Creates a replay portfolio on the start `request` asks for, with its starting stocks bought
    /// at that day's close.
    func create(owner: UserID, name: String?, startingCash: Money, request: ReplayRequest,
                optionWriting: Bool = false, realism: PortfolioRules = PortfolioRules()) async throws -> PortfolioRecord {
        let range = try await range()
        var random = SystemRandomNumberGenerator()
        var start: SessionDate
        var scenario: Scenario?
        var symbols: [Symbol] = []
        if let id = request.scenario {
            guard request.start == nil else {
                throw APIError.validation("Give either replay.start or replay.scenario: a scenario has its own start.")
            }
            guard let found = Scenario.named(id), range.contains(found.start) else {
                throw APIError(.unknownScenario, "There is no scenario '\(id)' with this market data; GET /api/v1/replay/scenarios lists them.")
            }
            symbols = Array(try await found.tradableSymbols(on: source).prefix(Self.maxHoldings))
            guard !symbols.isEmpty else {
                throw APIError(.unknownScenario, "The scenario '\(id)' has no stocks with prices in this market data.")
            }
            scenario = found
            start = found.start
        } else {
            let asked = request.start ?? "earliest"
            let parsed = request.start == nil ? ReplayStart.earliest : ReplayStart(parsing: asked)
            guard let parsed else {
                throw APIError(.invalidReplayStart, "replay.start must be a month (2009-03), a day (2009-03-02) or \"random\".")
            }
            do {
                start = try parsed.resolve(first: range.lowerBound, last: range.upperBound, random: &random)
            } catch {
                throw APIError(.invalidReplayStart, Self.describe(error, range: range))
            }
        }
        switch request.holdings {
        case nil, "none": break
        case "random":
            guard scenario == nil else {
                throw APIError.validation("A scenario comes with its own stocks: leave replay.holdings out.")
            }
            symbols = try await listedSymbols(on: start).shuffled(using: &random).prefix(Self.randomStocks).sorted()
        default:
            throw APIError.validation("replay.holdings must be \"random\" or \"none\".")
        }

        let clock = PortfolioClock.replay(start.date)
        let quotes = try await source.quotes(symbols, asOf: clock)
        let prices = quotes.filter { $0.value.trading }.mapValues(\.price)
        let quantities = ReplayAdvance.equalWeights(budget: Money(cents: startingCash.cents / 2), prices: prices)
        let rules = PortfolioRules(maxDistinctHoldings: Self.maxHoldings, optionWriting: optionWriting,
                                   volumeCapBasisPoints: realism.volumeCapBasisPoints, slippageBasisPoints: realism.slippageBasisPoints,
                                   margin: realism.margin, fractionalShares: realism.fractionalShares)
        let info = ReplayInfo(start: start, scenario: scenario?.id, holdings: quantities)
        let portfolio = try await store.createPortfolio(owner: owner, name: try await profileName(name, owner: owner),
                                                        startingCash: startingCash, rules: rules, replay: info)
        let now = time.now()
        let orders = quantities.keys.sorted().compactMap { symbol -> PricedOrder? in
            guard let quote = quotes[symbol], let quantity = quantities[symbol] else { return nil }
            return PricedOrder(request: OrderRequest(symbol: symbol, side: .buy, quantity: quantity), price: quote.price,
                               pricing: FillPricing.of(quote, clock: clock, simulated: source.isSimulated, marketOpen: false, now: now),
                               trading: true, clock: clock)
        }
        for result in await store.placeOrders(orders, in: portfolio.id, owner: owner) { _ = try result.get() }
        return portfolio
    }

    /// `name`, or the first free `Profile N`.
    private func profileName(_ name: String?, owner: UserID) async throws -> String {
        if let name { return try Names.validate(name, of: "Portfolio") }
        let taken = Set(try await store.portfolios(owner: owner).map { $0.name.lowercased() })
        var n = 1
        while taken.contains("profile \(n)") { n += 1 }
        return "Profile \(n)"
    }

    /// The symbols with a close on `date` itself (listed and trading that day).
    func listedSymbols(on date: SessionDate) async throws -> [Symbol] {
        let listing = try await source.listing().map(\.symbol)
        let quotes = try await source.quotes(listing, asOf: .replay(date.date))
        return listing.filter { quotes[$0]?.trading == true && quotes[$0]?.session == date }
    }

    static func describe(_ error: ReplayStart.Problem, range: ClosedRange<SessionDate>) -> String {
        switch error {
        case .outsideData(let first, let last):
            "A replay can start on the trading days from \(first) to \(last), the dates of this market data."
        case .tooLittleData:
            "This market data is too short for a random start: it needs more than a year of history."
        }
    }

    // MARK: Advancing

    struct Advance: Sendable {
        var from: SessionDate
        var to: SessionDate
        var days: Int
        /// What `days` counts: the exchange's sessions, or every calendar day (a portfolio holding coins).
        var counting: ReplayAdvance.DayCount
        var endOfData: Bool
        var snapshots: [EquitySnapshot]
        var benchmarkChange: Percent?
        var holdings: [ReplayAdvance.HoldingChange]
        var message: String
        /// The option contracts that expired on the way.
        var settlements: [OptionSettlement]
    }

    /// Moves the portfolio's clock `days` trading days, or up to `to`, storing its equity at each
    /// session passed. Computed outside the ledger from the state at one version; if an order
    /// moves the portfolio meanwhile, computed again.
    func advance(_ id: PortfolioID, owner: UserID, days: Int?, to target: SessionDate?) async throws -> Advance {
        let range = try await range()
        for _ in 1...PortfolioService.attempts {
            let state = try await store.state(of: id, owner: owner)
            guard let replay = state.portfolio.replay, case .replay(let date) = state.portfolio.clock else {
                throw StoreError.notReplay
            }
            guard state.portfolio.leagueID == nil else { throw StoreError.leagueClock }
            guard !replay.ended else { throw StoreError.replayEnded }
            let from = SessionDate(date)
            guard from < range.upperBound else {
                throw APIError(.endOfData, "The data ends on \(range.upperBound): there are no more days to play. See the report.")
            }
            let coins = try await coins(among: [state])
            let counting = Self.dayCount(state, coins: coins)
            let passed: [SessionDate]
            switch (days, target) {
            case (let days?, nil):
                guard (1...counting.maxDays).contains(days) else { throw Self.badDays(counting) }
                passed = ReplayAdvance.days(after: from, count: days, last: range.upperBound, counting: counting)
            case (nil, let target?):
                guard target > from else {
                    throw APIError(.invalidAdvance, "'to' must be after the portfolio's date, \(from): time only moves forward.")
                }
                passed = ReplayAdvance.days(after: from, through: target, last: range.upperBound, counting: counting)
                guard passed.count <= counting.maxDays else { throw Self.badDays(counting) }
                guard !passed.isEmpty else {
                    throw APIError(.invalidAdvance, "There is no trading day after \(from) up to \(target).")
                }
            default:
                throw APIError(.invalidAdvance, "Give either 'days' (1 to \(counting.maxDays) \(counting.words(2))) or 'to' (a date).")
            }
            guard let to = passed.last else { throw Self.badDays(counting) }
            guard let move = try await moves([state], to: to, last: range.upperBound, coins: coins).first else { throw Self.badDays(counting) }
            do {
                _ = try await store.advanceReplays([move])[0].get()
            } catch StoreError.portfolioChanged {
                continue
            }
            let held = state.book.positions.keys.sorted()
            let before = try await source.quotes(held, asOf: .replay(from.date)).mapValues(\.price)
            let snapshots = move.snapshots
            let after = try await source.quotes(held, asOf: .replay(to.date)).mapValues(\.price)
            let benchmark = try await benchmarkCloses(from: from, through: to)
            let endOfData = to == range.upperBound
            var message = "Moved \(passed.count) \(counting.words(passed.count)), from \(from) to \(to)."
            if counting == .everyDay {
                message += " This portfolio holds coins, so its clock counts every calendar day: coins trade on weekends and holidays, shares wait for the exchange's next session."
            }
            if let days, passed.count < days { message += " The data ran out before \(days) days." }
            if endOfData {
                message += " This is the last day of the data: trade if you like, then end the replay and read your report."
            }
            let fills = move.events.filter { if case .filled = $0 { true } else { false } }.count
            let ended = move.events.filter { if case .expired = $0 { true } else if case .rejected = $0 { true } else { false } }.count
            if fills > 0 { message += " \(fills) fill\(fills == 1 ? "" : "s") of your working orders on the way: see Orders." }
            if ended > 0 { message += " \(ended) working order\(ended == 1 ? "" : "s") expired or could not fill: see Orders." }
            if !move.settlements.isEmpty {
                message += " \(move.settlements.count) option position\(move.settlements.count == 1 ? "" : "s") expired on the way: see History."
            }
            return Advance(from: from, to: to, days: passed.count, counting: counting, endOfData: endOfData, snapshots: snapshots,
                           benchmarkChange: ReplayAdvance.change(from: benchmark.onOrBefore(from), to: benchmark.onOrBefore(to)),
                           holdings: ReplayAdvance.holdingChanges(book: state.book, before: before, after: after),
                           message: message, settlements: move.settlements)
        }
        throw StoreError.portfolioChanged
    }

    /// The coins among what `states` hold or have orders working for.
    func coins(among states: [PortfolioState]) async throws -> Set<Symbol> {
        var coins: Set<Symbol> = []
        for symbol in Set(states.flatMap { $0.book.positions.keys.filter { !$0.isOption } + $0.working.map(\.symbol) })
        where try await source.asset(symbol)?.assetClass == .crypto {
            coins.insert(symbol)
        }
        return coins
    }

    /// How a portfolio's advance counts days: every calendar day when it holds a coin or has a
    /// coin's order working, otherwise the exchange's sessions. A league's members share one
    /// clock, which moves on sessions.
    static func dayCount(_ state: PortfolioState, coins: Set<Symbol>) -> ReplayAdvance.DayCount {
        guard state.portfolio.leagueID == nil, !coins.isEmpty else { return .sessions }
        let trades = state.book.positions.keys.contains(where: coins.contains) || state.working.contains { coins.contains($0.symbol) }
        return trades ? .everyDay : .sessions
    }

    /// The moves that take each portfolio from its own date to `to`, with its equity at the close
    /// of that date and of each day passed (see ``dayCount(_:coins:)``): each symbol's bars read
    /// once for all of them (a league moves its members together), each start's prices asked as
    /// of that start. A replay standing on a day sees a coin's close of the UTC day before (that
    /// day is not over at the New York close): a coin's bar of one UTC day is walked on the next.
    func moves(_ states: [PortfolioState], to: SessionDate, last: SessionDate, coins known: Set<Symbol>? = nil) async throws -> [BullpenStore.ReplayMove] {
        let starts = states.map { SessionDate($0.portfolio.clock.date ?? to.date) }
        guard let earliest = starts.min() else { return [] }
        var coins = known ?? []
        if known == nil { coins = try await self.coins(among: states) }
        // The underlyings of held contracts too: expiring contracts settle at their close.
        let held = states.flatMap { $0.book.positions.keys }
        // Working orders' symbols too: their bars decide the fills on the way.
        let ordered = states.flatMap { $0.working.map(\.symbol) }
        let symbols = Set(held + held.compactMap { $0.option?.underlying } + ordered).sorted()
        var closes: [Symbol: [SessionDate: Price]] = [:]
        var daily: [Symbol: [SessionDate: DailyBar]] = [:]
        for symbol in symbols {
            var bars = try await source.dailyBars(symbol, from: earliest.adding(days: -1), through: to, asOf: .replay(to.date))
            if coins.contains(symbol) {
                bars = bars.map { var seen = $0; seen.date = $0.date.adding(days: 1); return seen }
            }
            bars.removeAll { $0.date < earliest }
            closes[symbol] = Dictionary(bars.map { ($0.date, $0.close) }, uniquingKeysWith: { _, later in later })
            daily[symbol] = Dictionary(bars.map { ($0.date, $0) }, uniquingKeysWith: { _, later in later })
        }
        var startPrices: [SessionDate: [Symbol: Price]] = [:]
        for start in Set(starts) {
            startPrices[start] = try await source.quotes(symbols, asOf: .replay(start.date)).mapValues(\.price)
        }
        // Splits and dividends on the way (unadjusted data only), never past `to`.
        let actions = try await source.corporateActions(from: earliest.adding(days: 1), through: to, asOf: .replay(to.date))
        // Portfolios under the margin rule: the call in force, from their journals.
        var margins: [PortfolioID: MarginWalk] = [:]
        for (state, start) in zip(states, starts) {
            guard let rule = state.portfolio.rules.margin else { continue }
            let journal = try await store.currentPeriod(of: state.portfolio.id, owner: state.portfolio.ownerID).journal
            let since = Margin.callSince(journal)
            let passed = since.map { ReplayAdvance.days(after: $0, through: start, last: start).count } ?? 0
            margins[state.portfolio.id] = MarginWalk(rule: rule, callSince: since, sessionsSince: passed,
                                                     commission: state.portfolio.rules.commission)
        }
        return zip(states, starts).map { state, start in
            let orders = state.working.isEmpty ? nil
                : ReplayOrderWalk(working: state.working, bars: daily.filter { symbol, _ in state.working.contains { $0.symbol == symbol } },
                                  rules: state.portfolio.rules)
            let walk = ReplayAdvance.walk(book: state.book, from: start,
                                          days: ReplayAdvance.days(after: start, through: to, last: last,
                                                                   counting: Self.dayCount(state, coins: coins)),
                                          startPrices: startPrices[start] ?? [:], closes: closes, orders: orders,
                                          margin: margins[state.portfolio.id], actions: actions)
            return BullpenStore.ReplayMove(portfolio: state.portfolio.id, owner: state.portfolio.ownerID,
                                           version: state.portfolio.version, from: start, to: to, snapshots: walk.snapshots,
                                           settlements: walk.settlements, events: walk.events)
        }
    }

    static func badDays(_ counting: ReplayAdvance.DayCount) -> APIError {
        counting == .sessions
            ? APIError(.invalidAdvance, "A replay advances 1 to \(counting.maxDays) trading days at a time (252 is about a year).")
            : APIError(.invalidAdvance, "A replay holding coins counts every calendar day: it advances 1 to \(counting.maxDays) days at a time (a year).")
    }

    /// The benchmark's closes between two dates (and the last one before the first), as of the later.
    func benchmarkCloses(from: SessionDate, through end: SessionDate) async throws -> BenchmarkCloses {
        let bars = try await source.benchmarkBars("SPX", from: from.adding(days: -10), through: end, asOf: .replay(end.date)) ?? []
        return BenchmarkCloses(bars: bars)
    }

    /// Checks the replay achievements after a move: the S&P 500 beaten over the last month of
    /// closes, a bear-market scenario held through to its end, the end of the data reached.
    func checkAchievements(_ id: PortfolioID, owner: UserID, from: SessionDate, to: SessionDate, endOfData: Bool, notifier: Notifier) async {
        do {
            let snapshots = try await store.equitySnapshots(of: id, owner: owner)
            let window = Achievement.benchmarkWindow
            if snapshots.count > window, let first = snapshots.suffix(window + 1).first, let last = snapshots.last {
                let benchmark = try await benchmarkCloses(from: first.date, through: last.date)
                if let event = AchievementEvent.closes(snapshots, benchmark: benchmark.byDate, sessions: window) {
                    await notifier.record(event, for: owner)
                }
            }
            let replay = try await store.portfolio(id, owner: owner).replay
            if let name = replay?.scenario, let start = replay?.start, let scenario = Scenario.all.first(where: { $0.id == name }),
               from < scenario.end, to >= scenario.end {
                let held = AchievementEvent.heldThrough(snapshots, from: start, through: scenario.end)
                await notifier.record(.scenarioPassed(kind: scenario.kind.rawValue, heldEveryClose: held), for: owner)
            }
            if endOfData { await notifier.record(.replayEnded, for: owner) }
        } catch {
            BullpenServices.notifyLogger.warning("replay achievements not checked", metadata: ["error": "\(error)"])
        }
    }

    // MARK: Ending and the report

    func end(_ id: PortfolioID, owner: UserID) async throws {
        if try await store.portfolioForPricing(id, owner: owner).leagueID != nil { throw StoreError.leagueClock }
        _ = try await store.endReplay(id, owner: owner)
    }

    /// The stored daily equity and the current one (after the day's trades), oldest first.
    func snapshots(_ id: PortfolioID, owner: UserID) async throws -> (state: PortfolioState, snapshots: [EquitySnapshot]) {
        let (state, valuation) = try await portfolios.valued(id, owner: owner)
        guard case .replay(let date) = state.portfolio.clock else { throw StoreError.notReplay }
        let today = SessionDate(date)
        var snapshots = try await store.equitySnapshots(of: id, owner: owner).filter { $0.date < today }
        snapshots.append(EquitySnapshot(date: today, cash: valuation.cash, marketValue: valuation.marketValue))
        return (state, snapshots)
    }

    /// The equity curve of a replay portfolio from its stored snapshots, with the benchmark.
    func curve(_ id: PortfolioID, owner: UserID) async throws -> (startingCash: Money, points: [EquityCurve.Point]) {
        let (state, snapshots) = try await snapshots(id, owner: owner)
        let benchmark = try await benchmarkCloses(from: snapshots[0].date, through: snapshots[snapshots.count - 1].date)
        let points = EquityCurve.from(snapshots: snapshots, startingCash: state.portfolio.startingCash,
                                      benchmark: benchmark.byDate)
        return (state.portfolio.startingCash, EquityCurve.thinned(points))
    }

    struct Report: Sendable {
        var report: ReplayReport
        var ended: Bool
        var endOfData: Bool
    }

    /// The report of a replay that ended or reached the end of the data.
    func report(_ id: PortfolioID, owner: UserID) async throws -> Report {
        let range = try await range()
        let (state, snapshots) = try await snapshots(id, owner: owner)
        guard let replay = state.portfolio.replay, case .replay(let date) = state.portfolio.clock else { throw StoreError.notReplay }
        let today = SessionDate(date)
        let endOfData = today >= range.upperBound
        guard replay.ended || endOfData else {
            throw APIError(.reportNotReady, "The report is ready when the replay ends: end it, or advance to the last day of the data (\(range.upperBound)).")
        }
        let journal = try await store.currentPeriod(of: id, owner: owner).journal
        let benchmark = try await benchmarkCloses(from: snapshots[0].date, through: today)
        let symbols = replay.holdings.keys.sorted()
        let startPrices = try await source.quotes(symbols, asOf: .replay(replay.start.date)).mapValues(\.price)
        let endPrices = try await source.quotes(symbols, asOf: .replay(today.date)).mapValues(\.price)
        guard let report = ReplayReport.build(startingCash: state.portfolio.startingCash, snapshots: snapshots,
                                              journal: journal, benchmark: benchmark.byDate, startHoldings: replay.holdings,
                                              startPrices: startPrices, endPrices: endPrices)
        else { throw StoreError.unavailable }
        return Report(report: report, ended: replay.ended, endOfData: endOfData)
    }

    // MARK: Scenarios

    func scenarios() async throws -> (range: ClosedRange<SessionDate>?, scenarios: [(scenario: Scenario, symbols: [Symbol])]) {
        (await source.replayRange(), try await Scenario.available(on: source))
    }
}

/// A benchmark's closes by date.
struct BenchmarkCloses: Sendable {
    let bars: [DailyBar]
    var byDate: [SessionDate: Price] { Dictionary(bars.map { ($0.date, $0.close) }, uniquingKeysWith: { _, later in later }) }

    /// The last close on or before `date`.
    func onOrBefore(_ date: SessionDate) -> Price? { bars.last { $0.date <= date }?.close }
}
