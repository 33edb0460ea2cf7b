import BullpenAPI
import BullpenCore
import BullpenStore
import Crypto
import Foundation
import Tracing
import Vapor

/// Orders of a portfolio: place (with an optional `Idempotency-Key`), preview, list, one.
struct OrderRoutes: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        let orders = routes.grouped("portfolios", ":id", "orders")
        orders.get(use: list)
        orders.post(use: place)
        orders.post("preview", use: preview)
        orders.get(":orderId", use: one)
        orders.delete(":orderId", use: cancel)
        orders.patch(":orderId", use: replace)
    }

    @Sendable func place(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let id = try req.portfolioID()
        let body = try req.decodeJSON(PlaceOrderRequest.self)
        try await req.bullpen.takeOrder(by: caller.user, idempotencyKey: req.headers.first(name: "Idempotency-Key").map { "\(id) \($0)" })
        let request = try Self.orderRequest(body)
        let claim = try Self.idempotencyClaim(req, body: body, portfolio: id)
        let outcome: BullpenStore.OrderOutcome, note: String?
        do {
            (outcome, note) = try await withSpan("place order") { span in
                span.attributes["bullpen.order.side"] = body.side
                span.attributes["bullpen.order.symbol"] = body.symbol
                return try await req.bullpen.portfolios.placeOrder(request, in: id, owner: caller.user, idempotency: claim)
            }
        } catch {
            BullpenMetrics.order(side: body.side, outcome: APIError(error).code.rawValue)
            throw error
        }
        var order: OrderDTO
        switch outcome {
        case .executed(let executed, let book):
            BullpenMetrics.order(side: body.side, outcome: executed.status.rawValue)
            // What a working order holds depends on the rules' commission; a filled one holds nothing.
            order = executed.status.isOpen
                ? OrderDTO(executed, rules: try await req.bullpen.store.portfolioForPricing(id, owner: caller.user).rules)
                : OrderDTO(executed)
            if let note { order.priceNote = note }
            Self.announce(executed, book: book, user: caller.user, req: req)
        case .replayed(let earlier):
            BullpenMetrics.order(side: body.side, outcome: "replayed")
            order = OrderDTO(earlier)
        case .remembered(let stored): return Self.replay(stored)
        }
        let response = try jsonResponse(order, status: .created)
        response.headers.replaceOrAdd(name: .location, value: "/api/v1/portfolios/\(id)/orders/\(order.id)")
        return response
    }

    @Sendable func preview(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let request = try Self.orderRequest(try req.decodeJSON(PlaceOrderRequest.self))
        let (preview, priced) = try await req.bullpen.portfolios.preview(request, in: try req.portfolioID(), owner: caller.user)
        var dto = OrderPreviewDTO(preview, pricing: priced.pricing, trading: priced.trading)
        dto.priceNote = priced.note ?? priced.pricing.explanation
        if !request.terms.fillsAtOnce || request.terms.type != .market {
            dto.summary = OrderSentence.describe(side: request.side, quantity: preview.request.quantity, symbol: request.symbol, terms: request.terms)
        }
        return try jsonResponse(dto)
    }

    @Sendable func list(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let open: Bool?
        switch req.query[String.self, at: "status"] {
        case nil, "all": open = nil
        case "open": open = true
        case "closed": open = false
        default: throw APIError.validation("status must be open, closed or all.")
        }
        let id = try req.portfolioID()
        let page = try await req.bullpen.store.orders(of: id, owner: caller.user, limit: try req.pageLimit(),
                                                      cursor: req.pageCursor, open: open)
        let rules = try await req.bullpen.store.portfolioForPricing(id, owner: caller.user).rules
        return try jsonResponse(OrderList(orders: page.items.map { OrderDTO($0, rules: rules) }, nextCursor: page.nextCursor))
    }

    @Sendable func one(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let id = try req.portfolioID()
        let order = try await req.bullpen.store.order(try Self.orderID(req), in: id, owner: caller.user)
        var dto = OrderDTO(order, rules: try await req.bullpen.store.portfolioForPricing(id, owner: caller.user).rules)
        dto.history = try await req.bullpen.store.orderEvents(order).map(OrderEventDTO.init)
        return try jsonResponse(dto)
    }

    /// Cancels a working order: 200 with the order as cancelled; 409 `order_not_open` when it
    /// already filled, expired or was cancelled (a cancel racing a fill has exactly one outcome).
    @Sendable func cancel(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let id = try req.portfolioID(), orderID = try Self.orderID(req)
        let order = try await req.bullpen.store.order(orderID, in: id, owner: caller.user)
        guard order.status.isOpen else { throw StoreError.orderNotOpen(status: order.status.rawValue) }
        do {
            let cancelled = try await req.bullpen.store.cancelOrder(orderID, in: id, owner: caller.user)
            return try jsonResponse(OrderDTO(cancelled))
        } catch StoreError.orderNotOpen {
            let now = try await req.bullpen.store.order(orderID, in: id, owner: caller.user)
            throw StoreError.orderNotOpen(status: now.status.rawValue)
        }
    }

    /// Replaces a working order: a new order with the changed terms, linked to the old one (now
    /// `replaced`), as Alpaca does.
    @Sendable func replace(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let id = try req.portfolioID(), orderID = try Self.orderID(req)
        let body = try req.decodeJSON(ReplaceOrderRequest.self)
        let old = try await req.bullpen.store.order(orderID, in: id, owner: caller.user)
        guard old.status.isOpen else { throw StoreError.orderNotOpen(status: old.status.rawValue) }
        let request = try Self.orderRequest(Self.merged(old, with: body))
        let (replaced, new) = try await req.bullpen.portfolios.replaceOrder(orderID, with: request, in: id, owner: caller.user)
        let rules = try await req.bullpen.store.portfolioForPricing(id, owner: caller.user).rules
        return try jsonResponse(ReplacedOrderDTO(replaced: OrderDTO(replaced), order: OrderDTO(new, rules: rules)))
    }

    /// A working order's terms with the changes of a replace request: what is not given stays.
    static func merged(_ old: OrderRecord, with body: ReplaceOrderRequest) -> PlaceOrderRequest {
        var merged = PlaceOrderRequest(symbol: old.symbol.rawValue, side: old.side.rawValue,
                                       quantity: body.quantity ?? (old.quantity - old.filledQuantity).wire, type: old.type.rawValue)
        merged.timeInForce = body.timeInForce ?? old.terms.timeInForce.rawValue
        merged.limitPrice = body.limitPrice ?? old.terms.limit?.decimalString
        merged.stopPrice = body.stopPrice ?? old.terms.stop?.decimalString
        if body.trailPrice != nil || body.trailPercent != nil {
            merged.trailPrice = body.trailPrice
            merged.trailPercent = body.trailPercent
        } else {
            switch old.terms.trail {
            case .price(let amount)?: merged.trailPrice = amount.decimalString
            case .percent(let basisPoints)?: merged.trailPercent = FixedPoint.format(basisPoints, scale: 2)
            case nil: break
            }
        }
        return merged
    }

    /// Achievements and notifications for an executed order, checked beside the answer, not before it.
    static func announce(_ executed: OrderRecord, book: Book, user: UserID, req: Request) {
        let notifier = req.bullpen.notifier, marketData = req.bullpen.marketData
        req.bullpen.background.run { await notifier.traded(executed, book: book, user: user, marketData: marketData) }
    }

    static func orderID(_ req: Request) throws -> OrderID {
        guard let orderID = req.parameters.get("orderId").flatMap(OrderID.init) else { throw APIError.notFound("Order") }
        return orderID
    }

    // MARK: Parsing

    static func orderRequest(_ body: PlaceOrderRequest) throws -> OrderRequest {
        guard let symbol = Symbol(body.symbol) else {
            throw APIError.validation("'\(body.symbol)' is not a ticker symbol nor an option contract's OCC symbol.")
        }
        if let instrument = body.instrument {
            guard let kind = InstrumentKind(rawValue: instrument) else {
                throw APIError.validation("instrument must be stock or option.")
            }
            guard kind == symbol.instrument else {
                throw APIError.validation(kind == .option
                    ? "An option order's symbol is the contract's OCC symbol (AAPL  260320C00250000), not '\(body.symbol)'."
                    : "'\(body.symbol)' is an option contract: its instrument is option.")
            }
        }
        guard let side = OrderSide(rawValue: body.side) else {
            throw APIError.validation("side must be buy or sell.")
        }
        guard let type = OrderType(rawValue: body.type ?? "market") else {
            throw APIError.validation("type must be market, limit, stop, stop_limit or trailing_stop.")
        }
        guard let timeInForce = TimeInForce(rawValue: body.timeInForce ?? "day") else {
            throw APIError.validation("timeInForce must be day, gtc, ioc, fok, opg or cls.")
        }
        if let id = body.clientOrderId, !(1...64).contains(id.unicodeScalars.count) {   // code points, as the contract counts
            throw APIError.validation("clientOrderId must be 1 to 64 characters.")
        }
        func price(_ text: String?, _ field: String) throws -> Price? {
            guard let text else { return nil }
            guard let price = Price(parsing: text), price.ticks > 0, price.ticks <= 1_000_000 * 10_000 else {
                throw APIError.validation("\(field) must be a price in dollars above zero with at most four decimals, like \"180.50\".")
            }
            return price
        }
        var terms = OrderTerms(type: type, timeInForce: timeInForce, limit: try price(body.limitPrice, "limitPrice"),
                               stop: try price(body.stopPrice, "stopPrice"))
        switch (body.trailPrice, body.trailPercent) {
        case (let amount?, nil): terms.trail = .price(try price(amount, "trailPrice")!)
        case (nil, let percent?):
            guard let parsed = Percent(parsing: percent), parsed.hundredths > 0, parsed.hundredths <= 5_000 else {
                throw APIError.validation("trailPercent must be a percent above 0 and at most 50, like \"5\" or \"2.5\".")
            }
            terms.trail = .percent(basisPoints: parsed.hundredths)
        case (_?, _?): throw APIError.validation("Give either trailPrice or trailPercent, not both.")
        case (nil, nil): break
        }
        if let problem = terms.problem { throw APIError.validation(problem) }
        switch (body.quantity, body.notional) {
        case (let quantity?, nil):
            return OrderRequest(symbol: symbol, side: side, quantity: try Self.quantity(quantity), terms: terms,
                                clientOrderID: body.clientOrderId)
        case (nil, let text?):
            guard let amount = Money(parsing: text), amount > .zero, amount <= Money(dollars: 100_000_000) else {
                throw APIError.validation("notional must be an amount in dollars above zero, at most 100000000, like \"250.00\".")
            }
            guard type == .market || type == .limit, !symbol.isOption else {
                throw APIError.validation("An order by amount (notional) is a market or limit order for shares or coins.")
            }
            return OrderRequest(symbol: symbol, side: side, notional: amount, terms: terms, clientOrderID: body.clientOrderId)
        case (_?, _?): throw APIError.validation("Give either quantity or notional, not both.")
        case (nil, nil): throw APIError.validation("Give a quantity (shares) or a notional (dollars).")
        }
    }

    /// The request's `Idempotency-Key` with what identifies the request: the portfolio and the
    /// canonical body.
    static func idempotencyClaim(_ req: Request, body: PlaceOrderRequest, portfolio: PortfolioID) throws -> IdempotencyClaim? {
        guard let key = req.headers.first(name: "Idempotency-Key") else { return nil }
        guard (1...255).contains(key.count) else {
            throw APIError.validation("Idempotency-Key must be 1 to 255 characters.")
        }
        var canonical = Data("POST /portfolios/\(portfolio)/orders\n".utf8)
        canonical.append(try APIContract.makeEncoder().encode(body))
        return IdempotencyClaim(key: key, requestHash: SHA256.hash(data: canonical).hex)
    }

    /// What a retry gets when its key was stored by a version that kept the whole response.
    static func replay(_ remembered: IdempotentResult) -> Response {
        var headers = HTTPHeaders()
        headers.contentType = .json
        return Response(status: HTTPResponseStatus(statusCode: remembered.outcome), headers: headers,
                        body: .init(string: remembered.payload))
    }
}
