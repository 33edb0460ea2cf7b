import Foundation

// Achievements, notifications, price alerts, browser push and top-ups.

/// An achievement on a profile: earned (with the date) or, on one's own profile, still to earn.
public struct AchievementDTO: Codable, Sendable, Hashable {
    public var id: String
    public var name: String
    public var description: String
    /// When it was earned; nil when not yet (listed on one's own profile only).
    public var earnedAt: Date?

    public init(id: String, name: String, description: String, earnedAt: Date?) {
        self.id = id; self.name = name; self.description = description; self.earnedAt = earnedAt
    }
}

/// One notification.
public struct NotificationDTO: Codable, Sendable, Hashable {
    public var id: String
    /// `league_joined`, `league_kicked`, `league_ended`, `achievement`, `order_filled`, `alert` or `follower`.
    public var kind: String
    public var title: String
    public var body: String
    /// Where in the app it leads (`#/stock/AAPL`), if anywhere.
    public var link: String?
    public var createdAt: Date
    public var read: Bool

    public init(id: String, kind: String, title: String, body: String, link: String?, createdAt: Date, read: Bool) {
        self.id = id; self.kind = kind; self.title = title; self.body = body; self.link = link
        self.createdAt = createdAt; self.read = read
    }
}

/// `GET /api/v1/notifications`: a page, newest first, and how many are unread in all.
public struct NotificationPage: Codable, Sendable, Hashable {
    public var notifications: [NotificationDTO]
    public var unread: Int
    public var nextCursor: String?

    public init(notifications: [NotificationDTO], unread: Int, nextCursor: String? = nil) {
        self.notifications = notifications; self.unread = unread; self.nextCursor = nextCursor
    }
}

/// `POST /api/v1/notifications/read`: the ids to mark read, or `all`.
public struct MarkReadRequest: Codable, Sendable, Hashable, RequestBody {
    public enum CodingKeys: String, CodingKey, CaseIterable { case ids, all }
    public var ids: [String]?
    public var all: Bool?
    public init(ids: [String]? = nil, all: Bool? = nil) { self.ids = ids; self.all = all }
}

/// `GET /api/v1/notifications/unread`.
public struct UnreadCount: Codable, Sendable, Hashable {
    public var unread: Int
    public init(unread: Int) { self.unread = unread }
}

/// A price alert.
public struct AlertDTO: Codable, Sendable, Hashable {
    public var id: String
    public var symbol: String
    /// `above`, `below` or `move`.
    public var condition: String
    /// A price for `above` and `below` (dollars), a percent for `move`.
    public var value: String
    /// What it watches for, in words.
    public var description: String
    /// Whether it will fire (false once it fired, until re-armed).
    public var armed: Bool
    public var createdAt: Date
    public var triggeredAt: Date?
    public var triggeredPrice: String?

    public init(id: String, symbol: String, condition: String, value: String, description: String, armed: Bool, createdAt: Date,
                triggeredAt: Date?, triggeredPrice: String?) {
        self.id = id; self.symbol = symbol; self.condition = condition; self.value = value; self.description = description
        self.armed = armed; self.createdAt = createdAt; self.triggeredAt = triggeredAt; self.triggeredPrice = triggeredPrice
    }
}

/// `GET /api/v1/alerts`.
public struct AlertList: Codable, Sendable, Hashable {
    public var alerts: [AlertDTO]
    /// Most alerts a player may keep.
    public var limit: Int
    public init(alerts: [AlertDTO], limit: Int) { self.alerts = alerts; self.limit = limit }
}

/// `POST /api/v1/alerts`: `{"symbol":"AAPL","condition":"above","value":"200.00"}`.
public struct CreateAlertRequest: Codable, Sendable, Hashable, RequestBody {
    public enum CodingKeys: String, CodingKey, CaseIterable { case symbol, condition, value }
    public var symbol: String
    public var condition: String
    public var value: String
    public init(symbol: String, condition: String, value: String) { self.symbol = symbol; self.condition = condition; self.value = value }
}

/// `GET /api/v1/push`: the server's VAPID public key, and which kinds the caller gets as pushes.
public struct PushSettingsDTO: Codable, Sendable, Hashable {
    public struct Kind: Codable, Sendable, Hashable {
        public var kind: String
        public var label: String
        public var enabled: Bool
        public init(kind: String, label: String, enabled: Bool) { self.kind = kind; self.label = label; self.enabled = enabled }
    }

    /// The application server key (base64url, uncompressed P-256), for `pushManager.subscribe`.
    public var publicKey: String
    public var kinds: [Kind]
    /// Devices subscribed.
    public var devices: Int

    public init(publicKey: String, kinds: [Kind], devices: Int) { self.publicKey = publicKey; self.kinds = kinds; self.devices = devices }
}

/// `PUT /api/v1/push/kinds`: the kinds to send as pushes.
public struct PushKindsRequest: Codable, Sendable, Hashable, RequestBody {
    public enum CodingKeys: String, CodingKey, CaseIterable { case kinds }
    public var kinds: [String]
    public init(kinds: [String]) { self.kinds = kinds }
}

/// `POST /api/v1/push/subscriptions`: a browser's `PushSubscription.toJSON()`.
public struct PushSubscriptionRequest: Codable, Sendable, Hashable, RequestBody {
    public enum CodingKeys: String, CodingKey, CaseIterable { case endpoint, keys, expirationTime }
    public struct Keys: Codable, Sendable, Hashable {
        public var p256dh: String
        public var auth: String
        public init(p256dh: String, auth: String) { self.p256dh = p256dh; self.auth = auth }
    }
    public var endpoint: String
    public var keys: Keys
    public var expirationTime: Double?
    public init(endpoint: String, keys: Keys, expirationTime: Double? = nil) { self.endpoint = endpoint; self.keys = keys; self.expirationTime = expirationTime }
}

/// `POST /api/v1/push/unsubscribe`: the device to forget.
public struct PushUnsubscribeRequest: Codable, Sendable, Hashable, RequestBody {
    public enum CodingKeys: String, CodingKey, CaseIterable { case endpoint }
    public var endpoint: String
    public init(endpoint: String) { self.endpoint = endpoint }
}

/// `GET /api/v1/portfolios/{id}/top-up`: whether a top-up can be claimed, and why (not).
public struct TopUpStatus: Codable, Sendable, Hashable {
    public var available: Bool
    /// What a claim would add now (zero when not available).
    public var amount: String
    public var equity: String
    /// A tenth of the starting cash: equity must be below it.
    public var threshold: String
    /// When the next top-up may be claimed, if the last one was too recent.
    public var nextAt: Date?
    public var reason: String

    public init(available: Bool, amount: String, equity: String, threshold: String, nextAt: Date?, reason: String) {
        self.available = available; self.amount = amount; self.equity = equity; self.threshold = threshold
        self.nextAt = nextAt; self.reason = reason
    }
}
