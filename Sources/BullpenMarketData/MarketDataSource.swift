import BullpenCore
import Foundation

/// Where prices come from and how fresh they are, for `GET /api/v1/market/status` and the banner
/// every client shows ("demo market, simulated prices").
public struct SourceStatus: Sendable, Hashable {
    /// `pack`, `demo`, `stooq`, `finnhub`, ...
    public var source: String
    /// The time of the newest price.
    public var asOf: Date?
    public var delayed: Bool
    public var simulated: Bool
    /// One sentence for people.
    public var description: String

    public init(source: String, asOf: Date?, delayed: Bool, simulated: Bool, description: String) {
        self.source = source
        self.asOf = asOf
        self.delayed = delayed
        self.simulated = simulated
        self.description = description
    }
}

/// A full market data source: the trading core's ``MarketData`` plus what research needs
/// (listing, history, benchmarks). The data pack, the demo exchange and the live providers all
/// implement it, and one contract suite tests them alike.
public protocol MarketDataSource: MarketData {
    func status() async -> SourceStatus
    /// Every listed asset, by symbol.
    func listing() async throws -> [AssetInfo]
    /// Daily bars of `symbol` between two dates (both optional and included), never past `clock`.
    func dailyBars(_ symbol: Symbol, from start: SessionDate?, through end: SessionDate?,
                   asOf clock: PortfolioClock) async throws -> [DailyBar]
    /// A benchmark's daily closes (`SPX`: the S&P 500), or nil when the source has none by that name.
    func benchmarkBars(_ name: String, from start: SessionDate?, through end: SessionDate?,
                       asOf clock: PortfolioClock) async throws -> [DailyBar]?
    /// The session date that `clock` stands on for this source (for `live`: its latest session).
    func sessionDate(asOf clock: PortfolioClock) async -> SessionDate?
    /// How much each symbol trades: its average daily dollar volume (close × shares, in cents)
    /// over the three months up to the clock's session. Symbols without bars then are left out.
    func averageDollarVolume(_ symbols: [Symbol], asOf clock: PortfolioClock) async throws -> [Symbol: Int64]
    /// The sessions a replay can stand on: from the first day of the companies' history to the
    /// last completed session. Nil when the source has no history to replay.
    func replayRange() async -> ClosedRange<SessionDate>?
    /// The splits and cash dividends with ex-dates from `start` through `end`, never past `clock`
    /// (adjusted data, like the real pack's, has none: its prices already account for them).
    func corporateActions(from start: SessionDate, through end: SessionDate, asOf clock: PortfolioClock) async throws -> [CorporateAction]
}

extension MarketDataSource {
    public func replayRange() async -> ClosedRange<SessionDate>? { nil }

    public func corporateActions(from start: SessionDate, through end: SessionDate,
                                 asOf clock: PortfolioClock) async throws -> [CorporateAction] { [] }

    public func averageDollarVolume(_ symbols: [Symbol], asOf clock: PortfolioClock) async throws -> [Symbol: Int64] {
        guard let session = await sessionDate(asOf: clock), let start = ChartRange.threeMonths.start(endingOn: session)
        else { return [:] }
        var result: [Symbol: Int64] = [:]
        for symbol in symbols {
            let bars = try await dailyBars(symbol, from: start, through: session, asOf: clock)
            guard !bars.isEmpty else { continue }
            var total: Int64 = 0
            for bar in bars {
                // Saturates instead of trapping: a ranking figure, never money.
                let (value, overflow) = (bar.close.ticks / Price.ticksPerCent).multipliedReportingOverflow(by: bar.volume)
                let (sum, overflowSum) = total.addingReportingOverflow(overflow ? .max : value)
                total = overflowSum ? .max : sum
            }
            result[symbol] = total / Int64(bars.count)
        }
        return result
    }
}
