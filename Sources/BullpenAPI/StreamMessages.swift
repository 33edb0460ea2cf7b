import Foundation

// The quote stream, `GET /api/v1/stream` (WebSocket). Every message is one JSON object with a `type`.
//
// Client → server:
//   {"type":"auth","token":"<access token>"}           (or pass ?token= when connecting)
//   {"type":"subscribe","symbols":["AAPL","MSFT"]}
//   {"type":"unsubscribe","symbols":["AAPL"]}
// Server → client:
//   {"type":"ready","simulated":false}                 after authentication
//   {"type":"subscribed","symbols":[...],"unknown":[...]}
//   {"type":"quote","quote":{...},"sentAt":"2026-...Z"} on subscribing and whenever a price changes
//   {"type":"error","code":"...","message":"..."}
//   {"type":"notification","notification":{...},"unread":3} whenever the player gets one

/// A message from a stream client.
public struct StreamRequest: Codable, Sendable, Hashable {
    public var type: String
    public var token: String?
    public var symbols: [String]?
    public init(type: String, token: String? = nil, symbols: [String]? = nil) {
        self.type = type; self.token = token; self.symbols = symbols
    }
}

/// A message to a stream client.
public struct StreamMessage: Codable, Sendable, Hashable {
    public var type: String
    public var quote: QuoteDTO?
    public var symbols: [String]?
    public var unknown: [String]?
    public var code: String?
    public var message: String?
    public var simulated: Bool?
    /// When the server sent it (milliseconds precision), to measure delivery.
    public var sentAt: String?
    public var notification: NotificationDTO?
    /// The player's unread notifications, with a `notification`.
    public var unread: Int?

    public init(type: String, quote: QuoteDTO? = nil, symbols: [String]? = nil, unknown: [String]? = nil,
                code: String? = nil, message: String? = nil, simulated: Bool? = nil, sentAt: String? = nil,
                notification: NotificationDTO? = nil, unread: Int? = nil) {
        self.notification = notification; self.unread = unread
        self.type = type; self.quote = quote; self.symbols = symbols; self.unknown = unknown
        self.code = code; self.message = message; self.simulated = simulated; self.sentAt = sentAt
    }
}
