import ArgumentParser
import AsyncHTTPClient
import BullpenAPI
import BullpenCore
import BullpenMarketData
import BullpenServer
import BullpenStore
import Foundation
import Logging
import NIOCore
import NIOPosix
import Synchronization
import Vapor
import WebSocketKit

struct Stream: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Hold N WebSocket subscribers on the demo exchange (running fast) and measure quote delivery latency.")

    @ArgumentParser.Option(help: "WebSocket subscribers.") var subscribers = 5_000
    @ArgumentParser.Option(help: "Symbols each subscriber watches.") var symbols = 3
    @ArgumentParser.Option(help: "Seconds to measure after everyone is connected.") var seconds = 20
    @ArgumentParser.Option(help: "Stream poll interval in milliseconds.") var interval = 1_000

    func run() async throws {
        Self.raiseFileLimit()
        BenchSetup.quietLogging()
        let (directory, scratchConfig) = try BenchSetup.scratch("stream")
        defer { try? FileManager.default.removeItem(at: directory) }
        var config = scratchConfig
        config.bcryptCost = 4
        config.streamInterval = .milliseconds(interval)
        // A session day running 30 times faster than real time: every poll brings new prices.
        let clock = AcceleratedTimeSource(start: TradingCalendar.instant(SessionDate(year: 2025, month: 10, day: 14), 9, 45), speed: 30)
        let store = try BullpenStore(backend: .sqlite(path: config.sqlitePath))
        try await store.migrate()
        let demo = DemoExchange(time: clock)
        let app = try await BullpenApp.make(configuration: config, store: store, marketData: demo, environment: .production)
        let port = try await app.startServing(host: "127.0.0.1", port: 0)

        let token = try await Self.register(port: port)
        let universe = try await demo.listing().map(\.symbol.rawValue)
        let tally = Tally()
        let latencies = tally.latencies, measuring = tally.measuring, connected = tally.connected
        let closed = tally.closed, sockets = tally.sockets
        let group = MultiThreadedEventLoopGroup.singleton

        print("Stream bench: \(subscribers) subscribers × \(symbols) symbols, poll every \(interval) ms, demo exchange at 30× speed, server and clients in one process on \(ProcessInfo.processInfo.activeProcessorCount) cores")
        let connectStart = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            var started = 0
            for n in 0..<subscribers {
                if started - connected.value.load(ordering: .relaxed) - closed.value.load(ordering: .relaxed) >= 200 {
                    try await tasks.next()
                }
                started += 1
                let mine = (0..<symbols).map { universe[(n * 7 + $0 * 13) % universe.count] }
                tasks.addTask { [tally] in
                    let latencies = tally.latencies, measuring = tally.measuring, connected = tally.connected
                    let closed = tally.closed, sockets = tally.sockets
                    try await WebSocket.connect(scheme: "ws", host: "127.0.0.1", port: port, path: "/api/v1/stream",
                                                query: "token=\(token)", on: group) { socket in
                        sockets.value.withLock { $0.append(socket) }
                        socket.onText { _, text in
                            guard measuring.value.load(ordering: .relaxed), text.hasPrefix("{\"quote\""),
                                  let range = text.range(of: "\"sentAt\":\""),
                                  let end = text[range.upperBound...].firstIndex(of: "\"") else { return }
                            guard let sent = Self.secondsOfDay(text[range.upperBound..<end]) else { return }
                            var latency = (Date().timeIntervalSince1970.truncatingRemainder(dividingBy: 86_400) - sent) * 1000
                            if latency < -43_200_000 { latency += 86_400_000 }   // across midnight
                            latencies.value.withLock { $0.append(latency) }
                        }
                        socket.onClose.whenComplete { _ in closed.value.add(1, ordering: .relaxed) }
                        let subscribe = #"{"type":"subscribe","symbols":[\#(mine.map { "\"\($0)\"" }.joined(separator: ","))]}"#
                        socket.send(subscribe)
                        connected.value.add(1, ordering: .relaxed)
                    }.get()
                }
            }
            try await tasks.waitForAll()
        }
        let connectSeconds = (ContinuousClock.now - connectStart).seconds
        print(String(format: "connected %d subscribers in %.1f s", connected.value.load(ordering: .relaxed), connectSeconds))
        try await Task.sleep(for: .seconds(2))
        measuring.value.store(true, ordering: .relaxed)
        let measureStart = ContinuousClock.now
        try await Task.sleep(for: .seconds(seconds))
        measuring.value.store(false, ordering: .relaxed)
        let elapsed = (ContinuousClock.now - measureStart).seconds
        let sorted = latencies.value.withLock { $0 }.sorted()
        func percentile(_ p: Double) -> Double { sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
        print(String(format: "delivered %d quote messages in %.1f s (%.0f/s); latency p50 %.1f ms, p95 %.1f ms, p99 %.1f ms, max %.1f ms",
                     sorted.count, elapsed, Double(sorted.count) / elapsed, percentile(0.5), percentile(0.95), percentile(0.99), sorted.last ?? Double.nan))
        print("subscribers still connected: \(connected.value.load(ordering: .relaxed) - closed.value.load(ordering: .relaxed)) of \(subscribers); p95 under 250 ms: \(percentile(0.95) < 250 ? "yes" : "no")")

        for socket in sockets.value.withLock({ $0 }) { socket.close(promise: nil) }
        try await Task.sleep(for: .milliseconds(500))
        await app.stopServing()
        try await app.asyncShutdown()
        await store.shutdown()
    }

    /// `2026-11-22T01:05:12.345Z` → seconds since midnight UTC, without a date formatter per message
    /// (the clients share the server's two cores, so their cost counts against the latency).
    static func secondsOfDay(_ stamp: Substring) -> Double? {
        let bytes = Array(stamp.utf8)
        guard bytes.count >= 23, bytes[10] == UInt8(ascii: "T") else { return nil }
        func number(_ range: Range<Int>) -> Double {
            Double(range.reduce(0) { $0 * 10 + Int(bytes[$1]) - 48 })
        }
        return number(11..<13) * 3600 + number(14..<16) * 60 + number(17..<19) + number(20..<23) / 1000
    }

    static func register(port: Int) async throws -> String {
        let auth: AuthResponse = try await Orders.call(HTTPClient.shared, .POST, "http://127.0.0.1:\(port)/api/v1/auth/register",
                                                       token: nil, body: Credentials(username: "streamer", password: "stream bench passphrase"), expect: 201)
        return auth.tokens.accessToken
    }

    /// Each WebSocket costs a descriptor on both ends: lift the soft limit to the hard one.
    static func raiseFileLimit() {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
    }
}

/// What the subscribers count, shared between their callbacks.
final class Tally: Sendable {
    let latencies = Box(Mutex<[Double]>([]))
    let measuring = Box(Atomic<Bool>(false))
    let connected = Box(Atomic<Int>(0))
    let closed = Box(Atomic<Int>(0))
    let sockets = Box(Mutex<[WebSocket]>([]))
}

/// A reference to a non-copyable synchronisation value, so closures can share it.
final class Box<Value: ~Copyable & Sendable>: Sendable {
    let value: Value
    init(_ value: consuming Value) { self.value = value }
}
