import AsyncHTTPClient
import BullpenCore
import Foundation
import NIOCore

/// Stooq's free CSV service (no key; quotes delayed):
/// - latest quotes, many symbols at once: `/q/l/?s=aapl.us,msft.us&f=sd2t2ohlcv&h&e=csv`
///   → `Symbol,Date,Time,Open,High,Low,Close,Volume`, `N/D` fields for unknown symbols;
/// - daily history: `/q/d/l/?s=aapl.us&i=d&d1=YYYYMMDD&d2=YYYYMMDD` → `Date,Open,High,Low,Close,Volume`.
public struct StooqProvider: QuoteProvider {
    public let name = "stooq"
    public let delayed = true
    public let quoteBatchSize = 50
    public let requestsPerMinute = 60
    let http: ProviderHTTP

    public init(client: HTTPClient = .shared, baseURL: String = "https://stooq.com", timeout: TimeAmount = .seconds(10)) {
        http = ProviderHTTP(client: client, baseURL: baseURL, timeout: timeout)
    }

    /// `BRK-B` → `brk-b.us`; a coin priced in dollars, `BTC-USD` → `btc.v` (Stooq's cryptocurrencies).
    static func stooqSymbol(_ symbol: Symbol) -> String {
        let lower = symbol.rawValue.lowercased()
        return symbol.isDollarPair ? String(lower.dropLast(4)) + ".v" : lower + ".us"
    }

    /// Stooq's ticker as a symbol: `AAPL.US` → AAPL, `BTC.V` → BTC-USD.
    static func symbol(_ ticker: String) -> Symbol? {
        if ticker.hasSuffix(".US") { return Symbol(String(ticker.dropLast(3))) }
        if ticker.hasSuffix(".V") { return Symbol(String(ticker.dropLast(2)) + "-USD") }
        return Symbol(ticker)
    }

    public func quotes(_ symbols: [Symbol]) async throws -> [Symbol: Quote] {
        guard !symbols.isEmpty else { return [:] }
        let list = symbols.map(Self.stooqSymbol).joined(separator: ",")
        let data = try await http.get("/q/l/?s=\(ProviderHTTP.encode(list))&f=sd2t2ohlcv&h&e=csv")
        var result: [Symbol: Quote] = [:]
        var sawHeader = false
        for line in String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline) {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            if fields.first == "Symbol" { sawHeader = true; continue }
            guard fields.count >= 8 else { throw ProviderError.malformed("quote line '\(line)'") }
            guard fields[6] != "N/D" else { continue }   // unknown to Stooq
            let ticker = fields[0].uppercased()
            guard let symbol = Self.symbol(ticker),
                  let close = Price(parsing: Self.trim(fields[6])),
                  let date = SessionDate(iso: fields[1])
            else { throw ProviderError.malformed("quote line '\(line)'") }
            let time = Self.time(fields[2])
            result[symbol] = Quote(price: close, previousClose: nil,
                                   asOf: date.date.addingTimeInterval(time), volume: Int64(fields[7]))
        }
        guard sawHeader || !result.isEmpty else { throw ProviderError.malformed("no CSV header in the quote answer") }
        return result
    }

    public func dailyBars(_ symbol: Symbol, from start: SessionDate, through end: SessionDate) async throws -> [DailyBar] {
        func compact(_ date: SessionDate) -> String { date.description.replacingOccurrences(of: "-", with: "") }
        let data = try await http.get("/q/d/l/?s=\(ProviderHTTP.encode(Self.stooqSymbol(symbol)))&i=d&d1=\(compact(start))&d2=\(compact(end))")
        let text = String(decoding: data, as: UTF8.self)
        if text.hasPrefix("No data") || text.isEmpty { return [] }
        guard text.hasPrefix("Date,") else { throw ProviderError.malformed("history answer does not start with a header") }
        var problems: [LineProblem] = []
        let columns = PackFormat.parseDaily(data, file: "stooq \(symbol)", problems: &problems)
        guard problems.isEmpty || columns.count > 0 else { throw ProviderError.malformed(problems[0].description) }
        return (0..<columns.count).map { i in
            DailyBar(date: SessionDate(day: columns.dates[i]), open: Price(ticks: columns.opens[i]),
                     high: Price(ticks: columns.highs[i]), low: Price(ticks: columns.lows[i]),
                     close: Price(ticks: columns.closes[i]), volume: columns.volumes[i])
        }
    }

    /// Stooq prints up to six places; prices keep four.
    static func trim(_ text: String) -> String {
        guard let dot = text.firstIndex(of: ".") else { return text }
        let places = text.distance(from: dot, to: text.endIndex) - 1
        guard places > 4, let value = Double(text) else { return text }
        return String(format: "%.4f", value)
    }

    /// `22:00:07` → seconds after midnight (Stooq's clock is UTC+1/+2; close enough for an as-of stamp).
    static func time(_ text: String) -> TimeInterval {
        let parts = text.split(separator: ":").compactMap { Double($0) }
        guard parts.count == 3 else { return 0 }
        return parts[0] * 3600 + parts[1] * 60 + parts[2]
    }
}
