import BullpenAPI
import BullpenStore
import Foundation
import NIOHTTP1
import Testing
@testable import BullpenServer

@Suite("Errors and API hygiene")
struct ErrorHandlingTests {
    @Test func unknownRoutesAnswerWithTheJSONEnvelope() async throws {
        try await withServer { server in
            for path in ["/nope", "/api/v1/nothing-here", "/api/v2/portfolios"] {
                let reply = try await server.send(.GET, path)
                #expect(reply.status == 404)
                #expect(reply.errorCode == "not_found")
                #expect(reply.headers.first(name: "Content-Type")?.hasPrefix("application/json") == true)
            }
        }
    }

    @Test func malformedJSONIsA400() async throws {
        try await withServer { server in
            for body in ["{bad", "[1,2", "\"just a string\"", "{\"username\": 5, \"password\": \"x\"}"] {
                let reply = try await server.send(.POST, "/api/v1/auth/login", body: body)
                #expect(reply.status == 400, "\(body) -> \(reply.status)")
                #expect(["invalid_json", "validation_failed"].contains(reply.errorCode ?? ""))
            }
        }
    }

    @Test func bodiesOverOneMebibyteAreA413() async throws {
        try await withServer { server in
            let huge = #"{"username":""# + String(repeating: "a", count: 1_100_000) + #"","password":"x"}"#
            let reply = try await server.send(.POST, "/api/v1/auth/login", body: huge)
            #expect(reply.status == 413)
            #expect(reply.errorCode == "payload_too_large")
        }
    }

    @Test func everyResponseCarriesARequestID() async throws {
        try await withServer { server in
            let ok = try await server.send(.GET, "/health")
            let missing = try await server.send(.GET, "/missing")
            #expect(ok.headers.first(name: "X-Request-Id")?.isEmpty == false)
            #expect(missing.headers.first(name: "X-Request-Id")?.isEmpty == false)
        }
    }

    @Test func healthReadinessAndTheContractAreServed() async throws {
        try await withServer { server in
            let health = try await server.send(.GET, "/health")
            let healthBody = try health.decode(HealthDTO.self)
            #expect(health.status == 200 && healthBody.status == "ok")
            let ready = try await server.send(.GET, "/ready").decode(HealthDTO.self)
            #expect(ready.status == "ready" && ready.database == "ok")
            #expect(ready.marketData == MarketDataDTO(source: "pack", simulated: false, available: true))
            let spec = try await server.send(.GET, "/openapi.yaml")
            #expect(spec.status == 200 && spec.text.hasPrefix("openapi: 3.1"))
        }
    }

    @Test func readinessFailsWhenTheDatabaseIsGone() async throws {
        try await withServer { server in
            await server.store.shutdown()
            let ready = try await server.send(.GET, "/ready")
            #expect(ready.status == 503 && ready.errorCode == "database_unavailable")
        }
    }

    @Test func serverErrorsNeverLeakDetails() {
        struct Secret: Error { let sql = "SELECT password_hash FROM users" }
        let error = APIError(Secret())
        #expect(error.status == .internalServerError && error.code == .internalError)
        #expect(!error.message.contains("SELECT"))
    }
}
