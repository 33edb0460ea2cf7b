import BullpenCore
import Foundation

/// Live quotes from an online provider on top of a base source (a data pack) that lists the
/// companies and holds their history: the configuration "provider for quotes, pack for history".
/// Replays and charts use the base; the base also answers when the provider has nothing.
public final class LiveMarketData: MarketDataSource {
    public let base: any MarketDataSource
    public let cache: ProviderCache
    public let sourceName: String
    public let isSimulated = false
    private let delayed: Bool
    private let calendar = TradingCalendar()
    private let time: any TimeSource

    public init(base: any MarketDataSource, cache: ProviderCache, time: any TimeSource = SystemTimeSource()) async {
        self.base = base
        self.cache = cache
        self.time = time
        sourceName = "\(cache.provider.name)+\(base.sourceName)"
        delayed = cache.provider.delayed
    }

    public func status() async -> SourceStatus {
        let baseStatus = await base.status()
        var description = "Quotes from \(cache.provider.name)\(delayed ? " (delayed)" : ""); listing and history from \(base.sourceName)."
        if let failure = await cache.lastFailure {
            description += " Last provider problem at \(ISO8601DateFormatter().string(from: failure.at)): \(failure.error); cached prices are served meanwhile."
        }
        return SourceStatus(source: sourceName, asOf: await cache.newestQuote ?? baseStatus.asOf, delayed: delayed,
                            simulated: false, description: description)
    }

    public func listing() async throws -> [AssetInfo] { try await base.listing() }

    public func asset(_ symbol: Symbol) async throws -> AssetInfo? {
        let known = try await base.asset(symbol)
        guard let profile = await cache.profile(symbol) else { return known }
        guard var info = known else { return profile }
        info.logoURL = profile.logoURL ?? info.logoURL
        info.exchange = info.exchange ?? profile.exchange
        return info
    }

    public func quote(_ symbol: Symbol, asOf clock: PortfolioClock) async throws -> Quote? {
        try await quotes([symbol], asOf: clock)[symbol]
    }

    public func quotes(_ symbols: [Symbol], asOf clock: PortfolioClock) async throws -> [Symbol: Quote] {
        guard case .live = clock else { return try await baseQuotes(symbols, clock) }
        let live = await cache.quotes(symbols)
        var result: [Symbol: Quote] = [:]
        for symbol in symbols {
            let fallback = try await base.quote(symbol, asOf: .live)
            guard var quote = live[symbol] else {
                if let fallback { result[symbol] = fallback }
                continue
            }
            quote.trading = true   // the provider has a current price for it
            if quote.previousClose == nil, let fallback, let asOf = quote.asOf {
                // The base's last close before the quote's own day.
                quote.previousClose = SessionDate(asOf) > SessionDate(fallback.asOf ?? asOf) ? fallback.price : fallback.previousClose
            }
            result[symbol] = quote
        }
        return result
    }

    private func baseQuotes(_ symbols: [Symbol], _ clock: PortfolioClock) async throws -> [Symbol: Quote] {
        var result: [Symbol: Quote] = [:]
        for symbol in symbols { if let quote = try await base.quote(symbol, asOf: clock) { result[symbol] = quote } }
        return result
    }

    public func isMarketOpen(at instant: Date) async -> Bool { calendar.isOpen(at: instant) }

    public func dailyBars(_ symbol: Symbol, from start: SessionDate?, through end: SessionDate?,
                          asOf clock: PortfolioClock) async throws -> [DailyBar] {
        let bars = try await base.dailyBars(symbol, from: start, through: end, asOf: clock)
        if !bars.isEmpty { return bars }
        let known = try await base.asset(symbol)
        if known == nil, await cache.profile(symbol) == nil { return bars }
        // A symbol the base has no history for: ask the provider.
        let today = TradingCalendar.sessionDate(at: time.now())
        var last = end.map { min($0, today) } ?? today
        if case .replay(let date) = clock { last = min(last, SessionDate(date)) }
        return await cache.dailyBars(symbol, from: start ?? SessionDate(year: 1990, month: 1, day: 1), through: last) ?? []
    }

    public func benchmarkBars(_ name: String, from start: SessionDate?, through end: SessionDate?,
                              asOf clock: PortfolioClock) async throws -> [DailyBar]? {
        try await base.benchmarkBars(name, from: start, through: end, asOf: clock)
    }

    /// Replays stand on the base's history.
    public func replayRange() async -> ClosedRange<SessionDate>? { await base.replayRange() }

    public func corporateActions(from start: SessionDate, through end: SessionDate,
                                 asOf clock: PortfolioClock) async throws -> [CorporateAction] {
        try await base.corporateActions(from: start, through: end, asOf: clock)
    }

    public func sessionDate(asOf clock: PortfolioClock) async -> SessionDate? {
        guard case .live = clock, let newest = await cache.newestQuote else { return await base.sessionDate(asOf: clock) }
        let baseDate = await base.sessionDate(asOf: clock)
        // A coin's quote at night or at the weekend does not make a stock session of its day.
        let session = calendar.tradingDay(onOrBefore: SessionDate(newest))
        return max(session, baseDate ?? session)
    }
}
