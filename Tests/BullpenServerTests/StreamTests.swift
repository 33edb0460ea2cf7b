import BullpenAPI
import BullpenCore
import BullpenTestSupport
import Foundation
import NIOCore
import NIOPosix
import Synchronization
import Testing
import Vapor
@testable import BullpenServer

/// A real WebSocket client that keeps every message it receives.
final class StreamClient: Sendable {
    let messages = Mutex<[StreamMessage]>([])
    let socket = Mutex<WebSocket?>(nil)

    static func connect(_ server: TestServer, token: String? = nil, headers: HTTPHeaders = [:]) async throws -> StreamClient {
        let client = StreamClient()
        let base = try #require(URL(string: server.baseURL))
        // WebSocketKit's own connect, which keeps the query (the token).
        try await WebSocket.connect(scheme: "ws", host: "127.0.0.1", port: try #require(base.port), path: "/api/v1/stream",
                                    query: token.map { "token=\($0)" }, headers: headers,
                                    on: MultiThreadedEventLoopGroup.singleton) { socket in
            client.socket.withLock { $0 = socket }
            socket.onText { _, text in
                if let message = try? APIContract.makeDecoder().decode(StreamMessage.self, from: Data(text.utf8)) {
                    client.messages.withLock { $0.append(message) }
                }
            }
        }.get()
        // The upgrade callback may run just after the connection future completes.
        for _ in 0..<200 where client.socket.withLock({ $0 }) == nil { try await Task.sleep(for: .milliseconds(5)) }
        return client
    }

    func send(_ request: StreamRequest) async throws {
        let text = String(decoding: try JSONEncoder().encode(request), as: UTF8.self)
        try await socket.withLock { $0 }!.send(text)
    }

    /// Waits (up to `seconds`) until a message satisfies `predicate`; returns it.
    @discardableResult
    func wait(seconds: Double = 5, for predicate: @escaping (StreamMessage) -> Bool) async throws -> StreamMessage {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if let found = messages.withLock({ $0.first(where: predicate) }) { return found }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw CancellationError()
    }

    func quotes(_ symbol: String) -> [QuoteDTO] {
        messages.withLock { $0.compactMap { $0.type == "quote" && $0.quote?.symbol == symbol ? $0.quote : nil } }
    }

    func close() async { try? await socket.withLock { $0 }?.close() }
}

@Suite("Quote stream over WebSocket")
struct StreamTests {
    /// Tuesday 14 October 2025, 10:00 in New York.
    static let inSession = TradingCalendar.instant(SessionDate(year: 2025, month: 10, day: 14), 10, 0)

    static func fast(_ config: inout ServerConfiguration) { config.streamInterval = .milliseconds(20) }

    @Test func subscribersGetTheCurrentQuoteThenEveryChange() async throws {
        let clock = FixedTimeSource(Self.inSession)
        try await withServer(demo: true, time: clock, configure: Self.fast) { server in
            let player = try await server.register()
            let client = try await StreamClient.connect(server, token: player.accessToken)
            try await client.wait { $0.type == "ready" && $0.simulated == true }
            try await client.send(StreamRequest(type: "subscribe", symbols: ["HMCR", "nope!", "ZZZZ"]))
            let subscribed = try await client.wait { $0.type == "subscribed" }
            #expect(subscribed.symbols == ["HMCR"] && subscribed.unknown == ["nope!", "ZZZZ"])
            let first = try await client.wait { $0.type == "quote" }
            clock.advance(by: 60)
            try await client.wait { $0.type == "quote" && $0.quote?.price != first.quote?.price }
            let rest = try await server.send(.GET, "/api/v1/quotes?symbols=HMCR").decode(QuoteListDTO.self)
            #expect(client.quotes("HMCR").last?.price == rest.quotes.first?.price)

            try await client.send(StreamRequest(type: "unsubscribe", symbols: ["HMCR"]))
            try await client.wait { $0.type == "unsubscribed" }
            let count = client.quotes("HMCR").count
            clock.advance(by: 60)
            try await Task.sleep(for: .milliseconds(200))
            #expect(client.quotes("HMCR").count == count)
            await client.close()
        }
    }

    @Test func clientsMayAuthenticateWithTheirFirstMessage() async throws {
        try await withServer(demo: true, time: FixedTimeSource(Self.inSession), configure: Self.fast) { server in
            let player = try await server.register()
            let client = try await StreamClient.connect(server)
            try await client.send(StreamRequest(type: "subscribe", symbols: ["HMCR"]))
            try await client.wait { $0.type == "error" && $0.code == "unauthorized" }
            try await client.send(StreamRequest(type: "auth", token: "forged"))
            try await client.wait { $0.type == "error" && $0.code == "unauthorized" && $0.message?.contains("invalid") == true }
            try await client.send(StreamRequest(type: "auth", token: player.accessToken))
            try await client.wait { $0.type == "ready" }
            try await client.send(StreamRequest(type: "subscribe", symbols: ["HMCR"]))
            try await client.wait { $0.type == "quote" && $0.quote?.symbol == "HMCR" }
            await client.close()
        }
    }

