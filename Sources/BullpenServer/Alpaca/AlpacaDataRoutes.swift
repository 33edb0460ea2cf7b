import BullpenAPI
import BullpenCore
import BullpenMarketData
import Foundation
import Vapor

/// Alpaca's market-data API (v2 stocks) at `/alpaca/data/v2`, and its coins' (v1beta3 crypto) at
/// `/alpaca/data/v1beta3/crypto/{loc}`: bars with page tokens, latest quotes, trades and bars, snapshots. Authenticated by an API key; answers as of the key's
/// portfolio's clock, so a replay's bot never sees a bar after its date. Bullpen's data are daily:
/// bars come by the day, week or month; the simulator fills at the last price, so a quote's bid
/// and ask are both that price.
struct AlpacaDataRoutes: RouteCollection {
    static let maxPage = 10_000

    func boot(routes: any RoutesBuilder) throws {
        let data = routes.grouped("alpaca", "data")
        let stocks = data.grouped("v2", "stocks")
        stocks.get("bars", use: bars)
        stocks.get("bars", "latest", use: latestBars)
        stocks.get("quotes", "latest", use: latestQuotes)
        stocks.get("trades", "latest", use: latestTrades)
        stocks.get("snapshots", use: snapshots)
        stocks.get(":symbol", "bars", use: symbolBars)
        stocks.get(":symbol", "bars", "latest", use: symbolLatestBar)
        stocks.get(":symbol", "quotes", "latest", use: symbolLatestQuote)
        stocks.get(":symbol", "trades", "latest", use: symbolLatestTrade)
        stocks.get(":symbol", "snapshot", use: symbolSnapshot)
        // Coins (v1beta3): pairs like BTC/USD, daily bars of UTC days, the latest of each, snapshots.
        let crypto = data.grouped("v1beta3", "crypto", ":loc")
        crypto.get("bars", use: cryptoBars)
        crypto.get("latest", "bars", use: cryptoLatestBars)
        crypto.get("latest", "quotes", use: cryptoLatestQuotes)
        crypto.get("latest", "trades", use: cryptoLatestTrades)
        crypto.get("snapshots", use: cryptoSnapshots)
    }

    // MARK: Coins

    /// The `?symbols=` of a crypto route that are coins' pairs (others have no data there), after
    /// checking its `{loc}`.
    private func coins(_ req: Request) async throws -> [Symbol] {
        _ = try await req.keyCaller()   // the key first: no answer about the request to a caller without one
        guard let loc = req.parameters.get("loc"), ["us", "us-1", "eu-1"].contains(loc) else {
            throw APIError.validation("The crypto location must be us, us-1 or eu-1.")
        }
        // `BTCUSD` is the pair `BTC-USD` here: these routes answer for coins only.
        return try AlpacaQuery.symbols(req, required: true)!.compactMap { $0.isDollarPair ? $0 : AlpacaMapping.compactPair($0) }
    }

    @Sendable func cryptoBars(req: Request) async throws -> Response {
        let page = try await barPage(req, symbols: try await coins(req), crypto: true)
        return try alpacaJSON(BarsAnswer(bars: page.bars, nextPageToken: page.next), plain: true)
    }

    @Sendable func cryptoLatestBars(req: Request) async throws -> Response {
        try alpacaJSON(["bars": try await latest(req, try await coins(req)).compactMapValues(\.dailyBar)], plain: true)
    }

    @Sendable func cryptoLatestQuotes(req: Request) async throws -> Response {
        try alpacaJSON(["quotes": try await latest(req, try await coins(req)).compactMapValues(\.latestQuote)], plain: true)
    }

    @Sendable func cryptoLatestTrades(req: Request) async throws -> Response {
        try alpacaJSON(["trades": try await latest(req, try await coins(req)).compactMapValues(\.latestTrade)], plain: true)
    }

    /// Unlike stocks' snapshots, coins' come under the key `snapshots`, as Alpaca answers.
    @Sendable func cryptoSnapshots(req: Request) async throws -> Response {
        try alpacaJSON(["snapshots": try await latest(req, try await coins(req))], plain: true)
    }

    // MARK: Bars

