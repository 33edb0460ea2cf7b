import BullpenCore
import BullpenStore
import Vapor

/// Who is calling: the user and the session of a verified access token.
struct Caller: Sendable {
    let user: UserID
    let session: BullpenCore.SessionID
}

extension Request {
    private struct CallerKey: StorageKey { typealias Value = Caller }

    /// The authenticated caller; 401 when the request has no valid access token or its session
    /// was ended (logout, refresh-token reuse, password change).
    func caller() async throws -> Caller {
        if let caller = storage[CallerKey.self] { return caller }
        guard let token = bearerToken else { throw APIError.unauthorized }
        let caller = try await caller(token: token)
        storage[CallerKey.self] = caller
        logger[metadataKey: "user"] = .string(caller.user.description)
        return caller
    }

    /// Whom an access token speaks for, if it is valid and its session still active.
    func caller(token: String) async throws -> Caller {
        guard let identity = try? bullpen.tokens.verify(token),
              try await bullpen.store.activeSessionOwner(identity.session) == identity.user
        else { throw APIError.unauthorized }
        return Caller(user: identity.user, session: identity.session)
    }

    /// The token of an `Authorization: Bearer ...` header.
    private var bearerToken: String? {
        guard let value = headers.first(name: .authorization), value.utf8.count > 7 else { return nil }
        let scheme = value.prefix(7)
        guard scheme.lowercased() == "bearer " else { return nil }
        let token = value.utf8.dropFirst(7).drop { $0 == UInt8(ascii: " ") }
        return token.isEmpty ? nil : String(Substring(token))
    }
}
