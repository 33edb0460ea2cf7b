import BullpenAPI
import BullpenCore
import BullpenMarketData
import BullpenStore
import Foundation
import Vapor

/// Research and market information: public, no token needed. Every endpoint answers as of the
/// live clock, or as of `?asOf=YYYY-MM-DD` (the view of a replay portfolio).
struct MarketRoutes: RouteCollection {
    static let demoLabel = "demo market, simulated prices"
    static let pageSize = 25

    func boot(routes: any RoutesBuilder) throws {
        let market = routes.grouped("market")
        market.get("status", use: status)
        market.get("clock", use: clock)
        market.get("calendar", use: calendar)
        market.get("movers", use: movers)
        let assets = routes.grouped("assets")
        assets.get(use: list)
        assets.get(":symbol", use: detail)
        assets.get(":symbol", "bars", use: bars)
        assets.get(":symbol", "logo.svg", use: logo)
        routes.get("quotes", use: quotes)
        routes.get("benchmarks", ":name", "bars", use: benchmarkBars)
    }

    // MARK: Market

    @Sendable func status(req: Request) async throws -> Response {
        let source = try req.bullpen.requireMarketData()
        let status = await source.status()
        let session = await source.sessionDate(asOf: .live)
        return try jsonResponse(MarketStatusDTO(
            source: status.source, asOf: status.asOf, delayed: status.delayed, simulated: status.simulated,
            description: status.description, label: status.simulated ? Self.demoLabel : nil,
            sessionDate: session?.description))
    }

    @Sendable func clock(req: Request) async throws -> Response {
        let calendar = TradingCalendar()
        let now = req.bullpen.time.now()
        let nextOpen = calendar.nextOpen(after: now), nextClose = calendar.nextClose(after: now)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TradingCalendar.newYork
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ssXXXXX"
        return try jsonResponse(MarketClockDTO(
            now: now, isOpen: calendar.isOpen(at: now), date: TradingCalendar.sessionDate(at: now).description,
            nextOpen: nextOpen, nextClose: nextClose, timezone: TradingCalendar.newYork.identifier,
            nextOpenLocal: formatter.string(from: nextOpen), nextCloseLocal: formatter.string(from: nextClose)))
    }

    @Sendable func calendar(req: Request) async throws -> Response {
        let today = TradingCalendar.sessionDate(at: req.bullpen.time.now())
        let start = try Self.date(req, "start") ?? today
        let end = try Self.date(req, "end") ?? start.adding(days: 30)
        guard start <= end else { throw APIError(.badRequest, "invalid_dates", "start must not be after end.") }
        guard start.distance(to: end) <= 3_660 else {
            throw APIError(.badRequest, "invalid_dates", "Ask for at most ten years at a time.")
        }
        let calendar = TradingCalendar()
        var days: [CalendarDayDTO] = [], closures: [ClosureDTO] = []
        for date in start...end {
            if let (open, close) = calendar.sessionBounds(on: date) {
                days.append(CalendarDayDTO(date: date.description, open: open, close: close, earlyClose: calendar.isEarlyClose(date)))
            } else if !date.isWeekend, let reason = calendar.closure(on: date) {
                closures.append(ClosureDTO(date: date.description, reason: reason))
            }
        }
        return try jsonResponse(MarketCalendarDTO(start: start.description, end: end.description, days: days, closures: closures))
    }

    @Sendable func movers(req: Request) async throws -> Response {
        let source = try req.bullpen.requireMarketData()
        let clock = try Self.clock(req)
        let listName = req.query[String.self, at: "list"] ?? "gainers"
        guard let list = Research.MoverList(rawValue: listName) else {
            throw APIError(.badRequest, "invalid_list", "list must be one of gainers, losers, most-active.")
        }
        let limit = try Self.integer(req, "limit", default: 10, range: 1...50)
        guard let session = await source.sessionDate(asOf: clock) else {
            return try jsonResponse(MoversDTO(list: list.rawValue, session: nil, assets: [], simulated: source.isSimulated))
        }
        let snapshots = try await Research.snapshots(source, asOf: clock)
        let top = Research.movers(snapshots, list: list, session: session, limit: limit)
        return try jsonResponse(MoversDTO(list: list.rawValue, session: session.description,
                                          assets: top.map(AssetSummaryDTO.init), simulated: source.isSimulated))
    }

    // MARK: Assets

