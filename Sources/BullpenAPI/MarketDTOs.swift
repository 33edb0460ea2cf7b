import Foundation

// Market data and research: `/api/v1/market/*`, `/api/v1/assets*`, `/api/v1/quotes`,
// `/api/v1/benchmarks/*`. Public: no token needed.

/// `GET /api/v1/market/status`: which source is active and how fresh and real its prices are.
public struct MarketStatusDTO: Codable, Sendable, Hashable {
    public var source: String
    public var asOf: Date?
    public var delayed: Bool
    public var simulated: Bool
    public var description: String
    /// "demo market, simulated prices" while the demo exchange is active; show it.
    public var label: String?
    /// The latest session date of the source (`YYYY-MM-DD`).
    public var sessionDate: String?

    public init(source: String, asOf: Date?, delayed: Bool, simulated: Bool, description: String, label: String?, sessionDate: String?) {
        self.source = source; self.asOf = asOf; self.delayed = delayed; self.simulated = simulated
        self.description = description; self.label = label; self.sessionDate = sessionDate
    }
}

/// `GET /api/v1/market/clock`.
public struct MarketClockDTO: Codable, Sendable, Hashable {
    public var now: Date
    public var isOpen: Bool
    /// Today's date in New York.
    public var date: String
    public var nextOpen: Date
    public var nextClose: Date
    /// `America/New_York`; the `*Local` fields are in it.
    public var timezone: String
    public var nextOpenLocal: String
    public var nextCloseLocal: String

    public init(now: Date, isOpen: Bool, date: String, nextOpen: Date, nextClose: Date, timezone: String,
                nextOpenLocal: String, nextCloseLocal: String) {
        self.now = now; self.isOpen = isOpen; self.date = date; self.nextOpen = nextOpen; self.nextClose = nextClose
        self.timezone = timezone; self.nextOpenLocal = nextOpenLocal; self.nextCloseLocal = nextCloseLocal
    }
}

/// One trading day of the calendar.
public struct CalendarDayDTO: Codable, Sendable, Hashable {
    public var date: String
    public var open: Date
    public var close: Date
    public var earlyClose: Bool
    public init(date: String, open: Date, close: Date, earlyClose: Bool) {
        self.date = date; self.open = open; self.close = close; self.earlyClose = earlyClose
    }
}

/// A weekday the exchange is closed, and why.
public struct ClosureDTO: Codable, Sendable, Hashable {
    public var date: String
    public var reason: String
    public init(date: String, reason: String) { self.date = date; self.reason = reason }
}

/// `GET /api/v1/market/calendar?start=&end=`.
public struct MarketCalendarDTO: Codable, Sendable, Hashable {
    public var start: String
    public var end: String
    public var days: [CalendarDayDTO]
    public var closures: [ClosureDTO]
    public init(start: String, end: String, days: [CalendarDayDTO], closures: [ClosureDTO]) {
        self.start = start; self.end = end; self.days = days; self.closures = closures
    }
}

/// A row of the asset list, search results and movers.
public struct AssetSummaryDTO: Codable, Sendable, Hashable {
    public var symbol: String
    public var name: String
    public var sector: String?
    public var price: String?
    public var change: String?
    public var changePercent: String?
    public var volume: Int64?
    public var asOf: Date?
    public var logoUrl: String
    /// False once the symbol's data has ended (its price is its final close).
    public var trading: Bool
    /// `us_equity`, or `crypto` for a coin (it trades around the clock; its change is over 24 hours, a UTC day).
    public var assetClass: String = "us_equity"

    public init(symbol: String, name: String, sector: String?, price: String?, change: String?, changePercent: String?,
                volume: Int64?, asOf: Date?, logoUrl: String, trading: Bool) {
        self.symbol = symbol; self.name = name; self.sector = sector; self.price = price; self.change = change
        self.changePercent = changePercent; self.volume = volume; self.asOf = asOf; self.logoUrl = logoUrl
        self.trading = trading
    }
}

/// `GET /api/v1/assets`.
public struct AssetPageDTO: Codable, Sendable, Hashable {
    public var assets: [AssetSummaryDTO]
    public var total: Int
    public var nextCursor: String?
    public var previousCursor: String?
    public var simulated: Bool
    public init(assets: [AssetSummaryDTO], total: Int, nextCursor: String?, previousCursor: String?, simulated: Bool) {
        self.assets = assets; self.total = total; self.nextCursor = nextCursor; self.previousCursor = previousCursor
        self.simulated = simulated
    }
}

