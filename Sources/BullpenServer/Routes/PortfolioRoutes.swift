import BullpenAPI
import BullpenCore
import BullpenMarketData
import BullpenStore
import Crypto
import Foundation
import Vapor

/// Portfolios, positions, orders and activities. Every route checks that the caller owns the
/// portfolio; someone else's portfolio is "not found", exactly like one that does not exist.
struct PortfolioRoutes: RouteCollection {
    static let startingCashRange = Money(dollars: 1_000)...Money(dollars: 10_000_000)
    static let nameLength = 1...50

    func boot(routes: any RoutesBuilder) throws {
        let portfolios = routes.grouped("portfolios")
        portfolios.get(use: list)
        portfolios.post(use: create)
        let one = portfolios.grouped(":id")
        one.get(use: show)
        one.patch(use: update)
        one.delete(use: delete)
        one.post("reset", use: reset)
        one.get("positions", use: positions)
        one.get("orders", use: orders)
        one.post("orders", use: placeOrder)
        one.get("orders", ":orderId", use: order)
        one.get("activities", use: activities)
        one.get("history", use: history)
    }

    /// The equity curve of the current period, one point a session, with the S&P 500 (or the demo
    /// index) scaled to the same starting value. At most about 500 points.
    @Sendable func history(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let id = try portfolioID(req)
        let services = req.bullpen
        let portfolio = try await services.store.portfolio(id, owner: caller.user)
        let period = try await services.store.currentPeriod(of: id, owner: caller.user)
        guard let marketData = services.marketData else {
            return try jsonResponse(EquityHistoryDTO(startingCash: period.startingCash.decimalString, benchmark: "SPX", points: []))
        }
        let calendar = TradingCalendar()
        let start = TradingCalendar.sessionDate(at: period.startedAt)
        let last = await marketData.sessionDate(asOf: portfolio.clock) ?? start
        var dates = last >= start ? calendar.tradingDays(from: start, through: last) : []
        if dates.isEmpty { dates = [last] }   // a portfolio newer than the data: one point, today's value
        let symbols = Set(period.journal.compactMap(\.symbol))
        var closes: [Symbol: [SessionDate: Price]] = [:]
        for symbol in symbols {
            let bars = try await marketData.dailyBars(symbol, from: dates.first, through: dates.last, asOf: portfolio.clock)
            closes[symbol] = Dictionary(bars.map { ($0.date, $0.close) }, uniquingKeysWith: { _, later in later })
        }
        let live = try await marketData.quotes(Array(symbols), asOf: portfolio.clock)
        let benchmark = try await marketData.benchmarkBars("SPX", from: dates.first, through: dates.last, asOf: portfolio.clock) ?? []
        let benchmarkCloses = Dictionary(benchmark.map { ($0.date, $0.close) }, uniquingKeysWith: { _, later in later })
        let firstBenchmark = dates.lazy.compactMap { benchmarkCloses[$0] }.first

        var book = Book(startingCash: period.startingCash)
        var entries = period.journal[...]
        var lastPrice: [Symbol: Price] = [:]
        var lastBenchmark: Price?
        var points: [EquityPointDTO] = []
        for (n, date) in dates.enumerated() {
            // Everything traded up to that session's close (and, on the last point, up to now).
            let cutoff = n == dates.count - 1 ? Date.distantFuture : (calendar.sessionBounds(on: date)?.close ?? date.date.addingTimeInterval(86_400))
            while let entry = entries.first, entry.createdAt <= cutoff {
                if let fill = entry.fill { book.apply(fill) }
                entries = entries.dropFirst()
            }
            for symbol in book.positions.keys {
                if n == dates.count - 1, let quote = live[symbol] { lastPrice[symbol] = quote.price }
                else if let close = closes[symbol]?[date] { lastPrice[symbol] = close }
            }
            let quotes = lastPrice.mapValues { Quote(price: $0) }
            let equity = Valuation(book: book, quotes: quotes, realizedPnL: .zero).equity
            // The benchmark's last close stands until it has a newer one (today's session in progress).
            lastBenchmark = benchmarkCloses[date] ?? lastBenchmark
            var scaled: String?
            if let base = firstBenchmark, let close = lastBenchmark, base.ticks > 0 {
                scaled = Money(cents: period.startingCash.cents * close.ticks / base.ticks).decimalString
            }
            points.append(EquityPointDTO(date: date.description, equity: equity.decimalString, benchmark: scaled))
        }
        if points.count > 500 {
            let step = (points.count + 499) / 500
            points = points.enumerated().filter { $0.offset % step == 0 || $0.offset == points.count - 1 }.map(\.element)
        }
        return try jsonResponse(EquityHistoryDTO(startingCash: period.startingCash.decimalString, benchmark: "SPX", points: points))
    }

