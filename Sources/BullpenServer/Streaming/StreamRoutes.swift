import BullpenAPI
import BullpenCore
import BullpenStore
import Foundation
import NIOWebSocket
import Vapor

/// `GET /api/v1/stream`: live quotes over a WebSocket.
struct StreamRoutes: RouteCollection {
    static let maxSymbolsPerClient = 100
    /// The largest message a client may send: a larger one, in one frame or put together from
    /// smaller ones, is refused by ``StreamSession`` in words (an error message `message_too_large`)
    /// and the stream is closed with 1009. A single frame beyond ``maxFrameBytes`` is refused by the
    /// frame decoder itself (close 1009, without the message).
    static let maxMessageBytes = 1 << 16
    static let maxFrameBytes = 1 << 20
    static let authTimeout: Duration = .seconds(10)

    /// Seconds between pings: a third of the idle timeout (at most 30, at least 1).
    static func pingSeconds(idle: Duration) -> Int { max(1, min(30, Int(idle.components.seconds) / 3)) }

    func boot(routes: any RoutesBuilder) throws {
        routes.get("stream", use: connect)
    }

    @Sendable func connect(req: Request) async throws -> Response {
        guard let hub = req.application.quoteHub else { throw APIError.marketDataUnavailable }
        if req.application.drain.isDraining { throw APIError.shuttingDown }
        try Self.checkOrigin(req)
        // A token in the query authenticates at once; otherwise the first message must.
        var caller: Caller?
        if let token = req.query[String.self, at: "token"] {
            caller = try await req.caller(token: token)
        }
        // Without a WebSocket upgrade there is nothing to switch to (Vapor would answer 101 and hang).
        guard req.headers[canonicalForm: "Connection"].contains(where: { $0.lowercased() == "upgrade" }),
              req.headers[canonicalForm: "Upgrade"].contains(where: { $0.lowercased() == "websocket" }) else {
            throw APIError(.upgradeRequired, "The stream is a WebSocket: ask to upgrade (Connection: Upgrade, Upgrade: websocket).",
                           headers: ["Upgrade": "websocket"])
        }
        let simulated = req.bullpen.marketData?.isSimulated ?? false
        let maxBacklog = req.bullpen.configuration.streamMaxBacklog
        let idleTimeout = req.bullpen.configuration.idleTimeout
        let preauthenticated = caller
        return req.webSocket(maxFrameSize: .init(integerLiteral: Self.maxFrameBytes), shouldUpgrade: { req in
            req.eventLoop.makeSucceededFuture([:])
        }, onUpgrade: { req, socket in
            // Handlers go on synchronously, before any frame can arrive, and messages are handled
            // one at a time in the order they came.
            let (messages, continuation) = AsyncStream<String>.makeStream()
            socket.onText { _, text in continuation.yield(text) }
            // Pings keep a quiet stream within the idle timeout, and find clients that vanished.
            socket.pingInterval = .seconds(Int64(StreamRoutes.pingSeconds(idle: idleTimeout)))
            socket.onClose.whenComplete { _ in continuation.finish() }
            let subscriber = StreamSubscriber(socket: socket, maxBacklog: maxBacklog)
            let session = StreamSession(hub: hub, subscriber: subscriber, simulated: simulated, request: req,
                                        caller: preauthenticated)
            Task {
                await session.start()
                for await text in messages { await session.handle(text) }
                await hub.remove(subscriber.id)
                await session.end()
            }
        })
    }

    /// Browsers send `Origin`; only our own site (or the configured ones) may open the stream.
    /// Clients without an Origin (apps, the CLI) pass.
    static func checkOrigin(_ req: Request) throws {
        guard let origin = req.headers.first(name: .origin) else { return }
        let allowed = req.bullpen.configuration.allowedOrigins
        if allowed.contains(origin) || req.comesFromThisSite(origin: origin) { return }
        throw APIError(.originNotAllowed, "Streams may be opened only from this site.")
    }

}

extension Request {
    /// Same site: the Origin's host is the host the request was sent to (what the stream's origin
    /// check and CORS both ask).
    func comesFromThisSite(origin: String) -> Bool {
        guard let host = headers.first(name: .host)?.split(separator: ":").first, let url = URL(string: origin) else { return false }
        return url.host?.lowercased() == host.lowercased()
    }
}