    @Sendable func bars(req: Request) async throws -> Response {
        let symbols = try AlpacaQuery.symbols(req, required: true)!
        let page = try await barPage(req, symbols: symbols)
        return try alpacaJSON(BarsAnswer(bars: page.bars, nextPageToken: page.next), plain: true)
    }

    @Sendable func symbolBars(req: Request) async throws -> Response {
        let symbol = try AlpacaMapping.pathSymbol(req)
        let page = try await barPage(req, symbols: [symbol])
        let name = AlpacaMapping.alpacaSymbol(symbol)
        return try alpacaJSON(SymbolBarsAnswer(bars: page.bars[name] ?? [], symbol: name, nextPageToken: page.next),
                              plain: true)
    }

    /// One page of bars of `symbols` (in symbol order, each in time order), at most `limit` bars
    /// in all, and the token of the next bar when more remain.
    private func barPage(_ req: Request, symbols: [Symbol], crypto: Bool = false) async throws -> (bars: [String: [AlpacaBar]], next: String?) {
        let (source, clock) = try await context(req)
        let interval = try Self.interval(req.query[String.self, at: "timeframe"])
        let limit = try req.integer("limit", default: 1_000, range: 1...Self.maxPage)
        let descending = try AlpacaQuery.direction(req, "sort") == "desc"
        try Self.checkCommon(req)
        if let adjustment = req.query[String.self, at: "adjustment"], !["raw", "split", "dividend", "all"].contains(adjustment) {
            throw APIError.validation("adjustment must be raw, split, dividend or all.")
        }
        _ = try AlpacaQuery.day(req, "asof")
        // A coin's last day: live, today's UTC day (under way); a replay's, the UTC day before its date.
        let clockDay = clock.date.map { SessionDate($0).adding(days: -1) } ?? SessionDate(req.bullpen.time.now())
        guard let last = crypto ? clockDay : await source.sessionDate(asOf: clock) else { return ([:], nil) }
        let start = try AlpacaQuery.instant(req, "start") ?? (crypto ? last.date : TradingCalendar.instant(last, 0, 0))
        let end = try AlpacaQuery.instant(req, "end") ?? .distantFuture
        guard start <= end else { throw APIError(.invalidDates, "start must not be after end.") }
        let token = try req.query[String.self, at: "page_token"].map(Self.decodeToken)
        if let token, !symbols.contains(where: { $0.rawValue == token.symbol }) { throw APIError.invalidCursor }
        let firstDay = Self.periodStart(TradingCalendar.sessionDate(at: start).adding(days: -1), interval)
        let lastDay = min(last, end == .distantFuture ? last : TradingCalendar.sessionDate(at: end).adding(days: 1))
        var result: [String: [AlpacaBar]] = [:], taken = 0
        for symbol in symbols.sorted(by: { $0.rawValue < $1.rawValue }) {
            if let token, symbol.rawValue < token.symbol { continue }
            guard firstDay <= lastDay else { break }
            var daily = try await source.dailyBars(symbol, from: firstDay, through: lastDay, asOf: clock)
            if interval != .day { daily = Self.aggregate(daily, interval) }
            var bars = daily.filter { bar in
                let stamp = Self.stamp(bar.date, of: symbol)
                return stamp >= start && stamp <= end
            }
            if descending { bars.reverse() }
            if let token, symbol.rawValue == token.symbol {
                guard let index = bars.firstIndex(where: { $0.date == token.date }) else { throw APIError.invalidCursor }
                bars = Array(bars[index...])
            }
            guard !bars.isEmpty else { continue }
            if taken == limit { return (result, Self.encodeToken(symbol: symbol.rawValue, date: bars[0].date)) }
            let room = limit - taken
            result[AlpacaMapping.alpacaSymbol(symbol)] = bars.prefix(room).map { Self.bar($0, symbol: symbol) }
            taken += min(room, bars.count)
            if bars.count > room { return (result, Self.encodeToken(symbol: symbol.rawValue, date: bars[room].date)) }
        }
        return (result, nil)
    }

    // MARK: Latest bars, quotes and trades, snapshots

