import Foundation
import Vapor

/// Turns every error into the one JSON envelope; logs server errors with the request id, never
/// sends their details to the client.
struct ErrorEnvelopeMiddleware: AsyncMiddleware {
    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        do {
            return try await next.respond(to: request)
        } catch {
            let apiError = APIError(error)
            if apiError.status.code >= 500 {
                request.logger.error("request failed", metadata: ["error": "\(String(reflecting: error))"])
            }
            return apiError.response()
        }
    }
}

/// One structured log line per request (method, path, status, duration) carrying the request id,
/// which is also returned in `X-Request-Id`.
struct RequestLogMiddleware: AsyncMiddleware {
    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        let started = ContinuousClock.now
        _ = request.bullpen   // the request keeps the services it started with
        let response: Response
        do {
            response = try await next.respond(to: request)
        } catch {
            response = APIError(error).response()
        }
        response.headers.replaceOrAdd(name: "X-Request-Id", value: request.id)
        let elapsed = ContinuousClock.now - started
        let milliseconds = Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
        request.logger.info("request", metadata: [
            "method": .string(request.method.rawValue),
            "path": .string(request.url.path),
            "status": .stringConvertible(response.status.code),
            "duration_ms": .string(String(format: "%.1f", milliseconds)),
        ])
        return response
    }
}

/// Security headers on every response, and, while the demo exchange is active, the
/// `X-Market-Data: demo market, simulated prices` label that every client can show.
struct SecurityHeadersMiddleware: AsyncMiddleware {
    var simulatedMarket = false

    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        let response = try await next.respond(to: request)
        if simulatedMarket {
            response.headers.replaceOrAdd(name: "X-Market-Data", value: MarketRoutes.demoLabel)
        }
        response.headers.replaceOrAdd(name: "X-Content-Type-Options", value: "nosniff")
        response.headers.replaceOrAdd(name: "Referrer-Policy", value: "no-referrer")
        if request.url.path.hasPrefix("/api/") {
            response.headers.replaceOrAdd(name: .cacheControl, value: "no-store")
        }
        return response
    }
}
