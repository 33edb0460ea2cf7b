import Foundation

/// An API key as its owner sees it; `secret` only in the answer that created it.
public struct APIKeyDTO: Codable, Sendable, Hashable {
    public var id: String
    /// The public half, sent as `APCA-API-KEY-ID`.
    public var keyId: String
    public var name: String
    /// `read_only` or `trading`.
    public var scope: String
    public var portfolioId: String
    public var portfolioName: String?
    public var createdAt: Date
    public var lastUsedAt: Date?
    /// The secret, sent as `APCA-API-SECRET-KEY`: shown once, stored only hashed.
    public var secret: String?

    public init(id: String, keyId: String, name: String, scope: String, portfolioId: String, portfolioName: String?,
                createdAt: Date, lastUsedAt: Date?, secret: String? = nil) {
        self.id = id; self.keyId = keyId; self.name = name; self.scope = scope; self.portfolioId = portfolioId
        self.portfolioName = portfolioName; self.createdAt = createdAt; self.lastUsedAt = lastUsedAt; self.secret = secret
    }
}

/// `GET /api/v1/keys`.
public struct APIKeyList: Codable, Sendable, Hashable {
    public var keys: [APIKeyDTO]
    public init(keys: [APIKeyDTO]) { self.keys = keys }
}

/// `POST /api/v1/keys`.
public struct CreateAPIKeyRequest: Codable, Sendable, Hashable, RequestBody {
    public enum CodingKeys: String, CodingKey, CaseIterable { case portfolioId, name, scope }

    public var portfolioId: String
    public var name: String?
    /// `read_only` (the default) or `trading`.
    public var scope: String?
    public init(portfolioId: String, name: String? = nil, scope: String? = nil) {
        self.portfolioId = portfolioId; self.name = name; self.scope = scope
    }
}
