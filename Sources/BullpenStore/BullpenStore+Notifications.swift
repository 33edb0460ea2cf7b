import BullpenCore
import FluentKit
import FluentSQL
import Foundation

/// Achievements granted, notifications, price alerts, push subscriptions and sign-in streaks.
extension BullpenStore {
    // MARK: Achievements

    /// Grants each of `achievements` that `user` does not have yet, with a notification for each,
    /// in one transaction. Answers those granted now (a second grant of one changes nothing: the
    /// table holds one row per player and achievement), and the notifications made.
    public func grant(_ achievements: [Achievement], to user: UserID) async throws
        -> (grants: [AchievementGrant], notifications: [NotificationRecord]) {
        guard !achievements.isEmpty else { return ([], []) }
        let now = time.now()
        return try await transaction { db in
            var granted: [AchievementGrant] = [], notifications: [NotificationRecord] = []
            for achievement in achievements {
                let id = self.ids.makeUUID()
                let inserted = try await self.sql(db).raw("""
                    INSERT INTO "achievements_earned" ("id", "user_id", "achievement_id", "earned_at")
                    VALUES (\(bind: id), \(bind: user.uuid), \(bind: achievement.id), \(bind: now))
                    ON CONFLICT ("user_id", "achievement_id") DO NOTHING RETURNING "id"
                    """).first()
                guard inserted != nil else { continue }
                granted.append(AchievementGrant(id: id, user: user, achievement: achievement.id, earnedAt: now))
                let notification = NotificationRecord(
                    id: self.ids.makeUUID(), user: user, kind: .achievement, title: "Achievement: \(achievement.name)",
                    body: achievement.description, link: "#/people/me", createdAt: now)
                try await self.insert(notification, on: db)
                notifications.append(notification)
            }
            return (granted, notifications)
        }
    }

    /// The achievements `user` earned, oldest first.
    public func achievements(of user: UserID) async throws -> [AchievementGrant] {
        try await sql(db).select().columns("id", "achievement_id", "earned_at").from("achievements_earned")
            .where("user_id", .equal, user.uuid).orderBy("earned_at").orderBy("id").all().map { row in
                AchievementGrant(id: try row.decode(column: "id", as: UUID.self), user: user,
                                 achievement: try row.decode(column: "achievement_id", as: String.self),
                                 earnedAt: try row.decode(column: "earned_at", as: Date.self))
            }
    }

    /// What the player's achievement rules need counted.
    public struct AchievementCounts: Sendable {
        public var fills: Int
        public var leagues: Int
        public var followers: Int
    }

    public func achievementCounts(of user: UserID) async throws -> AchievementCounts {
        let row = try await sql(db).raw("""
            SELECT (SELECT COUNT(*) FROM "fills" AS "f" JOIN "portfolios" AS "p" ON "p"."id" = "f"."portfolio_id"
                    WHERE "p"."user_id" = \(bind: user.uuid)) AS "fills",
                   (SELECT COUNT(*) FROM "league_members" WHERE "user_id" = \(bind: user.uuid)) AS "leagues",
                   (SELECT COUNT(*) FROM "follows" WHERE "followee_id" = \(bind: user.uuid)) AS "followers"
            """).first()
        return AchievementCounts(fills: try row?.decode(column: "fills", as: Int.self) ?? 0,
                                 leagues: try row?.decode(column: "leagues", as: Int.self) ?? 0,
                                 followers: try row?.decode(column: "followers", as: Int.self) ?? 0)
    }

    /// Counts a sign-in on `today` (UTC) and answers the days in a row so far.
    public func recordSignIn(_ user: UserID, on today: SessionDate) async throws -> Int {
        try await transaction { db in
            let row = try await self.sql(db).select().columns("sign_in_day", "sign_in_streak").from("users")
                .where("id", .equal, user.uuid).first()
            let last = try row.flatMap { try $0.decodeNil(column: "sign_in_day") ? nil : try $0.decode(column: "sign_in_day", as: String.self) }
                .flatMap { SessionDate(iso: $0) }
            let streak = SignInStreak.after(signingInOn: today, last: last,
                                            streak: try row?.decode(column: "sign_in_streak", as: Int.self) ?? 0)
            if last != today {
                try await self.sql(db).update("users").set("sign_in_day", to: today.description).set("sign_in_streak", to: streak)
                    .where("id", .equal, user.uuid).run()
            }
            return streak
        }
    }