    @Test func badTokensAndForeignOriginsAreRefusedBeforeTheUpgrade() async throws {
        try await withServer(demo: true, time: FixedTimeSource(Self.inSession)) { server in
            let player = try await server.register()
            let forged = try await server.send(.GET, "/api/v1/stream?token=forged")
            #expect(forged.status == 401 && forged.errorCode == "unauthorized")
            let foreign = try await server.send(.GET, "/api/v1/stream?token=\(player.accessToken)", headers: [("Origin", "https://evil.example")])
            #expect(foreign.status == 403 && foreign.errorCode == "origin_not_allowed")
            await #expect(throws: (any Error).self) {
                try await StreamClient.connect(server, token: player.accessToken, headers: ["Origin": "https://evil.example"])
            }
            let host = server.baseURL.replacingOccurrences(of: "http://", with: "")
            let own = try await StreamClient.connect(server, token: player.accessToken, headers: ["Origin": "http://\(host)"])
            try await own.wait { $0.type == "ready" }
            await own.close()
        }
    }

    @Test func oneUpstreamPollServesEverySubscriber() async throws {
        try await withServer(demo: true, time: FixedTimeSource(Self.inSession), configure: Self.fast) { server in
            let player = try await server.register()
            var clients: [StreamClient] = []
            for _ in 0..<20 {
                let client = try await StreamClient.connect(server, token: player.accessToken)
                try await client.send(StreamRequest(type: "subscribe", symbols: ["HMCR", "VTSW"]))
                clients.append(client)
            }
            for (n, client) in clients.enumerated() {
                do { try await client.wait { $0.type == "subscribed" } } catch {
                    Issue.record("client \(n) got \(client.messages.withLock { $0 })")
                    throw error
                }
            }
            let hub = try #require(server.app.quoteHub)
            let (polls, symbols) = (await hub.polls, await hub.symbolsPolled)
            try await Task.sleep(for: .milliseconds(300))
            let (morePolls, moreSymbols) = (await hub.polls, await hub.symbolsPolled)
            #expect(morePolls > polls)
            #expect(moreSymbols - symbols == 2 * (morePolls - polls), "each poll asks for the two symbols once")
            #expect(await hub.subscriberCount == 20)
            for client in clients { await client.close() }
        }
    }

    @Test func aClientThatStopsReadingIsDroppedAndOthersCarryOn() async throws {
        // The first six hours of a session, replayed 3,000 times faster than real time over and
        // over: the demo's five-second ticks come faster than the polls, so every poll sends.
        let clock = LoopingClock(start: Self.inSession.addingTimeInterval(-1800), speed: 3_000, period: 6 * 3600)
        // Only the market runs fast; tokens and sessions keep real time.
        try await withServer(demo: true, demoTime: clock, configure: { config in
            config.streamInterval = .milliseconds(2)
            config.streamMaxBacklog = 200   // about five polls of the 41 symbols
        }) { server in
            let player = try await server.register()
            let everything = try await server.send(.GET, "/api/v1/assets?limit=100").decode(AssetPageDTO.self).assets.map(\.symbol)
            let reader = try await StreamClient.connect(server, token: player.accessToken)
            try await reader.send(StreamRequest(type: "subscribe", symbols: ["HMCR"]))

            // A raw client that upgrades, subscribes to everything, then never reads again.
            let port = try #require(URL(string: server.baseURL)?.port)
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .channelOption(.socketOption(.so_rcvbuf), value: 4096)
                .connect(host: "127.0.0.1", port: port).get()
            let key = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
            let upgrade = "GET /api/v1/stream?token=\(player.accessToken) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n\r\n"
            try await channel.writeAndFlush(ByteBuffer(string: upgrade)).get()
            try await Task.sleep(for: .milliseconds(200))
            try await channel.writeAndFlush(ByteBuffer(bytes: Self.maskedTextFrame(#"{"type":"subscribe","symbols":[\#(everything.map { "\"\($0)\"" }.joined(separator: ","))]}"#))).get()
            try await channel.setOption(.autoRead, value: false).get()

            let hub = try #require(server.app.quoteHub)
            let deadline = ContinuousClock.now + .seconds(60)
            while await hub.dropped == 0 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
            #expect(await hub.dropped >= 1, "the stalled client was dropped")
            let before = reader.quotes("HMCR").count
            try await Task.sleep(for: .milliseconds(300))
            #expect(reader.quotes("HMCR").count > before, "the reading client still gets quotes")
            #expect(await hub.subscriberCount == 1)
            try? await channel.close().get()
            await reader.close()
        }
    }

    /// A client-to-server text frame (clients must mask).
    static func maskedTextFrame(_ text: String) -> [UInt8] {
        let payload = Array(text.utf8)
        var frame: [UInt8] = [0x81]
        if payload.count < 126 { frame.append(0x80 | UInt8(payload.count)) } else {
            frame.append(0x80 | 126); frame.append(UInt8(payload.count >> 8)); frame.append(UInt8(payload.count & 0xFF))
        }
        let mask: [UInt8] = [1, 2, 3, 4]
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        return frame
    }
}

/// Replays a stretch of time at `speed`, starting over every `period` seconds.
struct LoopingClock: TimeSource {
    let start: Date
    let speed: Double
    let period: TimeInterval
    private let origin = ContinuousClock.now

    init(start: Date, speed: Double, period: TimeInterval) {
        self.start = start
        self.speed = speed
        self.period = period
    }

    func now() -> Date {
        let elapsed = ContinuousClock.now - origin
        let seconds = (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18) * speed
        return start.addingTimeInterval(seconds.truncatingRemainder(dividingBy: period))
    }
}