    // MARK: Portfolios

    @Sendable func list(req: Request) async throws -> Response {
        let caller = try await req.caller()
        var result: [PortfolioDTO] = []
        for portfolio in try await req.bullpen.store.portfolios(owner: caller.user) {
            let state = try await req.bullpen.store.state(of: portfolio.id, owner: caller.user)
            result.append(try await summary(state, req: req))
        }
        return try jsonResponse(PortfolioList(portfolios: result))
    }

    @Sendable func create(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let body = try req.decodeJSON(CreatePortfolioRequest.self, allowedKeys: ["name", "startingCash"])
        let name = try Self.validName(body.name)
        var startingCash = BullpenStore.firstPortfolio.startingCash
        if let text = body.startingCash {
            guard let amount = Money(parsing: text), Self.startingCashRange.contains(amount) else {
                throw APIError(.unprocessableEntity, "invalid_starting_cash",
                               "Starting cash must be an amount from 1000.00 to 10000000.00.")
            }
            startingCash = amount
        }
        let portfolio = try await req.bullpen.store.createPortfolio(owner: caller.user, name: name, startingCash: startingCash)
        let state = try await req.bullpen.store.state(of: portfolio.id, owner: caller.user)
        let response = try jsonResponse(try await summary(state, req: req), status: .created)
        response.headers.replaceOrAdd(name: .location, value: "/api/v1/portfolios/\(portfolio.id)")
        return response
    }

    @Sendable func show(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let state = try await req.bullpen.store.state(of: try portfolioID(req), owner: caller.user)
        return try jsonResponse(try await summary(state, req: req))
    }

    @Sendable func update(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let id = try portfolioID(req)
        let body = try req.decodeJSON(UpdatePortfolioRequest.self, allowedKeys: ["name"])
        if let name = body.name {
            _ = try await req.bullpen.store.renamePortfolio(id, owner: caller.user, to: try Self.validName(name))
        }
        let state = try await req.bullpen.store.state(of: id, owner: caller.user)
        return try jsonResponse(try await summary(state, req: req))
    }

    @Sendable func delete(req: Request) async throws -> Response {
        let caller = try await req.caller()
        try await req.bullpen.store.deletePortfolio(try portfolioID(req), owner: caller.user)
        return Response(status: .noContent)
    }

    @Sendable func reset(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let id = try portfolioID(req)
        let services = req.bullpen
        _ = try await services.store.resetPortfolio(id, owner: caller.user) { state in
            try await valuation(of: state, services: services).equity
        }
        let state = try await services.store.state(of: id, owner: caller.user)
        return try jsonResponse(try await summary(state, req: req))
    }

    @Sendable func positions(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let state = try await req.bullpen.store.state(of: try portfolioID(req), owner: caller.user)
        let valued = try await valuation(of: state, services: req.bullpen)
        var result: [PositionDTO] = []
        for position in valued.positions {
            let name = try? await req.bullpen.marketData?.asset(position.position.symbol)?.name
            result.append(PositionDTO(position, name: name))
        }
        return try jsonResponse(PositionList(positions: result))
    }

    // MARK: Orders

