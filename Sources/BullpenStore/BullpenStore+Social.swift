import BullpenCore
import FluentKit
import FluentSQL
import Foundation

/// Profiles, follows, blocks, user search and the feed. Privacy is decided here, in the queries:
/// a private portfolio is never read by anything that answers someone else, and a block hides
/// each player from the other (profile, search, lists, feed) and ends their follows.
extension BullpenStore {
    public static let maxDisplayNameLength = 40
    public static let maxBioLength = 280

    // MARK: Profiles

    private static let summaryColumns = #""u"."id", "u"."username", "u"."display_name", "a"."updated_at" AS "avatar_updated_at""#
    private static let summaryJoin = #"LEFT JOIN "avatars" AS "a" ON "a"."user_id" = "u"."id""#

    private static func summary(_ row: any SQLRow) throws -> UserSummary {
        UserSummary(user: UserID(try row.decode(column: "id", as: UUID.self)), username: try row.decode(column: "username", as: String.self),
                    displayName: try row.decodeNil(column: "display_name") ? nil : try row.decode(column: "display_name", as: String.self),
                    avatarUpdatedAt: try row.decodeNil(column: "avatar_updated_at") ? nil : try row.decode(column: "avatar_updated_at", as: Date.self))
    }

    /// The profile of the account named `usernameKey` as `viewer` may see it: nil when there is
    /// none, or when either has blocked the other.
    public func profile(usernameKey: String, viewer: UserID) async throws -> ProfileRecord? {
        let sql = try sql(db)
        guard let row = try await sql.raw("""
            SELECT \(unsafeRaw: Self.summaryColumns), "u"."bio", "u"."created_at",
                   (SELECT COUNT(*) FROM "follows" AS "f" WHERE "f"."followee_id" = "u"."id" AND \(Self.neitherBlocked(#""f"."follower_id""#, "\(bind: viewer.uuid)"))) AS "followers",
                   (SELECT COUNT(*) FROM "follows" AS "f" WHERE "f"."follower_id" = "u"."id" AND \(Self.neitherBlocked(#""f"."followee_id""#, "\(bind: viewer.uuid)"))) AS "following"
            FROM "users" AS "u" \(unsafeRaw: Self.summaryJoin)
            WHERE "u"."username_key" = \(bind: usernameKey)
            """).first() else { return nil }
        let summary = try Self.summary(row)
        if try await blocked(between: summary.user, and: viewer) { return nil }
        return ProfileRecord(user: summary.user, username: summary.username, displayName: summary.displayName,
                             bio: try row.decodeNil(column: "bio") ? nil : try row.decode(column: "bio", as: String.self),
                             joinedAt: try row.decode(column: "created_at", as: Date.self), avatarUpdatedAt: summary.avatarUpdatedAt,
                             followers: try row.decode(column: "followers", as: Int.self), following: try row.decode(column: "following", as: Int.self))
    }

    /// Changes the display name and bio (a nil leaves it; an empty text clears it).
    public func updateProfile(_ user: UserID, displayName: String?, bio: String?) async throws {
        let update = try sql(db).update("users").where("id", .equal, user.uuid)
        var changed = false
        if let displayName { update.set("display_name", to: displayName.isEmpty ? nil : displayName); changed = true }
        if let bio { update.set("bio", to: bio.isEmpty ? nil : bio); changed = true }
        if changed { try await update.run() }
    }

    /// Stores (or replaces) the user's avatar image.
    public func setAvatar(_ user: UserID, contentType: String, bytes: [UInt8]) async throws {
        let now = time.now()
        // Two uploads at once: the loser's insert meets the winner's row and starts over, replacing it.
        try await transaction(retryConstraintFailures: true) { db in
            try await self.sql(db).delete(from: "avatars").where("user_id", .equal, user.uuid).run()
            try await self.sql(db).insert(into: "avatars").columns("user_id", "content_type", "bytes", "updated_at")
                .values(SQLBind(user.uuid), SQLBind(contentType), SQLBind(Data(bytes)), SQLBind(now)).run()
        }
    }

    public func deleteAvatar(_ user: UserID) async throws {
        try await sql(db).delete(from: "avatars").where("user_id", .equal, user.uuid).run()
    }