    @Sendable func list(req: Request) async throws -> Response {
        let source = try req.bullpen.requireMarketData()
        let sortName = req.query[String.self, at: "sort"] ?? "relevance"
        guard let sort = Research.Sort(rawValue: sortName) else {
            throw APIError(.badRequest, "invalid_sort", "sort must be one of \(Research.Sort.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        let limit = try Self.integer(req, "limit", default: Self.pageSize, range: 1...100)
        let offset = try Self.offset(req)
        let query = req.query[String.self, at: "search"]
        if let query, query.count > 100 { throw APIError.validation("search is at most 100 characters.") }
        let matches = Research.search(try await Research.snapshots(source, asOf: try Self.clock(req)), query: query,
                                      sector: req.query[String.self, at: "sector"], sort: sort)
        let page = matches.dropFirst(offset).prefix(limit)
        let next = offset + limit < matches.count ? PageCursor.encode(offset + limit) : nil
        let previous = offset > 0 ? PageCursor.encode(max(0, offset - limit)) : nil
        return try jsonResponse(AssetPageDTO(assets: page.map(AssetSummaryDTO.init), total: matches.count,
                                             nextCursor: next, previousCursor: previous, simulated: source.isSimulated))
    }

    @Sendable func detail(req: Request) async throws -> Response {
        let source = try req.bullpen.requireMarketData()
        let (symbol, info) = try await Self.asset(req, source)
        let clock = try Self.clock(req)
        let quote = try await source.quote(symbol, asOf: clock)
        var year: Research.YearFigures?
        var span: (first: String?, last: String?) = (nil, nil)
        if let asOf = quote?.asOf {
            let last = SessionDate(asOf)
            let bars = try await source.dailyBars(symbol, from: ChartRange.oneYear.start(endingOn: last), through: last, asOf: clock)
            year = Research.yearFigures(bars)
            span.last = last.description
        }
        span.first = try await source.dailyBars(symbol, from: nil, through: nil, asOf: clock).first?.date.description
        return try jsonResponse(AssetDetailDTO(
            symbol: symbol.rawValue, name: info.name, sector: info.sector, industry: info.industry, exchange: info.exchange,
            headquarters: info.headquarters, founded: info.founded, description: info.description,
            logoUrl: Self.logoURL(info), price: quote?.price.decimalString, previousClose: quote?.previousClose?.decimalString,
            change: quote?.change?.decimalString, changePercent: quote?.changePercent?.decimalString,
            volume: quote?.volume, averageVolume: year?.averageVolume, fiftyTwoWeekLow: year?.low.decimalString,
            fiftyTwoWeekHigh: year?.high.decimalString, oneYearChangePercent: year?.changePercent?.decimalString,
            firstDate: span.first, lastDate: span.last, asOf: quote?.asOf, simulated: source.isSimulated))
    }

    @Sendable func bars(req: Request) async throws -> Response {
        let source = try req.bullpen.requireMarketData()
        let (symbol, _) = try await Self.asset(req, source)
        let clock = try Self.clock(req)
        let (range, interval) = try Self.rangeAndInterval(req)
        guard let end = try await source.quote(symbol, asOf: clock)?.asOf.map(SessionDate.init) else {
            return try jsonResponse(BarSeriesDTO(symbol: symbol.rawValue, range: range.rawValue, interval: (interval ?? .day).rawValue,
                                                 bars: [], simulated: source.isSimulated))
        }
        let daily = try await source.dailyBars(symbol, from: range.start(endingOn: end), through: end, asOf: clock)
        return try jsonResponse(Self.series(symbol.rawValue, daily, range: range, interval: interval, simulated: source.isSimulated))
    }

    @Sendable func benchmarkBars(req: Request) async throws -> Response {
        let source = try req.bullpen.requireMarketData()
        let name = (req.parameters.get("name") ?? "").uppercased()
        let clock = try Self.clock(req)
        let (range, interval) = try Self.rangeAndInterval(req)
        guard let all = try await source.benchmarkBars(name, from: nil, through: nil, asOf: clock) else {
            throw APIError(.notFound, "unknown_benchmark", "There is no benchmark called \(name); try SPX.")
        }
        guard let end = all.last?.date else {
            return try jsonResponse(Self.series(name, [], range: range, interval: interval, simulated: source.isSimulated))
        }
        let start = range.start(endingOn: end)
        let daily = start.map { start in all.filter { $0.date >= start } } ?? all
        return try jsonResponse(Self.series(name, daily, range: range, interval: interval, simulated: source.isSimulated))
    }

    @Sendable func quotes(req: Request) async throws -> Response {
        let source = try req.bullpen.requireMarketData()
        let clock = try Self.clock(req)
        let requested = (req.query[String.self, at: "symbols"] ?? "").split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !requested.isEmpty else { throw APIError.validation("symbols is required: ?symbols=AAPL,MSFT") }
        guard requested.count <= 100 else { throw APIError.validation("Ask for at most 100 symbols at a time.") }
        var symbols: [Symbol] = [], unknown: [String] = []
        for text in requested {
            guard let symbol = Symbol(text) else { unknown.append(text); continue }
            if !symbols.contains(symbol) { symbols.append(symbol) }
        }
        // One batched call: providers fetch the missing ones together.
        let found = try await source.quotes(symbols, asOf: clock)
        var quotes: [QuoteDTO] = []
        for symbol in symbols {
            if let quote = found[symbol] { quotes.append(QuoteDTO(symbol: symbol, quote: quote)) } else { unknown.append(symbol.rawValue) }
        }
        unknown.sort { requested.firstIndex(of: $0) ?? 0 < requested.firstIndex(of: $1) ?? 0 }
        return try jsonResponse(QuoteListDTO(quotes: quotes, unknown: unknown, simulated: source.isSimulated))
    }

    /// A monogram for companies without a logo: the symbol's first letters on a colour of its own.
    @Sendable func logo(req: Request) async throws -> Response {
        let source = try req.bullpen.requireMarketData()
        let (symbol, _) = try await Self.asset(req, source)
        let hue = symbol.rawValue.unicodeScalars.reduce(7) { ($0 * 31 + Int($1.value)) % 360 }
        let letters = String(symbol.rawValue.filter(\.isLetter).prefix(2))
        let svg = """
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" width="64" height="64" role="img" aria-label="\(symbol.rawValue)">\
        <rect width="64" height="64" rx="14" fill="hsl(\(hue),45%,38%)"/>\
        <text x="32" y="41" font-family="system-ui,sans-serif" font-size="24" font-weight="600" fill="#fff" text-anchor="middle">\(letters)</text></svg>
        """
        var headers = HTTPHeaders()
        headers.replaceOrAdd(name: .contentType, value: "image/svg+xml")
        headers.replaceOrAdd(name: .cacheControl, value: "public, max-age=86400")
        return Response(status: .ok, headers: headers, body: .init(string: svg))
    }

    // MARK: Helpers

    static func logoURL(_ info: AssetInfo) -> String { info.logoURL ?? "/api/v1/assets/\(info.symbol.rawValue)/logo.svg" }

    static func asset(_ req: Request, _ source: any MarketDataSource) async throws -> (Symbol, AssetInfo) {
        let text = req.parameters.get("symbol") ?? ""
        guard let symbol = Symbol(text), let info = try await source.asset(symbol) else {
            throw APIError(.notFound, "unknown_symbol", "There is no company with the symbol \(text.uppercased()).")
        }
        return (symbol, info)
    }

    /// `live`, or a replay at `?asOf=YYYY-MM-DD`.
    static func clock(_ req: Request) throws -> PortfolioClock {
        guard let date = try date(req, "asOf") else { return .live }
        return .replay(date.date)
    }

    static func date(_ req: Request, _ name: String) throws -> SessionDate? {
        guard let text = req.query[String.self, at: name] else { return nil }
        guard let date = SessionDate(iso: text) else {
            throw APIError(.badRequest, "invalid_dates", "\(name) must be a date like 2024-03-28.")
        }
        return date
    }

    static func integer(_ req: Request, _ name: String, default value: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text = req.query[String.self, at: name] else { return value }
        guard let number = Int(text), range.contains(number) else {
            throw APIError.validation("\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound).")
        }
        return number
    }

    static func rangeAndInterval(_ req: Request) throws -> (ChartRange, BarInterval?) {
        let rangeText = (req.query[String.self, at: "range"] ?? "1Y").uppercased()
        guard let range = ChartRange(rawValue: rangeText) else {
            throw APIError(.badRequest, "invalid_range",
                           "range must be one of \(ChartRange.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        var interval: BarInterval?
        if let text = req.query[String.self, at: "interval"], !text.isEmpty {
            guard let value = BarInterval(rawValue: text) else {
                throw APIError(.badRequest, "invalid_interval",
                               "interval must be one of \(BarInterval.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
            interval = value
        }
        return (range, interval)
    }

    static func series(_ symbol: String, _ daily: [DailyBar], range: ChartRange, interval: BarInterval?, simulated: Bool) -> BarSeriesDTO {
        let chosen = interval ?? Research.automaticInterval(forDailyBars: daily.count)
        let shaped = Research.shape(daily, interval: chosen)
        return BarSeriesDTO(symbol: symbol, range: range.rawValue, interval: chosen.rawValue,
                            bars: shaped.map(BarDTO.init), simulated: simulated)
    }

    static func offset(_ req: Request) throws -> Int {
        guard let cursor = req.query[String.self, at: "cursor"], !cursor.isEmpty else { return 0 }
        guard let offset = PageCursor.decode(cursor) else { throw StoreError.invalidCursor }
        return offset
    }
}

extension AssetSummaryDTO {
    init(_ snapshot: AssetSnapshot) {
        self.init(symbol: snapshot.info.symbol.rawValue, name: snapshot.info.name, sector: snapshot.info.sector,
                  price: snapshot.quote?.price.decimalString, change: snapshot.quote?.change?.decimalString,
                  changePercent: snapshot.changePercent?.decimalString, volume: snapshot.quote?.volume,
                  asOf: snapshot.quote?.asOf, logoUrl: MarketRoutes.logoURL(snapshot.info))
    }
}

extension QuoteDTO {
    init(symbol: Symbol, quote: Quote) {
        self.init(symbol: symbol.rawValue, price: quote.price.decimalString, previousClose: quote.previousClose?.decimalString,
                  change: quote.change?.decimalString, changePercent: quote.changePercent?.decimalString,
                  volume: quote.volume, asOf: quote.asOf)
    }
}

extension BarDTO {
    init(_ bar: DailyBar) {
        self.init(date: bar.date.description, open: bar.open.decimalString, high: bar.high.decimalString,
                  low: bar.low.decimalString, close: bar.close.decimalString, volume: bar.volume)
    }
}