    @Sendable func latestBars(req: Request) async throws -> Response { try await latestOfEach(req, key: "bars", \.dailyBar) }
    @Sendable func symbolLatestBar(req: Request) async throws -> Response { try await latestOfOne(req, key: "bar", \.dailyBar) }
    @Sendable func latestQuotes(req: Request) async throws -> Response { try await latestOfEach(req, key: "quotes", \.latestQuote) }
    @Sendable func symbolLatestQuote(req: Request) async throws -> Response { try await latestOfOne(req, key: "quote", \.latestQuote) }
    @Sendable func latestTrades(req: Request) async throws -> Response { try await latestOfEach(req, key: "trades", \.latestTrade) }
    @Sendable func symbolLatestTrade(req: Request) async throws -> Response { try await latestOfOne(req, key: "trade", \.latestTrade) }

    /// `{"<key>": {symbol: part}}` for `?symbols=`: the symbols without data left out.
    private func latestOfEach<Part: Encodable>(_ req: Request, key: String, _ part: KeyPath<AlpacaSnapshot, Part?>) async throws -> Response {
        let symbols = try AlpacaQuery.symbols(req, required: true)!
        return try alpacaJSON([key: try await latest(req, symbols).compactMapValues { $0[keyPath: part] }], plain: true)
    }

    /// `{"symbol": ..., "<key>": part}` for the path's symbol; 404 without data.
    private func latestOfOne<Part: Encodable>(_ req: Request, key: String, _ part: KeyPath<AlpacaSnapshot, Part?>) async throws -> Response {
        let symbol = try AlpacaMapping.pathSymbol(req), name = AlpacaMapping.alpacaSymbol(symbol)
        guard let value = try await latest(req, [symbol])[name]?[keyPath: part] else { throw Self.noData(symbol) }
        return try alpacaJSON(SymbolAnswer(symbol: name, key: key, value: value), plain: true)
    }

    /// `{symbol: snapshot}`, without a wrapping key, as Alpaca answers.
    @Sendable func snapshots(req: Request) async throws -> Response {
        let symbols = try AlpacaQuery.symbols(req, required: true)!
        return try alpacaJSON(try await latest(req, symbols), plain: true)
    }

    @Sendable func symbolSnapshot(req: Request) async throws -> Response {
        let symbol = try AlpacaMapping.pathSymbol(req)
        guard var snapshot = try await latest(req, [symbol])[AlpacaMapping.alpacaSymbol(symbol)] else { throw Self.noData(symbol) }
        snapshot.symbol = AlpacaMapping.alpacaSymbol(symbol)
        return try alpacaJSON(snapshot, plain: true)
    }

    /// The snapshot of each symbol that has a price as of the key's clock (the others are left
    /// out, as Alpaca leaves out symbols it has no data for).
    private func latest(_ req: Request, _ symbols: [Symbol]) async throws -> [String: AlpacaSnapshot] {
        let (source, clock) = try await context(req)
        try Self.checkCommon(req)
        let quotes = try await source.quotes(symbols, asOf: clock)
        var result: [String: AlpacaSnapshot] = [:]
        for symbol in symbols {
            guard let quote = quotes[symbol], let session = quote.session else { continue }
            let recent = try await source.dailyBars(symbol, from: session.adding(days: -14), through: session, asOf: clock)
            // A daily close is stamped at its session's close (a coin's at the end of its UTC day); a live tick at its time.
            let close = symbol.isDollarPair ? session.date.addingTimeInterval(86_399)
                : TradingCalendar().sessionBounds(on: session)?.close ?? Self.stamp(session)
            let stamp = quote.asOf.flatMap { $0 == session.date ? nil : $0 } ?? close
            let price = Self.number(quote.price, symbol)
            result[AlpacaMapping.alpacaSymbol(symbol)] = AlpacaSnapshot(
                latestTrade: AlpacaTrade(t: stamp, p: price, s: 0), latestQuote: AlpacaQuote(t: stamp, price: price),
                dailyBar: recent.last.map { Self.bar($0, symbol: symbol) },
                prevDailyBar: recent.dropLast().last.map { Self.bar($0, symbol: symbol) })
        }
        return result
    }

    // MARK: Helpers

