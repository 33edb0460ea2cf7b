import BullpenAPI
import BullpenCore
import BullpenStore
import Crypto
import Foundation
import Vapor

/// API keys for bots: `GET/POST /api/v1/keys`, `DELETE /api/v1/keys/{keyId}`. Managing keys
/// needs a login (a key cannot make keys).
struct APIKeyRoutes: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        let keys = routes.grouped("keys")
        keys.get(use: list)
        keys.post(use: create)
        keys.delete(":keyId", use: revoke)
    }

    @Sendable func list(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let names = Dictionary(try await req.bullpen.store.portfolios(owner: caller.user).map { ($0.id, $0.name) }) { first, _ in first }
        let keys = try await req.bullpen.store.apiKeys(owner: caller.user)
        return try jsonResponse(APIKeyList(keys: keys.map { APIKeyDTO($0, portfolioName: names[$0.portfolioID]) }))
    }

    @Sendable func create(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let body = try req.decodeJSON(CreateAPIKeyRequest.self)
        guard let portfolio = PortfolioID(body.portfolioId) else { throw APIError.notFound("Portfolio") }
        let scope = try body.scope.map { text in
            guard let scope = APIKeyScope(rawValue: text) else { throw APIError.validation("scope must be read_only or trading.") }
            return scope
        } ?? .readOnly
        let name = try body.name.map { try Names.validate($0, of: "Key") } ?? "API key"
        let record = try await req.bullpen.store.portfolio(portfolio, owner: caller.user)
        let made = APIKeySecrets.make()
        let key = try await req.bullpen.store.createAPIKey(owner: caller.user, portfolio: portfolio, name: name, scope: scope,
                                                         keyID: made.keyID, secretHash: APIKeySecrets.hash(made.secret))
        var dto = APIKeyDTO(key, portfolioName: record.name)
        dto.secret = made.secret
        return try jsonResponse(dto, status: .created)
    }

    @Sendable func revoke(req: Request) async throws -> Response {
        let caller = try await req.caller()
        // The key's id, or its public key id (`BK…`, what a bot knows it by): either names it.
        let given = req.parameters.get("keyId") ?? ""
        var id = UUID(uuidString: given)
        if id == nil { id = try await req.bullpen.store.apiKeys(owner: caller.user).first { $0.keyID == given }?.id }
        guard let id else { throw APIError.notFound("API key") }
        try await req.bullpen.store.revokeAPIKey(id, owner: caller.user)
        return Response(status: .noContent)
    }
}

extension APIKeyDTO {
    init(_ key: APIKeyRecord, portfolioName: String?) {
        self.init(id: key.id.uuidString.lowercased(), keyId: key.keyID, name: key.name, scope: key.scope.rawValue,
                  portfolioId: key.portfolioID.description, portfolioName: portfolioName, createdAt: key.createdAt,
                  lastUsedAt: key.lastUsedAt)
    }
}

/// Key ids and secrets: random, from the system's secure generator. A key id is `BK` and 18
/// letters and digits (Alpaca's are 20 characters too); a secret is 40 letters and digits
/// (about 238 bits), kept only as its SHA-256.
enum APIKeySecrets {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
    static let secretAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

    static func make() -> (keyID: String, secret: String) {
        var generator = SystemRandomNumberGenerator()
        let keyID = "BK" + String((0..<18).map { _ in alphabet.randomElement(using: &generator)! })
        let secret = String((0..<40).map { _ in secretAlphabet.randomElement(using: &generator)! })
        return (keyID, secret)
    }

    static func hash(_ secret: String) -> String { SHA256.hash(data: Data(secret.utf8)).hex }
}
