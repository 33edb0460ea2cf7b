import BullpenAPI
import BullpenCore
import BullpenStore
import Foundation
import Vapor

/// An error as the API reports it: a stable code (which fixes the HTTP status), a human message
/// and optional headers. Every error the app throws is mapped to one of these in
/// ``APIError/init(_:)``, the one place where domain errors meet HTTP.
struct APIError: Error, Sendable {
    var code: ErrorCode
    var message: String
    var headers: HTTPHeaders = [:]

    init(_ code: ErrorCode, _ message: String, headers: HTTPHeaders = [:]) {
        self.code = code
        self.message = message
        self.headers = headers
    }

    var status: HTTPResponseStatus { HTTPResponseStatus(statusCode: code.httpStatus) }

    static func validation(_ message: String) -> APIError { APIError(.validationFailed, message) }
    static let unauthorized = APIError(.unauthorized, "Log in to do this: the access token is missing, invalid or expired.")
    static let marketDataUnavailable = APIError(OrderRejection.marketDataUnavailable)
    /// A path id that names nothing (or is not an id at all): the same answer as a missing record.
    static func notFound(_ what: String) -> APIError { APIError(.notFound, "\(what) was not found.") }
    static let invalidCursor = APIError(.invalidCursor, "The page cursor is not valid; start from the first page.")
    static func unknownSymbol(_ text: String) -> APIError {
        APIError(.unknownSymbol, "There is no company with the symbol \(text.uppercased()).")
    }

    /// Maps any error to the API's view of it. Unknown errors become a 500 without details.
    init(_ error: any Error) {
        switch error {
        case let error as APIError:
            self = error
        case let rejection as OrderRejection:
            self.init(Self.code(rejection.code), rejection.message)
        case let problem as CredentialProblem:
            self.init(Self.code(problem.code), problem.message)
        case let error as StoreError:
            self.init(Self.code(error.code), error.message)
        case let error as DecodingError:
            self.init(.validationFailed, APIError.describe(error))
        case let abort as any AbortError:
            self.init(Self.code(for: abort.status), APIError.message(for: abort))
            self.headers = abort.headers
        default:
            if let known = StoreError.overloaded(error) ?? StoreError.refusedText(error) {
                self.init(Self.code(known.code), known.message)
            } else {
                self.init(.internalError, "Something went wrong on our side. It has been logged.")
            }
        }
        // A 503 says when to come back.
        if status.code == 503, headers.first(name: "Retry-After") == nil { headers.replaceOrAdd(name: "Retry-After", value: "1") }
    }

    /// The enum case of a domain error's wire code (every one is listed in ``ErrorCode``; the
    /// error-code tests prove it).
    static func code(_ wire: String) -> ErrorCode { ErrorCode(rawValue: wire) ?? .internalError }

    private static func code(for status: HTTPResponseStatus) -> ErrorCode {
        switch status {
        case .notFound: .notFound
        case .payloadTooLarge: .payloadTooLarge
        case .methodNotAllowed: .methodNotAllowed
        case .unsupportedMediaType: .unsupportedMediaType
        case .unauthorized: .unauthorized
        case .tooManyRequests: .rateLimited
        default: status.code >= 500 ? .internalError : .badRequest
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
            if context.debugDescription.hasPrefix("The field ") { return context.debugDescription }
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
        // Encoding two strings cannot fail; the fallback keeps the status all the same.
        (try? jsonResponse(ErrorEnvelope(code: code.rawValue, message: message), status: status, headers: headers))
            ?? Response(status: status, headers: headers)
    }
}
