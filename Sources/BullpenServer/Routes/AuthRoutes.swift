import BullpenAPI
import BullpenCore
import BullpenStore
import Vapor

/// Accounts and sessions: register, login, refresh, logout, me.
struct AuthRoutes: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        let auth = routes.grouped("auth")
        auth.post("register", use: register)
        auth.post("login", use: login)
        auth.post("refresh", use: refresh)
        auth.post("logout", use: logout)
        routes.get("me", use: me)
        routes.post("me", "password", use: changePassword)
        routes.delete("me", use: deleteAccount)
    }

    /// Changes the password after checking the current one; every other session ends.
    @Sendable func changePassword(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let body = try req.decodeJSON(ChangePasswordRequest.self)
        guard let user = try await req.bullpen.store.user(id: caller.user) else { throw APIError.unauthorized }
        guard try await req.bullpen.hasher.verify(body.currentPassword, against: user.passwordHash) else {
            throw APIError(.wrongPassword, "The current password is wrong.")
        }
        try AccountRules.validatePassword(body.newPassword, username: user.username)
        let hash = try await req.bullpen.hasher.hash(body.newPassword)
        try await req.bullpen.store.updatePassword(of: user.id, hash: hash, keeping: caller.session)
        return Response(status: .noContent)
    }

    /// Deletes the account and all its data, after the password confirms it.
    @Sendable func deleteAccount(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let body = try req.decodeJSON(DeleteAccountRequest.self)
        guard let user = try await req.bullpen.store.user(id: caller.user) else { throw APIError.unauthorized }
        guard try await req.bullpen.hasher.verify(body.password, against: user.passwordHash) else {
            throw APIError(.wrongPassword, "The password is wrong.")
        }
        try await req.bullpen.store.deleteUser(user.id)
        return Response(status: .noContent)
    }

    @Sendable func register(req: Request) async throws -> Response {
        let credentials = try req.decodeJSON(Credentials.self)
        let key = try AccountRules.usernameKey(credentials.username)
        try AccountRules.validatePassword(credentials.password, username: credentials.username)
        if let wait = try await req.bullpen.registrations.take(req.clientAddress) {
            throw APIError(.rateLimited, "Too many accounts were created from this address. Try again in \(wait) seconds.",
                           headers: ["Retry-After": String(wait)])
        }
        let hash = try await req.bullpen.hasher.hash(credentials.password)
        let user = try await req.bullpen.store.createUser(username: credentials.username, usernameKey: key, passwordHash: hash)
        return try jsonResponse(try await startSession(for: user, req: req), status: .created)
    }

    @Sendable func login(req: Request) async throws -> Response {
        let credentials = try req.decodeJSON(Credentials.self)
        let services = req.bullpen
        let account = credentials.username.lowercased()
        // The try is counted before the password is hashed: guesses sent at once are throttled too.
        let attempt: LoginThrottle.Attempt
        switch try await services.throttle.begin(account: account, address: req.clientAddress) {
        case .wait(let seconds):
            BullpenMetrics.login("throttled")
            throw APIError(.tooManyAttempts, "Too many failed logins. Try again in \(seconds) seconds.",
                           headers: ["Retry-After": String(seconds)])
        case .proceed(let reserved): attempt = reserved
        }
        let verified: Bool
        let user: UserRecord?
        do {
            user = try await services.store.user(usernameKey: account)
            verified = try await services.hasher.verify(credentials.password, against: user?.passwordHash)
        } catch {
            try? await services.throttle.abandoned(attempt)
            BullpenMetrics.login("busy")
            throw error
        }
        guard verified, let user else {
            BullpenMetrics.login("failed")
            throw APIError(.invalidCredentials, "The username or password is wrong.")
        }
        try await services.throttle.succeeded(attempt)
        BullpenMetrics.login("succeeded")
        return try jsonResponse(try await startSession(for: user, req: req))
    }

    @Sendable func refresh(req: Request) async throws -> Response {
        let body = try req.decodeJSON(RefreshRequest.self)
        let next = RefreshTokens.generate()
        let (userID, session) = try await req.bullpen.store.rotateRefreshToken(
            presentedHash: RefreshTokens.hash(body.refreshToken), newHash: RefreshTokens.hash(next))
        guard let user = try await req.bullpen.store.user(id: userID) else { throw APIError(.invalidRefreshToken, StoreError.invalidRefreshToken.message) }
        let tokens = TokensDTO(accessToken: req.bullpen.tokens.issue(user: userID, session: session),
                               refreshToken: next, expiresIn: Int(AccessTokens.lifetime))
        return try jsonResponse(AuthResponse(user: UserDTO(user), tokens: tokens))
    }

    /// Ends the caller's session: its refresh token and every access token of it stop working.
    @Sendable func logout(req: Request) async throws -> Response {
        let caller = try await req.caller()
        try await req.bullpen.store.revokeSession(caller.session, reason: "logout")
        return Response(status: .noContent)
    }

    @Sendable func me(req: Request) async throws -> Response {
        let caller = try await req.caller()
        guard let user = try await req.bullpen.store.user(id: caller.user) else { throw APIError.unauthorized }
        return try jsonResponse(UserDTO(user))
    }

    private func startSession(for user: UserRecord, req: Request) async throws -> AuthResponse {
        let refresh = RefreshTokens.generate()
        let session = try await req.bullpen.store.createSession(for: user.id, refreshTokenHash: RefreshTokens.hash(refresh))
        let tokens = TokensDTO(accessToken: req.bullpen.tokens.issue(user: user.id, session: session),
                               refreshToken: refresh, expiresIn: Int(AccessTokens.lifetime))
        return AuthResponse(user: UserDTO(user), tokens: tokens)
    }
}
