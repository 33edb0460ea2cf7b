import BullpenCore
import FluentKit
import FluentSQL
import Foundation

struct LeagueRow: Codable, Sendable {
    var id: UUID
    var ownerId: UUID
    var name: String
    var nameKey: String
    var description: String
    var visibility: String
    var code: String
    var startingCashCents: Int64
    var clock: String
    var rules: String
    var settings: String
    var defaultMetric: String
    var startsAt: Date
    var endsAt: Date?
    var replayStart: String?
    var replayDate: String?
    var nextAdvanceAt: Date?
    var createdAt: Date
    var updatedAt: Date
    var deletedAt: Date?
    var version: Int64

    init(_ league: LeagueRecord) throws {
        id = league.id.uuid
        ownerId = league.ownerID.uuid
        name = league.name
        nameKey = league.name.lowercased()
        description = league.description
        visibility = league.visibility.rawValue
        code = league.code
        startingCashCents = league.startingCash.cents
        clock = try PortfolioRow.json(league.clock)
        rules = try PortfolioRow.json(league.rules)
        settings = try PortfolioRow.json(league.settings)
        defaultMetric = league.defaultMetric.rawValue
        startsAt = league.startsAt
        endsAt = league.endsAt
        replayStart = league.replayStart?.description
        replayDate = league.replayDate?.description
        nextAdvanceAt = league.nextAdvanceAt
        createdAt = league.createdAt
        updatedAt = league.updatedAt
        deletedAt = nil
        version = league.version
    }

    func record() throws -> LeagueRecord {
        func field<T>(_ value: () throws -> T?) throws -> T { try StoreError.decoding("leagues", id, value) }
        func json<T: Decodable>(_ text: String, as type: T.Type) throws -> T {
            try field { try JSONDecoder().decode(T.self, from: Data(text.utf8)) }
        }
        return LeagueRecord(
            id: LeagueID(id), ownerID: UserID(ownerId), name: name, description: description,
            visibility: try field { LeagueVisibility(rawValue: visibility) }, code: code,
            startingCash: Money(cents: startingCashCents), clock: try json(clock, as: LeagueClock.self),
            rules: try json(rules, as: PortfolioRules.self), settings: try json(settings, as: LeagueSettings.self),
            defaultMetric: try field { Leaderboard.Metric(rawValue: defaultMetric) }, startsAt: startsAt, endsAt: endsAt,
            replayStart: try replayStart.map { text in try field { SessionDate(iso: text) } },
            replayDate: try replayDate.map { text in try field { SessionDate(iso: text) } },
            nextAdvanceAt: nextAdvanceAt, createdAt: createdAt, updatedAt: updatedAt, version: version)
    }
}

struct LeagueMemberRow: Codable, Sendable {
    var id: UUID
    var leagueId: UUID
    var userId: UUID
    var portfolioId: UUID?
    var status: String
    var mayRejoin: Bool
    var joinedAt: Date
    var leftAt: Date?
}

/// A portfolio period's folded daily figures (``EquityStats``); exactly the table's columns.
struct EquityStatsRow: Codable, Sendable {
    var portfolioId: UUID
    var period: Int
    var through: String
    var sessions: Int
    var lastCents: Int64
    var previousCents: Int64
    var peakCents: Int64
    var maxDrawdown: Int64
    var sumReturns: Double
    var sumSquares: Double

    init(portfolio: UUID, period: Int, stats: EquityStats) {
        portfolioId = portfolio
        self.period = period
        through = stats.through?.description ?? ""
        sessions = stats.sessions
        lastCents = stats.last.cents
        previousCents = stats.previous.cents
        peakCents = stats.peak.cents
        maxDrawdown = stats.maxDrawdown
        sumReturns = stats.sumReturns
        sumSquares = stats.sumSquares
    }

    /// How both batch writers write a period's figures that exist already: the new ones win.
    static let upsert = #"ON CONFLICT ("portfolio_id", "period") DO UPDATE SET "through" = "excluded"."through", "sessions" = "excluded"."sessions", "last_cents" = "excluded"."last_cents", "previous_cents" = "excluded"."previous_cents", "peak_cents" = "excluded"."peak_cents", "max_drawdown" = "excluded"."max_drawdown", "sum_returns" = "excluded"."sum_returns", "sum_squares" = "excluded"."sum_squares""#

