import BullpenCore
import Foundation

/// An asset with its latest quote as of some clock: a row of search results and mover lists.
public struct AssetSnapshot: Sendable, Hashable {
    public var info: AssetInfo
    public var quote: Quote?
    /// Average daily dollar volume over the last three months, in cents: how much it trades.
    public var dollarVolume: Int64?

    public init(info: AssetInfo, quote: Quote?, dollarVolume: Int64? = nil) {
        self.info = info
        self.quote = quote
        self.dollarVolume = dollarVolume
    }

    public var changePercent: Percent? { quote?.changePercent }
    /// Whether it trades on the clock's date: it has a price and its data has not ended.
    public var trading: Bool { quote?.trading ?? false }
}

/// The chart ranges a client may ask for.
public enum ChartRange: String, Sendable, CaseIterable {
    case fiveDays = "5D", oneMonth = "1M", threeMonths = "3M", sixMonths = "6M"
    case oneYear = "1Y", fiveYears = "5Y", max = "MAX"

    /// The first date of the range ending on `end`.
    public func start(endingOn end: SessionDate, calendar: TradingCalendar = TradingCalendar()) -> SessionDate? {
        let (y, m, d) = end.components
        func monthsBack(_ n: Int) -> SessionDate {
            var month = m - n, year = y
            while month < 1 { month += 12; year -= 1 }
            // The same day of the month, or the month's last day when it is shorter (31 Mar → 28 Feb).
            let next = month == 12 ? SessionDate(year: year + 1, month: 1, day: 1) : SessionDate(year: year, month: month + 1, day: 1)
            let lastDay = next.adding(days: -1).components.day
            return SessionDate(year: year, month: month, day: Swift.min(d, lastDay))
        }
        switch self {
        case .fiveDays:
            var date = end
            for _ in 0..<4 { date = calendar.previousTradingDay(before: date) }
            return date
        case .oneMonth: return monthsBack(1)
        case .threeMonths: return monthsBack(3)
        case .sixMonths: return monthsBack(6)
        case .oneYear: return monthsBack(12)
        case .fiveYears: return monthsBack(60)
        case .max: return nil
        }
    }
}

/// How bars are grouped for a chart.
public enum BarInterval: String, Sendable, CaseIterable {
    case day = "1d", week = "1w", month = "1mo"
}

/// Search, ranking, movers and chart shaping over any ``MarketDataSource``: the research API's logic,
/// kept free of HTTP.
public enum Research {
    /// Every asset listed as of `clock` (it has a price by then), with its quote and how much it
    /// trades (when `liquidity`, for ranking search results).
    public static func snapshots(_ source: any MarketDataSource, asOf clock: PortfolioClock,
                                 liquidity: Bool = false) async throws -> [AssetSnapshot] {
        let listing = try await source.listing()
        let symbols = listing.map(\.symbol)
        let quotes = try await source.quotes(symbols, asOf: clock)
        let volumes = liquidity ? try await source.averageDollarVolume(symbols, asOf: clock) : [:]
        // A replay sees only what was listed on its date: a company without a price yet does not exist.
        let listed = clock == .live ? listing : listing.filter { quotes[$0.symbol] != nil }
        return listed.map { AssetSnapshot(info: $0, quote: quotes[$0.symbol], dollarVolume: volumes[$0.symbol]) }
    }

    /// How well `asset` matches `query`: lower is better, nil for no match. Exact symbol, then
    /// symbol prefix, then a word of the name starting with the query, then the name containing it.
    public static func rank(_ asset: AssetInfo, query: String) -> Int? {
        let q = query.trimmingCharacters(in: .whitespaces).uppercased()
        guard !q.isEmpty else { return 4 }
        let symbol = asset.symbol.rawValue
        if symbol == q { return 0 }
        if symbol.hasPrefix(q) { return 1 }
        let name = asset.name.uppercased()
        if name.hasPrefix(q) { return 2 }
        let words = name.split(whereSeparator: { !$0.isLetter && !$0.isNumber })
        if words.contains(where: { $0.hasPrefix(q) }) { return 2 }
        if name.contains(q) { return 3 }
        return nil
    }

    /// Sort orders of the asset list.
    public enum Sort: String, Sendable, CaseIterable {
        case relevance
        case symbol, symbolDescending = "-symbol"
        case price, priceDescending = "-price"
        case change, changeDescending = "-change"
    }

    /// Which assets a list shows by whether they still trade.
    public enum TradingFilter: String, Sendable, CaseIterable {
        /// All of them, those whose data has ended last.
        case all
        /// Only those that trade on the clock's date.
        case trading
        /// Only those whose data has ended.
        case ended
    }

