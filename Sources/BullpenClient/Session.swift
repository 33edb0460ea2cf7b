import Foundation
import HTTPTypes
import OpenAPIRuntime

/// A session's tokens, to keep between launches (in the keychain, or a file only its owner reads).
///
/// The refresh token is what matters: with it the client gets new access tokens. Keeping the access
/// token and its expiry too lets the next launch (or another process of the same user) use it
/// without a renewal while it lasts.
public struct SessionTokens: Sendable, Hashable, Codable {
    /// The refresh token (it works once; each renewal gives a new one).
    public var refreshToken: String
    /// The access token, if one is known.
    public var accessToken: String?
    /// When the client will stop using the access token (a little before the server would refuse it).
    public var accessTokenExpires: Date?

    /// Tokens from their parts.
    public init(refreshToken: String, accessToken: String? = nil, accessTokenExpires: Date? = nil) {
        self.refreshToken = refreshToken
        self.accessToken = accessToken
        self.accessTokenExpires = accessTokenExpires
    }
}

/// The tokens of one logged-in session, and the one refresh in flight.
///
/// Refresh tokens work once: two calls that found the access token expired at the same moment must
/// share one refresh, or the second would present a used token and end the session. A login, a
/// logout or a session that ended moves the epoch on: a refresh that was in flight then changes nothing.
actor TokenSession {
    private(set) var accessToken: String?
    private(set) var refreshToken: String?
    private var expiresAt: Date?
    private var refreshing: Task<String, any Error>?
    private var epoch = 0
    private let refresher: @Sendable (String) async throws -> Components.Schemas.Tokens
    private let onChange: (@Sendable (SessionTokens?) -> Void)?
    /// How many refreshes this session made (tests read it).
    private(set) var refreshCount = 0

    init(tokens: SessionTokens?, onChange: (@Sendable (SessionTokens?) -> Void)?,
         refresher: @escaping @Sendable (String) async throws -> Components.Schemas.Tokens) {
        refreshToken = tokens?.refreshToken
        accessToken = tokens?.accessToken
        expiresAt = tokens?.accessTokenExpires
        self.onChange = onChange
        self.refresher = refresher
    }

    var isLoggedIn: Bool { accessToken != nil || refreshToken != nil }

    /// The tokens as they stand, to save.
    var saved: SessionTokens? {
        refreshToken.map { SessionTokens(refreshToken: $0, accessToken: accessToken, accessTokenExpires: expiresAt) }
    }

    /// Tokens of a new session (a login): whatever was in flight for the old one no longer counts.
    func start(_ tokens: Components.Schemas.Tokens) {
        epoch += 1
        store(tokens)
    }

    private func store(_ tokens: Components.Schemas.Tokens) {
        accessToken = tokens.accessToken
        // A token is renewed a little before the server would refuse it: a fifth of its life, at most 5 s.
        let margin = min(5, Double(tokens.expiresIn) / 5)
        expiresAt = Date().addingTimeInterval(Double(tokens.expiresIn) - margin)
        if let refresh = tokens.refreshToken { refreshToken = refresh }
        onChange?(saved)
    }

    /// Moves the local idea of when the access token expires (tests: to reach the renewal paths
    /// without waiting, or to send a token the server will refuse).
    func setLocalExpiry(_ date: Date) { expiresAt = date }

    func clear() {
        epoch += 1
        let had = refreshToken != nil
        accessToken = nil
        refreshToken = nil
        expiresAt = nil
        if had { onChange?(nil) }
    }

    /// An access token that has not expired, refreshed first when it has; nil when logged out.
    func currentToken() async throws -> String? {
        if let token = accessToken, let expiresAt, Date() < expiresAt { return token }
        guard refreshToken != nil else { return accessToken }
        return try await refresh(replacing: accessToken)
    }

    /// Replaces `stale` (the token the server refused or that expired) with a new one. Calls that
    /// come while a refresh is in flight wait for it; a call whose token was already replaced gets
    /// the new one without another refresh.
    func refresh(replacing stale: String?) async throws -> String {
        if let refreshing { return try await refreshing.value }
        if let token = accessToken, token != stale, let expiresAt, Date() < expiresAt { return token }
        guard let refreshToken else { throw BullpenError.notLoggedIn }
        let refresher = self.refresher
        let started = epoch
        let task = Task<String, any Error> {
            do {
                let tokens = try await bullpenCall { try await refresher(refreshToken) }
                // A login or a logout while the refresh was out: the session it renewed is not this one.
                guard self.epoch == started else {
                    guard let current = self.accessToken else { throw BullpenError.notLoggedIn }
                    return current
                }
                self.refreshCount += 1
                self.store(tokens)
                return tokens.accessToken
            } catch let error as BullpenError where error.needsLogin {
                if self.epoch == started { self.clear() }
                throw error
            }
        }
        refreshing = task
        defer { refreshing = nil }
        return try await task.value
    }
}

