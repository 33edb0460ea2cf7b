import BullpenAPI
import BullpenCore
import BullpenStore
import Crypto
import Foundation
import Vapor

/// Who calls the Alpaca-compatible API: the owner and the one portfolio of an API key.
struct KeyCaller: Sendable {
    let key: APIKeyRecord
    var user: UserID { key.ownerID }
    var portfolio: PortfolioID { key.portfolioID }
}

extension Request {
    private struct KeyCallerKey: StorageKey { typealias Value = KeyCaller }

    /// The caller of a request signed with `APCA-API-KEY-ID` and `APCA-API-SECRET-KEY`; 401 when
    /// either is missing, the key does not exist or was revoked, or the secret is wrong.
    func keyCaller() async throws -> KeyCaller {
        if let caller = storage[KeyCallerKey.self] { return caller }
        guard let keyID = headers.first(name: "APCA-API-KEY-ID"), let secret = headers.first(name: "APCA-API-SECRET-KEY"),
              (1...64).contains(keyID.utf8.count), (1...128).contains(secret.utf8.count)
        else { throw APIError(.unauthorized, "Send the key's id in APCA-API-KEY-ID and its secret in APCA-API-SECRET-KEY.") }
        guard let (key, stored) = try await bullpen.store.useAPIKey(keyID),
              Self.sameDigest(APIKeySecrets.hash(secret), stored)
        else { throw APIError(.unauthorized, "The API key is unknown or revoked, or its secret is wrong.") }
        try? await bullpen.store.touchAPIKey(key)
        let caller = KeyCaller(key: key)
        storage[KeyCallerKey.self] = caller
        logger[metadataKey: "user"] = .string(caller.user.description)
        return caller
    }

    /// A caller whose key may trade; 403 `key_read_only` for a read-only key.
    func tradingKeyCaller() async throws -> KeyCaller {
        let caller = try await keyCaller()
        guard caller.key.scope == .trading else {
            throw APIError(.keyReadOnly, "This API key is read-only: make a trading key to place or change orders.")
        }
        return caller
    }

    /// Compares two hex digests without stopping at the first difference.
    private static func sameDigest(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }
}