    @Sendable func placeOrder(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let id = try portfolioID(req)
        let body = try req.decodeJSON(PlaceOrderRequest.self,
                                      allowedKeys: ["symbol", "side", "quantity", "type", "clientOrderId"])
        let request = try Self.orderRequest(body)
        let services = req.bullpen

        var claim: IdempotencyClaim?
        if let key = req.headers.first(name: "Idempotency-Key") {
            guard (1...255).contains(key.count) else {
                throw APIError.validation("Idempotency-Key must be 1 to 255 characters.")
            }
            claim = IdempotencyClaim(key: key, requestHash: try Self.requestHash(body, portfolio: id))
            if let stored = try await services.store.storedResponse(for: claim!, user: caller.user) {
                return Self.replay(stored)
            }
        }

        let portfolio = try await services.store.portfolio(id, owner: caller.user)
        try TradingEngine.validate(request, rules: portfolio.rules)
        let marketData = try services.requireMarketData()
        guard try await marketData.asset(request.symbol) != nil else { throw OrderRejection.unknownSymbol(request.symbol) }
        guard let quote = try await marketData.quote(request.symbol, asOf: portfolio.clock) else {
            throw OrderRejection.noPrice(request.symbol)
        }
        let outcome = try await services.store.placeOrder(
            request, in: id, owner: caller.user, price: quote.price, idempotency: claim,
            response: { order in try Self.storedResponse(for: order) })
        switch outcome {
        case .executed(let order, _):
            let response = Self.replay(try Self.storedResponse(for: order))
            response.headers.replaceOrAdd(name: .location, value: "/api/v1/portfolios/\(id)/orders/\(order.id)")
            return response
        case .replayed(let stored):
            return Self.replay(stored)
        }
    }

    @Sendable func orders(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let page = try await req.bullpen.store.orders(of: try portfolioID(req), owner: caller.user,
                                                      limit: try Self.limit(req), cursor: req.query["cursor"])
        return try jsonResponse(OrderList(orders: page.items.map(OrderDTO.init), nextCursor: page.nextCursor))
    }

    @Sendable func order(req: Request) async throws -> Response {
        let caller = try await req.caller()
        guard let orderID = req.parameters.get("orderId").flatMap(OrderID.init) else {
            throw StoreError.notFound("Order")
        }
        let order = try await req.bullpen.store.order(orderID, in: try portfolioID(req), owner: caller.user)
        return try jsonResponse(OrderDTO(order))
    }

    // MARK: Activities

    @Sendable func activities(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let id = try portfolioID(req)
        let periods = try Self.periodSelection(req.query["period"])
        let store = req.bullpen.store
        switch req.query[String.self, at: "format"] ?? "json" {
        case "json":
            let page = try await store.activities(of: id, owner: caller.user, periods: periods,
                                                  limit: try Self.limit(req), cursor: req.query["cursor"])
            return try jsonResponse(ActivityPage(activities: page.items.map(ActivityDTO.init), nextCursor: page.nextCursor))
        case "csv":
            var csv = "sequence,period,created_at,type,symbol,quantity,price,amount,commission,realized_pnl,order_id\n"
            var cursor: String? = nil
            let timestamps = ISO8601DateFormatter()
            repeat {
                let page = try await store.activities(of: id, owner: caller.user, periods: periods, limit: 500, cursor: cursor)
                for activity in page.items.map(ActivityDTO.init) {
                    let fields: [String] = [
                        String(activity.sequence), String(activity.period),
                        timestamps.string(from: activity.createdAt), activity.type, activity.symbol ?? "",
                        String(activity.quantity), activity.price ?? "", activity.amount, activity.commission,
                        activity.realizedPnl ?? "", activity.orderId ?? "",
                    ]
                    csv += fields.joined(separator: ",") + "\n"
                }
                cursor = page.nextCursor
            } while cursor != nil
            var headers = HTTPHeaders()
            headers.replaceOrAdd(name: .contentType, value: "text/csv; charset=utf-8")
            headers.replaceOrAdd(name: .contentDisposition, value: "attachment; filename=\"activities-\(id).csv\"")
            return Response(status: .ok, headers: headers, body: .init(string: csv))
        case let other:
            throw APIError.validation("format must be json or csv, not '\(other)'.")
        }
    }

