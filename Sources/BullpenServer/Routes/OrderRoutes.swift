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
        BullpenMetrics.order(side: body.side, outcome: "filled")
        var order: OrderDTO
        switch outcome {
        case .executed(let executed, let book):
            order = OrderDTO(executed)
            if let note { order.priceNote = note }
            // Achievements are checked beside the answer, not before it.
            let notifier = req.bullpen.notifier, marketData = req.bullpen.marketData, user = caller.user
            req.bullpen.background.run { await notifier.traded(executed, book: book, user: user, marketData: marketData) }
        case .replayed(let earlier): order = OrderDTO(earlier)
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
        return try jsonResponse(dto)
    }

    @Sendable func list(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let page = try await req.bullpen.store.orders(of: try req.portfolioID(), owner: caller.user,
                                                      limit: try req.pageLimit(), cursor: req.pageCursor)
        return try jsonResponse(OrderList(orders: page.items.map(OrderDTO.init), nextCursor: page.nextCursor))
    }

    @Sendable func one(req: Request) async throws -> Response {
        let caller = try await req.caller()
        guard let orderID = req.parameters.get("orderId").flatMap(OrderID.init) else {
            throw APIError.notFound("Order")
        }
        return try jsonResponse(OrderDTO(try await req.bullpen.store.order(orderID, in: try req.portfolioID(), owner: caller.user)))
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
            throw APIError.validation("type must be market; other order types are not available yet.")
        }
        if let id = body.clientOrderId, !(1...64).contains(id.unicodeScalars.count) {   // code points, as the contract counts
            throw APIError.validation("clientOrderId must be 1 to 64 characters.")
        }
        return OrderRequest(symbol: symbol, side: side, quantity: body.quantity, type: type, clientOrderID: body.clientOrderId)
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
