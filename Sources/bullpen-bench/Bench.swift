import ArgumentParser
import AsyncHTTPClient
import BullpenAPI
import BullpenMarketData
import BullpenServer
import BullpenStore
import Foundation
import Logging
import NIOCore
import NIOFoundationEssentialsCompat
import NIOHTTP1
import Vapor

/// `bullpen-bench`: load figures for the server, measured over real HTTP on loopback.
@main
struct BullpenBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bullpen-bench",
        abstract: "Benchmarks of the Bullpen server (build with -c release).",
        subcommands: [Orders.self, Memory.self, Pack.self, Demo.self, Stream.self, Replay.self, Leaderboards.self, Options.self, Feed.self, Alerts.self, WorkingOrders.self])
}

struct Orders: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Raw SQLite (FULL and NORMAL) against the real server (a child process) with 1, 16 and 64 clients, one shared portfolio, portfolio reads and /health; prints rates, p50/p99 and the targets as ratios measured in this run.")

    @ArgumentParser.Option(help: "Requests per scenario with 16 and 64 clients.") var orders = 4_000
    @ArgumentParser.Option(help: "Requests per scenario with one client.") var single = 1_000
    @ArgumentParser.Option(help: "Orders per raw SQLite measurement.") var raw = 2_000
    @OptionGroup var options: ServerOptions

    func run() async throws {
        let pack = try Self.packDirectory(options.marketData)
        let (directory, _) = try BenchSetup.scratch("orders")
        defer { try? FileManager.default.removeItem(at: directory) }
        let bench = OrdersBench(orders: orders, single: single)
        print("Bullpen orders bench: \(options.postgres == nil ? "SQLite (WAL, synchronous=FULL)" : "PostgreSQL"), server \(ServerProcess.binary(options.server))")
        print("raw SQLite (Python's sqlite3, the C library; order + fill + journal + position + versioned portfolio update):")
        let rates = try RawSQLite.measure(orders: raw, in: directory)
        print(String(format: "  synchronous=FULL   %8.0f orders/s one per transaction, %8.0f orders/s 50 per transaction", rates.full, rates.full50))
        print(String(format: "  synchronous=NORMAL %8.0f orders/s one per transaction, %8.0f orders/s 50 per transaction", rates.normal, rates.normal50))
        let process = try options.start(in: directory, pack: pack)
        defer { process.stop() }
        let results = try await bench.run(base: process.url)
        print(String(format: "server resident memory after the run: %.0f MB", process.residentMB))
        bench.printTargets(results, raw: rates, postgres: options.postgres != nil)
        if !results.sharedBooksExact { throw ExitCode.failure }
    }

    /// The data pack: `option`, `BULLPEN_MARKET_DATA`, or `../shared/market-data`.
    static func packDirectory(_ option: String?) throws -> URL {
        let candidates = [option, ProcessInfo.processInfo.environment["BULLPEN_MARKET_DATA"], "../shared/market-data"].compactMap { $0 }
        guard let found = candidates.first(where: { FileManager.default.fileExists(atPath: $0 + "/universe.csv") }) else {
            throw ValidationError("no data pack: pass --market-data DIR or set BULLPEN_MARKET_DATA")
        }
        return URL(fileURLWithPath: found)
    }

    struct Stats {
        var latencies: [Double]   // milliseconds
        var seconds: Double

        func print(title: String) {
            let sorted = latencies.sorted()
            func percentile(_ p: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
            Swift.print(String(format: "%@: %d requests in %.2f s = %.0f req/s; latency p50 %.1f ms, p99 %.1f ms, max %.1f ms",
                               title, sorted.count, seconds, Double(sorted.count) / seconds,
                               percentile(0.50), percentile(0.99), sorted.last ?? 0))
        }
    }

    /// Runs `total` calls spread over `clients` concurrent loops, timing each; `call` gets the
    /// client's number and how many calls that client made before.
    static func measure(total: Int, clients: Int, _ call: @escaping @Sendable (Int, Int) async throws -> Void) async throws -> Stats {
        let start = ContinuousClock.now
        let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
            for c in 0..<clients {
                group.addTask {
                    var mine: [Double] = []
                    var n = c, k = 0
                    while n < total {
                        let began = ContinuousClock.now
                        try await call(c, k)
                        mine.append((ContinuousClock.now - began).seconds * 1000)
                        n += clients
                        k += 1
                    }
                    return mine
                }
            }
            return try await group.reduce(into: [Double]()) { $0 += $1 }
        }
        return Stats(latencies: latencies, seconds: (ContinuousClock.now - start).seconds)
    }

    static func call<Body: Encodable & Sendable, Result: Decodable>(
        _ client: HTTPClient, _ method: HTTPMethod, _ url: String, token: String?, body: Body?, expect: Int
    ) async throws -> Result {
        var request = HTTPClientRequest(url: url)
        request.method = method
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(data: try APIContract.makeEncoder().encode(body)))
        }
        let response = try await client.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 4 << 20)
        guard Int(response.status.code) == expect else {
            throw ValidationError("\(method) \(url) answered \(response.status.code): \(String(buffer: bytes))")
        }
        return try APIContract.makeDecoder().decode(Result.self, from: Data(buffer: bytes))
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