/// `GET /api/v1/assets/{symbol}`.
public struct AssetDetailDTO: Codable, Sendable, Hashable {
    public var symbol: String
    public var name: String
    public var sector: String?
    public var industry: String?
    public var exchange: String?
    public var headquarters: String?
    public var founded: String?
    public var description: String?
    public var logoUrl: String
    public var price: String?
    public var previousClose: String?
    public var change: String?
    public var changePercent: String?
    public var volume: Int64?
    public var averageVolume: Int64?
    public var fiftyTwoWeekLow: String?
    public var fiftyTwoWeekHigh: String?
    public var oneYearChangePercent: String?
    public var firstDate: String?
    public var lastDate: String?
    public var asOf: Date?
    public var simulated: Bool
    /// False once the symbol's data has ended: it can be sold at its final close, not bought.
    public var trading: Bool
    /// `us_equity`, or `crypto` for a coin: it trades every day around the clock, in fractions to 10⁻⁸.
    public var assetClass: String = "us_equity"

    public init(symbol: String, name: String, sector: String?, industry: String?, exchange: String?, headquarters: String?,
                founded: String?, description: String?, logoUrl: String, price: String?, previousClose: String?,
                change: String?, changePercent: String?, volume: Int64?, averageVolume: Int64?, fiftyTwoWeekLow: String?,
                fiftyTwoWeekHigh: String?, oneYearChangePercent: String?, firstDate: String?, lastDate: String?,
                asOf: Date?, simulated: Bool, trading: Bool) {
        self.symbol = symbol; self.name = name; self.sector = sector; self.industry = industry; self.exchange = exchange
        self.headquarters = headquarters; self.founded = founded; self.description = description; self.logoUrl = logoUrl
        self.price = price; self.previousClose = previousClose; self.change = change; self.changePercent = changePercent
        self.volume = volume; self.averageVolume = averageVolume; self.fiftyTwoWeekLow = fiftyTwoWeekLow
        self.fiftyTwoWeekHigh = fiftyTwoWeekHigh; self.oneYearChangePercent = oneYearChangePercent
        self.firstDate = firstDate; self.lastDate = lastDate; self.asOf = asOf; self.simulated = simulated
        self.trading = trading
    }
}

/// A quote in `GET /api/v1/quotes` and on the stream.
public struct QuoteDTO: Codable, Sendable, Hashable {
    public var symbol: String
    public var price: String
    public var previousClose: String?
    public var change: String?
    public var changePercent: String?
    public var volume: Int64?
    public var asOf: Date?
    /// False once the symbol's data has ended.
    public var trading: Bool
    public init(symbol: String, price: String, previousClose: String?, change: String?, changePercent: String?,
                volume: Int64?, asOf: Date?, trading: Bool) {
        self.symbol = symbol; self.price = price; self.previousClose = previousClose; self.change = change
        self.changePercent = changePercent; self.volume = volume; self.asOf = asOf; self.trading = trading
    }
}

/// `GET /api/v1/quotes?symbols=...`.
public struct QuoteListDTO: Codable, Sendable, Hashable {
    public var quotes: [QuoteDTO]
    /// Requested symbols the source does not know or has no price for.
    public var unknown: [String]
    public var simulated: Bool
    public init(quotes: [QuoteDTO], unknown: [String], simulated: Bool) {
        self.quotes = quotes; self.unknown = unknown; self.simulated = simulated
    }
}

/// One bar of a chart.
public struct BarDTO: Codable, Sendable, Hashable {
    public var date: String
    public var open: String
    public var high: String
    public var low: String
    public var close: String
    public var volume: Int64
    public init(date: String, open: String, high: String, low: String, close: String, volume: Int64) {
        self.date = date; self.open = open; self.high = high; self.low = low; self.close = close; self.volume = volume
    }
}

/// `GET /api/v1/assets/{symbol}/bars` and `GET /api/v1/benchmarks/{name}/bars`.
public struct BarSeriesDTO: Codable, Sendable, Hashable {
    public var symbol: String
    public var range: String
    public var interval: String
    public var bars: [BarDTO]
    public var simulated: Bool
    public init(symbol: String, range: String, interval: String, bars: [BarDTO], simulated: Bool) {
        self.symbol = symbol; self.range = range; self.interval = interval; self.bars = bars; self.simulated = simulated
    }
}

/// `GET /api/v1/market/movers`.
public struct MoversDTO: Codable, Sendable, Hashable {
    public var list: String
    /// `us_equity` (the exchange's session) or `crypto` (the coins' UTC day, their last 24 hours).
    public var assetClass: String = "us_equity"
    /// The session (or, for coins, the UTC day) the moves are of.
    public var session: String?
    public var assets: [AssetSummaryDTO]
    public var simulated: Bool
    public init(list: String, session: String?, assets: [AssetSummaryDTO], simulated: Bool) {
        self.list = list; self.session = session; self.assets = assets; self.simulated = simulated
    }
}
