import BullpenAPI
import BullpenCore
import BullpenMarketData
import BullpenStore
import Foundation
import Vapor

/// Research: the asset list and search, an asset's page, its chart bars and logo, batched quotes
/// and benchmark bars. Public; every answer is as of the live clock or `?asOf=YYYY-MM-DD`.
struct AssetRoutes: RouteCollection {
    static let pageSize = 25

    func boot(routes: any RoutesBuilder) throws {
        let assets = routes.grouped("assets")
        assets.get(use: list)
        assets.get(":symbol", use: detail)
        assets.get(":symbol", "bars", use: bars)
        assets.get(":symbol", "logo.svg", use: logo)
        routes.get("quotes", use: quotes)
        routes.get("benchmarks", ":name", "bars", use: benchmarkBars)
    }

    @Sendable func list(req: Request) async throws -> Response {
        let source = try req.bullpen.requireMarketData()
        let sort: Research.Sort = try Self.choice(req, "sort", code: .invalidSort) ?? .relevance
        let trading: Research.TradingFilter = try Self.choice(req, "trading", code: .validationFailed) ?? .all
        let limit = try req.integer("limit", default: Self.pageSize, range: 1...100)
        let offset = try req.pageCursor.map { cursor in
            guard let offset = PageCursor.decode(cursor) else { throw APIError.invalidCursor }
            return offset
        } ?? 0
        let query = req.query[String.self, at: "search"]
        // Lengths count code points, as the contract's maxLength does.
        if let query, query.unicodeScalars.count > 100 { throw APIError.validation("search is at most 100 characters.") }
        let snapshots = try await Research.snapshots(source, asOf: try req.marketClock(), liquidity: sort == .relevance)
        let matches = Research.search(snapshots, query: query, sector: req.query[String.self, at: "sector"], sort: sort,
                                      trading: trading)
        let page = matches.dropFirst(offset).prefix(limit)
        let next = offset + limit < matches.count ? PageCursor.encode(offset + limit) : nil
        let previous = offset > 0 ? PageCursor.encode(max(0, offset - limit)) : nil
        return try jsonResponse(AssetPageDTO(assets: page.map(AssetSummaryDTO.init), total: matches.count,
                                             nextCursor: next, previousCursor: previous, simulated: source.isSimulated))
    }

    @Sendable func detail(req: Request) async throws -> Response {
        let source = try req.bullpen.requireMarketData()
        let (symbol, info) = try await Self.asset(req, source)
        let clock = try req.marketClock()
        let quote = try await source.quote(symbol, asOf: clock)
        var year: Research.YearFigures?
        if let last = quote?.session {
            let bars = try await source.dailyBars(symbol, from: ChartRange.oneYear.start(endingOn: last), through: last, asOf: clock)
            year = Research.yearFigures(bars)
        }
        let first = try await source.dailyBars(symbol, from: nil, through: nil, asOf: clock).first?.date.description
        var dto = AssetDetailDTO(
            symbol: symbol.rawValue, name: info.name, sector: info.sector, industry: info.industry, exchange: info.exchange,
            headquarters: info.headquarters, founded: info.founded, description: info.description,
            logoUrl: MonogramLogo.url(for: info), price: quote?.price.decimalString,
            previousClose: quote?.previousClose?.decimalString,
            change: quote?.change?.decimalString, changePercent: quote?.changePercent?.decimalString,
            volume: quote?.volume, averageVolume: year?.averageVolume, fiftyTwoWeekLow: year?.low.decimalString,
            fiftyTwoWeekHigh: year?.high.decimalString, oneYearChangePercent: year?.changePercent?.decimalString,
            firstDate: first, lastDate: quote?.session?.description, asOf: quote?.asOf, simulated: source.isSimulated,
            trading: quote?.trading ?? false)
        dto.assetClass = info.assetClass.rawValue
        return try jsonResponse(dto)
    }

