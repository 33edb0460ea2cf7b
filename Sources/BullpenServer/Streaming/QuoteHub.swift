import BullpenAPI
import BullpenCore
import BullpenMarketData
import Foundation
import Logging
import NIOCore
import NIOWebSocket
import Synchronization
import Vapor

/// One connected stream client: its socket and how many messages it has not yet taken. A client
/// that falls too far behind is dropped instead of holding everyone else up.
final class StreamSubscriber: Sendable {
    let id = UUID()
    let socket: WebSocket
    private let backlog = Atomic<Int>(0)
    private let dropped = Atomic<Bool>(false)
    let maxBacklog: Int

    init(socket: WebSocket, maxBacklog: Int) {
        self.socket = socket
        self.maxBacklog = maxBacklog
    }

    var isDropped: Bool { dropped.load(ordering: .relaxed) }

    /// Queues `text`; returns false (and closes the socket) when the client is too slow.
    @discardableResult
    func deliver(_ text: String) -> Bool {
        guard !isDropped else { return false }
        if backlog.load(ordering: .relaxed) >= maxBacklog {
            if dropped.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged {
                socket.close(code: .policyViolation, promise: nil)
            }
            return false
        }
        backlog.add(1, ordering: .relaxed)
        let promise = socket.eventLoop.makePromise(of: Void.self)
        promise.futureResult.whenComplete { _ in self.backlog.subtract(1, ordering: .relaxed) }
        socket.send(text, promise: promise)
        return true
    }
}

/// Fans quotes out to stream subscribers: one upstream poll per interval for all subscribed
/// symbols together, however many clients subscribe; a quote is encoded once per change and sent
/// to every subscriber of its symbol.
actor QuoteHub {
    private let source: any MarketDataSource
    private let interval: Duration
    private let logger: Logger
    private var subscribers: [UUID: StreamSubscriber] = [:]
    private var symbolsOf: [UUID: Set<Symbol>] = [:]
    private var subscribersOf: [Symbol: Set<UUID>] = [:]
    private var lastSent: [Symbol: Quote] = [:]
    private var poller: Task<Void, Never>?
    private var closing: WebSocketErrorCode?
    /// Upstream polls made and symbols asked for, for tests and status.
    private(set) var polls = 0
    private(set) var symbolsPolled = 0
    private(set) var dropped = 0

    init(source: any MarketDataSource, interval: Duration, logger: Logger) {
        self.source = source
        self.interval = interval
        self.logger = logger
    }

    var subscriberCount: Int { subscribers.count }

    func add(_ subscriber: StreamSubscriber) {
        if let closing {
            // Upgraded as the server began to go away: told at once.
            subscriber.socket.close(code: closing, promise: nil)
            return
        }
        subscribers[subscriber.id] = subscriber
        BullpenMetrics.streamSubscribers(subscribers.count)
        startPolling()
    }

    func remove(_ id: UUID) {
        subscribers[id] = nil
        BullpenMetrics.streamSubscribers(subscribers.count)
        for symbol in symbolsOf.removeValue(forKey: id) ?? [] { unsubscribeOne(id, symbol) }
    }

    /// Subscribes and returns the current quotes of the new symbols (sent at once to the client).
    func subscribe(_ id: UUID, to symbols: [Symbol]) async -> [Symbol: Quote] {
        guard subscribers[id] != nil else { return [:] }
        for symbol in symbols {
            symbolsOf[id, default: []].insert(symbol)
            subscribersOf[symbol, default: []].insert(id)
        }
        let quotes = (try? await source.quotes(symbols, asOf: .live)) ?? [:]
        for (symbol, quote) in quotes where lastSent[symbol] == nil { lastSent[symbol] = quote }
        return quotes
    }

    func unsubscribe(_ id: UUID, from symbols: [Symbol]) {
        for symbol in symbols {
            symbolsOf[id]?.remove(symbol)
            unsubscribeOne(id, symbol)
        }
    }

    func subscriptions(of id: UUID) -> Set<Symbol> { symbolsOf[id] ?? [] }

    private func unsubscribeOne(_ id: UUID, _ symbol: Symbol) {
        subscribersOf[symbol]?.remove(id)
        if subscribersOf[symbol]?.isEmpty == true {
            subscribersOf[symbol] = nil
            lastSent[symbol] = nil
        }
    }

    private func startPolling() {
        guard poller == nil else { return }
        poller = Task { [interval] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                await self.pollOnce()
            }
        }
    }

    /// Closes every stream with `code` (1001, going away, when the server stops), and any
    /// opened from now on.
    func closeAll(code: WebSocketErrorCode) async {
        closing = code
        for subscriber in subscribers.values {
            try? await subscriber.socket.close(code: code)
            // A client that neither answers the close frame nor a ping within a second is cut off
            // (WebSocketKit then closes the connection itself), so that it cannot hold the stop up.
            subscriber.socket.pingInterval = .seconds(1)
        }
    }

    func stop() {
        poller?.cancel()
        poller = nil
    }

    /// Asks the source once for every subscribed symbol and sends what changed.
    func pollOnce() async {
        let symbols = Array(subscribersOf.keys)
        guard !symbols.isEmpty else { return }
        polls += 1
        symbolsPolled += symbols.count
        let quotes: [Symbol: Quote]
        do { quotes = try await source.quotes(symbols, asOf: .live) } catch {
            logger.warning("stream poll failed", metadata: ["error": "\(error)"])
            return
        }
        let sentAt = StreamCoding.timestamp()
        for (symbol, quote) in quotes where lastSent[symbol] != quote && subscribersOf[symbol] != nil {
            lastSent[symbol] = quote
            guard let text = StreamCoding.encode(StreamMessage(type: "quote", quote: QuoteDTO(symbol: symbol, quote: quote), sentAt: sentAt)) else { continue }
            for id in subscribersOf[symbol] ?? [] {
                guard let subscriber = subscribers[id] else { continue }
                if !subscriber.deliver(text) {
                    dropped += 1
                    logger.notice("stream: dropped a slow client", metadata: ["client": "\(id)"])
                    remove(id)
                }
            }
        }
    }
}

/// JSON for the stream, with millisecond timestamps.
enum StreamCoding {
    static func encode(_ message: StreamMessage) -> String? {
        (try? APIContract.makeEncoder().encode(message)).map { String(decoding: $0, as: UTF8.self) }
    }

    static func timestamp(_ date: Date = Date()) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}