/// Adds the bearer token to every call but the ones that log in, and on a 401 refreshes the token once
/// and sends the call again (with the same idempotency key: it is a header of the request).
struct AuthMiddleware: ClientMiddleware {
    let session: TokenSession
    static let anonymous: Set<String> = ["login", "register", "refresh", "health", "ready"]

    func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
                   next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)) async throws
        -> (HTTPResponse, HTTPBody?) {
        guard !Self.anonymous.contains(operationID), let token = try await session.currentToken() else {
            return try await next(request, body, baseURL)
        }
        var authorized = request
        authorized.headerFields[.authorization] = "Bearer \(token)"
        let (response, responseBody) = try await next(authorized, body, baseURL)
        guard response.status == .unauthorized, await session.refreshToken != nil else { return (response, responseBody) }
        // Only a token the server no longer takes is renewed; a wrong password (401 too) is answered as is.
        var data = Data()
        if let responseBody { data = try await Data(collecting: responseBody, upTo: 1 << 20) }
        guard ErrorMiddleware.error(status: 401, body: data, retryAfter: nil).code == .unauthorized else {
            return (response, HTTPBody(data))
        }
        let fresh = try await session.refresh(replacing: token)
        authorized.headerFields[.authorization] = "Bearer \(fresh)"
        return try await next(authorized, body, baseURL)
    }
}

/// Sends a call again when the connection failed before an answer came: reads, and writes that carry an
/// idempotency key (the server executes those once however often they arrive).
struct RetryMiddleware: ClientMiddleware {
    var attempts = 3

    func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
                   next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)) async throws
        -> (HTTPResponse, HTTPBody?) {
        let repeatable = request.method == .get || request.headerFields[HTTPField.Name("Idempotency-Key")!] != nil
        var attempt = 1
        while true {
            do {
                return try await next(request, body, baseURL)
            } catch {
                guard repeatable, attempt < attempts, Self.isConnectionFailure(error) else { throw error }
                try await Task.sleep(for: .milliseconds(200 * attempt))
                attempt += 1
            }
        }
    }

    static func isConnectionFailure(_ error: any Error) -> Bool {
        let error = ((error as? ClientError)?.underlyingError ?? error) as NSError
        guard error.domain == NSURLErrorDomain else { return false }
        return [NSURLErrorCannotConnectToHost, NSURLErrorNetworkConnectionLost, NSURLErrorTimedOut,
                NSURLErrorNotConnectedToInternet, NSURLErrorCannotFindHost].contains(error.code)
    }
}

/// Turns every 4xx and 5xx answer into a ``BullpenError`` with the API's code and message.
struct ErrorMiddleware: ClientMiddleware {
    func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
                   next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)) async throws
        -> (HTTPResponse, HTTPBody?) {
        let (response, responseBody) = try await next(request, body, baseURL)
        guard response.status.code >= 400 else { return (response, responseBody) }
        var data = Data()
        if let responseBody { data = try await Data(collecting: responseBody, upTo: 1 << 20) }
        let retryAfter = response.headerFields[.retryAfter].flatMap { Int($0) }
        throw ErrorMiddleware.error(status: response.status.code, body: data, retryAfter: retryAfter)
    }

    static func error(status: Int, body: Data, retryAfter: Int?) -> BullpenError {
        struct Envelope: Decodable {
            struct Detail: Decodable { var code: String; var message: String }
            var error: Detail
        }
        if let envelope = try? JSONDecoder().decode(Envelope.self, from: body) {
            return .api(status: status, code: .init(rawValue: envelope.error.code), message: envelope.error.message,
                        retryAfter: retryAfter)
        }
        return .api(status: status, code: .init(rawValue: "http_\(status)"),
                    message: "The server answered \(status) without an error body.", retryAfter: retryAfter)
    }
}

/// Runs a generated call with its errors as ``BullpenError``.
func bullpenCall<T>(_ body: () async throws -> T) async throws -> T {
    do { return try await body() } catch { throw bullpenError(error) }
}

/// The error a generated call threw, as a ``BullpenError``.
func bullpenError(_ error: any Error) -> any Error {
    var error = error
    if let client = error as? ClientError { error = client.underlyingError }
    if let known = error as? BullpenError { return known }
    if RetryMiddleware.isConnectionFailure(error) || (error as NSError).domain == NSURLErrorDomain {
        return BullpenError.cannotConnect((error as NSError).localizedDescription)
    }
    if error is DecodingError { return BullpenError.invalidResponse(String(describing: error)) }
    if error is CancellationError { return error }
    return BullpenError.invalidResponse(String(describing: error))
}
