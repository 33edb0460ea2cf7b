import BullpenAPI
import Foundation
import Logging
import NIOHTTP1
import Synchronization
import Testing
@testable import BullpenServer

@Suite("Observability")
struct ObservabilityTests {
    @Test func metricsCountRequestsOrdersLoginsAndTheWritersBatches() async throws {
        try await withServer { server in
            let player = try await server.register()
            #expect(try await server.order(player, "buy", 1, "MSFT").status == 201)
            #expect(try await server.order(player, "sell", 5, "MSFT").status == 422)
            _ = try await server.send(.POST, "/api/v1/auth/login", json: Credentials(username: player.username, password: "wrong password!"))
            let reply = try await server.send(.GET, "/metrics")
            #expect(reply.status == 200 && reply.headers.first(name: "Content-Type")?.hasPrefix("text/plain") == true)
            let text = reply.text
            for expected in [
                #"http_requests_total{method="POST",path="/api/v1/portfolios/:id/orders",status="201"}"#,
                #"bullpen_orders_total{side="buy",outcome="filled"}"#,
                #"bullpen_orders_total{side="sell",outcome="insufficient_shares"}"#,
                #"bullpen_logins_total{outcome="failed"}"#,
                "bullpen_writer_batch_commands", "bullpen_writer_batch_commit_seconds_bucket", "http_request_duration_seconds_bucket",
                #"bullpen_market_data_available{source=""#,
            ] {
                #expect(text.contains(expected), "missing \(expected)")
            }
        }
    }

    @Test func jsonLogLinesCarryTheirMetadata() throws {
        final class Lines: Sendable { let value = Mutex<[Data]>([]) }
        let lines = Lines()
        var logger = Logger(label: "bullpen.test") { label in
            JSONLogHandler(label: label, level: .info, write: { line in lines.value.withLock { $0.append(line) } })
        }
        logger[metadataKey: "request-id"] = "abc-123"
        logger.debug("not at this level")
        logger.warning("slow \"request\"", metadata: ["path": "/api/v1/me"])
        let written = lines.value.withLock { $0 }
        #expect(written.count == 1 && written[0].last == 0x0A)
        let object = try #require(try JSONSerialization.jsonObject(with: written[0]) as? [String: String])
        #expect(object["message"] == "slow \"request\"" && object["level"] == "warning" && object["label"] == "bullpen.test")
        #expect(object["request-id"] == "abc-123" && object["path"] == "/api/v1/me" && object["source"]?.contains(".swift:") == true)
        #expect(object["time"]?.range(of: #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$"#, options: .regularExpression) != nil, "\(object)")
    }
}