    @Sendable func bars(req: Request) async throws -> Response {
        let source = try req.bullpen.requireMarketData()
        let (symbol, _) = try await Self.asset(req, source)
        let clock = try req.marketClock()
        let (range, interval) = try Self.rangeAndInterval(req)
        guard let end = try await source.quote(symbol, asOf: clock)?.session else {
            return try jsonResponse(BarSeriesDTO(symbol.rawValue, [], range: range, interval: interval, simulated: source.isSimulated))
        }
        let daily = try await source.dailyBars(symbol, from: range.start(endingOn: end), through: end, asOf: clock)
        return try jsonResponse(BarSeriesDTO(symbol.rawValue, daily, range: range, interval: interval, simulated: source.isSimulated))
    }

    @Sendable func benchmarkBars(req: Request) async throws -> Response {
        let source = try req.bullpen.requireMarketData()
        let name = (req.parameters.get("name") ?? "").uppercased()
        let (range, interval) = try Self.rangeAndInterval(req)
        guard let all = try await source.benchmarkBars(name, from: nil, through: nil, asOf: try req.marketClock()) else {
            throw APIError(.unknownBenchmark, "There is no benchmark called \(name); try SPX.")
        }
        let start = all.last.flatMap { range.start(endingOn: $0.date) }
        let daily = start.map { start in all.filter { $0.date >= start } } ?? all
        return try jsonResponse(BarSeriesDTO(name, daily, range: range, interval: interval, simulated: source.isSimulated))
    }

    @Sendable func quotes(req: Request) async throws -> Response {
        let source = try req.bullpen.requireMarketData()
        let clock = try req.marketClock()
        guard let list = req.query[String.self, at: "symbols"], !list.isEmpty else {
            throw APIError.validation("symbols is required: ?symbols=AAPL,MSFT")
        }
        // Blank items are skipped (a list of none answers none); at most 100 items, as the contract's pattern says.
        let items = list.split(separator: ",", omittingEmptySubsequences: false)
        guard items.count <= 100 else { throw APIError.validation("Ask for at most 100 symbols at a time.") }
        let requested = items.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
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

    @Sendable func logo(req: Request) async throws -> Response {
        let (symbol, _) = try await Self.asset(req, try req.bullpen.requireMarketData())
        var headers = HTTPHeaders()
        headers.replaceOrAdd(name: .contentType, value: "image/svg+xml")
        headers.replaceOrAdd(name: .cacheControl, value: "public, max-age=86400")
        return Response(status: .ok, headers: headers, body: .init(string: MonogramLogo.svg(for: symbol)))
    }

    // MARK: Parsing

    static func asset(_ req: Request, _ source: any MarketDataSource) async throws -> (Symbol, AssetInfo) {
        let symbol = try req.symbolParameter()
        guard let info = try await source.asset(symbol) else { throw APIError.unknownSymbol(symbol.rawValue) }
        // As of a past date, a company listed later does not exist yet.
        if case .replay(let date) = try req.marketClock(), try await source.quote(symbol, asOf: .replay(date)) == nil {
            throw APIError(.unknownSymbol, "There was no company listed as \(symbol) on \(SessionDate(date)).")
        }
        return (symbol, info)
    }

    /// `?name=` as one of an enum's raw values (nil when absent); the error lists them.
    static func choice<T: RawRepresentable & CaseIterable>(_ req: Request, _ name: String,
                                                          code: ErrorCode) throws -> T? where T.RawValue == String {
        guard let text = req.query[String.self, at: name] else { return nil }
        guard let value = T(rawValue: text) else {
            throw APIError(code, "\(name) must be one of \(T.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        return value
    }

    static func rangeAndInterval(_ req: Request) throws -> (ChartRange, BarInterval?) {
        let rangeText = (req.query[String.self, at: "range"] ?? "1Y").uppercased()
        guard let range = ChartRange(rawValue: rangeText) else {
            throw APIError(.invalidRange, "range must be one of \(ChartRange.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        return (range, try choice(req, "interval", code: .invalidInterval))
    }
}