    /// The uploaded avatar of `user`, if any.
    public func avatar(_ user: UserID) async throws -> (contentType: String, bytes: Data, updatedAt: Date)? {
        guard let row = try await sql(db).select().column("content_type").column("bytes").column("updated_at").from("avatars")
            .where("user_id", .equal, user.uuid).first() else { return nil }
        return (try row.decode(column: "content_type", as: String.self), try row.decode(column: "bytes", as: Data.self),
                try row.decode(column: "updated_at", as: Date.self))
    }

    /// The portfolios `owner` made public, oldest first.
    public func publicPortfolios(owner: UserID) async throws -> [PortfolioRecord] {
        try await sql(db).select().column("*").from("portfolios").where("user_id", .equal, owner.uuid)
            .where("visibility", .in, [PortfolioVisibility.public.rawValue, PortfolioVisibility.full.rawValue])
            .where("closed_at", .is, SQLLiteral.null).where("league_id", .is, SQLLiteral.null)
            .orderBy("created_at").all(decoding: PortfolioRow.self, with: Self.rowDecoder).map { try $0.record() }
    }

    /// Sets who sees a portfolio of `owner`'s.
    /// A change of the record, like a rename: its version moves and the ledger's copy is dropped.
    public func setVisibility(_ id: PortfolioID, owner: UserID, to visibility: PortfolioVisibility) async throws {
        try await transaction { db in
            let row = try await self.portfolioRow(id, owner: owner, on: db)
            // A league portfolio is the league's: named after it, under its rules on what
            // members see of each other. It stays private.
            if row.leagueId != nil && visibility != .private { throw StoreError.leaguePortfolio }
            try await self.sql(db).update("portfolios").set("visibility", to: visibility.rawValue)
                .set("updated_at", to: self.time.now()).set("version", to: SQLRaw("version + 1"))
                .where("id", .equal, id.uuid).run()
        }
        await ledger.drop(id)
        await ledger.dropOwner(owner)
    }

    // MARK: Search

    /// Players whose username starts with `prefix` (any letter case), by name, that `viewer`
    /// may see (neither has blocked the other), `limit` from `offset`.
    public func searchUsers(prefix: String, viewer: UserID, offset: Int, limit: Int) async throws -> [UserSummary] {
        let pattern = prefix.lowercased().replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_") + "%"
        return try await sql(db).raw("""
            SELECT \(unsafeRaw: Self.summaryColumns) FROM "users" AS "u" \(unsafeRaw: Self.summaryJoin)
            WHERE "u"."username_key" LIKE \(bind: pattern) ESCAPE '\\'
              AND \(Self.neitherBlocked(#""u"."id""#, "\(bind: viewer.uuid)"))
            ORDER BY "u"."username_key" LIMIT \(bind: limit) OFFSET \(bind: offset)
            """).all().map(Self.summary)
    }

    // MARK: Follows and blocks

    /// A condition: neither of two players (SQL expressions: a column or a bound id) blocked the
    /// other. Every query that shows one player to another passes through it.
    static func neitherBlocked(_ one: SQLQueryString, _ other: SQLQueryString) -> SQLQueryString {
        """
        NOT EXISTS (SELECT 1 FROM "blocks" AS "bk" WHERE ("bk"."blocker_id" = \(one) AND "bk"."blocked_id" = \(other))
                                                     OR ("bk"."blocker_id" = \(other) AND "bk"."blocked_id" = \(one)))
        """
    }

    /// Whether either of the two has blocked the other.
    public func blocked(between one: UserID, and other: UserID) async throws -> Bool {
        guard one != other else { return false }
        return try await sql(db).raw("""
            SELECT 1 AS "found" WHERE NOT \(Self.neitherBlocked("\(bind: one.uuid)", "\(bind: other.uuid)"))
            """).first() != nil
    }

    /// `follower` follows `followee` (following twice changes nothing). The caller has checked
    /// that neither blocked the other. Answers whether this made a new follow.
    @discardableResult
    public func follow(_ followee: UserID, by follower: UserID) async throws -> Bool {
        do {
            // In one statement with the check: a block committed meanwhile leaves no follow behind.
            return !(try await sql(db).raw("""
                INSERT INTO "follows" ("follower_id", "followee_id", "created_at")
                SELECT \(bind: follower.uuid), \(bind: followee.uuid), \(bind: time.now())
                WHERE \(Self.neitherBlocked("\(bind: follower.uuid)", "\(bind: followee.uuid)"))
                RETURNING "follower_id"
                """).all()).isEmpty
        } catch where Self.isConstraintFailure(error) {
            return false   // already following
        }
    }

