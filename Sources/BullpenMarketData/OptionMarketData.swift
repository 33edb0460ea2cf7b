import BullpenCore
import Foundation

/// A market data source that also prices option contracts: every question about a stock goes
/// to the source it wraps; one about an option contract's symbol (``Symbol/isOption``) is
/// answered by the model (``OptionMarket``) from the underlying's prices as of the same clock, so
/// that valuations, equity curves, replays and the quote stream value contracts as they value
/// shares, and never see a price after their clock.
///
/// A contract's price here is a unit's, a contract's (the model's value per share × 100), as the
/// journal and positions hold it; the option routes show it per share.
public struct OptionMarketData: MarketDataSource {
    public let base: any MarketDataSource

    /// Calendar days of the underlying's history read before a date for its volatility: a year
    /// of sessions and some to spare.
    static let historyDays = 400

    /// `source`, able to price contracts (a source already wrapped is returned as it is).
    public static func wrapping(_ source: any MarketDataSource) -> any MarketDataSource {
        source is OptionMarketData ? source : OptionMarketData(base: source)
    }

    public init(base: any MarketDataSource) { self.base = base }

    public var sourceName: String { base.sourceName }
    public var isSimulated: Bool { base.isSimulated }
    public func status() async -> SourceStatus { await base.status() }
    public func listing() async throws -> [AssetInfo] { try await base.listing() }
    public func isMarketOpen(at instant: Date) async -> Bool { await base.isMarketOpen(at: instant) }
    public func sessionDate(asOf clock: PortfolioClock) async -> SessionDate? { await base.sessionDate(asOf: clock) }
    public func replayRange() async -> ClosedRange<SessionDate>? { await base.replayRange() }

    public func corporateActions(from start: SessionDate, through end: SessionDate,
                                 asOf clock: PortfolioClock) async throws -> [CorporateAction] {
        try await base.corporateActions(from: start, through: end, asOf: clock)
    }
    public func benchmarkBars(_ name: String, from start: SessionDate?, through end: SessionDate?,
                              asOf clock: PortfolioClock) async throws -> [DailyBar]? {
        try await base.benchmarkBars(name, from: start, through: end, asOf: clock)
    }
    public func averageDollarVolume(_ symbols: [Symbol], asOf clock: PortfolioClock) async throws -> [Symbol: Int64] {
        try await base.averageDollarVolume(symbols.filter { !$0.isOption }, asOf: clock)
    }

    // MARK: Contracts

    /// The contract `symbol` names with its underlying as listed (an OCC root such as `BRKB`
    /// mapped to `BRK-B`), or nil when it names no listed company.
    public func contract(_ symbol: Symbol) async throws -> OptionContract? {
        guard let contract = symbol.option else { return nil }
        // Options are written on stocks: a coin has none.
        if let asset = try await base.asset(contract.underlying) { return asset.assetClass == .crypto ? nil : contract }
        let listing = try await base.listing()
        return contract.rooted { root in listing.first { OptionContract.root(of: $0.symbol) == root }?.symbol }
    }

    /// What prices `underlying`'s contracts as of `clock`: the underlying's quote then, the
    /// market it makes (its price, its realised volatility up to that session, the rate of the
    /// year) and the market at the previous session's close (that close with the same
    /// volatility), for a day's change.
    public struct Inputs: Sendable {
        public var quote: Quote
        public var market: OptionMarket
        public var previous: OptionMarket?
    }

    /// The inputs of `underlying`'s contracts as of `clock`, the quote and the bars read once.
    /// Nil when it has no price then, or too short a history for a volatility (a month of sessions).
    public func inputs(_ underlying: Symbol, asOf clock: PortfolioClock) async throws -> Inputs? {
        guard let quote = try await base.quote(underlying, asOf: clock) else { return nil }
        let fallback = await base.sessionDate(asOf: clock)
        guard let session = quote.session ?? fallback else { return nil }
        let bars = try await base.dailyBars(underlying, from: session.adding(days: -Self.historyDays), through: session, asOf: clock)
        // The latest price stands for the session's close (intraday, it is the close so far).
        let closes = bars.filter { $0.date < session }.map(\.close) + [quote.price]
        guard let volatility = OptionVolatility.realised(closes: closes) else { return nil }
        let market = OptionMarket(underlying: underlying, date: session, spot: quote.price, volatility: volatility,
                                  rate: RiskFreeRate.on(session))
        let yesterday = TradingCalendar().previousTradingDay(before: session)
        let previous = quote.previousClose.map {
            OptionMarket(underlying: underlying, date: yesterday, spot: $0, volatility: volatility, rate: RiskFreeRate.on(yesterday))
        }
        return Inputs(quote: quote, market: market, previous: previous)
    }