    // MARK: Notifications

    func insert(_ notification: NotificationRecord, on db: any Database) async throws {
        try await sql(db).insert(into: "notifications")
            .columns("id", "user_id", "kind", "title", "body", "link", "created_at", "read_at")
            .values(SQLBind(notification.id), SQLBind(notification.user.uuid), SQLBind(notification.kind.rawValue),
                    SQLBind(notification.title), SQLBind(notification.body), SQLBind(notification.link),
                    SQLBind(notification.createdAt), SQLBind(notification.readAt))
            .run()
    }

    /// Stores notifications (each for its own player).
    public func notify(_ notifications: [NotificationRecord]) async throws {
        guard !notifications.isEmpty else { return }
        try await transaction { db in
            for notification in notifications { try await self.insert(notification, on: db) }
        }
    }

    private static func notification(_ row: any SQLRow) throws -> NotificationRecord {
        let id = try row.decode(column: "id", as: UUID.self)
        let kind = try row.decode(column: "kind", as: String.self)
        return NotificationRecord(
            id: id, user: UserID(try row.decode(column: "user_id", as: UUID.self)),
            kind: try StoreError.decoding("notifications", id) { NotificationKind(rawValue: kind) },
            title: try row.decode(column: "title", as: String.self), body: try row.decode(column: "body", as: String.self),
            link: try row.decodeNil(column: "link") ? nil : try row.decode(column: "link", as: String.self),
            createdAt: try row.decode(column: "created_at", as: Date.self),
            readAt: try row.decodeNil(column: "read_at") ? nil : try row.decode(column: "read_at", as: Date.self))
    }

    /// A page of the player's notifications, newest first, after the one `after` names (by its
    /// stored time and id, so that notifications made at one time are paged exactly).
    public func notifications(of user: UserID, after: UUID?, limit: Int) async throws -> [NotificationRecord] {
        var anchor: SQLQueryString = "1 = 1"
        if let after {
            guard try await sql(db).select().column("id").from("notifications").where("id", .equal, after)
                .where("user_id", .equal, user.uuid).first() != nil
            else { throw StoreError.invalidCursor }
            // The anchor's time as stored (read back and bound again, a time may not compare equal to itself).
            let at: SQLQueryString = #"(SELECT "created_at" FROM "notifications" WHERE "id" = \#(bind: after))"#
            anchor = #"("created_at" < \#(at) OR ("created_at" = \#(at) AND "id" < \#(bind: after)))"#
        }
        return try await sql(db).raw("""
            SELECT * FROM "notifications" WHERE "user_id" = \(bind: user.uuid) AND \(anchor)
            ORDER BY "created_at" DESC, "id" DESC LIMIT \(bind: limit)
            """).all().map(Self.notification)
    }

    public func unreadNotifications(of user: UserID) async throws -> Int {
        try await sql(db).raw("""
            SELECT COUNT(*) AS "n" FROM "notifications" WHERE "user_id" = \(bind: user.uuid) AND "read_at" IS NULL
            """).first()?.decode(column: "n", as: Int.self) ?? 0
    }

    /// Marks the player's notifications read: those named, or all. Answers how many changed.
    @discardableResult
    public func markRead(_ user: UserID, ids: [UUID]?) async throws -> Int {
        let now = time.now()
        return try await transaction { db in
            var filter: SQLQueryString = "1 = 1"
            if let ids {
                guard !ids.isEmpty else { return 0 }
                filter = #""id" IN (\#(ids.map { "\(bind: $0)" as SQLQueryString }.joined(separator: ", ")))"#
            }
            let rows = try await self.sql(db).raw("""
                UPDATE "notifications" SET "read_at" = \(bind: now)
                WHERE "user_id" = \(bind: user.uuid) AND "read_at" IS NULL AND \(filter) RETURNING "id"
                """).all()
            return rows.count
        }
    }