    public func unfollow(_ followee: UserID, by follower: UserID) async throws {
        try await sql(db).delete(from: "follows").where("follower_id", .equal, follower.uuid).where("followee_id", .equal, followee.uuid).run()
    }

    public func isFollowing(_ followee: UserID, by follower: UserID) async throws -> Bool {
        try await sql(db).select().column("follower_id").from("follows").where("follower_id", .equal, follower.uuid)
            .where("followee_id", .equal, followee.uuid).first() != nil
    }

    /// `blocker` blocks `blocked`: each stops following the other.
    public func block(_ blocked: UserID, by blocker: UserID) async throws {
        let now = time.now()
        // Two blocks at once: the second starts over and finds the first's row.
        try await transaction(retryConstraintFailures: true) { db in
            let sql = self.sql(db)
            try await sql.raw("""
                DELETE FROM "follows" WHERE ("follower_id" = \(bind: blocker.uuid) AND "followee_id" = \(bind: blocked.uuid))
                                         OR ("follower_id" = \(bind: blocked.uuid) AND "followee_id" = \(bind: blocker.uuid))
                """).run()
            let exists = try await sql.select().column("blocker_id").from("blocks").where("blocker_id", .equal, blocker.uuid)
                .where("blocked_id", .equal, blocked.uuid).first() != nil
            if !exists {
                try await sql.insert(into: "blocks").columns("blocker_id", "blocked_id", "created_at")
                    .values(SQLBind(blocker.uuid), SQLBind(blocked.uuid), SQLBind(now)).run()
            }
        }
    }

    public func unblock(_ blocked: UserID, by blocker: UserID) async throws {
        try await sql(db).delete(from: "blocks").where("blocker_id", .equal, blocker.uuid).where("blocked_id", .equal, blocked.uuid).run()
    }

    /// The players `user` blocked, by name.
    public func blockedUsers(by user: UserID) async throws -> [UserSummary] {
        try await sql(db).raw("""
            SELECT \(unsafeRaw: Self.summaryColumns) FROM "blocks" AS "b" JOIN "users" AS "u" ON "u"."id" = "b"."blocked_id"
            \(unsafeRaw: Self.summaryJoin) WHERE "b"."blocker_id" = \(bind: user.uuid) ORDER BY "u"."username_key"
            """).all().map(Self.summary)
    }

    /// Who follows `user` (`followers`) or whom `user` follows, newest first, that `viewer` may
    /// see, `limit` from `offset`.
    public func follows(of user: UserID, followers: Bool, viewer: UserID, offset: Int, limit: Int) async throws -> [UserSummary] {
        let (mine, theirs) = followers ? ("followee_id", "follower_id") : ("follower_id", "followee_id")
        return try await sql(db).raw("""
            SELECT \(unsafeRaw: Self.summaryColumns) FROM "follows" AS "f" JOIN "users" AS "u" ON "u"."id" = "f".\(ident: theirs)
            \(unsafeRaw: Self.summaryJoin)
            WHERE "f".\(ident: mine) = \(bind: user.uuid)
              AND \(Self.neitherBlocked(#""u"."id""#, "\(bind: viewer.uuid)"))
            ORDER BY "f"."created_at" DESC, "u"."username_key" LIMIT \(bind: limit) OFFSET \(bind: offset)
            """).all().map(Self.summary)
    }

    // MARK: The feed

    /// Where a feed page ends: the last event's id, and its time as the client got it (used
    /// only if that event is gone, e.g. its portfolio deleted).
    public struct FeedPosition: Sendable, Hashable {
        public var id: String
        public var at: Date
        public init(id: String, at: Date) { self.id = id; self.at = at }
    }

