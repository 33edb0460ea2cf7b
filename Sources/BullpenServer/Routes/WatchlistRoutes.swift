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
        let body = try req.decodeJSON(CreateWatchlistRequest.self, allowedKeys: ["name"])
        let name = body.name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...50).contains(name.count) else {
            throw APIError(.unprocessableEntity, "invalid_name", "Watchlist names are 1 to 50 characters.")
        }
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
        let text = req.parameters.get("symbol") ?? ""
        guard let symbol = Symbol(text), try await req.bullpen.requireMarketData().asset(symbol) != nil else {
            throw APIError(.notFound, "unknown_symbol", "There is no company with the symbol \(text.uppercased()).")
        }
        return try jsonResponse(WatchlistDTO(try await req.bullpen.store.addToWatchlist(id, symbol: symbol, owner: caller.user)))
    }

    @Sendable func remove(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let text = req.parameters.get("symbol") ?? ""
        guard let symbol = Symbol(text) else {
            throw APIError(.notFound, "unknown_symbol", "There is no company with the symbol \(text.uppercased()).")
        }
        return try jsonResponse(WatchlistDTO(try await req.bullpen.store.removeFromWatchlist(try Self.id(req), symbol: symbol, owner: caller.user)))
    }

    static func id(_ req: Request) throws -> UUID {
        guard let id = req.parameters.get("id").flatMap(UUID.init(uuidString:)) else { throw StoreError.notFound("Watchlist") }
        return id
    }
}

extension WatchlistDTO {
    init(_ list: WatchlistRecord) {
        self.init(id: list.id.uuidString.lowercased(), name: list.name, symbols: list.symbols.map(\.rawValue), createdAt: list.createdAt)
    }
}
