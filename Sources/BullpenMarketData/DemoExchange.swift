import BullpenCore
import Foundation
import Synchronization

/// The built-in demo exchange: about forty invented companies with simulated, deterministic daily
/// history from 1990 and intraday ticks every five seconds during New York market hours, and a few
/// invented coins (``DemoCoins``) that trade every day around the clock (a session is a UTC day).
/// Active when no data pack and no provider is configured; everything it serves is labelled simulated.
///
/// History is generated once, through a year past today, from a seed: the same seed gives the same
/// prices. The live clock only ever sees what has "happened" by now: completed sessions, and the
/// current session up to the present tick.
public final class DemoExchange: MarketDataSource {
    public let sourceName = "demo"
    public let isSimulated = true
    public static let tickSeconds = 5.0
    public static let indexName = "SPX"

    public let history: MarketHistory
    /// The coins' daily bars: every calendar day, in UTC days.
    let coins: MarketHistory
    let index: MarketHistory
    private let assets: [Symbol: AssetInfo]
    private let dailyVolatility: [Symbol: Double]
    /// The history's splits and dividends (see ``DemoMarket/corporateActions(through:calendar:)``).
    public let actions: [CorporateAction]
    private let time: any TimeSource
    private let seed: UInt64
    private let calendar = TradingCalendar()
    private let paths = Mutex<[PathKey: [Double]]>([:])

    private struct PathKey: Hashable { var symbol: Symbol; var day: Int32 }

    /// Generates the exchange's history; takes a fraction of a second.
    public init(time: any TimeSource = SystemTimeSource(), seed: UInt64 = 1990) {
        self.time = time
        self.seed = seed
        let through = TradingCalendar.sessionDate(at: time.now()).adding(days: 366)
        let output = DemoMarket.generate(companies: DemoCompany.all, through: through, seed: seed)
        history = MarketHistory(series: output.companies)
        index = MarketHistory(series: [(Symbol(Self.indexName)!, output.index)])
        coins = MarketHistory(series: DemoCoins.generate(through: SessionDate(time.now()).adding(days: 366), seed: seed))
        dailyVolatility = output.dailyVolatility.merging(DemoCoins.all.map { (Symbol($0.symbol)!, $0.dailyVolatility) }) { first, _ in first }
        actions = output.actions
        assets = Dictionary(uniqueKeysWithValues: DemoCompany.all.map { company in
            (Symbol(company.symbol)!, AssetInfo(symbol: Symbol(company.symbol)!, name: company.name,
                                                sector: company.sector.rawValue, industry: company.industry,
                                                exchange: "Bullpen Demo Exchange", headquarters: company.headquarters,
                                                founded: company.founded, description: company.description))
        } + DemoCoins.all.map { coin in
            (Symbol(coin.symbol)!, AssetInfo(symbol: Symbol(coin.symbol)!, name: coin.name, industry: "Cryptocurrency",
                                             exchange: "Bullpen Demo Exchange", founded: String(coin.launch.description.prefix(4)),
                                             description: coin.description, assetClass: .crypto))
        })
    }

    // MARK: What has happened by now

    /// Where the live clock stands: the last completed session, and the session in progress if any.
    struct LiveView {
        var lastCompleted: SessionDate
        var inSession: (date: SessionDate, step: Int, steps: Int)?
    }

    func liveView(at now: Date) -> LiveView {
        let today = TradingCalendar.sessionDate(at: now)
        if let (open, close) = calendar.sessionBounds(on: today) {
            if now >= close { return LiveView(lastCompleted: today, inSession: nil) }
            let previous = calendar.previousTradingDay(before: today)
            if now >= open {
                let steps = Int(close.timeIntervalSince(open) / Self.tickSeconds)
                let step = min(Int(now.timeIntervalSince(open) / Self.tickSeconds), steps - 1)
                return LiveView(lastCompleted: previous, inSession: (today, step, steps))
            }
            return LiveView(lastCompleted: previous, inSession: nil)
        }
        return LiveView(lastCompleted: calendar.tradingDay(onOrBefore: today), inSession: nil)
    }