struct Pack: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Load the whole data pack into memory; print the time and the resident memory it took.")

    @ArgumentParser.Option(name: .customLong("market-data"), help: "Data pack directory (default BULLPEN_MARKET_DATA or ../shared/market-data).")
    var marketData: String?
    @ArgumentParser.Option(help: "Loads to time (the best and the median are printed).") var runs = 5

    func run() async throws {
        let directory = try Orders.packDirectory(marketData)
        let before = Self.memory()
        var seconds: [Double] = []
        var keep: HistoricalMarketData?
        for _ in 0..<runs {
            keep = nil
            let start = ContinuousClock.now
            let loaded = try await PackMarketData.load(directory: directory)
            seconds.append((ContinuousClock.now - start).seconds)
            keep = loaded.source
        }
        let after = Self.memory()
        guard let source = keep else { return }
        seconds.sort()
        print(String(format: "pack %@: %d symbols, %d bars, %d benchmark series",
                     directory.path, source.history.symbols.count, source.history.barCount, source.benchmarks.count))
        print(String(format: "load time: best %.3f s, median %.3f s over %d runs", seconds[0], seconds[seconds.count / 2], runs))
        print(String(format: "columns: %.1f MB; resident memory: %.1f MB before, %.1f MB after (peak %.1f MB)",
                     Double(source.history.columnBytes) / 1e6, before.resident, after.resident, after.peak))
    }

    /// Resident and peak resident set size in MB, from /proc/self/status.
    static func memory() -> (resident: Double, peak: Double) {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return (0, 0) }
        func value(_ key: String) -> Double {
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(key) }) else { return 0 }
            return (Double(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "0") ?? 0) / 1024
        }
        return (value("VmRSS:"), value("VmHWM:"))
    }
}

struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Generate the demo exchange; print the time it takes and its calibration against the real pack's figures.")

    func run() async throws {
        let start = ContinuousClock.now
        let demo = DemoExchange()
        let seconds = (ContinuousClock.now - start).seconds
        let companies = try await demo.listing().count
        print(String(format: "demo exchange: %d companies, %d daily bars generated in %.3f s", companies, demo.history.barCount, seconds))
        let measured = try await demo.calibration()
        print("sector                      volatility (demo / real)   correlation (demo / real)   kurtosis   clustering")
        for (sector, target) in DemoExchange.calibrationTargets.sorted(by: { $0.key < $1.key }) {
            guard let stats = measured[sector] else { continue }
            print(sector.padding(toLength: 27, withPad: " ", startingAt: 0) + String(format: " %6.3f / %5.3f              %5.2f / %4.2f                 %5.1f      %5.2f",
                         stats.volatility, target.volatility, stats.correlation, target.correlation,
                         stats.kurtosis, stats.clustering))
        }
    }
}

/// What every benchmark starts from: quiet logs and a scratch data directory.
enum BenchSetup {
    static func quietLogging() {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .error
            return handler
        }
    }

    /// A fresh data directory and a configuration on it, listening on a free port.
    static func scratch(_ name: String) throws -> (URL, ServerConfiguration) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bullpen-bench-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var config = ServerConfiguration()
        config.dataDirectory = directory
        config.port = 0
        config.registrationsPerAddress = 1_000_000   // every bench player comes from loopback
        config.ordersPerMinute = 100_000_000   // the bench measures the writer, not the limit
        return (directory, config)
    }
}

/// The server a bench runs against: the pack, the database and the executable.
struct ServerOptions: ParsableArguments {
    @ArgumentParser.Option(name: .customLong("market-data"), help: "Data pack directory (default BULLPEN_MARKET_DATA or ../shared/market-data).")
    var marketData: String?
    @ArgumentParser.Option(help: "DATABASE_URL-style PostgreSQL URL: the server runs on it instead of SQLite.") var postgres: String?
    @ArgumentParser.Option(help: "The bullpen executable to bench (default: the one beside bullpen-bench).") var server: String?

    /// Starts the server as a child process with its data in `directory`.
    func start(in directory: URL, pack: URL) throws -> ServerProcess {
        try ServerProcess(binary: ServerProcess.binary(server), dataDirectory: directory.appendingPathComponent("data"),
                          pack: pack, postgres: postgres)
    }
}
