import BullpenAPI
import BullpenStore
import Vapor

/// Liveness, readiness and the contract.
struct SystemRoutes: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        routes.get("health", use: health)
        routes.get("ready", use: ready)
        routes.get("openapi.yaml", use: openAPI)
        routes.get("metrics", use: metrics)
    }

    /// The process's metrics in Prometheus's text format (see ``BullpenMetrics``).
    @Sendable func metrics(req: Request) async throws -> Response {
        Response(status: .ok, headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8"],
                 body: .init(string: BullpenMetrics.exposition()))
    }

    /// The process is up; 503 `shutting_down` once it has begun to stop, so that a load balancer
    /// sends its requests elsewhere while the ones it sent are answered.
    @Sendable func health(req: Request) async throws -> Response {
        if req.application.drain.isDraining { throw APIError.shuttingDown }
        return try jsonResponse(HealthDTO(status: "ok"))
    }

    /// The process can serve: the database answers. 503 when it does not, and while it drains.
    @Sendable func ready(req: Request) async throws -> Response {
        if req.application.drain.isDraining { throw APIError.shuttingDown }
        let marketData = MarketDataDTO(req.bullpen.marketDataStatus)
        do {
            try await req.bullpen.store.ping()
            return try jsonResponse(HealthDTO(status: "ready", database: "ok", marketData: marketData))
        } catch {
            req.logger.warning("readiness check failed", metadata: ["error": "\(String(reflecting: error))"])
            throw APIError(.databaseUnavailable, "The database is not reachable.")
        }
    }

    @Sendable func openAPI(req: Request) async throws -> Response {
        var headers = HTTPHeaders()
        headers.replaceOrAdd(name: .contentType, value: "application/yaml; charset=utf-8")
        return Response(status: .ok, headers: headers, body: .init(string: try APIContract.openAPIDocument()))
    }
}