    // MARK: Helpers

    private func portfolioID(_ req: Request) throws -> PortfolioID {
        guard let id = req.parameters.get("id").flatMap(PortfolioID.init) else { throw StoreError.notFound("Portfolio") }
        return id
    }

    private func summary(_ state: PortfolioState, req: Request) async throws -> PortfolioDTO {
        let valued = try await valuation(of: state, services: req.bullpen)
        return PortfolioDTO(state.portfolio, valuation: valued, marketData: req.bullpen.marketDataStatus)
    }

    static func validName(_ raw: String) throws -> String {
        let name = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard nameLength.contains(name.count), !name.contains(where: { $0.isNewline }) else {
            throw APIError(.unprocessableEntity, "invalid_name", "Portfolio names are 1 to 50 characters on one line.")
        }
        return name
    }

    static func orderRequest(_ body: PlaceOrderRequest) throws -> OrderRequest {
        guard let symbol = Symbol(body.symbol) else {
            throw APIError.validation("'\(body.symbol)' is not a ticker symbol.")
        }
        guard let side = OrderSide(rawValue: body.side) else {
            throw APIError.validation("side must be buy or sell.")
        }
        guard let type = OrderType(rawValue: body.type ?? "market") else {
            throw APIError.validation("type must be market; other order types are not available yet.")
        }
        if let id = body.clientOrderId, !(1...64).contains(id.count) {
            throw APIError.validation("clientOrderId must be 1 to 64 characters.")
        }
        return OrderRequest(symbol: symbol, side: side, quantity: body.quantity, type: type, clientOrderID: body.clientOrderId)
    }

    /// What identifies a request for idempotency: the portfolio and the canonical body.
    static func requestHash(_ body: PlaceOrderRequest, portfolio: PortfolioID) throws -> String {
        var canonical = Data("POST /portfolios/\(portfolio)/orders\n".utf8)
        canonical.append(try APIContract.makeEncoder().encode(body))
        return SHA256.hash(data: canonical).map { String(format: "%02x", $0) }.joined()
    }

    static func storedResponse(for order: OrderRecord) throws -> StoredResponse {
        let body = try APIContract.makeEncoder().encode(OrderDTO(order))
        return StoredResponse(status: 201, body: String(decoding: body, as: UTF8.self))
    }

    static func replay(_ stored: StoredResponse) -> Response {
        var headers = HTTPHeaders()
        headers.contentType = .json
        return Response(status: HTTPResponseStatus(statusCode: stored.status), headers: headers, body: .init(string: stored.body))
    }

    static func limit(_ req: Request) throws -> Int {
        guard let text = req.query[String.self, at: "limit"] else { return 50 }
        guard let limit = Int(text), (1...500).contains(limit) else {
            throw APIError.validation("limit must be a whole number from 1 to 500.")
        }
        return limit
    }

    static func periodSelection(_ text: String?) throws -> BullpenStore.PeriodSelection {
        switch text {
        case nil, "current": return .current
        case "all": return .all
        case let value?:
            guard let number = Int(value), number >= 1 else {
                throw APIError.validation("period must be current, all or a period number.")
            }
            return .number(number)
        }
    }
}

/// Values a portfolio's book at its clock. Without market data, holdings are carried at cost.
func valuation(of state: PortfolioState, services: BullpenServices) async throws -> Valuation {
    var quotes: [Symbol: Quote] = [:]
    if let marketData = services.marketData {
        quotes = try await marketData.quotes(Array(state.book.positions.keys), asOf: state.portfolio.clock)
    }
    return Valuation(book: state.book, quotes: quotes, realizedPnL: state.realizedPnL)
}