/// One client's conversation on the stream.
actor StreamSession {
    let hub: QuoteHub
    let subscriber: StreamSubscriber
    let simulated: Bool
    let request: Request
    var authenticated: Bool
    private let preauthenticated: Caller?
    /// The player whose notifications this stream receives.
    private var attached: UserID?

    init(hub: QuoteHub, subscriber: StreamSubscriber, simulated: Bool, request: Request, caller: Caller?) {
        self.hub = hub
        self.subscriber = subscriber
        self.simulated = simulated
        self.request = request
        self.authenticated = caller != nil
        self.preauthenticated = caller
    }

    func start() async {
        await hub.add(subscriber)
        if let preauthenticated {
            // Notifications come on the stream too, from now on.
            await attach(preauthenticated.user)
            send(StreamMessage(type: "ready", simulated: simulated))
        } else {
            Task { [weak self] in
                try? await Task.sleep(for: StreamRoutes.authTimeout)
                await self?.closeIfUnauthenticated()
            }
        }
    }

    private func attach(_ user: UserID) async {
        attached = user
        await request.bullpen.inbox.attach(subscriber, user: user)
    }

    /// The stream closed: no more notifications to it.
    func end() async {
        if let attached { await request.bullpen.inbox.detach(subscriber.id, user: attached) }
    }

    private func closeIfUnauthenticated() async {
        guard !authenticated else { return }
        send(StreamMessage(type: "error", code: "unauthorized", message: "Authenticate within 10 seconds."))
        try? await subscriber.socket.close(code: .policyViolation)
    }

    func handle(_ text: String) async {
        guard text.utf8.count <= StreamRoutes.maxMessageBytes else {
            send(problem("message_too_large", "Messages are at most 64 KiB."))
            try? await subscriber.socket.close(code: .messageTooLarge)
            return
        }
        guard let message = try? JSONDecoder().decode(StreamRequest.self, from: Data(text.utf8)) else {
            return send(problem("invalid_message", "Messages are JSON objects with a type: auth, subscribe or unsubscribe."))
        }
        switch message.type {
        case "auth":
            do {
                let caller = try await request.caller(token: message.token ?? "")
                if attached == nil { await attach(caller.user) }
                authenticated = true
                send(StreamMessage(type: "ready", simulated: simulated))
            } catch {
                send(problem("unauthorized", "The access token is missing, invalid or expired."))
            }
        case "subscribe", "unsubscribe":
            guard authenticated else { return send(problem("unauthorized", "Send {\"type\":\"auth\",\"token\":...} first.")) }
            // A symbol named twice (in any spelling) is one subscription and one quote.
            var symbols: [Symbol] = [], malformed: [String] = [], seen = Set<String>()
            for text in message.symbols ?? [] {
                let symbol = Symbol(text)
                guard seen.insert(symbol?.rawValue ?? text).inserted else { continue }
                if let symbol { symbols.append(symbol) } else { malformed.append(text) }
            }
            if message.type == "unsubscribe" {
                await hub.unsubscribe(subscriber.id, from: symbols)
                return send(StreamMessage(type: "unsubscribed", symbols: symbols.map(\.rawValue)))
            }
            let current = await hub.subscriptions(of: subscriber.id)
            guard current.union(symbols).count <= StreamRoutes.maxSymbolsPerClient else {
                return send(problem("too_many_symbols", "Subscribe to at most \(StreamRoutes.maxSymbolsPerClient) symbols."))
            }
            var known: [Symbol] = [], unknown = malformed
            for symbol in symbols {
                if (try? await request.bullpen.marketData?.asset(symbol)) != nil { known.append(symbol) } else { unknown.append(symbol.rawValue) }
            }
            let quotes = await hub.subscribe(subscriber.id, to: known)
            send(StreamMessage(type: "subscribed", symbols: known.map(\.rawValue), unknown: unknown))
            let sentAt = StreamCoding.timestamp()
            for symbol in known { if let quote = quotes[symbol] { send(StreamMessage(type: "quote", quote: QuoteDTO(symbol: symbol, quote: quote), sentAt: sentAt)) } }
        default:
            send(problem("invalid_message", "Unknown message type '\(message.type)'."))
        }
    }

    private func problem(_ code: String, _ message: String) -> StreamMessage {
        StreamMessage(type: "error", code: code, message: message)
    }

    private func send(_ message: StreamMessage) {
        if let text = StreamCoding.encode(message) { subscriber.deliver(text) }
    }
}

extension Application {
    private struct QuoteHubKey: StorageKey { typealias Value = QuoteHub }

    /// The stream's hub; nil without market data.
    var quoteHub: QuoteHub? {
        get { storage[QuoteHubKey.self] }
        set { storage[QuoteHubKey.self] = newValue }
    }
}
