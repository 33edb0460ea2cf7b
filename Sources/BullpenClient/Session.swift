import Foundation
import HTTPTypes
import OpenAPIRuntime

/// The tokens of one logged-in session, and the one refresh in flight.
///
/// Refresh tokens work once: two calls that found the access token expired at the same moment must
/// share one refresh, or the second would present a used token and end the session.
actor TokenSession {
    private(set) var accessToken: String?
    private(set) var refreshToken: String?
    private var expiresAt: Date?
    private var refreshing: Task<String, any Error>?
    private let refresher: @Sendable (String) async throws -> Components.Schemas.Tokens
    private let onChange: (@Sendable (String?) -> Void)?
    /// How many refreshes this session made (tests read it).
    private(set) var refreshCount = 0

    init(refreshToken: String?, onChange: (@Sendable (String?) -> Void)?,
         refresher: @escaping @Sendable (String) async throws -> Components.Schemas.Tokens) {
        self.refreshToken = refreshToken
        self.onChange = onChange
        self.refresher = refresher
    }

    var isLoggedIn: Bool { accessToken != nil || refreshToken != nil }

    func store(_ tokens: Components.Schemas.Tokens) {
        accessToken = tokens.accessToken
        // A token is renewed a little before the server would refuse it: a fifth of its life, at most 5 s.
        let margin = min(5, Double(tokens.expiresIn) / 5)
        expiresAt = Date().addingTimeInterval(Double(tokens.expiresIn) - margin)
        if let refresh = tokens.refreshToken {
            refreshToken = refresh
            onChange?(refresh)
        }
    }

    /// Moves the local idea of when the access token expires (tests: to reach the renewal paths
    /// without waiting, or to send a token the server will refuse).
    func setLocalExpiry(_ date: Date) { expiresAt = date }

    private func refreshed(_ tokens: Components.Schemas.Tokens) {
        refreshCount += 1
        store(tokens)
    }

    func clear() {
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
        let task = Task<String, any Error> {
            let tokens = try await bullpenCall { try await refresher(refreshToken) }
            self.refreshed(tokens)
            return tokens.accessToken
        }
        refreshing = task
        defer { refreshing = nil }
        do {
            return try await task.value
        } catch let error as BullpenError where error.needsLogin {
            clear()
            throw error
        }
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
