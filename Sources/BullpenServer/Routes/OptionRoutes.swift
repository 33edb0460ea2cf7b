import BullpenAPI
import BullpenCore
import BullpenMarketData
import BullpenStore
import Foundation
import Vapor

/// Options: chains and contracts (public, as of the live clock or `?asOf=YYYY-MM-DD`), and
/// exercising contracts a portfolio holds.
struct OptionRoutes: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        let options = routes.grouped("options")
        options.get(":symbol", "chain", use: chain)
        options.get("contracts", ":contract", use: contract)
        routes.post("portfolios", ":id", "options", ":contract", "exercise", use: exercise)
        routes.post("portfolios", ":id", "options", ":contract", "exercise", "preview", use: previewExercise)
    }

    @Sendable func chain(req: Request) async throws -> Response {
        let symbol = try req.symbolParameter()
        var expiration: SessionDate?
        if let text = req.query[String.self, at: "expiration"] {
            guard let date = SessionDate(iso: text) else {
                throw APIError(.invalidExpiration, "expiration must be a date (YYYY-MM-DD) from the chain's expirations.")
            }
            expiration = date
        }
        return try jsonResponse(try await req.options().chain(symbol, expiration: expiration, asOf: try req.marketClock()))
    }

    @Sendable func contract(req: Request) async throws -> Response {
        try jsonResponse(try await req.options().contract(try req.contractParameter(), asOf: try req.marketClock()))
    }

    @Sendable func exercise(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let id = try req.portfolioID()
        let symbol = try req.contractParameter()
        let body = try req.decodeJSON(ExerciseRequest.self)
        try await req.bullpen.takeOrder(by: caller.user)
        return try jsonResponse(try await req.options().exercise(symbol, contracts: body.contracts, in: id, owner: caller.user))
    }

    @Sendable func previewExercise(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let id = try req.portfolioID()
        let symbol = try req.contractParameter()
        let body = try req.decodeJSON(ExerciseRequest.self)
        return try jsonResponse(try await req.options().previewExercise(symbol, contracts: body.contracts, in: id, owner: caller.user))
    }
}

extension Request {
    /// The option service; needs market data.
    func options() throws -> OptionService {
        guard let options = try bullpen.requireMarketData() as? OptionMarketData else { throw APIError.marketDataUnavailable }
        return OptionService(store: bullpen.store, options: options, time: bullpen.time)
    }

    /// The `{contract}` of a route: an OCC symbol, padded (`AAPL  260320C00250000`, spaces
    /// percent-encoded) or not.
    func contractParameter() throws -> Symbol {
        let raw = parameters.get("contract") ?? ""
        let text = raw.removingPercentEncoding ?? raw
        guard let symbol = Symbol(text), symbol.isOption else {
            throw APIError(.unknownSymbol, "'\(text)' is not an option contract's OCC symbol (AAPL  260320C00250000, or AAPL260320C00250000).")
        }
        return symbol
    }
}