    /// The figures of a row holding this table's columns (all null, as a left join leaves them,
    /// for a period without any yet: it starts from its starting cash).
    static func stats(of row: any SQLRow, startingCash: Money) throws -> EquityStats {
        var stats = EquityStats(startingCash: startingCash)
        guard let through = try row.decode(column: "through", as: String?.self) else { return stats }
        stats.through = SessionDate(iso: through)
        stats.sessions = try row.decode(column: "sessions", as: Int.self)
        stats.last = Money(cents: try row.decode(column: "last_cents", as: Int64.self))
        stats.previous = Money(cents: try row.decode(column: "previous_cents", as: Int64.self))
        stats.peak = Money(cents: try row.decode(column: "peak_cents", as: Int64.self))
        stats.maxDrawdown = try row.decode(column: "max_drawdown", as: Int64.self)
        stats.sumReturns = try row.decode(column: "sum_returns", as: Double.self)
        stats.sumSquares = try row.decode(column: "sum_squares", as: Double.self)
        return stats
    }
}

/// What a leaderboard needs of one portfolio: its owner, cash and holdings, folded daily figures
/// and number of trades. Kept in memory per board (``StandingsBoard``).
public struct StandingInput: Sendable {
    public var portfolio: PortfolioID
    public var player: UserID
    public var username: String
    public var portfolioName: String
    public var joinedAt: Date
    public var startingCash: Money
    public var cash: Money
    public var holdings: [Symbol: Quantity]
    /// Each holding's cost, for one without a price.
    public var costs: [Symbol: Money]
    /// A replay portfolio's first session.
    public var replayStart: SessionDate?
    public var stats: EquityStats
    public var trades: Int
}

extension BullpenStore {
    // MARK: Leagues

    /// Creates a league with its owner as its first member, playing in a portfolio of the
    /// league's. A code already taken (one chance in 10^11) is drawn again.
    public func createLeague(_ league: LeagueRecord, newCode: @Sendable () -> String) async throws -> (LeagueRecord, PortfolioRecord) {
        var league = league
        for attempt in 1...5 {
            do {
                let row = try LeagueRow(league), attempt = league
                let portfolio = try await transaction { db in
                    try await self.sql(db).insert(into: "leagues").model(row, with: Self.rowEncoder).run()
                    try await self.sql(db).raw("""
                        INSERT INTO "standings_feeds" ("id", "seq", "epoch") VALUES (\(bind: row.id), 0, 0)
                        """).run()
                    return try await self.addMember(attempt.ownerID, to: attempt, on: db)
                }
                await ledger.dropOwner(league.ownerID)
                return (league, portfolio)
            } catch where Self.isConstraintFailure(error) && attempt < 5 {
                league.code = newCode()
            }
        }
        throw StoreError.contention
    }

    /// The league `id` (not deleted).
    public func league(_ id: LeagueID) async throws -> LeagueRecord {
        guard let row = try await sql(db).select().column("*").from("leagues").where("id", .equal, id.uuid)
            .where("deleted_at", .is, SQLLiteral.null).first(decoding: LeagueRow.self, with: Self.rowDecoder)
        else { throw StoreError.notFound("League") }
        return try row.record()
    }

    public func league(code: String) async throws -> LeagueRecord {
        guard let row = try await sql(db).select().column("*").from("leagues").where("code", .equal, code)
            .where("deleted_at", .is, SQLLiteral.null).first(decoding: LeagueRow.self, with: Self.rowDecoder)
        else { throw StoreError.invalidJoinCode }
        return try row.record()
    }

    /// Every member the league ever had (active, left, removed), by join date.
    public func members(of league: LeagueID) async throws -> [LeagueMember] {
        try await sql(db).raw("""
            \(unsafeRaw: Self.memberQuery) WHERE "m"."league_id" = \(bind: league.uuid) ORDER BY "m"."joined_at", "u"."username"
            """).all().map(Self.member)
    }