    private func context(_ req: Request) async throws -> (any MarketDataSource, PortfolioClock) {
        let caller = try await req.keyCaller()
        return (try req.bullpen.requireMarketData(), try await AlpacaMapping.clock(caller, req: req))
    }

    /// Parameters every data route takes: `feed` (any of Alpaca's; Bullpen has one) and `currency` (USD).
    static func checkCommon(_ req: Request) throws {
        if let feed = req.query[String.self, at: "feed"], !["iex", "sip", "delayed_sip", "otc", "boats", "overnight"].contains(feed) {
            throw APIError.validation("feed must be one of iex, sip, delayed_sip, otc, boats, overnight.")
        }
        if let currency = req.query[String.self, at: "currency"], currency != "USD" {
            throw APIError(.notSupported, "Prices are in USD only.")
        }
    }

    static func interval(_ text: String?) throws -> BarInterval {
        guard let text else { throw APIError.validation("timeframe is required, like 1Day.") }
        switch text {
        case "1Day", "1D": return .day
        case "1Week", "1W": return .week
        case "1Month", "1M": return .month
        default:
            if text.range(of: "^[0-9]+(Min|T|Hour|H|Day|D|Week|W|Month|M)$", options: .regularExpression) != nil {
                throw APIError(.notSupported, "Bullpen's market data are daily: timeframe must be 1Day, 1Week or 1Month.")
            }
            throw APIError.validation("timeframe must be like 1Day, 1Week or 1Month.")
        }
    }

    /// The first day of the week (Monday) or month `date` is in; the date itself for days.
    static func periodStart(_ date: SessionDate, _ interval: BarInterval) -> SessionDate {
        switch interval {
        case .day: return date
        case .week: return date.adding(days: -((date.weekday + 6) % 7))
        case .month: let (year, month, _) = date.components; return SessionDate(year: year, month: month, day: 1)
        }
    }

    /// Daily bars grouped by week or month, each dated by its period's first day (Alpaca stamps a
    /// weekly or monthly bar with the start of its period): first open, highest high, lowest low,
    /// last close, summed volume. A period still under way has the sessions so far.
    static func aggregate(_ daily: [DailyBar], _ interval: BarInterval) -> [DailyBar] {
        var result: [DailyBar] = []
        for bar in daily {
            let start = periodStart(bar.date, interval)
            if var current = result.last, current.date == start {
                current.merge(bar)
                current.date = start
                result[result.count - 1] = current
            } else {
                var first = bar
                first.date = start
                result.append(first)
            }
        }
        return result
    }

    /// A session's bar is stamped at its New York midnight, as Alpaca stamps daily bars.
    static func stamp(_ date: SessionDate) -> Date { TradingCalendar.instant(date, 0, 0) }

    /// A bar of `symbol`'s is stamped at the start of its day: a coin's UTC day, a stock's New York one.
    static func stamp(_ date: SessionDate, of symbol: Symbol) -> Date {
        symbol.isDollarPair ? date.date : stamp(date)
    }

    static func number(_ price: Price, _ symbol: Symbol) -> Decimal {
        AlpacaJSON.number(price.perShare(of: symbol).decimalString) ?? 0
    }

    static func bar(_ bar: DailyBar, symbol: Symbol) -> AlpacaBar {
        AlpacaBar(t: stamp(bar.date, of: symbol), o: number(bar.open, symbol), h: number(bar.high, symbol), l: number(bar.low, symbol),
                  c: number(bar.close, symbol), v: bar.volume)
    }

    static func noData(_ symbol: Symbol) -> APIError {
        APIError(.notFound, "There is no data for \(AlpacaMapping.alpacaSymbol(symbol)) as of this portfolio's clock.")
    }

    /// A page token: the symbol and date of the next bar, base64url.
    static func encodeToken(symbol: String, date: SessionDate) -> String {
        Data("\(symbol)|\(date)".utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    static func decodeToken(_ text: String) throws -> (symbol: String, date: SessionDate) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard text.count <= 200, let data = Data(base64Encoded: base64), let decoded = String(data: data, encoding: .utf8) else {
            throw APIError.invalidCursor
        }
        let parts = decoded.split(separator: "|", omittingEmptySubsequences: false)
        guard parts.count == 2, let date = SessionDate(iso: parts[1]) else { throw APIError.invalidCursor }
        return (String(parts[0]), date)
    }
}

private struct BarsAnswer: Encodable {
    var bars: [String: [AlpacaBar]]
    var nextPageToken: String?

