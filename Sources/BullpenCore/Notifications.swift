import Foundation

/// What a notification is about. Each kind can be sent as a browser push or not, per player.
public enum NotificationKind: String, Sendable, Hashable, CaseIterable, Codable {
    case leagueJoined = "league_joined"
    case leagueKicked = "league_kicked"
    case leagueEnded = "league_ended"
    case achievement
    case orderFilled = "order_filled"
    case alert
    case follower
    case marginCall = "margin_call"

    /// The kinds a player can choose among.
    public static let offered: [NotificationKind] = allCases

    /// How the settings screen names the kind.
    public var label: String {
        switch self {
        case .leagueJoined: "Someone joins your league"
        case .leagueKicked: "You are removed from a league"
        case .leagueEnded: "A league you play in ends"
        case .achievement: "You earn an achievement"
        case .orderFilled: "A working order fills"
        case .alert: "A price alert fires"
        case .follower: "Someone follows you"
        case .marginCall: "A margin call on your short positions"
        }
    }
}

/// One in-app notification: what happened, in words, and where in the app it leads.
public struct NotificationRecord: Sendable, Hashable, Identifiable {
    public var id: UUID
    public var user: UserID
    public var kind: NotificationKind
    public var title: String
    public var body: String
    /// An app route (`#/stock/AAPL`, `#/leagues/<id>`), or nil.
    public var link: String?
    public var createdAt: Date
    public var readAt: Date?

    public init(id: UUID, user: UserID, kind: NotificationKind, title: String, body: String, link: String?,
                createdAt: Date, readAt: Date? = nil) {
        self.id = id; self.user = user; self.kind = kind; self.title = title; self.body = body; self.link = link
        self.createdAt = createdAt; self.readAt = readAt
    }
}

/// Starting over without starting from scratch: a player whose Main portfolio has fallen below a
/// tenth of its starting cash may claim a top-up back to the starting cash, once every seven
/// days. The grant is journaled as a deposit (``JournalEntry/Kind/grant``): it is not a gain, so
/// returns count it as money put in, and the portfolio leaves the global leaderboard for the rest
/// of its period (its daily figures would count the deposit as a day's gain).
public enum TopUp {
    /// Equity below this share of the starting cash (in percent) qualifies.
    public static let thresholdPercent: Int64 = 10
    public static let interval: TimeInterval = 7 * 24 * 3600

    public enum Refusal: Error, Sendable, Hashable {
        /// Equity is at or above a tenth of the starting cash.
        case notBelowThreshold(equity: Money, threshold: Money)
        /// A top-up was granted less than seven days ago; the next may be claimed from `next`.
        case tooSoon(next: Date)
    }

    public static func threshold(startingCash: Money) -> Money {
        Money(cents: startingCash.cents * thresholdPercent / 100)
    }

    /// The amount granted (up to the starting cash, counting the holdings' value), or why not.
    public static func grant(equity: Money, startingCash: Money, lastGrant: Date?, now: Date) -> Result<Money, Refusal> {
        if let lastGrant, now < lastGrant.addingTimeInterval(interval) {
            return .failure(.tooSoon(next: lastGrant.addingTimeInterval(interval)))
        }
        let threshold = threshold(startingCash: startingCash)
        guard equity < threshold else { return .failure(.notBelowThreshold(equity: equity, threshold: threshold)) }
        return .success(startingCash - equity)
    }
}