    /// Filters by `query`, `sector` and `trading`, then orders: by relevance unless `sort` says
    /// otherwise. Relevance is the match tier (exact symbol, symbol prefix, name word, name),
    /// and within a tier how much the stock trades, so "micro" finds Microsoft first. Assets whose
    /// data has ended come after those that trade (but for an exact symbol), whatever the order.
    public static func search(_ snapshots: [AssetSnapshot], query: String?, sector: String?, sort: Sort,
                              trading filter: TradingFilter = .all) -> [AssetSnapshot] {
        let wantedSector = sector?.lowercased()
        let ranked: [(AssetSnapshot, Int)] = snapshots.compactMap { snapshot in
            if let wantedSector, snapshot.info.sector?.lowercased() != wantedSector { return nil }
            switch filter {
            case .all: break
            case .trading: guard snapshot.trading else { return nil }
            case .ended: guard !snapshot.trading else { return nil }
            }
            guard let rank = rank(snapshot.info, query: query ?? "") else { return nil }
            return (snapshot, rank)
        }
        // Assets without a price sort after those with one, whatever the direction.
        func byValue(_ a: Int64?, _ b: Int64?, descending: Bool) -> Bool? {
            switch (a, b) {
            case let (a?, b?) where a != b: return descending ? a > b : a < b
            case (.some, nil): return true
            case (nil, .some): return false
            default: return nil
            }
        }
        return ranked.sorted { lhs, rhs in
            let (a, ra) = lhs, (b, rb) = rhs
            // An exact symbol first, then those that trade before those whose data has ended.
            if sort == .relevance, (ra == 0) != (rb == 0) { return ra == 0 }
            if a.trading != b.trading { return a.trading }
            let decided: Bool?
            switch sort {
            case .relevance: decided = ra != rb ? ra < rb : byValue(a.dollarVolume, b.dollarVolume, descending: true)
            case .symbol: decided = a.info.symbol < b.info.symbol
            case .symbolDescending: decided = b.info.symbol < a.info.symbol
            case .price: decided = byValue(a.quote?.price.ticks, b.quote?.price.ticks, descending: false)
            case .priceDescending: decided = byValue(a.quote?.price.ticks, b.quote?.price.ticks, descending: true)
            case .change: decided = byValue(a.changePercent?.hundredths, b.changePercent?.hundredths, descending: false)
            case .changeDescending: decided = byValue(a.changePercent?.hundredths, b.changePercent?.hundredths, descending: true)
            }
            return decided ?? (a.info.symbol < b.info.symbol)
        }.map(\.0)
    }

    /// The lists of today's movers.
    public enum MoverList: String, Sendable, CaseIterable {
        case gainers, losers, mostActive = "most-active"
    }

    /// The top `limit` of `list` among the assets that traded on `session`.
    public static func movers(_ snapshots: [AssetSnapshot], list: MoverList, session: SessionDate, limit: Int) -> [AssetSnapshot] {
        let traded = snapshots.filter { snapshot in
            guard let asOf = snapshot.quote?.asOf else { return false }
            return SessionDate(asOf) == session && snapshot.quote?.previousClose != nil
        }
        let sorted: [AssetSnapshot]
        switch list {
        case .gainers:
            sorted = traded.filter { ($0.changePercent?.hundredths ?? 0) > 0 }
                .sorted { ($0.changePercent!.hundredths, $1.info.symbol) > ($1.changePercent!.hundredths, $0.info.symbol) }
        case .losers:
            sorted = traded.filter { ($0.changePercent?.hundredths ?? 0) < 0 }
                .sorted { ($0.changePercent!.hundredths, $0.info.symbol) < ($1.changePercent!.hundredths, $1.info.symbol) }
        case .mostActive:
            sorted = traded.sorted { ($0.quote?.volume ?? 0, $1.info.symbol) > ($1.quote?.volume ?? 0, $0.info.symbol) }
        }
        return Array(sorted.prefix(limit))
    }

    /// The interval that keeps a chart of `count` daily bars at or under `maxPoints`.
    public static func automaticInterval(forDailyBars count: Int, maxPoints: Int = 500) -> BarInterval {
        if count <= maxPoints { return .day }
        if count / 5 <= maxPoints { return .week }
        return .month
    }

    /// Groups daily bars by week (Monday-based) or month, then, if still over `maxPoints`, merges
    /// neighbouring groups evenly. Each group keeps its first open, highest high, lowest low,
    /// last close and summed volume, dated by its last session.
    public static func shape(_ bars: [DailyBar], interval: BarInterval, maxPoints: Int = 500) -> [DailyBar] {
        func key(_ date: SessionDate) -> Int {
            switch interval {
            case .day: return Int(date.day)
            case .week: return Int(date.day - Int32((date.weekday + 6) % 7))
            case .month: let (y, m, _) = date.components; return y * 12 + m
            }
        }
        var groups: [DailyBar] = []
        var lastKey: Int?
        for bar in bars {
            let k = key(bar.date)
            if k == lastKey, var current = groups.popLast() {
                current.merge(bar)
                groups.append(current)
            } else {
                groups.append(bar)
                lastKey = k
            }
        }
        guard groups.count > maxPoints, maxPoints > 0 else { return groups }
        let per = (groups.count + maxPoints - 1) / maxPoints
        var merged: [DailyBar] = []
        merged.reserveCapacity(maxPoints)
        for start in stride(from: 0, to: groups.count, by: per) {
            var current = groups[start]
            for bar in groups[(start + 1)..<min(start + per, groups.count)] { current.merge(bar) }
            merged.append(current)
        }
        return merged
    }

    /// Figures for an asset's page, from the year of bars ending on its last session.
    public struct YearFigures: Sendable, Hashable {
        public var low: Price
        public var high: Price
        /// Change of the close over the year (from the first close on or after a year back), in percent.
        public var changePercent: Percent?
        public var averageVolume: Int64
    }

    public static func yearFigures(_ bars: [DailyBar]) -> YearFigures? {
        guard let first = bars.first, let last = bars.last else { return nil }
        let low = bars.map(\.low.ticks).min()!, high = bars.map(\.high.ticks).max()!
        let change = Quote(price: last.close, previousClose: first.close).changePercent
        let average = bars.reduce(Int64(0)) { $0 + $1.volume } / Int64(bars.count)
        return YearFigures(low: Price(ticks: low), high: Price(ticks: high), changePercent: change, averageVolume: average)
    }
}

extension DailyBar {
    /// Extends this bar with a later one.
    public mutating func merge(_ later: DailyBar) {
        high = max(high, later.high)
        low = min(low, later.low)
        close = later.close
        volume += later.volume
        date = later.date
    }
}
