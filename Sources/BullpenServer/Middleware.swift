import BullpenAPI
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
            if apiError.status.code >= 500, apiError.code != .shuttingDown, apiError.code != .busy {
                request.logger.error("request failed", metadata: ["error": "\(String(reflecting: error))"])
            }
            return AlpacaErrors.applies(to: request) ? AlpacaErrors.response(apiError, method: request.method) : apiError.response()
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
        response.headers.replaceOrAdd(name: "X-Frame-Options", value: "DENY")
        // Behind a trusted proxy that took the request over TLS, browsers are told to keep to TLS.
        if request.cameOverTLS {
            response.headers.replaceOrAdd(name: "Strict-Transport-Security", value: "max-age=31536000; includeSubDomains")
        }
        if request.url.path.hasPrefix("/api/") || AlpacaErrors.applies(to: request) {
            response.headers.replaceOrAdd(name: .cacheControl, value: "no-store")
        }
        return response
    }
}

/// A path that exists, asked with a method it does not take: 405 with `Allow` listing the ones
/// it does (HEAD with GET), not the router's 404.
struct MethodNotAllowedMiddleware: AsyncMiddleware {
    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        do {
            return try await next.respond(to: request)
        } catch let notFound as RouteNotFound {
            let allowed = Self.methods(of: request.url.path, in: request.application.routes.all)
            guard !allowed.isEmpty else { throw notFound }
            let list = allowed.joined(separator: ", ")
            throw APIError(.methodNotAllowed, "\(request.url.path) takes \(list), not \(request.method.rawValue).",
                           headers: ["Allow": list])
        }
    }

    /// The methods of the resource at `path`, in a stable order. A constant segment wins over a
    /// parameter, which wins over a catch-all, across methods: `/leagues/join` is the join
    /// resource (POST), not a league whose id is "join" (GET, PATCH, DELETE).
    static func methods(of path: String, in routes: [Route]) -> [String] {
        var candidates = routes.map { (route: $0, rest: $0.path[...]) }
        for segment in path.split(separator: "/").map(String.init) {
            let next = candidates.filter { !$0.rest.isEmpty }
            let constants = next.filter { $0.rest.first == .constant(segment) }
            let parameters = next.filter { isParameter($0.rest.first) }
            guard let matched = [constants, parameters].first(where: { !$0.isEmpty }) else {
                // A catch-all takes the rest of the path.
                return sorted(next.filter { $0.rest.first == .catchall }.map(\.route))
            }
            candidates = matched.map { ($0.route, $0.rest.dropFirst()) }
        }
        return sorted(candidates.filter { $0.rest.isEmpty || $0.rest.first == .catchall }.map(\.route))
    }

    private static func isParameter(_ component: PathComponent?) -> Bool {
        switch component {
        case .parameter?, .anything?: true
        default: false
        }
    }

    private static func sorted(_ routes: [Route]) -> [String] {
        var methods = Set<String>()
        for route in routes {
            methods.insert(route.method.rawValue)
            if route.method == .GET { methods.insert("HEAD") }
        }
        let order = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
        return methods.sorted { (order.firstIndex(of: $0) ?? order.count, $0) < (order.firstIndex(of: $1) ?? order.count, $1) }
    }
}

/// Cross-origin calls from the browser origins the operator lists (`BULLPEN_ALLOWED_ORIGINS`),
/// and from no other: their preflights are answered (204, the methods and headers the API
/// takes), their answers carry `Access-Control-Allow-Origin`. A preflight from any other origin
/// is 403 `origin_not_allowed`; its other requests get no CORS headers, so the browser keeps the
/// answer from the page. Credentials are never allowed cross-origin: the API's bearer tokens go in
/// a header, and the web app's refresh cookie stays with its own site.
struct CORSMiddleware: AsyncMiddleware {
    let allowed: Set<String>
    static let methods = "GET, HEAD, POST, PUT, PATCH, DELETE"
    static let headers = "Authorization, Content-Type, Idempotency-Key, traceparent, tracestate"
    static let exposed = "Location, Retry-After, X-Request-Id, X-Market-Data"

    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        guard let origin = request.headers.first(name: .origin) else { return try await next.respond(to: request) }
        let preflight = request.method == .OPTIONS && request.headers.first(name: "Access-Control-Request-Method") != nil
        guard allowed.contains(origin) else {
            if preflight && !request.comesFromThisSite(origin: origin) {
                return APIError(.originNotAllowed, "\(origin) may not call this API from a browser; the operator lists the origins that may (BULLPEN_ALLOWED_ORIGINS).").response()
            }
            return try await next.respond(to: request)
        }
        let response = preflight ? Response(status: .noContent) : try await next.respond(to: request)
        response.headers.replaceOrAdd(name: "Access-Control-Allow-Origin", value: origin)
        response.headers.add(name: .vary, value: "Origin")
        if preflight {
            response.headers.replaceOrAdd(name: "Access-Control-Allow-Methods", value: Self.methods)
            response.headers.replaceOrAdd(name: "Access-Control-Allow-Headers", value: Self.headers)
            response.headers.replaceOrAdd(name: "Access-Control-Max-Age", value: "600")
        } else {
            response.headers.replaceOrAdd(name: "Access-Control-Expose-Headers", value: Self.exposed)
        }
        return response
    }
}
