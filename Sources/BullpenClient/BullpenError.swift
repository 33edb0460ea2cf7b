import Foundation

/// Everything a ``BullpenClient`` call can fail with.
///
/// The server answers every refusal with a stable error ``Code`` and a human message; switch on the
/// code, show the message.
///
/// ```swift
/// do {
///     try await client.placeOrder(.buy("AAPL", 10), in: portfolio.id)
/// } catch let error as BullpenError where error.code == .insufficientFunds {
///     print(error.message)
/// }
/// ```
public enum BullpenError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The server refused the request: its HTTP status, its error code and message, and for a 429 or 503
    /// the seconds it asked to wait.
    case api(status: Int, code: Code, message: String, retryAfter: Int?)
    /// The server could not be reached (refused, timed out, no route): the transport's description.
    case cannotConnect(String)
    /// The call needs a logged-in session and there is none (or it ended).
    case notLoggedIn
    /// The server's answer was not what the contract promises.
    case invalidResponse(String)

    /// A stable error code from the API contract's `ErrorCode` list.
    public struct Code: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
        /// The code as the API writes it, e.g. `insufficient_funds`.
        public let rawValue: String
        /// A code from its API spelling.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// A code from a string literal.
        public init(stringLiteral value: String) { self.rawValue = value }
        /// The code as the API writes it.
        public var description: String { rawValue }

        /// 400: a field or parameter is malformed or unknown.
        public static let validationFailed: Code = "validation_failed"
        /// 400: a query parameter the route does not take.
        public static let unknownParameter: Code = "unknown_parameter"
        /// 401: no valid access token.
        public static let unauthorized: Code = "unauthorized"
        /// 401: wrong username or password.
        public static let invalidCredentials: Code = "invalid_credentials"
        /// 401: the refresh token is unknown or expired.
        public static let invalidRefreshToken: Code = "invalid_refresh_token"
        /// 401: a refresh token was used twice; the session is over.
        public static let refreshTokenReused: Code = "refresh_token_reused"
        /// 404: nothing there (or it belongs to someone else).
        public static let notFound: Code = "not_found"
        /// 404: no company trades under that symbol.
        public static let unknownSymbol: Code = "unknown_symbol"
        /// 409: the username is taken.
        public static let usernameTaken: Code = "username_taken"
        /// 409: the order is no longer working.
        public static let orderNotOpen: Code = "order_not_open"
        /// 409: the portfolio is not a replay.
        public static let notReplay: Code = "not_replay"
        /// 409: the replay's clock stands on the data's last day.
        public static let endOfData: Code = "end_of_data"
        /// 422: the password is too weak.
        public static let weakPassword: Code = "weak_password"
        /// 422: not enough cash for the order.
        public static let insufficientFunds: Code = "insufficient_funds"
        /// 422: not enough shares to sell.
        public static let insufficientShares: Code = "insufficient_shares"
        /// 422: the quantity is zero, negative or too large.
        public static let quantityOutOfRange: Code = "quantity_out_of_range"
        /// 422: the market is closed and the portfolio trades in market hours only.
        public static let marketClosed: Code = "market_closed"
        /// 429: too many failed logins; wait `retryAfter` seconds.
        public static let tooManyAttempts: Code = "too_many_attempts"
        /// 429: too many requests; wait `retryAfter` seconds.
        public static let rateLimited: Code = "rate_limited"
        /// 503: the server is busy; try again after `retryAfter` seconds.
        public static let busy: Code = "busy"
    }

    /// The API's error code, for a refusal.
    public var code: Code? {
        if case .api(_, let code, _, _) = self { return code }
        return nil
    }

    /// The HTTP status, for a refusal.
    public var status: Int? {
        if case .api(let status, _, _, _) = self { return status }
        return nil
    }

    /// A sentence for a person.
    public var message: String {
        switch self {
        case .api(_, _, let message, _): message
        case .cannotConnect(let reason): "Cannot reach the server: \(reason)"
        case .notLoggedIn: "Not logged in."
        case .invalidResponse(let reason): "The server's answer was not understood: \(reason)"
        }
    }

    /// True when the session is gone (no token, or the server no longer accepts it): log in again.
    public var needsLogin: Bool {
        switch self {
        case .notLoggedIn: true
        case .api(let status, let code, _, _):
            status == 401 && code != .invalidCredentials
        default: false
        }
    }

    /// The code and the message.
    public var description: String {
        if case .api(let status, let code, let message, _) = self { return "\(code) (\(status)): \(message)" }
        return message
    }

    /// The message, for `localizedDescription`.
    public var errorDescription: String? { message }
}
