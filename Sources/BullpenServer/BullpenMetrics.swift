import Metrics
import Prometheus

/// The process's metrics, exposed in Prometheus's text format at `GET /metrics`: Vapor's own
/// (`http_requests_total` and `http_request_duration_seconds` by route, method and status), the
/// writer's (batch sizes, commit times, conflicts), orders by side and outcome, logins by outcome,
/// stream subscribers and the market data source. Metric objects are made where they are used
/// (swift-metrics keeps one handler per name and labels), never kept from before the bootstrap.
enum BullpenMetrics {
    static let registry = PrometheusCollectorRegistry()

    /// swift-metrics bootstrapped with Prometheus, once per process (a second bootstrap would trap).
    static let bootstrapped: Void = MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))

    /// An order placed: `outcome` is `filled`, or the rejection's code.
    static func order(side: String, outcome: String) {
        Counter(label: "bullpen_orders_total", dimensions: [("side", side), ("outcome", outcome)]).increment()
    }

    /// A login: `succeeded`, `failed`, `throttled` or `busy`.
    static func login(_ outcome: String) {
        Counter(label: "bullpen_logins_total", dimensions: [("outcome", outcome)]).increment()
    }

    static func streamSubscribers(_ count: Int) {
        Gauge(label: "bullpen_stream_subscribers").record(count)
    }

    static func marketData(source: String, simulated: Bool, available: Bool) {
        Gauge(label: "bullpen_market_data_available", dimensions: [("source", source), ("simulated", String(simulated))])
            .record(available ? 1 : 0)
    }

    /// The text Prometheus scrapes.
    static func exposition() -> String { registry.emitToString() }
}