    /// What the players `viewer` follows made public, newest first, after `position` (the last
    /// event of the previous page), at most `limit`: fills in their public portfolios (not league
    /// portfolios) and their joining public leagues. Events are ordered by time, then id
    /// (`trade:<fill>`, then `league:<league>:<user>`, then `achievement:<grant>` at one time); each query continues exactly
    /// after the anchor event's stored time and id, so a page never repeats or skips an event,
    /// however many share a time (a batch writes its fills at one time).
    ///
    /// Fan-out on read: each source is read by index (`follows_follower`, each followee's public
    /// portfolios by `portfolios_owner_visibility` and their fills by `fills_portfolio_created`;
    /// league members by user, achievements by `achievements_earned_user`), newest first, `limit` rows at most from each, and merged. Nothing
    /// is written per follower when a player trades, and a portfolio made private (or a block)
    /// takes its events out of every feed at once.
    public func feed(for viewer: UserID, after position: FeedPosition?, limit: Int) async throws -> [FeedEvent] {
        let sql = try sql(db)
        // The anchor's stored time: a fill's or a membership's, else the time the client sent.
        var anchorTime: SQLQueryString = "NULL"
        var tradeAfter: SQLQueryString = "1 = 1", joinAfter: SQLQueryString = "1 = 1", earnedAfter: SQLQueryString = "1 = 1"
        if let position {
            // At one time, events sort by id, descending: trades, then league joins, then achievements.
            let parts = position.id.split(separator: ":").map(String.init)
            if parts.count == 2, parts[0] == "trade", let fill = UUID(uuidString: parts[1]) {
                anchorTime = #"COALESCE((SELECT "created_at" FROM "fills" WHERE "id" = \#(bind: fill)), \#(bind: position.at))"#
                tradeAfter = #"("fl"."created_at" < \#(anchorTime) OR ("fl"."created_at" = \#(anchorTime) AND "fl"."id" < \#(bind: fill)))"#
                joinAfter = #""m"."joined_at" <= \#(anchorTime)"#
                earnedAfter = #""e"."earned_at" <= \#(anchorTime)"#
            } else if parts.count == 2, parts[0] == "achievement", let grant = UUID(uuidString: parts[1]) {
                anchorTime = #"COALESCE((SELECT "earned_at" FROM "achievements_earned" WHERE "id" = \#(bind: grant)), \#(bind: position.at))"#
                tradeAfter = #""fl"."created_at" < \#(anchorTime)"#
                joinAfter = #""m"."joined_at" < \#(anchorTime)"#
                earnedAfter = #"("e"."earned_at" < \#(anchorTime) OR ("e"."earned_at" = \#(anchorTime) AND "e"."id" < \#(bind: grant)))"#
            } else if parts.count == 3, parts[0] == "league", let league = UUID(uuidString: parts[1]), let user = UUID(uuidString: parts[2]) {
                anchorTime = #"""
                    COALESCE((SELECT "joined_at" FROM "league_members" WHERE "league_id" = \#(bind: league) AND "user_id" = \#(bind: user)),
                             \#(bind: position.at))
                    """#
                tradeAfter = #""fl"."created_at" < \#(anchorTime)"#
                earnedAfter = #""e"."earned_at" <= \#(anchorTime)"#
                joinAfter = #"""
                    ("m"."joined_at" < \#(anchorTime) OR ("m"."joined_at" = \#(anchorTime)
                     AND ("m"."league_id" < \#(bind: league) OR ("m"."league_id" = \#(bind: league) AND "m"."user_id" < \#(bind: user)))))
                    """#
            } else {
                throw StoreError.invalidCursor
            }
        }
        let notBlocked = Self.neitherBlocked(#""f"."followee_id""#, #""f"."follower_id""#)
        let trades = try await sql.raw("""
            SELECT "fl"."id" AS "fill_id", "fl"."symbol", "fl"."side", "fl"."quantity", "fl"."price_ticks", "fl"."price_as_of",
                   "fl"."created_at" AS "at", "p"."id" AS "portfolio_id", "p"."name" AS "portfolio_name", "p"."visibility", "p"."clock",
                   \(unsafeRaw: Self.summaryColumns)
            FROM "follows" AS "f"
            JOIN "portfolios" AS "p" ON "p"."user_id" = "f"."followee_id" AND "p"."visibility" IN ('public', 'full')
                                     AND "p"."league_id" IS NULL AND "p"."closed_at" IS NULL
            JOIN "fills" AS "fl" ON "fl"."portfolio_id" = "p"."id"
            JOIN "users" AS "u" ON "u"."id" = "f"."followee_id"
            \(unsafeRaw: Self.summaryJoin)
            WHERE "f"."follower_id" = \(bind: viewer.uuid) AND \(tradeAfter) AND \(notBlocked)
            ORDER BY "fl"."created_at" DESC, "fl"."id" DESC LIMIT \(bind: limit)
            """).all()
        let joins = try await sql.raw("""
            SELECT "l"."id" AS "league_id", "l"."name" AS "league_name", "m"."joined_at" AS "at", \(unsafeRaw: Self.summaryColumns)
            FROM "follows" AS "f"
            JOIN "league_members" AS "m" ON "m"."user_id" = "f"."followee_id" AND "m"."status" = 'active'
            JOIN "leagues" AS "l" ON "l"."id" = "m"."league_id" AND "l"."visibility" = 'public' AND "l"."deleted_at" IS NULL
            JOIN "users" AS "u" ON "u"."id" = "f"."followee_id"
            \(unsafeRaw: Self.summaryJoin)
            WHERE "f"."follower_id" = \(bind: viewer.uuid) AND \(joinAfter) AND \(notBlocked)
            ORDER BY "m"."joined_at" DESC, "m"."league_id" DESC, "m"."user_id" DESC LIMIT \(bind: limit)
            """).all()
        let earned = try await sql.raw("""
            SELECT "e"."id" AS "grant_id", "e"."achievement_id", "e"."earned_at" AS "at", \(unsafeRaw: Self.summaryColumns)
            FROM "follows" AS "f"
            JOIN "achievements_earned" AS "e" ON "e"."user_id" = "f"."followee_id"
            JOIN "users" AS "u" ON "u"."id" = "f"."followee_id"
            \(unsafeRaw: Self.summaryJoin)
            WHERE "f"."follower_id" = \(bind: viewer.uuid) AND \(earnedAfter) AND \(notBlocked)
            ORDER BY "e"."earned_at" DESC, "e"."id" DESC LIMIT \(bind: limit)
            """).all()
        var events: [FeedEvent] = []
        for row in earned {
            let grant = try row.decode(column: "grant_id", as: UUID.self)
            events.append(FeedEvent(id: "achievement:\(grant.uuidString.lowercased())", actor: try Self.summary(row),
                                    at: try row.decode(column: "at", as: Date.self),
                                    kind: .achievement(try row.decode(column: "achievement_id", as: String.self))))
        }
        for row in trades {
            let fill = try row.decode(column: "fill_id", as: UUID.self)
            let full = try row.decode(column: "visibility", as: String.self) == PortfolioVisibility.full.rawValue
            let side = try row.decode(column: "side", as: String.self), symbol = try row.decode(column: "symbol", as: String.self)
            let replay = try row.decode(column: "clock", as: String.self) != "live"
            let priced = try row.decodeNil(column: "price_as_of") ? nil : try row.decode(column: "price_as_of", as: Date.self)
            events.append(FeedEvent(
                id: "trade:\(fill.uuidString.lowercased())", actor: try Self.summary(row), at: try row.decode(column: "at", as: Date.self),
                kind: .trade(portfolio: PortfolioID(try row.decode(column: "portfolio_id", as: UUID.self)),
                             portfolioName: try row.decode(column: "portfolio_name", as: String.self),
                             symbol: try StoreError.decoding("fills", fill) { Symbol(symbol) },
                             side: try StoreError.decoding("fills", fill) { OrderSide(rawValue: side) },
                             quantity: full ? Quantity(units: try row.decode(column: "quantity", as: Int64.self)) : nil,
                             price: Price(ticks: try row.decode(column: "price_ticks", as: Int64.self)),
                             replayDate: replay ? priced.map(SessionDate.init) : nil)))
        }
        for row in joins {
            let league = try row.decode(column: "league_id", as: UUID.self)
            let actor = try Self.summary(row)
            events.append(FeedEvent(id: "league:\(league.uuidString.lowercased()):\(actor.user.uuid.uuidString.lowercased())", actor: actor,
                                    at: try row.decode(column: "at", as: Date.self),
                                    kind: .leagueJoined(league: LeagueID(league), name: try row.decode(column: "league_name", as: String.self))))
        }
        // Newest first; at one time by id, descending, as each query ordered its own.
        events.sort { ($0.at, $0.id) > ($1.at, $1.id) }
        return Array(events.prefix(limit))
    }
}