    /// The caller's place in a league, if they ever joined it.
    public func membership(of user: UserID, in league: LeagueID) async throws -> LeagueMember? {
        try await sql(db).raw("""
            \(unsafeRaw: Self.memberQuery) WHERE "m"."league_id" = \(bind: league.uuid) AND "m"."user_id" = \(bind: user.uuid)
            """).first().map(Self.member)
    }

    private static let memberQuery = """
        SELECT "m"."user_id", "u"."username", "m"."portfolio_id", "m"."status", "m"."may_rejoin", "m"."joined_at", "m"."left_at"
        FROM "league_members" AS "m" JOIN "users" AS "u" ON "u"."id" = "m"."user_id"
        """

    private static func member(_ row: any SQLRow) throws -> LeagueMember {
        let user = try row.decode(column: "user_id", as: UUID.self)
        let status = try row.decode(column: "status", as: String.self)
        return LeagueMember(
            userID: UserID(user), username: try row.decode(column: "username", as: String.self),
            portfolioID: try row.decode(column: "portfolio_id", as: UUID?.self).map(PortfolioID.init),
            status: try StoreError.decoding("league_members", user) { LeagueMember.Status(rawValue: status) },
            mayRejoin: try row.decode(column: "may_rejoin", as: Bool.self),
            joinedAt: try row.decode(column: "joined_at", as: Date.self),
            leftAt: try row.decode(column: "left_at", as: Date?.self))
    }

    /// The leagues `user` plays in now, newest first.
    public func leagues(of user: UserID) async throws -> [LeagueRecord] {
        try await sql(db).raw("""
            SELECT "l".* FROM "leagues" AS "l" JOIN "league_members" AS "m" ON "m"."league_id" = "l"."id"
            WHERE "m"."user_id" = \(bind: user.uuid) AND "m"."status" = 'active' AND "l"."deleted_at" IS NULL
            ORDER BY "l"."created_at" DESC, "l"."id"
            """).all(decoding: LeagueRow.self, with: Self.rowDecoder).map { try $0.record() }
    }

    /// Public leagues whose name contains `search`, by name, `limit` from `offset`, with their
    /// number of active members.
    public func publicLeagues(search: String?, offset: Int, limit: Int) async throws -> [(LeagueRecord, Int)] {
        let pattern = "%" + (search ?? "").lowercased().replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_") + "%"
        let rows = try await sql(db).raw("""
            SELECT "l".*, (SELECT COUNT(*) FROM "league_members" AS "m"
                           WHERE "m"."league_id" = "l"."id" AND "m"."status" = 'active') AS "member_count"
            FROM "leagues" AS "l"
            WHERE "l"."visibility" = 'public' AND "l"."deleted_at" IS NULL AND "l"."name_key" LIKE \(bind: pattern) ESCAPE '\\'
            ORDER BY "l"."name_key", "l"."id" LIMIT \(bind: limit) OFFSET \(bind: offset)
            """).all()
        return try rows.map { row in
            (try row.decode(model: LeagueRow.self, keyDecodingStrategy: .convertFromSnakeCase).record(),
             try row.decode(column: "member_count", as: Int.self))
        }
    }

    /// The number of active members of each league.
    public func memberCounts(_ leagues: [LeagueID]) async throws -> [LeagueID: Int] {
        guard !leagues.isEmpty else { return [:] }
        let rows = try await sql(db).select().column("league_id").column(SQLFunction("COUNT", args: SQLLiteral.all), as: "n")
            .from("league_members").where("league_id", .in, leagues.map(\.uuid)).where("status", .equal, "active")
            .groupBy("league_id").all()
        var counts: [LeagueID: Int] = [:]
        for row in rows {
            counts[LeagueID(try row.decode(column: "league_id", as: UUID.self))] = try row.decode(column: "n", as: Int.self)
        }
        return counts
    }

