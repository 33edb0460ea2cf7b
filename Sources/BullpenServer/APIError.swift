import BullpenAPI
import BullpenCore
import BullpenStore
import Foundation
import Vapor

/// An error as the API reports it: HTTP status, stable code, human message, optional headers.
/// Every error the app throws is mapped to one of these in ``APIError/init(_:)``, the one place
/// where domain errors meet HTTP.
struct APIError: Error, Sendable {
    var status: HTTPResponseStatus
    var code: String
    var message: String
    var headers: HTTPHeaders = [:]

    init(_ status: HTTPResponseStatus, _ code: String, _ message: String, headers: HTTPHeaders = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }

    static func validation(_ message: String) -> APIError { APIError(.badRequest, "validation_failed", message) }
    static let unauthorized = APIError(.unauthorized, "unauthorized", "Log in to do this: the access token is missing, invalid or expired.")
    static let marketDataUnavailable = APIError(.serviceUnavailable, OrderRejection.marketDataUnavailable.code,
                                                OrderRejection.marketDataUnavailable.message)

    /// Maps any error to the API's view of it. Unknown errors become a 500 without details.
    init(_ error: any Error) {
        switch error {
        case let error as APIError:
            self = error
        case let rejection as OrderRejection:
            let status: HTTPResponseStatus = rejection == .marketDataUnavailable ? .serviceUnavailable : .unprocessableEntity
            self.init(status, rejection.code, rejection.message)
        case let problem as CredentialProblem:
            self.init(.unprocessableEntity, problem.code, problem.message)
        case let error as StoreError:
            let status: HTTPResponseStatus = switch error {
            case .usernameTaken, .portfolioNameTaken, .tooManyPortfolios, .duplicateClientOrderID, .idempotencyKeyReused,
                 .watchlistNameTaken, .tooManyWatchlists, .watchlistFull: .conflict
            case .notFound: .notFound
            case .invalidRefreshToken, .refreshTokenReused: .unauthorized
            case .invalidCursor: .badRequest
            case .contention, .unavailable: .serviceUnavailable
            }
            self.init(status, error.code, error.message)
        case let error as DecodingError:
            self.init(.badRequest, "validation_failed", APIError.describe(error))
        case let abort as any AbortError:
            self.init(abort.status, APIError.code(for: abort.status), APIError.message(for: abort))
            self.headers = abort.headers
        default:
            self.init(.internalServerError, "internal_error", "Something went wrong on our side. It has been logged.")
        }
    }

    private static func code(for status: HTTPResponseStatus) -> String {
        switch status {
        case .notFound: "not_found"
        case .payloadTooLarge: "payload_too_large"
        case .badRequest: "bad_request"
        case .methodNotAllowed: "method_not_allowed"
        case .unsupportedMediaType: "unsupported_media_type"
        case .unauthorized: "unauthorized"
        case .tooManyRequests: "rate_limited"
        default: status.code >= 500 ? "internal_error" : "bad_request"
        }
    }

    private static func message(for abort: any AbortError) -> String {
        switch abort.status {
        case .notFound: "There is nothing at this address."
        case .payloadTooLarge: "The request body is larger than 1 MiB."
        case .internalServerError: "Something went wrong on our side. It has been logged."
        default: abort.status.code >= 500 ? "Something went wrong on our side." : abort.reason
        }
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            return keys.isEmpty ? "the body" : "'" + keys.joined(separator: ".") + "'"
        }
        switch error {
        case .keyNotFound(let key, let context):
            let parent = context.codingPath.isEmpty ? "" : " in \(path(context))"
            return "The field '\(key.stringValue)' is required\(parent)."
        case .typeMismatch(let type, let context):
            return "\(path(context)) must be \(describeType(type))."
        case .valueNotFound(let type, let context):
            return "\(path(context)) must be \(describeType(type)), not null."
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "The body is not valid JSON." : "\(path(context)) is not valid."
        @unknown default:
            return "The body could not be read."
        }
    }

    private static func describeType(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type, is Int64.Type: "a whole number"
        case is Bool.Type: "true or false"
        default: "of another type"
        }
    }

    /// The response for this error: the one envelope.
    func response() -> Response {
        var headers = self.headers
        headers.replaceOrAdd(name: .contentType, value: "application/json; charset=utf-8")
        let body = (try? APIContract.makeEncoder().encode(ErrorEnvelope(code: code, message: message))) ?? Data()
        return Response(status: status, headers: headers, body: .init(data: body))
    }
}
