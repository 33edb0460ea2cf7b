import BullpenCore
import Foundation

/// Spends a provider's request quota evenly: a token bucket refilled at `perMinute`.
actor RateLimiter {
    private let capacity: Double
    private let perSecond: Double
    private var tokens: Double
    private var last = ContinuousClock.now

    init(perMinute: Int, burst: Int? = nil) {
        perSecond = Double(perMinute) / 60
        capacity = Double(burst ?? max(1, perMinute / 4))
        tokens = capacity
    }

    /// Takes a token, waiting at most `maxWait` seconds for one; false when none came in time.
    func acquire(maxWait: Double) async -> Bool {
        refill()
        if tokens >= 1 { tokens -= 1; return true }
        let wait = (1 - tokens) / perSecond
        guard wait <= maxWait else { return false }
        tokens -= 1   // reserve it now so that waiters queue in order
        try? await Task.sleep(for: .seconds(wait))
        return true
    }

    private func refill() {
        let now = ContinuousClock.now
        let elapsed = now - last
        last = now
        tokens = min(capacity, tokens + (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18) * perSecond)
    }
}

/// A provider behind a cache: quotes kept a few seconds, history a day, profiles a week; requests
/// batched and rate limited to the provider's free quota; concurrent asks for one symbol share one
/// request. When the provider fails, the last value is served with its own timestamp, never an error.
public actor ProviderCache {
    public let provider: any QuoteProvider
    private let time: any TimeSource
    private let quoteLifetime: TimeInterval
    private let historyLifetime: TimeInterval = 86_400
    private let profileLifetime: TimeInterval = 7 * 86_400
    private let limiter: RateLimiter

    private var quotes: [Symbol: (quote: Quote, fetched: Date)] = [:]
    private var pending: [Symbol: Task<[Symbol: Quote], Never>] = [:]
    private var histories: [Symbol: (bars: [DailyBar], fetched: Date)] = [:]
    private var profiles: [Symbol: (info: AssetInfo?, fetched: Date)] = [:]
    private var blockedUntil: Date?
    /// The last failure and when it happened, for the status endpoint.
    public private(set) var lastFailure: (at: Date, error: ProviderError)?
    /// Requests sent to the provider, for tests and status.
    public private(set) var requests = 0

    public init(provider: any QuoteProvider, time: any TimeSource = SystemTimeSource(), quoteLifetime: TimeInterval = 5,
                burst: Int? = nil) {
        self.provider = provider
        self.time = time
        self.quoteLifetime = quoteLifetime
        limiter = RateLimiter(perMinute: provider.requestsPerMinute, burst: burst)
    }

    /// The newest quote time seen.
    public var newestQuote: Date? { quotes.values.compactMap(\.quote.asOf).max() }

    /// Quotes for `symbols`: fresh from the cache, fetched in batches, or (when the provider fails)
    /// the last ones known.
    public func quotes(_ symbols: [Symbol]) async -> [Symbol: Quote] {
        let now = time.now()
        var result: [Symbol: Quote] = [:]
        var waits: [Task<[Symbol: Quote], Never>] = []
        var missing: [Symbol] = []
        for symbol in Set(symbols) {
            if let cached = quotes[symbol], now.timeIntervalSince(cached.fetched) < quoteLifetime {
                result[symbol] = cached.quote
            } else if let task = pending[symbol] {
                waits.append(task)
            } else {
                missing.append(symbol)
            }
        }
        for start in stride(from: 0, to: missing.count, by: provider.quoteBatchSize) {
            let batch = Array(missing.sorted()[start..<min(start + provider.quoteBatchSize, missing.count)])
            let task = Task { await self.fetchQuotes(batch) }
            for symbol in batch { pending[symbol] = task }
            waits.append(task)
        }
        for task in waits {
            for (symbol, quote) in await task.value where symbols.contains(symbol) { result[symbol] = quote }
        }
        // Whatever could not be fetched falls back to the last value known.
        for symbol in symbols where result[symbol] == nil {
            if let stale = quotes[symbol] { result[symbol] = stale.quote }
        }
        return result
    }

    private func fetchQuotes(_ batch: [Symbol]) async -> [Symbol: Quote] {
        defer { for symbol in batch { pending[symbol] = nil } }
        guard await mayRequest() else { return [:] }
        do {
            requests += 1
            let fetched = try await provider.quotes(batch)
            let now = time.now()
            for (symbol, quote) in fetched {
                var quote = quote
                // Keep the previous close the provider left out from the last answer that had one.
                if quote.previousClose == nil { quote.previousClose = quotes[symbol]?.quote.previousClose }
                quotes[symbol] = (quote, now)
            }
            return fetched
        } catch {
            record(error)
            return [:]
        }
    }

    /// Daily history of `symbol` (cached a day); nil when the provider cannot say.
    public func dailyBars(_ symbol: Symbol, from start: SessionDate, through end: SessionDate) async -> [DailyBar]? {
        let now = time.now()
        if let cached = histories[symbol], now.timeIntervalSince(cached.fetched) < historyLifetime,
           cached.bars.first.map({ $0.date <= start }) ?? true {
            return cached.bars.filter { $0.date >= start && $0.date <= end }
        }
        guard await mayRequest() else { return histories[symbol]?.bars.filter { $0.date >= start && $0.date <= end } }
        do {
            requests += 1
            let bars = try await provider.dailyBars(symbol, from: start, through: end)
            histories[symbol] = (bars, now)
            return bars
        } catch {
            record(error)
            return histories[symbol]?.bars.filter { $0.date >= start && $0.date <= end }
        }
    }

    /// The provider's profile of `symbol` (cached a week).
    public func profile(_ symbol: Symbol) async -> AssetInfo? {
        let now = time.now()
        if let cached = profiles[symbol], now.timeIntervalSince(cached.fetched) < profileLifetime { return cached.info }
        guard await mayRequest() else { return profiles[symbol]?.info }
        do {
            requests += 1
            let info = try await provider.profile(symbol)
            profiles[symbol] = (info, now)
            return info
        } catch {
            record(error)
            return profiles[symbol]?.info
        }
    }

    /// False while the provider asked us to back off, or when no request token comes within a second.
    private func mayRequest() async -> Bool {
        if let blockedUntil, time.now() < blockedUntil { return false }
        return await limiter.acquire(maxWait: 1)
    }

    private func record(_ error: any Error) {
        let providerError = error as? ProviderError ?? .unavailable(String(describing: error))
        lastFailure = (time.now(), providerError)
        if case .rateLimited(let retryAfter) = providerError {
            blockedUntil = time.now().addingTimeInterval(TimeInterval(retryAfter ?? 60))
        }
    }
}