    /// Saves a league's changed fields if it is still at `league.version - 1`'s successor: the
    /// caller passes the record it read, changed; the version moves by one.
    /// - Throws: ``StoreError/portfolioChanged`` when someone changed it meanwhile.
    @discardableResult
    public func updateLeague(_ league: LeagueRecord) async throws -> LeagueRecord {
        var saved = league
        saved.version += 1
        saved.updatedAt = time.now()
        let row = try LeagueRow(saved)
        try await transaction { db in
            let changed = try await self.sql(db).raw("""
                UPDATE "leagues" SET "name" = \(bind: row.name), "name_key" = \(bind: row.nameKey),
                    "description" = \(bind: row.description), "visibility" = \(bind: row.visibility), "code" = \(bind: row.code),
                    "starting_cash_cents" = \(bind: row.startingCashCents), "clock" = \(bind: row.clock),
                    "rules" = \(bind: row.rules), "settings" = \(bind: row.settings), "default_metric" = \(bind: row.defaultMetric),
                    "starts_at" = \(bind: row.startsAt), "ends_at" = \(bind: row.endsAt), "replay_start" = \(bind: row.replayStart),
                    "replay_date" = \(bind: row.replayDate), "next_advance_at" = \(bind: row.nextAdvanceAt),
                    "owner_id" = \(bind: row.ownerId), "updated_at" = \(bind: row.updatedAt), "version" = \(bind: row.version)
                WHERE "id" = \(bind: row.id) AND "version" = \(bind: league.version) AND "deleted_at" IS NULL
                RETURNING "id"
                """).all()
            guard !changed.isEmpty else { throw StoreError.portfolioChanged }
        }
        return saved
    }

    /// Adds `user` to the league with a new portfolio of the league's (a player who left, or was
    /// removed and let back in, gets a fresh one; the old one stays closed in their history).
    /// - Throws: ``StoreError/alreadyMember``, ``StoreError/kickedFromLeague``.
    public func join(_ user: UserID, league: LeagueRecord) async throws -> PortfolioRecord {
        let portfolio = try await transaction(retryConstraintFailures: true) { db in
            try await self.addMember(user, to: league, on: db)
        }
        await ledger.dropOwner(user)
        return portfolio
    }

    private func addMember(_ user: UserID, to league: LeagueRecord, on db: any Database) async throws -> PortfolioRecord {
        let sql = sql(db)
        let existing = try await sql.select().column("*").from("league_members").where("league_id", .equal, league.id.uuid)
            .where("user_id", .equal, user.uuid).first(decoding: LeagueMemberRow.self, with: Self.rowDecoder)
        if let existing {
            if existing.status == LeagueMember.Status.active.rawValue { throw StoreError.alreadyMember }
            if existing.status == LeagueMember.Status.kicked.rawValue && !existing.mayRejoin { throw StoreError.kickedFromLeague }
        }
        let count = try await sql.select().column(SQLFunction("COUNT", args: SQLLiteral.all), as: "n").from("portfolios")
            .where("user_id", .equal, user.uuid).first()?.decode(column: "n", as: Int.self) ?? 0
        guard count < Self.maxPortfoliosPerUser else { throw StoreError.tooManyPortfolios(limit: Self.maxPortfoliosPerUser) }
        // The first of "Name", "Name (2)", ... the player has no portfolio of, asked of the
        // database itself (the key it compares, not one read back and compared here).
        var name = league.name, n = 1
        while try await sql.select().column("id").from("portfolios").where("user_id", .equal, user.uuid)
            .where("name_key", .equal, name.lowercased()).first() != nil {
            n += 1
            name = "\(league.name) (\(n))"
        }
        let now = time.now()
        var row = try newPortfolioRow(owner: user.uuid, name: name, startingCash: league.startingCash,
                                      rules: league.portfolioRules, replay: league.portfolioReplay, now: now)
        row.leagueId = league.id.uuid
        try await sql.insert(into: "portfolios").model(row, with: Self.rowEncoder).run()
        try await markStandings([row.id], on: db)
        if let existing {
            try await sql.update("league_members").set("status", to: LeagueMember.Status.active.rawValue)
                .set("portfolio_id", to: row.id).set("may_rejoin", to: false).set("joined_at", to: now)
                .set("left_at", to: SQLLiteral.null).where("id", .equal, existing.id).run()
        } else {
            let member = LeagueMemberRow(id: ids.makeUUID(), leagueId: league.id.uuid, userId: user.uuid, portfolioId: row.id,
                                         status: LeagueMember.Status.active.rawValue, mayRejoin: false, joinedAt: now, leftAt: nil)
            try await sql.insert(into: "league_members").model(member, with: Self.rowEncoder).run()
        }
        return try row.record()
    }

