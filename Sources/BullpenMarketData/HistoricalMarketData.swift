import BullpenCore
import Foundation

/// A market data source backed by daily history held in memory: the real data pack, or the demo
/// exchange's generated history. "Live" stands on the latest session it has; a replay clock on
/// the last session on or before its date.
public final class HistoricalMarketData: MarketDataSource {
    public let sourceName: String
    public let isSimulated: Bool
    public let history: MarketHistory
    /// Coins' series: every calendar day (UTC), apart from the stocks' sessions.
    public let crypto: MarketHistory
    public let benchmarks: [String: MarketHistory]
    private let assets: [Symbol: AssetInfo]
    private let calendar = TradingCalendar()
    private let describe: String
    /// Splits and dividends, by ex-date (unadjusted data only).
    public let actions: [CorporateAction]

    public init(sourceName: String, simulated: Bool, description: String, assets: [AssetInfo],
                history: MarketHistory, benchmarks: [String: MarketHistory], actions: [CorporateAction] = [],
                crypto: MarketHistory = MarketHistory(series: [])) {
        self.actions = actions
        self.crypto = crypto
        self.sourceName = sourceName
        self.isSimulated = simulated
        self.describe = description
        self.assets = Dictionary(assets.map { ($0.symbol, $0) }, uniquingKeysWith: { first, _ in first })
        self.history = history
        self.benchmarks = benchmarks
    }

    public func status() async -> SourceStatus {
        SourceStatus(source: sourceName, asOf: history.lastSession?.date, delayed: true, simulated: isSimulated,
                     description: describe)
    }

    public func listing() async throws -> [AssetInfo] { assets.values.sorted { $0.symbol < $1.symbol } }

    public func asset(_ symbol: Symbol) async throws -> AssetInfo? { assets[symbol] }

    public func corporateActions(from start: SessionDate, through end: SessionDate,
                                 asOf clock: PortfolioClock) async throws -> [CorporateAction] {
        let last = limit(clock).map { min(end, $0) } ?? end
        return actions.filter { $0.exDate >= start && $0.exDate <= last }
    }

    /// The close of the clock's session; a symbol whose data ends before that session is marked
    /// as no longer trading (its quote is its final close).
    public func quote(_ symbol: Symbol, asOf clock: PortfolioClock) async throws -> Quote? {
        if isCoin(symbol) {
            guard var quote = crypto.quote(symbol, onOrBefore: coinLimit(clock)) else { return nil }
            // A coin whose data ended before the day the clock sees (the pack's last coin day, live) trades no more.
            if let seen = coinLimit(clock) ?? crypto.lastSession, let last = quote.session, last < seen { quote.trading = false }
            return quote
        }
        guard var quote = history.quote(symbol, onOrBefore: limit(clock)) else { return nil }
        if let session = await sessionDate(asOf: clock), let last = quote.session, last < session {
            quote.trading = false
        }
        return quote
    }

    /// Daily data has no session in progress.
    public func isMarketOpen(at instant: Date) async -> Bool { false }

    public func dailyBars(_ symbol: Symbol, from start: SessionDate?, through end: SessionDate?,
                          asOf clock: PortfolioClock) async throws -> [DailyBar] {
        if isCoin(symbol) { return crypto.bars(symbol, from: start, through: Self.earlier(end, coinLimit(clock))) }
        return history.bars(symbol, from: start, through: Self.earlier(end, limit(clock)))
    }

    private func isCoin(_ symbol: Symbol) -> Bool { assets[symbol]?.assetClass == .crypto }

    /// The last UTC day a coin's bar may come from: a replay standing on a session (before its close,
    /// in New York) sees only the days already over, the day before its date.
    private func coinLimit(_ clock: PortfolioClock) -> SessionDate? { limit(clock)?.adding(days: -1) }

    public func benchmarkBars(_ name: String, from start: SessionDate?, through end: SessionDate?,
                              asOf clock: PortfolioClock) async throws -> [DailyBar]? {
        guard let series = benchmarks[name.uppercased()], let symbol = series.symbols.first else { return nil }
        return series.bars(symbol, from: start, through: Self.earlier(end, limit(clock)))
    }

    public func sessionDate(asOf clock: PortfolioClock) async -> SessionDate? {
        guard let last = history.lastSession else { return nil }
        guard let bound = limit(clock) else { return last }
        return min(last, calendar.tradingDay(onOrBefore: bound))
    }

    public func replayRange() async -> ClosedRange<SessionDate>? {
        guard let first = history.firstSession, let last = history.lastSession, first <= last else { return nil }
        return first...last
    }

    /// The last date `clock` may see (nil: no limit).
    private func limit(_ clock: PortfolioClock) -> SessionDate? {
        switch clock {
        case .live: nil
        case .replay(let date): SessionDate(date)
        }
    }

    private static func earlier(_ a: SessionDate?, _ b: SessionDate?) -> SessionDate? {
        switch (a, b) {
        case let (a?, b?): min(a, b)
        case let (a?, nil): a
        case let (nil, b): b
        }
    }
}