    // MARK: Price alerts

    private static func alert(_ row: any SQLRow) throws -> PriceAlert {
        let id = try row.decode(column: "id", as: UUID.self)
        let kind = try row.decode(column: "kind", as: String.self), threshold = try row.decode(column: "threshold", as: Int64.self)
        let symbol = try row.decode(column: "symbol", as: String.self)
        let condition: AlertCondition = try StoreError.decoding("price_alerts", id) {
            switch kind {
            case "above": .above(Price(ticks: threshold))
            case "below": .below(Price(ticks: threshold))
            case "move": .move(Percent(hundredths: threshold))
            default: nil
            }
        }
        return PriceAlert(
            id: id, user: UserID(try row.decode(column: "user_id", as: UUID.self)),
            symbol: try StoreError.decoding("price_alerts", id) { Symbol(symbol) }, condition: condition,
            createdAt: try row.decode(column: "created_at", as: Date.self),
            triggeredAt: try row.decodeNil(column: "triggered_at") ? nil : try row.decode(column: "triggered_at", as: Date.self),
            triggeredPrice: try row.decodeNil(column: "triggered_price_ticks") ? nil
                : Price(ticks: try row.decode(column: "triggered_price_ticks", as: Int64.self)))
    }

    private static func threshold(_ condition: AlertCondition) -> Int64 {
        switch condition {
        case .above(let price), .below(let price): price.ticks
        case .move(let percent): percent.hundredths
        }
    }

    /// The player's alerts, newest first.
    public func alerts(of user: UserID) async throws -> [PriceAlert] {
        try await sql(db).raw("""
            SELECT * FROM "price_alerts" WHERE "user_id" = \(bind: user.uuid) ORDER BY "created_at" DESC, "id" DESC
            """).all().map(Self.alert)
    }