    /// Ends `user`'s membership (`left` or `kicked`) and closes their league portfolio, kept read-only.
    /// - Throws: ``StoreError/notMember`` when they are not an active member.
    public func removeMember(_ user: UserID, from league: LeagueID, as status: LeagueMember.Status) async throws {
        let closed = try await transaction { db in
            let sql = self.sql(db)
            guard let member = try await sql.select().column("*").from("league_members").where("league_id", .equal, league.uuid)
                .where("user_id", .equal, user.uuid).where("status", .equal, LeagueMember.Status.active.rawValue)
                .first(decoding: LeagueMemberRow.self, with: Self.rowDecoder)
            else { throw StoreError.notMember }
            let now = self.time.now()
            try await sql.update("league_members").set("status", to: status.rawValue).set("left_at", to: now)
                .set("may_rejoin", to: false).where("id", .equal, member.id).run()
            let portfolios = member.portfolioId.map { [$0] } ?? []
            try await self.closePortfolios(portfolios, at: now, on: db)
            return portfolios
        }
        for id in closed { await ledger.drop(PortfolioID(id)) }
        await ledger.dropOwner(user)
    }

    /// Lets a removed player join again with the code.
    public func allowRejoin(_ user: UserID, in league: LeagueID) async throws {
        try await transaction { db in
            let rows = try await self.sql(db).raw("""
                UPDATE "league_members" SET "may_rejoin" = \(bind: true)
                WHERE "league_id" = \(bind: league.uuid) AND "user_id" = \(bind: user.uuid) AND "status" = 'kicked'
                RETURNING "id"
                """).all()
            guard !rows.isEmpty else { throw StoreError.notMember }
        }
    }

    /// Deletes a league: it disappears from lists and codes, and every member's portfolio is
    /// closed, kept read-only in their history.
    public func deleteLeague(_ id: LeagueID) async throws {
        let closed = try await transaction { db in
            let sql = self.sql(db)
            let now = self.time.now()
            let members = try await sql.select().column("*").from("league_members").where("league_id", .equal, id.uuid)
                .where("status", .equal, LeagueMember.Status.active.rawValue)
                .all(decoding: LeagueMemberRow.self, with: Self.rowDecoder)
            // The code is freed (a deleted league's code joins nothing).
            try await sql.update("leagues").set("deleted_at", to: now).set("code", to: "deleted:" + id.description)
                .where("id", .equal, id.uuid).run()
            try await sql.update("league_members").set("status", to: LeagueMember.Status.left.rawValue).set("left_at", to: now)
                .where("league_id", .equal, id.uuid).where("status", .equal, LeagueMember.Status.active.rawValue).run()
            let portfolios = members.compactMap(\.portfolioId)
            try await self.closePortfolios(portfolios, at: now, on: db)
            return members.map { (UserID($0.userId), $0.portfolioId) }
        }
        for (user, portfolio) in closed {
            if let portfolio { await ledger.drop(PortfolioID(portfolio)) }
            await ledger.dropOwner(user)
        }
        forgetBoard(id.uuid)
    }

