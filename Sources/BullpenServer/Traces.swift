import Foundation
import Logging
import OTel
import ServiceLifecycle
import Tracing

/// Optional OpenTelemetry traces: when `OTEL_EXPORTER_OTLP_ENDPOINT` (or
/// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) names a collector, every request is a server span (its
/// route, method and status; Vapor's `TracingMiddleware`) with Bullpen's own spans inside (placing
/// an order), exported over OTLP/HTTP in batches. The other `OTEL_*` variables of the OpenTelemetry
/// specification apply (`OTEL_SERVICE_NAME`, `OTEL_TRACES_SAMPLER`, `OTEL_EXPORTER_OTLP_HEADERS`…).
/// Logs and metrics keep their own systems (`LOG_FORMAT`, `GET /metrics`).
final class Traces: Sendable {
    private let group: ServiceGroup
    private let running: Task<Void, Never>

    /// Starts the exporter and makes it the process's tracer. Call once per process, or never.
    init(logger: Logger) throws {
        var configuration = OTel.Configuration.default
        configuration.serviceName = "bullpen"
        configuration.logs.enabled = false
        configuration.metrics.enabled = false
        configuration.traces.enabled = true
        configuration.diagnosticLogger = .custom(logger)
        configuration.diagnosticLogLevel = .warning
        let (tracer, service) = try OTel.makeTracingBackend(configuration: configuration)
        InstrumentationSystem.bootstrap(tracer)
        let group = ServiceGroup(services: [service], gracefulShutdownSignals: [], logger: logger)
        self.group = group
        running = Task {
            do { try await group.run() } catch { logger.warning("trace exporter stopped", metadata: ["error": "\(error)"]) }
        }
    }

    /// Sends the spans still buffered and stops.
    func shutdown() async {
        await group.triggerGracefulShutdown()
        await running.value
    }
}
