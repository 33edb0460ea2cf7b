import BullpenAPI
import BullpenCore
import BullpenStore
import Foundation
import Vapor

/// Named watchlists per user: `GET/POST /api/v1/watchlists`, `DELETE /api/v1/watchlists/{id}`,
/// `POST/DELETE /api/v1/watchlists/{id}/symbols/{symbol}`.
struct WatchlistRoutes: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        let lists = routes.grouped("watchlists")
        lists.get(use: list)
        lists.post(use: create)
        lists.delete(":id", use: delete)
        lists.post(":id", "symbols", ":symbol", use: add)
        lists.delete(":id", "symbols", ":symbol", use: remove)
    }

    @Sendable func list(req: Request) async throws -> Response {
        let caller = try await req.caller()
        return try jsonResponse(WatchlistList(watchlists: try await req.bullpen.store.watchlists(owner: caller.user).map(WatchlistDTO.init)))
    }

    @Sendable func create(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let name = try Names.validate(try req.decodeJSON(CreateWatchlistRequest.self).name, of: "Watchlist")
        return try jsonResponse(WatchlistDTO(try await req.bullpen.store.createWatchlist(owner: caller.user, name: name)), status: .created)
    }

    @Sendable func delete(req: Request) async throws -> Response {
        let caller = try await req.caller()
        try await req.bullpen.store.deleteWatchlist(try Self.id(req), owner: caller.user)
        return Response(status: .noContent)
    }

    @Sendable func add(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let id = try Self.id(req)
        _ = try await req.bullpen.store.watchlist(id, owner: caller.user)
        let symbol = try req.symbolParameter()
        guard try await req.bullpen.requireMarketData().asset(symbol) != nil else { throw APIError.unknownSymbol(symbol.rawValue) }
        return try jsonResponse(WatchlistDTO(try await req.bullpen.store.addToWatchlist(id, symbol: symbol, owner: caller.user)))
    }

    @Sendable func remove(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let symbol = try req.symbolParameter()
        return try jsonResponse(WatchlistDTO(try await req.bullpen.store.removeFromWatchlist(try Self.id(req), symbol: symbol, owner: caller.user)))
    }

    static func id(_ req: Request, _ name: String = "id") throws -> UUID {
        guard let id = req.parameters.get(name).flatMap(UUID.init(uuidString:)) else { throw APIError.notFound("Watchlist") }
        return id
    }
}