    /// Before an account goes: each league it owns passes to its longest-standing other member;
    /// one without another member goes with the account. Its memberships go too.
    func handOverLeagues(of user: UserID, on db: any Database) async throws {
        let sql = sql(db)
        let owned = try await sql.select().column("id").from("leagues").where("owner_id", .equal, user.uuid).all()
            .map { try $0.decode(column: "id", as: UUID.self) }
        for league in owned {
            let heir = try await sql.select().column("user_id").from("league_members").where("league_id", .equal, league)
                .where("user_id", .notEqual, user.uuid).where("status", .equal, LeagueMember.Status.active.rawValue)
                .orderBy("joined_at").limit(1).first()?.decode(column: "user_id", as: UUID.self)
            if let heir {
                try await sql.update("leagues").set("owner_id", to: heir).set("version", to: SQLRaw("version + 1"))
                    .where("id", .equal, league).run()
            } else {
                try await sql.delete(from: "league_members").where("league_id", .equal, league).run()
                try await sql.delete(from: "leagues").where("id", .equal, league).run()
                try await sql.delete(from: "standings_feeds").where("id", .equal, league).run()
            }
        }
        try await sql.delete(from: "league_members").where("user_id", .equal, user.uuid).run()
    }

    /// Marks portfolios closed; their version moves, so that a batch in flight reads them again.
    private func closePortfolios(_ ids: [UUID], at now: Date, on db: any Database) async throws {
        guard !ids.isEmpty else { return }
        try await sql(db).update("portfolios").set("closed_at", to: now).set("version", to: SQLRaw("version + 1"))
            .set("updated_at", to: now).where("id", .in, ids).where("closed_at", .is, SQLLiteral.null).run()
        try await markStandings(ids, on: db)
    }

    /// Replaces every active member portfolio's starting cash, cash and rules: only for a league
    /// that has not started (no order can have been placed) and whose members hold nothing.
    public func reconfigureMembers(of league: LeagueRecord) async throws {
        let changed = try await transaction { db in
            let sql = self.sql(db)
            let ids = try await sql.raw("""
                SELECT "p"."id" FROM "portfolios" AS "p" JOIN "league_members" AS "m" ON "m"."portfolio_id" = "p"."id"
                WHERE "m"."league_id" = \(bind: league.id.uuid) AND "m"."status" = 'active'
                """).all().map { try $0.decode(column: "id", as: UUID.self) }
            guard !ids.isEmpty else { return ids }
            let traded = try await sql.select().column("id").from("journal_entries").where("portfolio_id", .in, ids).first()
            guard traded == nil else { throw StoreError.leagueStarted }
            let replay = try PortfolioRow.encodeReplay(league.portfolioReplay)
            try await sql.update("portfolios").set("starting_cash_cents", to: league.startingCash.cents)
                .set("cash_cents", to: league.startingCash.cents).set("rules", to: try PortfolioRow.encodeRules(league.portfolioRules))
                .set("clock", to: PortfolioRow.encodeClock(league.portfolioClock)).set("replay", to: replay)
                .set("version", to: SQLRaw("version + 1")).set("updated_at", to: self.time.now())
                .where("id", .in, ids).run()
            try await self.markStandings(ids, on: db)
            return ids
        }
        for id in changed { await ledger.drop(PortfolioID(id)) }
    }

    /// The active members' portfolios of a league.
    public func memberPortfolios(of league: LeagueID) async throws -> [(user: UserID, portfolio: PortfolioID)] {
        try await sql(db).select().column("user_id").column("portfolio_id").from("league_members")
            .where("league_id", .equal, league.uuid).where("status", .equal, LeagueMember.Status.active.rawValue)
            .all().compactMap { row in
                guard let portfolio = try row.decode(column: "portfolio_id", as: UUID?.self) else { return nil }
                return (UserID(try row.decode(column: "user_id", as: UUID.self)), PortfolioID(portfolio))
            }
    }

    /// Scheduled replay leagues due to move at `now`.
    public func leaguesDue(at now: Date) async throws -> [LeagueRecord] {
        try await sql(db).select().column("*").from("leagues").where("deleted_at", .is, SQLLiteral.null)
            .where("next_advance_at", .lessThanOrEqual, now).orderBy("next_advance_at")
            .all(decoding: LeagueRow.self, with: Self.rowDecoder).map { try $0.record() }
    }

    // MARK: Leaderboards

