import BullpenAPI
import BullpenCore
import BullpenMarketData
import BullpenStore
import Foundation
import Logging
import Synchronization
import Vapor

/// The players' open streams, by player: where a notification is delivered the moment it is made.
actor Inbox {
    private var streams: [UserID: [UUID: StreamSubscriber]] = [:]

    func attach(_ subscriber: StreamSubscriber, user: UserID) { streams[user, default: [:]][subscriber.id] = subscriber }

    func detach(_ id: UUID, user: UserID) {
        streams[user]?[id] = nil
        if streams[user]?.isEmpty == true { streams[user] = nil }
    }

    /// Sends each notification to its player's open streams, with their unread count.
    func deliver(_ notification: NotificationRecord, unread: Int) {
        guard let open = streams[notification.user], !open.isEmpty,
              let text = StreamCoding.encode(StreamMessage(type: "notification", sentAt: StreamCoding.timestamp(),
                                                           notification: NotificationDTO(notification), unread: unread))
        else { return }
        for subscriber in open.values { subscriber.deliver(text) }
    }
}

/// Where what happens to players becomes achievements and notifications: the one place that
/// checks achievement rules and grants them, and the one place that sends a notification on
/// (to the player's open streams and, for the kinds they chose, to their devices as a push).
/// Nothing here fails what caused it: a problem is logged.
struct Notifier: Sendable {
    let store: BullpenStore
    let inbox: Inbox
    let push: PushSender?
    let background: BackgroundTasks
    let logger: Logger

    /// Grants what `event` earns `user` (each achievement once), and tells them.
    func record(_ event: AchievementEvent, for user: UserID) async {
        do {
            let already = Set(try await store.achievements(of: user).map(\.achievement))
            let earned = Achievement.earned(by: event, already: already)
            guard !earned.isEmpty else { return }
            let granted = try await store.grant(earned, to: user)
            await deliver(granted.notifications)
        } catch {
            logger.warning("achievements not checked", metadata: ["user": "\(user)", "error": "\(error)"])
        }
    }

    /// Checks a fill of `user`'s against the trading achievements: their fills so far, its
    /// realized P&L, whether it was an option, and the sectors the portfolio holds after it.
    func traded(_ order: OrderRecord, book: Book, user: UserID, marketData: (any MarketDataSource)?) async {
        do {
            let counts = try await store.achievementCounts(of: user)
            var sectors = Set<String>()
            for symbol in book.positions.keys where !symbol.isOption {
                if let sector = try? await marketData?.asset(symbol)?.sector { sectors.insert(sector) }
            }
            await record(.traded(fills: counts.fills, realizedPnL: order.realizedPnL, option: order.symbol.isOption,
                                 sectorsHeld: sectors.count), for: user)
        } catch {
            logger.warning("achievements not checked", metadata: ["user": "\(user)", "error": "\(error)"])
        }
    }

    /// A player joined a league: its owner is told (unless either blocked the other), and the
    /// player's league achievements are checked.
    func joinedLeague(_ user: UserID, league: LeagueRecord) async {
        do {
            if league.ownerID != user, !(try await store.blocked(between: user, and: league.ownerID)),
               let player = try await store.user(id: user) {
                await notify([make(.leagueJoined, for: league.ownerID, title: "\(player.username) joined \(league.name)",
                                   body: "Your league has a new player.", link: "#/leagues/\(league.id)")])
            }
            await record(.joinedLeague(leagues: try await store.achievementCounts(of: user).leagues), for: user)
        } catch {
            logger.warning("league join not told", metadata: ["user": "\(user)", "error": "\(error)"])
        }
    }

    /// `follower` began to follow `followee`: the followee is told, and their follower achievements checked.
    func followed(_ followee: UserID, by follower: UserID) async {
        do {
            guard let fan = try await store.user(id: follower) else { return }
            await notify([make(.follower, for: followee, title: "\(fan.username) follows you",
                               body: "\(fan.username) will see your public trades and achievements in their feed.",
                               link: "#/people/\(fan.username)")])
            await record(.followed(followers: try await store.achievementCounts(of: followee).followers), for: followee)
        } catch {
            logger.warning("follow not told", metadata: ["user": "\(followee)", "error": "\(error)"])
        }
    }

    /// Stores notifications, then sends them on.
    func notify(_ notifications: [NotificationRecord]) async {
        guard !notifications.isEmpty else { return }
        do {
            try await store.notify(notifications)
            await deliver(notifications)
        } catch {
            logger.warning("notifications not stored", metadata: ["error": "\(error)"])
        }
    }

    /// Sends stored notifications to the players' open streams and devices.
    func deliver(_ notifications: [NotificationRecord]) async {
        for notification in notifications {
            let unread = (try? await store.unreadNotifications(of: notification.user)) ?? 0
            await inbox.deliver(notification, unread: unread)
            // A push service may be slow: what caused the notification does not wait for it.
            if let push { background.run { await push.send(notification) } }
        }
    }

    /// A notification made now, for `user`.
    func make(_ kind: NotificationKind, for user: UserID, title: String, body: String, link: String?) -> NotificationRecord {
        NotificationRecord(id: store.ids.makeUUID(), user: user, kind: kind, title: title, body: body, link: link, createdAt: store.time.now())
    }
}

extension NotificationDTO {
    init(_ notification: NotificationRecord) {
        self.init(id: notification.id.uuidString.lowercased(), kind: notification.kind.rawValue, title: notification.title,
                  body: notification.body, link: notification.link, createdAt: notification.createdAt, read: notification.readAt != nil)
    }
}

/// Work started beside an answer (achievement checks after an order, pushes) that the server
/// waits for when it shuts down, before it closes the database: none of it is cut off halfway or
/// left to touch a closed store.
final class BackgroundTasks: Sendable {
    private let running = Mutex<(tasks: [UUID: Task<Void, Never>], closed: Bool)>(([:], false))

    /// Starts `work`, unless the server is shutting down.
    func run(_ work: @escaping @Sendable () async -> Void) {
        let id = UUID()
        running.withLock { state in
            guard !state.closed else { return }
            state.tasks[id] = Task {
                await work()
                self.running.withLock { _ = $0.tasks.removeValue(forKey: id) }
            }
        }
    }

    /// Takes no more work and waits for what runs.
    func finish() async {
        let tasks = running.withLock { state in
            state.closed = true
            return Array(state.tasks.values)
        }
        for task in tasks { await task.value }
    }
}

/// Waits for the background work when the application shuts down.
struct BackgroundTasksLifecycle: LifecycleHandler {
    let tasks: BackgroundTasks
    func shutdownAsync(_ application: Application) async { await tasks.finish() }
}