    /// The underlying's markets at the close of each of its sessions from `start` through `end`
    /// (as of `clock`), each with the volatility of the closes up to that session.
    public func dailyMarkets(_ underlying: Symbol, from start: SessionDate, through end: SessionDate,
                             asOf clock: PortfolioClock) async throws -> [OptionMarket] {
        let bars = try await base.dailyBars(underlying, from: start.adding(days: -Self.historyDays), through: end, asOf: clock)
        let closes = bars.map(\.close)
        var markets: [OptionMarket] = []
        for (index, bar) in bars.enumerated() where bar.date >= start {
            let window = closes[max(0, index + 1 - OptionVolatility.longWindow - 1)...index]
            guard let volatility = OptionVolatility.realised(closes: Array(window)) else { continue }
            markets.append(OptionMarket(underlying: underlying, date: bar.date, spot: bar.close, volatility: volatility,
                                        rate: RiskFreeRate.on(bar.date)))
        }
        return markets
    }

    /// A contract as a quote: its model value, a unit's (× 100), not trading past its expiration
    /// day (then worth its intrinsic value at that day's close).
    private func unitQuote(_ contract: OptionContract, asOf clock: PortfolioClock) async throws -> Quote? {
        if let session = await base.sessionDate(asOf: clock), session > contract.expiration {
            // The underlying's close on the expiration day (or the last one before).
            guard let close = try await base.quote(contract.underlying, asOf: .replay(contract.expiration.date))?.price
            else { return nil }
            return Quote(price: Self.unit(contract.intrinsic(at: close)), asOf: contract.expiration.date, trading: false)
        }
        guard let inputs = try await inputs(contract.underlying, asOf: clock) else { return nil }
        return Quote(price: Self.unit(inputs.market.quote(contract).fair),
                     previousClose: inputs.previous.map { Self.unit($0.quote(contract).fair) },
                     asOf: inputs.quote.asOf, trading: true)
    }

    /// A contract's price from a price per share.
    public static func unit(_ perShare: Price) -> Price { Price(ticks: perShare.ticks * OptionContract.multiplier) }

    // MARK: MarketData

    public func asset(_ symbol: Symbol) async throws -> AssetInfo? {
        guard symbol.isOption else { return try await base.asset(symbol) }
        guard let contract = try await contract(symbol), let company = try await base.asset(contract.underlying) else { return nil }
        return AssetInfo(symbol: symbol, name: contract.title, sector: company.sector, industry: company.industry,
                         exchange: "OPRA (modelled)")
    }

    public func quote(_ symbol: Symbol, asOf clock: PortfolioClock) async throws -> Quote? {
        guard symbol.isOption else { return try await base.quote(symbol, asOf: clock) }
        guard let contract = try await contract(symbol) else { return nil }
        return try await unitQuote(contract, asOf: clock)
    }

    public func quotes(_ symbols: [Symbol], asOf clock: PortfolioClock) async throws -> [Symbol: Quote] {
        var result = try await base.quotes(symbols.filter { !$0.isOption }, asOf: clock)
        for symbol in symbols where symbol.isOption {
            if let quote = try await quote(symbol, asOf: clock) { result[symbol] = quote }
        }
        return result
    }

    /// A contract's daily bars are its model values at each close of its underlying, through its
    /// expiration day (worth its intrinsic value then); open, high and low are the close.
    public func dailyBars(_ symbol: Symbol, from start: SessionDate?, through end: SessionDate?,
                          asOf clock: PortfolioClock) async throws -> [DailyBar] {
        guard symbol.isOption else { return try await base.dailyBars(symbol, from: start, through: end, asOf: clock) }
        guard let contract = try await contract(symbol) else { return [] }
        let last = min(end ?? contract.expiration, contract.expiration)
        let first = start ?? contract.expiration.adding(days: -365)
        guard first <= last else { return [] }
        return try await dailyMarkets(contract.underlying, from: first, through: last, asOf: clock).map { market in
            let price = Self.unit(market.quote(contract).fair)
            return DailyBar(date: market.date, open: price, high: price, low: price, close: price, volume: 0)
        }
    }
}
