import Metrics

/// What the one writer reports to the process's metrics (Prometheus at `/metrics` once the server
/// bootstrapped them; nothing otherwise). Made at each use, never kept from before a bootstrap.
enum StoreMetrics {
    /// A batch written: how many commands it carried and how long its transaction took to commit.
    static func batchWritten(commands: Int, committedIn duration: Duration) {
        Recorder(label: "bullpen_writer_batch_commands", aggregate: true).record(commands)
        Metrics.Timer(label: "bullpen_writer_batch_commit_seconds").record(duration: duration)
    }

    /// A batch that found its portfolios moved by another instance and started over.
    static func batchConflict() {
        Counter(label: "bullpen_writer_batch_conflicts_total").increment()
    }
}
