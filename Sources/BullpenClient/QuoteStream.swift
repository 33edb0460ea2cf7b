import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Live quotes over the server's WebSocket, as an `AsyncSequence`.
///
/// ```swift
/// for try await event in client.quoteStream(symbols: ["AAPL", "MSFT"]) {
///     if case .quote(let quote) = event { print(quote.symbol, quote.price) }
/// }
/// ```
///
/// Iterating connects (with the session's access token), subscribes, and yields each symbol's quote at
/// once and then every change. Ending the loop or cancelling its task closes the connection.
public struct QuoteStream: AsyncSequence, Sendable {
    /// What the stream says.
    public enum Event: Sendable, Hashable {
        /// The subscription took: the symbols streamed, and those no company trades under.
        case subscribed(symbols: [String], unknown: [String])
        /// A symbol's price now.
        case quote(Quote)
    }

    /// The elements: events.
    public typealias Element = Event

    let client: BullpenClient
    let symbols: [String]

    /// Starts the connection.
    public func makeAsyncIterator() -> AsyncThrowingStream<Event, any Error>.AsyncIterator {
        let (stream, continuation) = AsyncThrowingStream<Event, any Error>.makeStream(bufferingPolicy: .bufferingNewest(1_000))
        let task = Task { [client, symbols] in
            do {
                try await QuoteStream.run(client: client, symbols: symbols, continuation: continuation)
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream.makeAsyncIterator()
    }

    static func run(client: BullpenClient, symbols: [String],
                    continuation: AsyncThrowingStream<Event, any Error>.Continuation) async throws {
        guard let token = try await bullpenCall({ try await client.session.currentToken() }) else { throw BullpenError.notLoggedIn }
        guard var parts = URLComponents(url: client.server, resolvingAgainstBaseURL: false) else {
            throw BullpenError.cannotConnect("not a URL: \(client.server)")
        }
        parts.scheme = parts.scheme == "https" ? "wss" : "ws"
        parts.path = (parts.path.hasSuffix("/") ? String(parts.path.dropLast()) : parts.path) + "/api/v1/stream"
        parts.queryItems = [URLQueryItem(name: "token", value: token)]
        guard let url = parts.url else { throw BullpenError.cannotConnect("not a URL: \(client.server)") }
        let connection = try await WebSocketConnection.open(url: url, session: client.urlSession)
        defer { connection.close() }
        // A read waits for the server; cancelling (the loop ended) closes the connection, which ends it.
        try await withTaskCancellationHandler {
            let subscribe = try JSONSerialization.data(withJSONObject: ["type": "subscribe", "symbols": symbols])
            try await connection.send(String(decoding: subscribe, as: UTF8.self))
            while !Task.isCancelled {
                guard let text = try await connection.receive() else { return }
                guard let event = try parse(text) else { continue }
                continuation.yield(event)
            }
        } onCancel: {
            connection.close()
        }
    }

    /// One server message as an event: nil for the ones a caller does not need (ready, notifications).
    static func parse(_ text: String) throws -> Event? {
        struct Message: Decodable {
            var type: String
            var quote: Components.Schemas.Quote?
            var symbols: [String]?
            var unknown: [String]?
            var code: String?
            var message: String?
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let message: Message
        do { message = try decoder.decode(Message.self, from: Data(text.utf8)) } catch {
            throw BullpenError.invalidResponse("a stream message: \(error)")
        }
        switch message.type {
        case "quote":
            guard let quote = message.quote else { return nil }
            return .quote(try Quote(quote))
        case "subscribed":
            return .subscribed(symbols: message.symbols ?? [], unknown: message.unknown ?? [])
        case "error":
            throw BullpenError.api(status: 400, code: .init(rawValue: message.code ?? "stream_error"),
                                   message: message.message ?? "The stream refused a message.", retryAfter: nil)
        default:
            return nil
        }
    }
}

/// A WebSocket client connection: URLSession's where the platform has it, and on Linux, whose
/// URLSession needs a libcurl built with WebSockets (Debian 12's is not), a small RFC 6455 client over
/// a socket for `ws://` servers.
final class WebSocketConnection: Sendable {
    private let task: URLSessionWebSocketTask?
    #if os(Linux)
    private let socket: SocketWebSocket?
    #endif

    private init(task: URLSessionWebSocketTask) {
        self.task = task
        #if os(Linux)
        socket = nil
        #endif
    }

    #if os(Linux)
    private init(socket: SocketWebSocket) {
        self.task = nil
        self.socket = socket
    }
    #endif

    static func open(url: URL, session: URLSession) async throws -> WebSocketConnection {
        #if os(Linux)
        if url.scheme == "ws" {
            return WebSocketConnection(socket: try await SocketWebSocket.connect(url: url))
        }
        #endif
        let task = session.webSocketTask(with: url)
        task.maximumMessageSize = 1 << 20
        task.resume()
        return WebSocketConnection(task: task)
    }

    func send(_ text: String) async throws {
        #if os(Linux)
        if let socket { try socket.send(text); return }
        #endif
        do { try await task?.send(.string(text)) } catch { throw bullpenError(error) }
    }

    /// The next text message; nil once the server closed the connection.
    func receive() async throws -> String? {
        #if os(Linux)
        if let socket { return try await socket.receive() }
        #endif
        guard let task else { return nil }
        do {
            switch try await task.receive() {
            case .string(let text): return text
            case .data(let data): return String(decoding: data, as: UTF8.self)
            @unknown default: return nil
            }
        } catch {
            switch task.closeCode {
            case .normalClosure: return nil
            case .invalid: throw bullpenError(error)
            default:
                throw WebSocketConnection.closedError(code: task.closeCode.rawValue,
                                                      reason: task.closeReason.map { String(decoding: $0, as: UTF8.self) } ?? "")
            }
        }
    }

    /// The server ended the stream other than normally: 1001 when it shuts down, 1008 when the
    /// client read too slowly, 1009 for a message too large.
    static func closedError(code: Int, reason: String) -> BullpenError {
        let why = reason.isEmpty ? "" : ": \(reason)"
        return code == 1001 ? .cannotConnect("the server closed the stream, going away (1001)\(why)")
            : .api(status: 400, code: .init(rawValue: "stream_closed_\(code)"), message: "The server closed the stream (\(code))\(why).",
                   retryAfter: nil)
    }

    func close() {
        task?.cancel(with: .normalClosure, reason: nil)
        #if os(Linux)
        socket?.close()
        #endif
    }
}
