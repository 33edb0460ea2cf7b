import BullpenCore
import FluentKit
import FluentSQL
import Foundation

struct APIKeyRow: Codable, Sendable {
    var id: UUID
    var userId: UUID
    var portfolioId: UUID
    var keyId: String
    var secretHash: String
    var scope: String
    var name: String
    var createdAt: Date
    var lastUsedAt: Date?
    var revokedAt: Date?

    func record() throws -> APIKeyRecord {
        try StoreError.decoding("api_keys", id) {
            APIKeyScope(rawValue: scope).map { scope in
                APIKeyRecord(id: id, ownerID: UserID(userId), portfolioID: PortfolioID(portfolioId), keyID: keyId, name: name,
                             scope: scope, createdAt: createdAt, lastUsedAt: lastUsedAt)
            }
        }
    }
}

extension BullpenStore {
    public static let maxAPIKeysPerUser = 25
    /// How stale a key's last-used time may get before a use writes it again (one write a minute
    /// at most per key, not one per request).
    public static let apiKeyUseResolution: TimeInterval = 60

    /// Stores a new key for one of `owner`'s portfolios. The caller makes the key id and the
    /// secret and gives only the secret's hash.
    public func createAPIKey(owner: UserID, portfolio: PortfolioID, name: String, scope: APIKeyScope,
                             keyID: String, secretHash: String) async throws -> APIKeyRecord {
        let row = APIKeyRow(id: ids.makeUUID(), userId: owner.uuid, portfolioId: portfolio.uuid, keyId: keyID,
                            secretHash: secretHash, scope: scope.rawValue, name: name, createdAt: time.now())
        try await transaction { db in
            _ = try await self.portfolioRow(portfolio, owner: owner, on: db)
            let count = try await self.sql(db).select().column(SQLFunction("COUNT", args: SQLLiteral.all), as: "n")
                .from("api_keys").where("user_id", .equal, owner.uuid).where("revoked_at", .is, SQLLiteral.null)
                .first()?.decode(column: "n", as: Int.self) ?? 0
            guard count < Self.maxAPIKeysPerUser else { throw StoreError.tooManyKeys(limit: Self.maxAPIKeysPerUser) }
            try await self.sql(db).insert(into: "api_keys").model(row, with: Self.rowEncoder).run()
        }
        return try row.record()
    }

    /// The owner's keys that still work, newest first.
    public func apiKeys(owner: UserID) async throws -> [APIKeyRecord] {
        try await sql(db).select().column("*").from("api_keys").where("user_id", .equal, owner.uuid)
            .where("revoked_at", .is, SQLLiteral.null).orderBy("created_at", .descending).orderBy("key_id")
            .all(decoding: APIKeyRow.self, with: Self.rowDecoder).map { try $0.record() }
    }

    /// Revokes a key: from now on it authenticates nothing. Someone else's key, or one already
    /// revoked, is not found.
    public func revokeAPIKey(_ id: UUID, owner: UserID) async throws {
        let now = time.now()
        let changed = try await transaction { db -> Bool in
            let sql = self.sql(db)
            guard try await sql.select().column("id").from("api_keys").where("id", .equal, id).where("user_id", .equal, owner.uuid)
                .where("revoked_at", .is, SQLLiteral.null).first() != nil else { return false }
            try await sql.update("api_keys").set("revoked_at", to: now).where("id", .equal, id).run()
            return true
        }
        guard changed else { throw StoreError.notFound("API key") }
    }

    /// The key with public id `keyID` and its secret's hash, if it exists and is not revoked; its
    /// last-used time moves to now (at most once a minute).
    public func useAPIKey(_ keyID: String) async throws -> (key: APIKeyRecord, secretHash: String)? {
        guard let row = try await sql(db).select().column("*").from("api_keys").where("key_id", .equal, keyID)
            .where("revoked_at", .is, SQLLiteral.null).first(decoding: APIKeyRow.self, with: Self.rowDecoder)
        else { return nil }
        return (try row.record(), row.secretHash)
    }

    /// Notes that a key was used now (written at most once a minute per key).
    public func touchAPIKey(_ key: APIKeyRecord) async throws {
        let now = time.now()
        if let last = key.lastUsedAt, now.timeIntervalSince(last) < Self.apiKeyUseResolution { return }
        try await sql(writer).update("api_keys").set("last_used_at", to: now).where("id", .equal, key.id).run()
    }
}