    enum CodingKeys: String, CodingKey { case bars, nextPageToken = "next_page_token" }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(bars, forKey: .bars)
        try container.encode(nextPageToken, forKey: .nextPageToken)   // null on the last page, never ""
    }
}

private struct SymbolBarsAnswer: Encodable {
    var bars: [AlpacaBar]
    var symbol: String
    var nextPageToken: String?

    enum CodingKeys: String, CodingKey { case bars, symbol, nextPageToken = "next_page_token" }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(bars, forKey: .bars)
        try container.encode(symbol, forKey: .symbol)
        try container.encode(nextPageToken, forKey: .nextPageToken)
    }
}

/// `{"symbol": "AAPL", "<key>": value}`: the single-symbol answers.
private struct SymbolAnswer<Value: Encodable>: Encodable {
    var symbol: String
    var key: String
    var value: Value

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(symbol, forKey: Key(stringValue: "symbol"))
        try container.encode(value, forKey: Key(stringValue: key))
    }
}

/// Alpaca features Bullpen does not offer here: historical quotes and trades (its data are
/// daily), coins' order books and options data, option contracts, account configurations. Each answers
/// Alpaca's error for an unsupported feature (422, `not_supported`) whatever its parameters, so
/// these routes are outside the parameter checks.
struct AlpacaUnsupportedRoutes: RouteCollection {
    /// The routes, as `METHOD /path` (tests leave them out of the parameter checks).
    static let operations: Set<String> = [
        "GET /alpaca/data/v2/stocks/quotes", "GET /alpaca/data/v2/stocks/trades", "GET /alpaca/data/v2/stocks/{symbol}/quotes",
        "GET /alpaca/data/v2/stocks/{symbol}/trades", "GET /alpaca/data/v1beta3/crypto/**", "GET /alpaca/data/v1beta1/options/**",
        "GET /alpaca/v2/options/contracts", "GET /alpaca/v2/options/contracts/{symbol}", "GET /alpaca/v2/account/configurations",
        "PATCH /alpaca/v2/account/configurations",
    ]

    func boot(routes: any RoutesBuilder) throws {
        let data = routes.grouped("alpaca", "data")
        let stocks = data.grouped("v2", "stocks")
        stocks.get("quotes", use: Self.refuseData)
        stocks.get("trades", use: Self.refuseData)
        stocks.get(":symbol", "quotes", use: Self.refuseData)
        stocks.get(":symbol", "trades", use: Self.refuseData)
        data.get("v1beta3", "crypto", "**", use: Self.refuseData)
        data.get("v1beta1", "options", "**", use: Self.refuseData)
        let v2 = routes.grouped("alpaca", "v2")
        v2.get("options", "contracts", use: Self.refuseTrading)
        v2.get("options", "contracts", ":symbol", use: Self.refuseTrading)
        v2.get("account", "configurations", use: Self.refuseTrading)
        v2.patch("account", "configurations", use: Self.refuseTrading)
    }

    @Sendable static func refuseData(_ req: Request) async throws -> Response {
        _ = try await req.keyCaller()
        throw APIError(.notSupported, "Bullpen's market data are daily bars of US stocks and coins: historical quotes and trades, "
            + "order books and options data are not offered through the Alpaca-compatible API.")
    }

    @Sendable static func refuseTrading(_ req: Request) async throws -> Response {
        _ = try await req.keyCaller()
        throw APIError(.notSupported, "Options and account configurations are not offered through the Alpaca-compatible API; "
            + "use Bullpen's own API (/api/v1) for options.")
    }

    /// `alpaca.yaml`, public like `/openapi.yaml`.
    @Sendable static func contract(_ req: Request) async throws -> Response {
        var headers = HTTPHeaders()
        headers.replaceOrAdd(name: .contentType, value: "application/yaml; charset=utf-8")
        return Response(status: .ok, headers: headers, body: .init(string: try APIContract.alpacaDocument()))
    }
}