    /// The stored closing equity of each portfolio's current period from `start` on, oldest first.
    public func snapshots(of portfolios: [PortfolioID], from start: SessionDate) async throws -> [PortfolioID: [EquitySnapshot]] {
        guard !portfolios.isEmpty else { return [:] }
        var result: [PortfolioID: [EquitySnapshot]] = [:]
        for chunk in Self.chunks(portfolios.map(\.uuid)) {
            let rows = try await sql(db).raw("""
                SELECT "s"."portfolio_id", "s"."date", "s"."cash_cents", "s"."market_value_cents" FROM "equity_snapshots" AS "s"
                JOIN "portfolios" AS "p" ON "p"."id" = "s"."portfolio_id" AND "p"."period" = "s"."period"
                WHERE "s"."date" >= \(bind: start.description) AND "s"."portfolio_id" IN (\(binds: chunk))
                ORDER BY "s"."portfolio_id", "s"."date"
                """).all()
            for row in rows {
                let id = PortfolioID(try row.decode(column: "portfolio_id", as: UUID.self))
                guard let date = SessionDate(iso: try row.decode(column: "date", as: String.self)) else { continue }
                result[id, default: []].append(EquitySnapshot(date: date, cash: Money(cents: try row.decode(column: "cash_cents", as: Int64.self)),
                                                              marketValue: Money(cents: try row.decode(column: "market_value_cents", as: Int64.self))))
            }
        }
        return result
    }

    /// The folded daily figures of each portfolio's current period (a portfolio without any yet
    /// starts from its starting cash).
    func currentEquityStats(of portfolios: [PortfolioID]) async throws -> [PortfolioID: EquityStats] {
        guard !portfolios.isEmpty else { return [:] }
        let rows = try await sql(db).raw("""
            SELECT "p"."id", "p"."starting_cash_cents", "s"."through", "s"."sessions", "s"."last_cents", "s"."previous_cents",
                   "s"."peak_cents", "s"."max_drawdown", "s"."sum_returns", "s"."sum_squares"
            FROM "portfolios" AS "p"
            LEFT JOIN "equity_stats" AS "s" ON "s"."portfolio_id" = "p"."id" AND "s"."period" = "p"."period"
            WHERE "p"."id" IN (\(binds: portfolios.map(\.uuid)))
            """).all()
        var result: [PortfolioID: EquityStats] = [:]
        for row in rows {
            result[PortfolioID(try row.decode(column: "id", as: UUID.self))] = try EquityStatsRow.stats(
                of: row, startingCash: Money(cents: try row.decode(column: "starting_cash_cents", as: Int64.self)))
        }
        return result
    }

    func equityStats(of id: UUID, period: Int, startingCash: Money, on db: any Database) async throws -> EquityStats {
        guard let row = try await sql(db).select().column("*").from("equity_stats").where("portfolio_id", .equal, id)
            .where("period", .equal, period).first()
        else { return EquityStats(startingCash: startingCash) }
        return try EquityStatsRow.stats(of: row, startingCash: startingCash)
    }

    /// Whether the user appears on the global leaderboard.
    public func publicLeaderboard(_ user: UserID) async throws -> Bool {
        try await sql(db).select().column("public_leaderboard").from("users").where("id", .equal, user.uuid).first()?
            .decode(column: "public_leaderboard", as: Bool.self) ?? false
    }

    public func setPublicLeaderboard(_ user: UserID, _ value: Bool) async throws {
        let moved = try await transaction { db in
            try await self.sql(db).update("users").set("public_leaderboard", to: value).where("id", .equal, user.uuid).run()
            // Its portfolios join the global feed (or are read again and left out). Their version
            // moves, so that a ledger batch in flight, which bumps the feed it read, starts over.
            let portfolios = try await self.sql(db).select().column("id").from("portfolios").where("user_id", .equal, user.uuid)
                .where("league_id", .is, SQLLiteral.null).all().map { try $0.decode(column: "id", as: UUID.self) }
            guard !portfolios.isEmpty else { return portfolios }
            try await self.sql(db).update("portfolios").set("version", to: SQLRaw("version + 1")).where("id", .in, portfolios).run()
            try await self.markStandings(portfolios, on: db)
            return portfolios
        }
        for id in moved { await ledger.drop(PortfolioID(id)) }
        await ledger.dropOwner(user)
    }
}
