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
        let cookie = try RefreshCookie.requested(req)
        let key = try AccountRules.usernameKey(credentials.username)
        try AccountRules.validatePassword(credentials.password, username: credentials.username)
        if let wait = try await req.bullpen.registrations.take(req.clientAddress) {
            throw APIError(.rateLimited, "Too many accounts were created from this address. Try again in \(wait) seconds.",
                           headers: ["Retry-After": String(wait)])
        }
        let hash = try await req.bullpen.hasher.hash(credentials.password)
        let user = try await req.bullpen.store.createUser(username: credentials.username, usernameKey: key, passwordHash: hash)
        await Self.signedIn(user.id, req: req)
        return try await startSession(for: user, req: req, cookie: cookie, status: .created)
    }

    @Sendable func login(req: Request) async throws -> Response {
        let credentials = try req.decodeJSON(Credentials.self)
        let cookie = try RefreshCookie.requested(req)
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
        await Self.signedIn(user.id, req: req)
        return try await startSession(for: user, req: req, cookie: cookie)
    }

    /// The refresh token comes in the body or, with `X-Refresh-Cookie: 1` and no body, as the
    /// cookie; the next one goes back the same way.
    @Sendable func refresh(req: Request) async throws -> Response {
        let cookie = try RefreshCookie.requested(req)
        let presented: String
        if (req.body.data?.readableBytes ?? 0) == 0 {
            // No body: the cookie, asked for by the header (a page on another site cannot send it).
            guard cookie else {
                throw APIError(.invalidRefreshToken, "No refresh token: send it in the body, or as the cookie with X-Refresh-Cookie: 1.")
            }
            guard let token = req.cookies[RefreshCookie.name]?.string, !token.isEmpty else {
                throw APIError(.invalidRefreshToken, "No session cookie came with the request. Log in again.")
            }
            presented = token
        } else {
            presented = try req.decodeJSON(RefreshRequest.self).refreshToken
        }
        let next = RefreshTokens.generate()
        let (userID, session) = try await req.bullpen.store.rotateRefreshToken(
            presentedHash: RefreshTokens.hash(presented), newHash: RefreshTokens.hash(next))
        guard let user = try await req.bullpen.store.user(id: userID) else { throw APIError(.invalidRefreshToken, StoreError.invalidRefreshToken.message) }
        // A player who stays signed in (the app refreshes its token) comes back day after day too.
        await Self.signedIn(user.id, req: req)
        return try respond(user: user, session: session, refresh: next, req: req, cookie: cookie)
    }

    /// Counts the day towards the player's sign-in streak (UTC days) and checks the streak's
    /// achievements. A failure here never fails the sign-in.
    static func signedIn(_ user: UserID, req: Request) async {
        do {
            let streak = try await req.bullpen.store.recordSignIn(user, on: SessionDate(req.bullpen.time.now()))
            await req.bullpen.notifier.record(.signedIn(streak: streak), for: user)
        } catch {
            req.logger.warning("sign-in streak not counted", metadata: ["error": "\(error)"])
        }
    }

    /// Ends the caller's session: its refresh token and every access token of it stop working.
    /// The web app's refresh cookie is cleared.
    @Sendable func logout(req: Request) async throws -> Response {
        let caller = try await req.caller()
        try await req.bullpen.store.revokeSession(caller.session, reason: "logout")
        let response = Response(status: .noContent)
        RefreshCookie.clear(on: response, req: req)
        return response
    }

    @Sendable func me(req: Request) async throws -> Response {
        let caller = try await req.caller()
        guard let user = try await req.bullpen.store.user(id: caller.user) else { throw APIError.unauthorized }
        return try jsonResponse(UserDTO(user))
    }

    private func startSession(for user: UserRecord, req: Request, cookie: Bool, status: HTTPStatus = .ok) async throws -> Response {
        let refresh = RefreshTokens.generate()
        let session = try await req.bullpen.store.createSession(for: user.id, refreshTokenHash: RefreshTokens.hash(refresh))
        return try respond(user: user, session: session, refresh: refresh, req: req, cookie: cookie, status: status)
    }

    /// The tokens: both in the body, or (`cookie`) the access token in the body and the refresh
    /// token in an HttpOnly cookie only, where no script of the page can read it.
    private func respond(user: UserRecord, session: BullpenCore.SessionID, refresh: String, req: Request, cookie: Bool,
                         status: HTTPStatus = .ok) throws -> Response {
        let tokens = TokensDTO(accessToken: req.bullpen.tokens.issue(user: user.id, session: session),
                               refreshToken: cookie ? nil : refresh, expiresIn: Int(req.bullpen.tokens.lifetime))
        let response = try jsonResponse(AuthResponse(user: UserDTO(user), tokens: tokens), status: status)
        if cookie { RefreshCookie.set(refresh, on: response, req: req) }
        return response
    }
}

/// The web app keeps its access token in memory only and its refresh token in a cookie that no
/// script can read (`HttpOnly`), that the browser sends to the auth routes only (`Path`), never
/// from another site (`SameSite=Strict`), and only over TLS when the site is served over TLS
/// (`Secure`). A client asks for it with `X-Refresh-Cookie: 1` on register, login and refresh (a
/// header a page on another site cannot send without the CORS preflight it would be refused);
/// other clients keep both tokens in the body.
enum RefreshCookie {
    static let name = "bullpen_refresh"
    static let header = "X-Refresh-Cookie"
    static let path = "/api/v1/auth"
    /// Renewed with each refresh; sessions themselves end by logout or revocation.
    static let maxAge = 30 * 24 * 3600

    static func requested(_ req: Request) throws -> Bool {
        let values = req.headers[header]
        guard !values.isEmpty else { return false }
        guard values == ["1"] else {
            throw APIError.validation("\(header) is 1 (the refresh token in a cookie) or left out.")
        }
        return true
    }

    static func set(_ token: String, on response: Response, req: Request) {
        response.headers.add(name: .setCookie, value: attributes("\(name)=\(token)", maxAge: maxAge, req: req))
    }

    static func clear(on response: Response, req: Request) {
        response.headers.add(name: .setCookie, value: attributes("\(name)=", maxAge: 0, req: req))
    }

    private static func attributes(_ pair: String, maxAge: Int, req: Request) -> String {
        "\(pair); Path=\(path); Max-Age=\(maxAge); HttpOnly; SameSite=Strict" + (req.cameOverTLS ? "; Secure" : "")
    }
}
