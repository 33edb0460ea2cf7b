import BullpenAPI
import BullpenCore
import BullpenMarketData
import BullpenStore
import Foundation

/// Leagues: making them, joining and leaving, the shared replay clock and the leaderboards.
/// Routes parse and encode; the decisions are here and in the core.
struct LeagueService: Sendable {
    let store: BullpenStore
    let marketData: (any MarketDataSource)?
    let time: any TimeSource

    var portfolios: PortfolioService { PortfolioService(store: store, marketData: marketData, time: time) }

    static let pageSize = 50
    static let maxPageSize = 200

    // MARK: Reading

    /// The league if the caller may see it: members and the owner always; anyone for a public
    /// league. Someone else's private league is "not found", like one that does not exist.
    func visibleLeague(_ id: LeagueID, to user: UserID) async throws -> (LeagueRecord, LeagueMember?) {
        let league = try await store.league(id)
        let member = try await store.membership(of: user, in: id)
        if league.visibility == .private && member?.status != .active && league.ownerID != user {
            // A removed player still learns why their old link does nothing.
            if member?.status == .kicked { throw StoreError.kickedFromLeague }
            throw StoreError.notFound("League")
        }
        return (league, member)
    }

    /// The league if the caller owns it.
    func ownedLeague(_ id: LeagueID, by user: UserID) async throws -> LeagueRecord {
        let (league, _) = try await visibleLeague(id, to: user)
        guard league.ownerID == user else { throw StoreError.notLeagueOwner }
        return league
    }

    /// The league if the caller is an active member (the owner always is).
    func memberLeague(_ id: LeagueID, of user: UserID) async throws -> (LeagueRecord, LeagueMember) {
        let (league, member) = try await visibleLeague(id, to: user)
        guard let member, member.status == .active else {
            if league.visibility == .public { throw StoreError.notMember }
            throw StoreError.notFound("League")
        }
        return (league, member)
    }

    // MARK: Creating and changing

    struct Settings: Sendable {
        var rules: PortfolioRules
        var settings: LeagueSettings
    }

    /// The order rules and league settings a request asks for, every figure checked.
    static func settings(_ request: LeagueRulesRequest?, clock: LeagueClock) throws -> Settings {
        let request = request ?? LeagueRulesRequest()
        var rules = PortfolioRules(allowedInstruments: request.allowOptions == true ? [.stock, .option] : [.stock])
        if request.allowOptionWriting == true {
            guard request.allowOptions == true else {
                throw APIError.validation("rules.allowOptionWriting needs rules.allowOptions: writing contracts is trading options.")
            }
            rules.optionWriting = true
        }
        rules.fractionalShares = request.allowFractionalShares ?? false
        rules.allowCrypto = request.allowCrypto ?? true
        try rules.setRealism(volumeCap: request.volumeCapPercent, slippage: request.slippagePercent, field: "rules.")
        try rules.setMargin(allow: request.allowShortSelling, initial: request.initialMarginPercent,
                            maintenance: request.maintenanceMarginPercent)
        if let text = request.commissionPerTrade {
            guard let fee = Money(parsing: text), fee >= .zero, fee <= Money(dollars: 100) else {
                throw APIError.validation("rules.commissionPerTrade must be an amount from 0.00 to 100.00.")
            }
            rules.commission.perOrder = fee
        }
        if let text = request.commissionPercent {
            guard let rate = Money(parsing: text), rate >= .zero, rate.cents <= 500 else {
                throw APIError.validation("rules.commissionPercent must be a percent from 0 to 5.00 (two places).")
            }
            rules.commission.basisPoints = rate.cents
        }
        if let text = request.maxPositionPercent {
            guard let share = Money(parsing: text), share.cents >= 100, share.cents <= 10_000 else {
                throw APIError.validation("rules.maxPositionPercent must be a percent from 1 to 100.")
            }
            rules.maxPositionBasisPoints = share.cents
        }
        if let text = request.minimumPrice {
            guard let price = Money(parsing: text), price >= .zero, price <= Money(dollars: 1_000) else {
                throw APIError.validation("rules.minimumPrice must be an amount from 0.00 to 1000.00.")
            }
            rules.minimumPrice = price == .zero ? nil : price
        }
        if let count = request.maxHoldings {
            guard (1...500).contains(count) else { throw APIError.validation("rules.maxHoldings must be from 1 to 500.") }
            rules.maxDistinctHoldings = count
        }
        if request.marketHoursOnly == true {
            guard !clock.isReplay else {
                throw APIError.validation("rules.marketHoursOnly is for live leagues: a replay league trades at the close of its date.")
            }
            rules.marketHoursOnly = true
        }
        return Settings(rules: rules, settings: LeagueSettings(lateJoin: request.lateJoin ?? true,
                                                               holdingsVisible: request.holdingsVisible ?? false))
    }