    /// Every armed alert of every player (what the monitor indexes).
    public func armedAlerts() async throws -> [PriceAlert] {
        try await sql(db).raw(#"SELECT * FROM "price_alerts" WHERE "triggered_at" IS NULL"#).all().map(Self.alert)
    }

    /// Adds an alert, unless the player has ``PriceAlert/maxPerUser`` already.
    /// - Throws: ``StoreError/tooManyAlerts(limit:)`` at the limit.
    public func createAlert(_ user: UserID, symbol: Symbol, condition: AlertCondition) async throws -> PriceAlert {
        let alert = PriceAlert(id: ids.makeUUID(), user: user, symbol: symbol, condition: condition, createdAt: time.now())
        // The count and the insert are one statement; the player's row is locked first so that two
        // creations cannot both see room.
        let rows = try await transaction { db in
            try await self.lockPlayer(user, on: db)
            return try await self.sql(db).raw("""
            INSERT INTO "price_alerts" ("id", "user_id", "symbol", "kind", "threshold", "created_at")
            SELECT \(bind: alert.id), \(bind: user.uuid), \(bind: symbol.rawValue), \(bind: condition.kind),
                   \(bind: Self.threshold(condition)), \(bind: alert.createdAt)
            WHERE (SELECT COUNT(*) FROM "price_alerts" WHERE "user_id" = \(bind: user.uuid)) < \(bind: PriceAlert.maxPerUser)
            RETURNING "id"
            """).all()
        }
        guard !rows.isEmpty else { throw StoreError.tooManyAlerts(limit: PriceAlert.maxPerUser) }
        return alert
    }

    /// Deletes one of the player's alerts. - Throws: ``StoreError/notFound(_:)``.
    public func deleteAlert(_ id: UUID, of user: UserID) async throws {
        let rows = try await sql(db).raw("""
            DELETE FROM "price_alerts" WHERE "id" = \(bind: id) AND "user_id" = \(bind: user.uuid) RETURNING "id"
            """).all()
        guard !rows.isEmpty else { throw StoreError.notFound("Alert") }
    }

    /// Arms a fired alert again. - Throws: ``StoreError/notFound(_:)``.
    public func rearmAlert(_ id: UUID, of user: UserID) async throws -> PriceAlert {
        guard let row = try await sql(db).raw("""
            UPDATE "price_alerts" SET "triggered_at" = NULL, "triggered_price_ticks" = NULL
            WHERE "id" = \(bind: id) AND "user_id" = \(bind: user.uuid) RETURNING *
            """).first() else { throw StoreError.notFound("Alert") }
        return try Self.alert(row)
    }

    /// Fires the alerts named (those still armed: another instance may have fired one first),
    /// each with a notification, in one transaction. Answers the notifications of the alerts fired now.
    public func fire(_ fired: [(id: UUID, price: Price)]) async throws -> [NotificationRecord] {
        guard !fired.isEmpty else { return [] }
        let now = time.now()
        return try await transaction { db in
            var notifications: [NotificationRecord] = []
            for (id, price) in fired {
                guard let row = try await self.sql(db).raw("""
                    UPDATE "price_alerts" SET "triggered_at" = \(bind: now), "triggered_price_ticks" = \(bind: price.ticks)
                    WHERE "id" = \(bind: id) AND "triggered_at" IS NULL RETURNING *
                    """).first() else { continue }
                let alert = try Self.alert(row)
                let notification = NotificationRecord(
                    id: self.ids.makeUUID(), user: alert.user, kind: .alert,
                    title: "\(alert.symbol.rawValue) at \(price.dollars)",
                    body: "Your alert fired: \(alert.symbol.rawValue) \(alert.condition.phrase).",
                    link: "#/stock/\(alert.symbol.rawValue)", createdAt: now)
                try await self.insert(notification, on: db)
                notifications.append(notification)
            }
            return notifications
        }
    }

    // MARK: Browser push

    public struct PushSubscription: Sendable, Hashable {
        public var id: UUID
        public var user: UserID
        public var endpoint: String
        public var p256dh: String
        public var auth: String
        public var createdAt: Date
    }

    /// Stores a device's subscription for `user` (a device subscribed before, by anyone, is now
    /// theirs); beyond `maxDevices`, the player's oldest devices are forgotten.
    public func addPushSubscription(_ user: UserID, endpoint: String, p256dh: String, auth: String, maxDevices: Int) async throws -> PushSubscription {
        let subscription = PushSubscription(id: ids.makeUUID(), user: user, endpoint: endpoint, p256dh: p256dh, auth: auth, createdAt: time.now())
        try await transaction(retryConstraintFailures: true) { db in
            try await self.sql(db).delete(from: "push_subscriptions").where("endpoint", .equal, endpoint).run()
            try await self.sql(db).insert(into: "push_subscriptions").columns("id", "user_id", "endpoint", "p256dh", "auth", "created_at")
                .values(SQLBind(subscription.id), SQLBind(user.uuid), SQLBind(endpoint), SQLBind(p256dh), SQLBind(auth),
                        SQLBind(subscription.createdAt)).run()
            try await self.sql(db).raw("""
                DELETE FROM "push_subscriptions" WHERE "user_id" = \(bind: user.uuid) AND "id" NOT IN (
                    SELECT "id" FROM "push_subscriptions" WHERE "user_id" = \(bind: user.uuid)
                    ORDER BY "created_at" DESC, "id" DESC LIMIT \(bind: maxDevices))
                """).run()
        }
        return subscription
    }

    public func pushSubscriptions(of user: UserID) async throws -> [PushSubscription] {
        try await sql(db).select().column("*").from("push_subscriptions").where("user_id", .equal, user.uuid)
            .orderBy("created_at").all().map { row in
                PushSubscription(id: try row.decode(column: "id", as: UUID.self), user: user,
                                 endpoint: try row.decode(column: "endpoint", as: String.self),
                                 p256dh: try row.decode(column: "p256dh", as: String.self),
                                 auth: try row.decode(column: "auth", as: String.self),
                                 createdAt: try row.decode(column: "created_at", as: Date.self))
            }
    }

    /// Forgets a subscription: the player's own (`user`), or any whose push service said it is gone (`user` nil).
    @discardableResult
    public func deletePushSubscription(endpoint: String, of user: UserID?) async throws -> Bool {
        var filter: SQLQueryString = "1 = 1"
        if let user { filter = #""user_id" = \#(bind: user.uuid)"# }
        return !(try await sql(db).raw("""
            DELETE FROM "push_subscriptions" WHERE "endpoint" = \(bind: endpoint) AND \(filter) RETURNING "id"
            """).all()).isEmpty
    }

    /// The kinds of notification the player gets as pushes (every kind unless they chose).
    public func pushKinds(of user: UserID) async throws -> Set<NotificationKind> {
        guard let row = try await sql(db).select().column("push_kinds").from("users").where("id", .equal, user.uuid).first(),
              !(try row.decodeNil(column: "push_kinds")) else { return Set(NotificationKind.allCases) }
        return Set(try row.decode(column: "push_kinds", as: String.self).split(separator: ",").compactMap { NotificationKind(rawValue: String($0)) })
    }

    public func setPushKinds(_ user: UserID, _ kinds: Set<NotificationKind>) async throws {
        let text = NotificationKind.allCases.filter(kinds.contains).map(\.rawValue).joined(separator: ",")
        try await sql(db).update("users").set("push_kinds", to: text).where("id", .equal, user.uuid).run()
    }
}

// MARK: League endings

extension BullpenStore {
    /// Leagues that ended within the last week and whose end was not announced yet.
    public func leaguesToAnnounce() async throws -> [LeagueID] {
        let now = time.now()
        return try await sql(db).raw("""
            SELECT "id" FROM "leagues" WHERE "deleted_at" IS NULL AND "final_announced_at" IS NULL
            AND "ends_at" IS NOT NULL AND "ends_at" <= \(bind: now) AND "ends_at" > \(bind: now.addingTimeInterval(-7 * 24 * 3600))
            """).all().map { LeagueID(try $0.decode(column: "id", as: UUID.self)) }
    }

    /// Claims the announcement of a league's end: true for the one caller (of any instance) that gets it.
    public func claimAnnouncement(of league: LeagueID) async throws -> Bool {
        !(try await sql(db).raw("""
            UPDATE "leagues" SET "final_announced_at" = \(bind: time.now())
            WHERE "id" = \(bind: league.uuid) AND "final_announced_at" IS NULL RETURNING "id"
            """).all()).isEmpty
    }
}

// MARK: Top-ups

extension BullpenStore {
    /// The player's Main portfolio: their oldest own live portfolio (not a league's, not closed).
    public func mainPortfolio(of user: UserID) async throws -> PortfolioID? {
        try await sql(db).raw("""
            SELECT "id" FROM "portfolios" WHERE "user_id" = \(bind: user.uuid) AND "league_id" IS NULL AND "closed_at" IS NULL
            AND "clock" = \(bind: PortfolioRow.encodeClock(.live)) ORDER BY "created_at", "id" LIMIT 1
            """).first().map { PortfolioID(try $0.decode(column: "id", as: UUID.self)) }
    }

    /// When the player was last granted a top-up, in any portfolio and period.
    public func lastGrant(of user: UserID) async throws -> Date? {
        let row = try await sql(db).raw("""
            SELECT MAX("j"."created_at") AS "at" FROM "journal_entries" AS "j" JOIN "portfolios" AS "p" ON "p"."id" = "j"."portfolio_id"
            WHERE "p"."user_id" = \(bind: user.uuid) AND "j"."kind" = \(bind: JournalEntry.Kind.grant.rawValue)
            """).first()
        guard let row, !(try row.decodeNil(column: "at")) else { return nil }
        return try row.decode(column: "at", as: Date.self)
    }

    /// Journals a top-up of `amount` through the ledger, if the portfolio still stands at
    /// `version`. The portfolio leaves the global leaderboard for the rest of its period (until a
    /// reset): its daily figures would count the deposit as a day's gain.
    /// - Throws: ``StoreError/portfolioChanged`` when it moved since.
    public func grantTopUp(_ amount: Money, to id: PortfolioID, owner: UserID, version: Int64) async throws -> JournalEntry {
        let command = LedgerCommand.grant(amount, portfolio: id, owner: owner, version: version)
        guard case .granted(let entry, _) = try await ledger.submit(command, store: self) else { throw StoreError.unavailable }
        return entry
    }
}