    /// The bar of the session in progress up to the current tick.
    func partialBar(_ symbol: Symbol, date: SessionDate, step: Int, steps: Int) -> DailyBar? {
        guard let position = history.position(of: symbol, onOrBefore: date) else { return nil }
        let full = history.bar(at: position)
        guard full.date == date else { return nil }
        let path = intradayPath(symbol, bar: full, steps: steps)
        let sofar = path[0...step]
        func price(_ logTicks: Double) -> Price { DemoMarket.ticks(exp(logTicks) / 10_000) }
        return DailyBar(date: date, open: full.open, high: price(sofar.max()!), low: price(sofar.min()!),
                        close: price(path[step]), volume: full.volume * Int64(step + 1) / Int64(steps))
    }

    // MARK: Coins: every day, around the clock

    /// A coin's bar of the UTC day in progress, up to the current five-second tick.
    func coinPartialBar(_ symbol: Symbol, at now: Date) -> DailyBar? {
        let today = SessionDate(now)
        guard let position = coins.position(of: symbol, onOrBefore: today) else { return nil }
        let full = coins.bar(at: position)
        guard full.date == today else { return nil }
        let steps = DemoCoins.ticksPerDay
        let step = min(Int(now.timeIntervalSince(today.date) / Self.tickSeconds), steps - 1)
        let path = intradayPath(symbol, bar: full, steps: steps)
        let sofar = path[0...step]
        func price(_ logTicks: Double) -> Price { DemoCoins.price(exp(logTicks) / 10_000) }
        return DailyBar(date: today, open: full.open, high: max(price(sofar.max()!), full.open), low: min(price(sofar.min()!), full.open),
                        close: price(path[step]), volume: full.volume * Int64(step + 1) / Int64(steps))
    }

    /// A coin's quote: live, the tick now against yesterday's (UTC) close; in a replay, the close of
    /// the replay's date, never of a day not over yet.
    func coinQuote(_ symbol: Symbol, asOf clock: PortfolioClock, now: Date) -> Quote? {
        let last = Self.lastCoinDay(clock, now: now)
        guard case .live = clock, let bar = coinPartialBar(symbol, at: now) else { return coins.quote(symbol, onOrBefore: last) }
        return Quote(price: bar.close, previousClose: coins.quote(symbol, onOrBefore: last)?.price, asOf: now, volume: bar.volume)
    }

    /// The last UTC day of a coin that is over as of `clock`: yesterday, or in a replay the day
    /// before its date (a replay stands on its session before the New York close: that UTC day is
    /// not over yet).
    static func lastCoinDay(_ clock: PortfolioClock, now: Date) -> SessionDate {
        let yesterday = SessionDate(now).adding(days: -1)
        guard case .replay(let date) = clock else { return yesterday }
        return min(SessionDate(date).adding(days: -1), yesterday)
    }

    func isCoin(_ symbol: Symbol) -> Bool { assets[symbol]?.assetClass == .crypto }

    private func intradayPath(_ symbol: Symbol, bar: DailyBar, steps: Int) -> [Double] {
        let key = PathKey(symbol: symbol, day: bar.date.day)
        if let path = paths.withLock({ $0[key] }) { return path }
        let path = DemoMarket.intradayPath(bar: bar, steps: steps, dailyVolatility: dailyVolatility[symbol] ?? 0.02,
                                           seed: Noise.seed(seed, UInt64(bitPattern: Int64(bar.date.day)), UInt64(symbol.rawValue.hashValueStable)))
        paths.withLock { cache in
            // Keep only today's paths: drop other days when the date moves on.
            if cache.keys.contains(where: { $0.day != bar.date.day }) { cache = cache.filter { $0.key.day == bar.date.day } }
            cache[key] = path
        }
        return path
    }

    // MARK: MarketDataSource

    public func status() async -> SourceStatus {
        let now = time.now()
        let view = liveView(at: now)
        let asOf = view.inSession != nil ? now : calendar.sessionBounds(on: view.lastCompleted)?.close
        return SourceStatus(source: sourceName, asOf: asOf, delayed: false, simulated: true,
                            description: "Demo market, simulated prices: \(assets.count - DemoCoins.all.count) invented companies on the Bullpen Demo Exchange, with history generated from 1990 and live ticks during New York market hours, and \(DemoCoins.all.count) invented coins that trade around the clock. No real company or coin is listed.")
    }