    static func metric(_ text: String?) throws -> Leaderboard.Metric? {
        guard let text else { return nil }
        guard let metric = Leaderboard.Metric(rawValue: text) else {
            throw APIError(.invalidMetric, "The metric must be one of return, sharpe, drawdown, vs_benchmark.")
        }
        return metric
    }

    static func visibility(_ text: String) throws -> LeagueVisibility {
        guard let visibility = LeagueVisibility(rawValue: text) else {
            throw APIError.validation("visibility must be \"public\" or \"private\".")
        }
        return visibility
    }

    static func startingCash(_ text: String?) throws -> Money? {
        guard let text else { return nil }
        guard let amount = Money(parsing: text), PortfolioRoutes.startingCashRange.contains(amount) else {
            throw APIError(.invalidStartingCash, "Starting cash must be an amount from 100.00 to 10000000.00.")
        }
        return amount
    }

    static func checkDates(startsAt: Date, endsAt: Date?) throws {
        if let endsAt, endsAt <= startsAt {
            throw APIError(.invalidDates, "endsAt must be after startsAt.")
        }
    }

    func create(owner: UserID, _ body: CreateLeagueRequest) async throws -> (LeagueRecord, PortfolioRecord) {
        let now = time.now()
        let name = try Names.validate(body.name, of: "League")
        let description = try Self.describe(body.description)
        let visibility = try Self.visibility(body.visibility)
        let cash = try Self.startingCash(body.startingCash) ?? BullpenStore.firstPortfolio.startingCash
        let clockRequest = body.clock ?? LeagueClockRequest(mode: "live")
        var clock = LeagueClock.live
        var replayStart: SessionDate?
        var nextAdvance: Date?
        let startsAt = body.startsAt ?? now
        switch clockRequest.mode {
        case "live":
            guard clockRequest.start == nil, clockRequest.advance == nil else {
                throw APIError.validation("A live league has no clock.start or clock.advance.")
            }
        case "replay":
            let range = try await replayRange()
            let asked = clockRequest.start ?? "random"
            guard let parsed = ReplayStart(parsing: asked) else {
                throw APIError(.invalidReplayStart, "clock.start must be a month (2008-09), a day (2008-09-15) or \"random\".")
            }
            var random = SystemRandomNumberGenerator()
            do {
                replayStart = try parsed.resolve(first: range.lowerBound, last: range.upperBound, random: &random)
            } catch {
                throw APIError(.invalidReplayStart, ReplayService.describe(error, range: range))
            }
            let advance: LeagueAdvance
            switch clockRequest.advance ?? .manual {
            case .manual: advance = .manual
            case .every(let interval, let days):
                guard let seconds = LeagueAdvance.interval(parsing: interval) else {
                    throw APIError(.invalidAdvance, "clock.advance.every must be an interval from 15m to 7d, like 30m, 1h or 1d.")
                }
                guard (1...ReplayAdvance.maxDays).contains(days) else {
                    throw APIError(.invalidAdvance, "clock.advance.days must be from 1 to \(ReplayAdvance.maxDays) trading days.")
                }
                advance = .every(seconds: seconds, days: days)
                nextAdvance = max(startsAt, now).addingTimeInterval(TimeInterval(seconds))
            }
            clock = .replay(start: asked, advance: advance)
        default:
            throw APIError.validation("clock.mode must be \"live\" or \"replay\".")
        }
        if let endsAt = body.endsAt, endsAt <= now { throw APIError(.invalidDates, "endsAt must be in the future.") }
        try Self.checkDates(startsAt: startsAt, endsAt: body.endsAt)
        let settings = try Self.settings(body.rules, clock: clock)
        let league = LeagueRecord(
            id: LeagueID(UUID()), ownerID: owner, name: name, description: description, visibility: visibility,
            code: JoinCode.generate(), startingCash: cash, clock: clock, rules: settings.rules,
            settings: settings.settings, defaultMetric: try Self.metric(body.defaultMetric) ?? .return, startsAt: startsAt,
            endsAt: body.endsAt, replayStart: replayStart, replayDate: replayStart, nextAdvanceAt: nextAdvance,
            createdAt: now, updatedAt: now, version: 1)
        return try await store.createLeague(league) { JoinCode.generate() }
    }

