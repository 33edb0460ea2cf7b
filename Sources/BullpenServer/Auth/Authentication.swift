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
        guard let token = headers.bearerAuthorization?.token else { throw APIError.unauthorized }
        let claims: AccessTokens.Claims
        do { claims = try bullpen.tokens.verify(token) } catch { throw APIError.unauthorized }
        guard let user = UserID(claims.sub), let session = BullpenCore.SessionID(claims.sid),
              try await bullpen.store.activeSessionOwner(session) == user
        else { throw APIError.unauthorized }
        let caller = Caller(user: user, session: session)
        storage[CallerKey.self] = caller
        logger[metadataKey: "user"] = .string(user.description)
        return caller
    }
}
