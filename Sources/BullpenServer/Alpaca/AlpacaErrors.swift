import BullpenAPI
import Foundation
import Vapor

/// Errors of the Alpaca-compatible API in Alpaca's format: `{"code": 40310000, "message": "..."}`
/// with Alpaca's status codes (422 for input the API refuses, 403 for what the account may not do,
/// 404, 401, 429), plus `bullpen_code`, the native API's stable code for the same refusal.
enum AlpacaErrors {
    static let pathPrefix = "/alpaca"

    static func applies(to request: Request) -> Bool {
        let path = request.url.path
        return path == pathPrefix || path.hasPrefix(pathPrefix + "/")
    }

    /// Alpaca's status and numeric code for a native error.
    static func alpacaCode(_ error: APIError, method: HTTPMethod) -> (status: Int, code: Int) {
        switch error.code {
        case .unauthorized, .invalidCredentials, .invalidRefreshToken, .refreshTokenReused: (401, 40110000)
        case .keyReadOnly, .originNotAllowed, .wrongPassword, .notLeagueOwner, .kickedFromLeague: (403, 40310000)
        case .insufficientFunds, .insufficientMargin, .insufficientShares, .insufficientContracts, .sharesCommitted: (403, 40310000)
        case .invalidJSON, .unsupportedMediaType: (400, 40010000)
        case .unknownSymbol: method == .GET ? (404, 40410000) : (422, 40010001)
        case .notFound, .unknownBenchmark, .unknownScenario, .invalidJoinCode, .notMember: (404, 40410000)
        case .methodNotAllowed: (405, 40510000)
        case .payloadTooLarge: (413, 41310000)
        case .tooManyAttempts, .rateLimited, .tooManyConnections: (429, 42910000)
        case .internalError, .corruptData: (500, 50010000)
        case .marketDataUnavailable, .databaseUnavailable, .busy, .replayUnavailable, .shuttingDown: (503, 50310000)
        default:
            switch error.code.httpStatus {
            case 400: (422, 40010001)
            case 408: (408, 40810000)
            default: (422, 42210000)
            }
        }
    }

    static func response(_ error: APIError, method: HTTPMethod) -> Response {
        let (status, code) = alpacaCode(error, method: method)
        let body = AlpacaErrorBody(code: code, message: error.message, bullpenCode: error.code.rawValue)
        var headers = error.headers
        headers.contentType = .json
        let data = (try? AlpacaJSON.encoder.encode(body)) ?? Data()
        return Response(status: HTTPResponseStatus(statusCode: status), headers: headers, body: .init(data: data))
    }
}

struct AlpacaErrorBody: Encodable {
    var code: Int
    var message: String
    var bullpenCode: String

    enum CodingKeys: String, CodingKey {
        case code, message
        case bullpenCode = "bullpen_code"
    }
}