    public func listing() async throws -> [AssetInfo] { assets.values.sorted { $0.symbol < $1.symbol } }

    public func asset(_ symbol: Symbol) async throws -> AssetInfo? { assets[symbol] }

    public func quote(_ symbol: Symbol, asOf clock: PortfolioClock) async throws -> Quote? {
        guard assets[symbol] != nil else { return nil }
        let now = time.now()
        if isCoin(symbol) { return coinQuote(symbol, asOf: clock, now: now) }
        let view = liveView(at: now)
        switch clock {
        case .live:
            if let session = view.inSession,
               let bar = partialBar(symbol, date: session.date, step: session.step, steps: session.steps) {
                let previous = history.quote(symbol, onOrBefore: view.lastCompleted)?.price
                return Quote(price: bar.close, previousClose: previous, asOf: now, volume: bar.volume)
            }
            return history.quote(symbol, onOrBefore: view.lastCompleted)
        case .replay(let date):
            return history.quote(symbol, onOrBefore: min(SessionDate(date), view.lastCompleted))
        }
    }

    public func isMarketOpen(at instant: Date) async -> Bool { calendar.isOpen(at: instant) }

    public func dailyBars(_ symbol: Symbol, from start: SessionDate?, through end: SessionDate?,
                          asOf clock: PortfolioClock) async throws -> [DailyBar] {
        if isCoin(symbol) {
            let now = time.now()
            let limit = Self.lastCoinDay(clock, now: now)
            var bars = coins.bars(symbol, from: start, through: end.map { min($0, limit) } ?? limit)
            if case .live = clock, end.map({ $0 >= SessionDate(now) }) ?? true, let partial = coinPartialBar(symbol, at: now) {
                bars.append(partial)
            }
            return bars
        }
        let view = liveView(at: time.now())
        var limit = view.lastCompleted
        if case .replay(let date) = clock { limit = min(limit, SessionDate(date)) }
        var bars = history.bars(symbol, from: start, through: end.map { min($0, limit) } ?? limit)
        if case .live = clock, let session = view.inSession, end.map({ $0 >= session.date }) ?? true,
           let partial = partialBar(symbol, date: session.date, step: session.step, steps: session.steps) {
            bars.append(partial)
        }
        return bars
    }

    public func benchmarkBars(_ name: String, from start: SessionDate?, through end: SessionDate?,
                              asOf clock: PortfolioClock) async throws -> [DailyBar]? {
        guard name.uppercased() == Self.indexName else { return nil }
        var limit = liveView(at: time.now()).lastCompleted
        if case .replay(let date) = clock { limit = min(limit, SessionDate(date)) }
        return index.bars(Symbol(Self.indexName)!, from: start, through: end.map { min($0, limit) } ?? limit)
    }

    /// From the first generated session to the last completed one (never the session in progress).
    public func replayRange() async -> ClosedRange<SessionDate>? {
        let last = liveView(at: time.now()).lastCompleted
        return DemoMarket.firstDay <= last ? DemoMarket.firstDay...last : nil
    }

    public func corporateActions(from start: SessionDate, through end: SessionDate,
                                 asOf clock: PortfolioClock) async throws -> [CorporateAction] {
        guard let last = await sessionDate(asOf: clock) else { return [] }
        return actions.filter { $0.exDate >= start && $0.exDate <= min(end, last) }
    }

    public func sessionDate(asOf clock: PortfolioClock) async -> SessionDate? {
        let view = liveView(at: time.now())
        switch clock {
        case .live: return view.inSession?.date ?? view.lastCompleted
        case .replay(let date): return min(calendar.tradingDay(onOrBefore: SessionDate(date)), view.lastCompleted)
        }
    }
}

extension String {
    /// A hash that is the same in every process (Swift's `hashValue` is seeded per process).
    var hashValueStable: UInt32 {
        utf8.reduce(2_166_136_261) { ($0 ^ UInt32($1)) &* 16_777_619 }
    }
}