    static func describe(_ text: String?) throws -> String {
        let description = (text ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard description.count <= 1_000 else { throw APIError(.invalidName, "The description is at most 1000 characters.") }
        return description
    }

    /// Name, description, visibility and default metric change at any time; cash, rules and dates
    /// only before the league starts and while its members hold nothing.
    func update(_ id: LeagueID, by user: UserID, _ body: UpdateLeagueRequest) async throws -> LeagueRecord {
        var league = try await ownedLeague(id, by: user)
        let now = time.now()
        if let name = body.name { league.name = try Names.validate(name, of: "League") }
        if let description = body.description { league.description = try Self.describe(description) }
        if let visibility = body.visibility { league.visibility = try Self.visibility(visibility) }
        if let metric = try Self.metric(body.defaultMetric) { league.defaultMetric = metric }
        let changesGame = body.startingCash != nil || body.rules != nil || body.startsAt != nil || body.endsAt != nil
        if changesGame {
            guard league.status(at: now) == .upcoming else { throw StoreError.leagueStarted }
            if let cash = try Self.startingCash(body.startingCash) { league.startingCash = cash }
            if let rules = body.rules {
                let settings = try Self.settings(rules, clock: league.clock)
                league.rules = settings.rules
                league.settings = settings.settings
            }
            if let startsAt = body.startsAt {
                guard startsAt > now else { throw APIError(.invalidDates, "startsAt must be in the future (or leave it out).") }
                league.startsAt = startsAt
            }
            if let endsAt = body.endsAt { league.endsAt = endsAt }
            try Self.checkDates(startsAt: league.startsAt, endsAt: league.endsAt)
        }
        let saved = try await store.updateLeague(league)
        if changesGame { try await store.reconfigureMembers(of: saved) }
        return saved
    }

    func regenerateCode(_ id: LeagueID, by user: UserID) async throws -> LeagueRecord {
        for _ in 1...5 {
            var league = try await ownedLeague(id, by: user)
            league.code = JoinCode.generate()
            do {
                return try await store.updateLeague(league)
            } catch where BullpenStore.isConstraintFailure(error) {
                continue
            }
        }
        throw StoreError.contention
    }

    func transfer(_ id: LeagueID, by user: UserID, to heir: UserID) async throws -> LeagueRecord {
        let league = try await ownedLeague(id, by: user)
        // Handing the league to its owner changes nothing: asked twice, the answer is the same.
        guard heir != user else { return league }
        guard try await store.membership(of: heir, in: id)?.status == .active else {
            throw APIError(.newOwnerNotMember, "Only a player in this league can own it: that one is not.")
        }
        var handedOver = league
        handedOver.ownerID = heir
        return try await store.updateLeague(handedOver)
    }

    // MARK: Membership

    func join(_ user: UserID, _ body: JoinLeagueRequest) async throws -> LeagueRecord {
        let league: LeagueRecord
        switch (body.code, body.leagueId) {
        case (let text?, nil):
            // A code that cannot be one is a mistake in the request; one that could be but joins nothing is 404.
            guard let code = JoinCode.normalize(text) else {
                throw APIError.validation("A join code is 8 letters and digits (no I, L, O, 0 or 1); case, spaces and dashes are ignored.")
            }
            league = try await store.league(code: code)
        case (nil, let text?):
            guard let id = LeagueID(text), let found = try? await store.league(id), found.visibility == .public else {
                throw StoreError.notFound("League")
            }
            league = found
        default:
            throw APIError.validation("Give either 'code' (a private league's) or 'leagueId' (a public league's).")
        }
        switch league.status(at: time.now()) {
        case .ended: throw StoreError.leagueOver
        case .active where !league.settings.lateJoin && league.ownerID != user: throw StoreError.lateJoinClosed
        default: break
        }
        _ = try await store.join(user, league: league)
        return league
    }

    func leave(_ id: LeagueID, user: UserID) async throws {
        let (league, _) = try await memberLeague(id, of: user)
        guard league.ownerID != user else { throw StoreError.ownerMustStay }
        try await store.removeMember(user, from: id, as: .left)
    }

    func kick(_ id: LeagueID, by owner: UserID, member: UserID) async throws {
        _ = try await ownedLeague(id, by: owner)
        guard member != owner else { throw StoreError.ownerMustStay }
        try await store.removeMember(member, from: id, as: .kicked)
    }

    func readmit(_ id: LeagueID, by owner: UserID, member: UserID) async throws {
        _ = try await ownedLeague(id, by: owner)
        try await store.allowRejoin(member, in: id)
    }

    func delete(_ id: LeagueID, by owner: UserID) async throws {
        _ = try await ownedLeague(id, by: owner)
        try await store.deleteLeague(id)
    }

    // MARK: The shared clock

    func replayRange() async throws -> ClosedRange<SessionDate> {
        guard let marketData, let range = await marketData.replayRange() else {
            throw APIError(.replayUnavailable, "The current market data has no history to replay.")
        }
        return range
    }

    struct Advance: Sendable {
        var from: SessionDate
        var to: SessionDate
        var days: Int
        var endOfData: Bool
        var portfolios: Int
        var league: LeagueRecord
    }

    /// Moves a replay league's clock `days` trading days: every active member's portfolio moves
    /// with it (through the ledger, with its equity at each session passed), then the league.
    func advance(_ league: LeagueRecord, days: Int, scheduled: Bool = false) async throws -> Advance {
        guard league.clock.isReplay, let from = league.replayDate else { throw StoreError.notReplay }
        guard let marketData else { throw APIError.marketDataUnavailable }
        switch league.status(at: time.now()) {
        case .upcoming: throw OrderRejection.tradingNotOpen(until: league.startsAt)
        case .ended: throw StoreError.leagueOver
        case .active: break
        }
        guard (1...ReplayAdvance.maxDays).contains(days) else { throw ReplayService.badDays(.sessions) }
        let range = try await replayRange()
        guard from < range.upperBound else {
            throw APIError(.endOfData, "The data ends on \(range.upperBound): the league's clock cannot move further.")
        }
        let passed = ReplayAdvance.days(after: from, count: days, last: range.upperBound)
        guard let to = passed.last else { throw ReplayService.badDays(.sessions) }
        var pending = try await store.memberPortfolios(of: league.id)
        let total = pending.count
        for _ in 1...PortfolioService.attempts where !pending.isEmpty {
            var states: [PortfolioState] = []
            for (user, portfolio) in pending {
                let state: PortfolioState
                do {
                    state = try await store.state(of: portfolio, owner: user)
                } catch StoreError.notFound {
                    continue   // its player's account went meanwhile
                }
                guard state.portfolio.closedAt == nil, let date = state.portfolio.clock.date, SessionDate(date) < to else { continue }
                states.append(state)
            }
            let moves = try await ReplayService(store: store, source: marketData, time: time).moves(states, to: to, last: range.upperBound)
            let results = await store.advanceReplays(moves)
            var retry: Set<PortfolioID> = []
            for (move, result) in zip(moves, results) {
                switch result {
                case .success, .failure(StoreError.portfolioClosed): continue   // left meanwhile: it stays where it was
                case .failure(StoreError.portfolioChanged): retry.insert(move.portfolio)
                case .failure(let error): throw error
                }
            }
            pending = pending.filter { retry.contains($0.portfolio) }
        }
        guard pending.isEmpty else { throw StoreError.portfolioChanged }
        var moved = league
        moved.replayDate = to
        // The schedule moves on its own steps; an owner's extra advance leaves it as it was.
        if scheduled, case .every(let seconds, _) = league.clock.advance {
            moved.nextAdvanceAt = max(league.nextAdvanceAt ?? time.now(), time.now().addingTimeInterval(-TimeInterval(seconds)))
                .addingTimeInterval(TimeInterval(seconds))
        }
        let saved = try await store.updateLeague(moved)
        return Advance(from: from, to: to, days: passed.count, endOfData: to == range.upperBound, portfolios: total, league: saved)
    }

    /// Moves every scheduled replay league that is due. Returns how many moved.
    @discardableResult
    func runSchedule() async throws -> Int {
        var moved = 0
        for league in try await store.leaguesDue(at: time.now()) {
            guard case .every(_, let days) = league.clock.advance else { continue }
            do {
                _ = try await advance(league, days: days, scheduled: true)
                moved += 1
            } catch {
                // Nothing to move (over, not started, data ended): the schedule stops.
                var stopped = league
                stopped.nextAdvanceAt = league.status(at: time.now()) == .upcoming ? league.startsAt : nil
                if stopped.nextAdvanceAt != league.nextAdvanceAt { _ = try? await store.updateLeague(stopped) }
            }
        }
        return moved
    }

    /// Tells the players of each league that ended its final standings (their rank of how many)
    /// and grants the league achievements; each league once, whichever instance gets there.
    /// Answers how many leagues were announced.
    @discardableResult
    func announceEndings(notifier: Notifier) async throws -> Int {
        var announced = 0
        let now = time.now(), calendar = TradingCalendar()
        for id in try await store.leaguesToAnnounce() {
            let league = try await store.league(id)
            guard let ends = league.endsAt, league.status(at: now) == .ended else { continue }
            // A live league's final standings wait for every member's closing equity of its last
            // session (stored a few minutes after the close), for a day at most.
            if league.portfolioClock == .live, now < ends.addingTimeInterval(24 * 3600) {
                let last = calendar.lastSession(closedBy: ends)
                let lastClose = calendar.sessionBounds(on: last)?.close ?? ends
                let inputs = try await store.standingInputs(of: id)
                guard inputs.allSatisfy({ input in input.stats.through.map { $0 >= last } ?? (input.joinedAt > lastClose) }) else { continue }
            }
            // The standings first: a league is marked announced only with its notifications ready.
            let standings = try await leaderboard(league, metric: league.defaultMetric).standings
            guard try await store.claimAnnouncement(of: id) else { continue }
            await notifier.notify(standings.map { standing in
                notifier.make(.leagueEnded, for: standing.player, title: "\(league.name) has ended",
                              body: "Final standings: you finished \(Self.ordinal(standing.rank)) of \(standings.count).",
                              link: "#/leagues/\(league.id)")
            })
            for standing in standings {
                await notifier.record(.leagueEnded(rank: standing.rank, players: standings.count), for: standing.player)
            }
            announced += 1
        }
        return announced
    }

    /// 1st, 2nd, 3rd, 4th, 11th, 21st...
    static func ordinal(_ n: Int) -> String {
        let suffix = (11...13).contains(n % 100) ? "th" : (n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th")
        return "\(n)\(suffix)"
    }

    // MARK: Leaderboards

    struct Board: Sendable {
        var standings: [Leaderboard.Standing]
        /// Portfolio names (the global board ranks portfolios).
        var portfolioNames: [PortfolioID: String]
        var asOf: SessionDate?
        var final: Bool
    }

    /// A league's standings under `metric`, from the stored daily figures and the current valuation.
    func leaderboard(_ league: LeagueRecord, metric: Leaderboard.Metric) async throws -> Board {
        let inputs = try await store.standingInputs(of: league.id)
        let final = league.status(at: time.now()) == .ended
        let clock = league.portfolioClock
        var session = league.replayDate
        if session == nil { session = await marketData?.sessionDate(asOf: .live) }
        let standings = try await rank(inputs, metric: metric, clock: clock, session: session, frozen: final, windowStart: nil)
        return Board(standings: standings, portfolioNames: [:], asOf: final ? inputs.compactMap(\.stats.through).max() : session,
                     final: final)
    }

    /// The global leaderboard: live portfolios their owners made public, over a week, a month or
    /// all their days.
    func globalLeaderboard(metric: Leaderboard.Metric, period: String) async throws -> Board {
        let session = await marketData?.sessionDate(asOf: .live)
        // A window starts from the equity at the close before its first day (or the starting cash).
        func windowStart(days: Int) -> SessionDate? {
            session.flatMap { session in
                TradingCalendar().tradingDays(from: session.adding(days: -days * 2 - 10), through: session).suffix(days + 1).first
            }
        }
        let start = period == "all" ? nil : windowStart(days: period == "week" ? 5 : 21)
        // The closes are kept from the month's start, whichever window is asked for.
        let read = try await store.publicStandingInputs(windowsFrom: start == nil ? nil : windowStart(days: 21))
        var inputs = read.inputs
        if let start {
            for index in inputs.indices {
                let series = (read.windows[inputs[index].portfolio] ?? []).drop(while: { $0.date < start })
                let base = series.first?.equity ?? inputs[index].startingCash
                var stats = EquityStats(startingCash: base)
                stats.add(Array(series.dropFirst()))
                stats.through = stats.through ?? series.first?.date
                inputs[index].stats = stats
                inputs[index].startingCash = base
            }
        }
        let standings = try await rank(inputs, metric: metric, clock: .live, session: session, frozen: false, windowStart: start)
        var names: [PortfolioID: String] = [:]
        for input in inputs { names[input.portfolio] = input.portfolioName }
        return Board(standings: standings, portfolioNames: names, asOf: session, final: false)
    }

    /// Values each input at `clock` (or, `frozen`, at its last stored close) and ranks them.
    private func rank(_ inputs: [StandingInput], metric: Leaderboard.Metric, clock: PortfolioClock, session: SessionDate?,
                      frozen: Bool, windowStart: SessionDate?) async throws -> [Leaderboard.Standing] {
        let symbols = Set(inputs.flatMap { $0.holdings.keys }).sorted()
        let quotes = frozen ? [:] : (try await marketData?.quotes(symbols, asOf: clock) ?? [:])
        let calendar = TradingCalendar()
        // Each player's first session: the close their return counts from.
        var lastSessions: [Int64: SessionDate] = [:]   // by minute: most players joined at few distinct times
        let starts = inputs.map { input -> SessionDate in
            if let start = windowStart ?? input.replayStart { return start }
            let minute = Int64(input.joinedAt.timeIntervalSince1970 / 60)
            if let known = lastSessions[minute] { return known }
            let session = calendar.lastSession(closedBy: Date(timeIntervalSince1970: TimeInterval(minute * 60)))
            lastSessions[minute] = session
            return session
        }
        var benchmark: BenchmarkCloses?
        if let marketData, let session, let first = starts.min() {
            let bars = try await marketData.benchmarkBars("SPX", from: first.adding(days: -10), through: session,
                                                          asOf: .replay(session.date)) ?? []
            benchmark = BenchmarkCloses(bars: bars)
        }
        var benchmarkCloses: [SessionDate: Price?] = [:]
        func benchmarkClose(_ date: SessionDate) -> Price? {
            if let known = benchmarkCloses[date] { return known }
            let close = benchmark?.onOrBefore(date)
            benchmarkCloses[date] = .some(close)
            return close
        }
        let entries = inputs.indices.map { index -> Leaderboard.Entry in
            let input = inputs[index]
            var equity = input.cash
            for (symbol, quantity) in input.holdings {
                // A holding without a price counts at its cost.
                equity += quotes[symbol].map { $0.price.notional(quantity: quantity) } ?? input.costs[symbol] ?? .zero
            }
            var entrySession = session ?? input.stats.through ?? SessionDate(time.now())
            if frozen {
                equity = input.stats.last
                entrySession = input.stats.through ?? entrySession
            }
            var benchmarkReturn: Int64?
            if benchmark != nil, let base = benchmarkClose(starts[index]), let now = benchmarkClose(entrySession), base.ticks > 0 {
                benchmarkReturn = FixedPoint.divideRounded((now.ticks - base.ticks) * 10_000, by: base.ticks)
            }
            return Leaderboard.Entry(player: input.player, name: input.username, startingCash: input.startingCash, equity: equity,
                                     stats: input.stats, session: entrySession, benchmarkReturn: benchmarkReturn,
                                     trades: input.trades, portfolio: input.portfolio)
        }
        return Leaderboard.rank(entries, by: metric)
    }

    /// Help for each measure, in plain words.
    static let help: [String: String] = [
        "return": "Total return: how much the portfolio's value (cash plus holdings at today's prices) has grown since it started, as a percent of its starting cash.",
        "sharpe": "Sharpe ratio: the average daily return divided by how much daily returns swing, scaled to a year (×√252), with no risk-free rate. Two players with the same return rank differently if one got there on a smoother ride: a higher Sharpe means more return for each unit of risk taken. It needs at least two days of prices.",
        "drawdown": "Maximum drawdown: the deepest fall from a high point to a later low, as a percent of that high. Smaller is better: it measures the worst loss a player sat through.",
        "vs_benchmark": "Versus the S&P 500: the portfolio's total return minus the S&P 500's over the same days. Positive means the player beat simply buying the index.",
    ]
}
