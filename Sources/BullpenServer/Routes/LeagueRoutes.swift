import BullpenAPI
import BullpenCore
import BullpenStore
import Foundation
import Vapor

/// Leagues, their members, their shared clock and their leaderboards, and the global leaderboard.
/// Someone else's private league is "not found"; a member asking for an owner's action gets
/// `not_league_owner`.
struct LeagueRoutes: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        let leagues = routes.grouped("leagues")
        leagues.get(use: mine)
        leagues.post(use: create)
        leagues.get("public", use: publicLeagues)
        leagues.post("join", use: join)
        let one = leagues.grouped(":leagueId")
        one.get(use: show)
        one.patch(use: update)
        one.delete(use: delete)
        one.post("code", use: regenerateCode)
        one.post("advance", use: advance)
        one.post("owner", use: transfer)
        one.get("leaderboard", use: leaderboard)
        one.get("export", use: export)
        one.delete("members", "me", use: leave)
        one.delete("members", ":userId", use: kick)
        one.post("members", ":userId", "readmit", use: readmit)
        one.get("members", ":userId", "portfolio", use: memberPortfolio)
        one.get("members", ":userId", "activities", use: memberActivities)
        routes.get("leaderboard", use: globalLeaderboard)
        routes.patch("me", use: updateMe)
        routes.get("me", "settings", use: settings)
    }

    // MARK: Leagues

    @Sendable func mine(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let service = req.bullpen.leagues
        let leagues = try await req.bullpen.store.leagues(of: caller.user)
        let counts = try await req.bullpen.store.memberCounts(leagues.map(\.id))
        var result: [LeagueDTO] = []
        for league in leagues {
            let board = try? await service.leaderboard(league, metric: league.defaultMetric)
            let member = try await req.bullpen.store.membership(of: caller.user, in: league.id)
            result.append(try await dto(league, req: req, caller: caller.user, member: member, count: counts[league.id] ?? 0,
                                        rank: board?.standings.first { $0.player == caller.user }?.rank))
        }
        return try jsonResponse(LeagueList(leagues: result))
    }

    @Sendable func publicLeagues(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let limit = try req.pageLimit()
        var offset = 0
        if let cursor = req.pageCursor {
            guard let decoded = PageCursor.decode(cursor) else { throw APIError.invalidCursor }
            offset = decoded
        }
        let search = req.query[String.self, at: "q"]?.trimmingCharacters(in: .whitespaces)
        let found = try await req.bullpen.store.publicLeagues(search: search, offset: offset, limit: limit + 1)
        var result: [LeagueDTO] = []
        for (league, count) in found.prefix(limit) {
            let member = try await req.bullpen.store.membership(of: caller.user, in: league.id)
            result.append(try await dto(league, req: req, caller: caller.user, member: member, count: count, rank: nil))
        }
        return try jsonResponse(LeagueList(leagues: result, nextCursor: found.count > limit ? PageCursor.encode(offset + limit) : nil))
    }

    @Sendable func create(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let body = try req.decodeJSON(CreateLeagueRequest.self)
        let (league, _) = try await req.bullpen.leagues.create(owner: caller.user, body)
        // Its owner plays in it.
        await req.bullpen.notifier.joinedLeague(caller.user, league: league)
        let response = try jsonResponse(try await detail(league, req: req, caller: caller.user), status: .created)
        response.headers.replaceOrAdd(name: .location, value: "/api/v1/leagues/\(league.id)")
        return response
    }

    @Sendable func show(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let (league, _) = try await req.bullpen.leagues.visibleLeague(try req.leagueID(), to: caller.user)
        return try jsonResponse(try await detail(league, req: req, caller: caller.user))
    }

    @Sendable func update(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let body = try req.decodeJSON(UpdateLeagueRequest.self)
        let league = try await req.bullpen.leagues.update(try req.leagueID(), by: caller.user, body)
        return try jsonResponse(try await detail(league, req: req, caller: caller.user))
    }

    @Sendable func delete(req: Request) async throws -> Response {
        let caller = try await req.caller()
        try await req.bullpen.leagues.delete(try req.leagueID(), by: caller.user)
        return Response(status: .noContent)
    }

    @Sendable func regenerateCode(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let league = try await req.bullpen.leagues.regenerateCode(try req.leagueID(), by: caller.user)
        return try jsonResponse(try await detail(league, req: req, caller: caller.user))
    }

    @Sendable func transfer(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let body = try req.decodeJSON(TransferOwnerRequest.self)
        guard let heir = UserID(body.userId) else { throw APIError.validation("userId must be a player's id (a UUID).") }
        let league = try await req.bullpen.leagues.transfer(try req.leagueID(), by: caller.user, to: heir)
        return try jsonResponse(try await detail(league, req: req, caller: caller.user))
    }

    @Sendable func join(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let body = try req.decodeJSON(JoinLeagueRequest.self)
        let league = try await req.bullpen.leagues.join(caller.user, body)
        await req.bullpen.notifier.joinedLeague(caller.user, league: league)
        let response = try jsonResponse(try await detail(league, req: req, caller: caller.user), status: .created)
        response.headers.replaceOrAdd(name: .location, value: "/api/v1/leagues/\(league.id)")
        return response
    }

    @Sendable func advance(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let body = try req.decodeJSON(LeagueAdvanceRequest.self)
        let service = req.bullpen.leagues
        let league = try await service.ownedLeague(try req.leagueID(), by: caller.user)
        let moved = try await service.advance(league, days: body.days)
        return try jsonResponse(LeagueAdvanceDTO(
            from: moved.from.description, to: moved.to.description, days: moved.days, endOfData: moved.endOfData,
            portfolios: moved.portfolios, league: try await detail(moved.league, req: req, caller: caller.user)))
    }

    // MARK: Members

    @Sendable func leave(req: Request) async throws -> Response {
        let caller = try await req.caller()
        try await req.bullpen.leagues.leave(try req.leagueID(), user: caller.user)
        return Response(status: .noContent)
    }

    @Sendable func kick(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let id = try req.leagueID(), member = try req.memberID()
        try await req.bullpen.leagues.kick(id, by: caller.user, member: member)
        if let league = try? await req.bullpen.store.league(id) {
            let notifier = req.bullpen.notifier
            await notifier.notify([notifier.make(.leagueKicked, for: member, title: "Removed from \(league.name)",
                                                 body: "The league's owner removed you. Your league portfolio is kept, read-only, in your history.",
                                                 link: "#/leagues")])
        }
        return Response(status: .noContent)
    }

    @Sendable func readmit(req: Request) async throws -> Response {
        let caller = try await req.caller()
        try await req.bullpen.leagues.readmit(try req.leagueID(), by: caller.user, member: try req.memberID())
        return Response(status: .noContent)
    }

    /// A member's league portfolio: the owner sees everyone's; members see each other's only
    /// when the league's rules make holdings visible.
    private func inspected(_ req: Request) async throws -> (UserID, PortfolioID, String) {
        let caller = try await req.caller()
        let service = req.bullpen.leagues
        let (league, _) = try await service.memberLeague(try req.leagueID(), of: caller.user)
        let target = try req.memberID()
        guard league.ownerID == caller.user || league.settings.holdingsVisible || target == caller.user else {
            throw StoreError.notLeagueOwner
        }
        guard let member = try await req.bullpen.store.membership(of: target, in: league.id), let portfolio = member.portfolioID,
              member.status == .active || league.ownerID == caller.user
        else { throw StoreError.notMember }
        return (target, portfolio, member.username)
    }

    @Sendable func memberPortfolio(req: Request) async throws -> Response {
        let (user, portfolio, username) = try await inspected(req)
        let valued = try await req.bullpen.portfolios.valued(portfolio, owner: user)
        let positions = await req.positionDTOs(valued.valuation, clock: valued.state.portfolio.clock)
        return try jsonResponse(MemberPortfolioDTO(
            username: username,
            portfolio: PortfolioDTO(valued.state.portfolio, valuation: valued.valuation, marketData: req.bullpen.marketDataStatus),
            positions: positions))
    }

    @Sendable func memberActivities(req: Request) async throws -> Response {
        let (user, portfolio, _) = try await inspected(req)
        let page = try await req.bullpen.store.activities(of: portfolio, owner: user, periods: .current,
                                                          limit: try req.pageLimit(), cursor: req.pageCursor)
        return try jsonResponse(ActivityPage(activities: page.items.map(ActivityDTO.init), nextCursor: page.nextCursor))
    }

    /// The standings or every member's trades as CSV (the owner's export for a class).
    @Sendable func export(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let service = req.bullpen.leagues
        let league = try await service.ownedLeague(try req.leagueID(), by: caller.user)
        let kind = req.query[String.self, at: "kind"] ?? "standings"
        var text: String
        switch kind {
        case "standings":
            let board = try await service.leaderboard(league, metric: league.defaultMetric)
            text = "rank,username,equity,total_return_percent,today_change,sharpe,max_drawdown_percent,vs_benchmark_percent,trades\n"
            for standing in board.standings {
                let dto = StandingDTO(standing, me: caller.user, portfolioName: nil)
                text += [String(dto.rank), CSVField.escape(dto.username), dto.equity, dto.totalReturnPercent, dto.todayChange,
                         dto.sharpe ?? "", dto.maxDrawdownPercent, dto.vsBenchmarkPercent ?? "", String(dto.trades)]
                    .joined(separator: ",") + "\n"
            }
        case "trades":
            var csv = ActivityCSV(leading: ["username"])
            for member in try await req.bullpen.store.members(of: league.id) {
                guard let portfolio = member.portfolioID else { continue }
                for entry in try await req.bullpen.store.journal(of: portfolio, owner: member.userID, periods: .current).reversed() {
                    csv.append(ActivityDTO(entry), leading: [member.username])
                }
            }
            text = csv.text
        default:
            throw APIError.validation("kind must be standings or trades, not '\(kind)'.")
        }
        return csvResponse(text, filename: "league-\(league.id)-\(kind).csv")
    }

    // MARK: Leaderboards

    @Sendable func leaderboard(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let service = req.bullpen.leagues
        let (league, _) = try await service.visibleLeague(try req.leagueID(), to: caller.user)
        let metric = try LeagueService.metric(req.query[String.self, at: "metric"]) ?? league.defaultMetric
        let board = try await service.leaderboard(league, metric: metric)
        return try page(board, metric: metric, req: req, caller: caller.user)
    }

    @Sendable func globalLeaderboard(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let metric = try LeagueService.metric(req.query[String.self, at: "metric"]) ?? .return
        let period = req.query[String.self, at: "period"] ?? "all"
        guard ["week", "month", "all"].contains(period) else {
            throw APIError.validation("period must be week, month or all.")
        }
        let board = try await req.bullpen.leagues.globalLeaderboard(metric: metric, period: period)
        return try page(board, metric: metric, req: req, caller: caller.user)
    }

    private func page(_ board: LeagueService.Board, metric: Leaderboard.Metric, req: Request, caller: UserID) throws -> Response {
        let limit = min(try req.pageLimit(), LeagueService.maxPageSize)
        var offset = 0
        if let cursor = req.pageCursor {
            guard let decoded = PageCursor.decode(cursor), decoded <= board.standings.count else { throw APIError.invalidCursor }
            offset = decoded
        }
        let slice = board.standings.dropFirst(offset).prefix(limit)
        let me = board.standings.first { $0.player == caller }
        return try jsonResponse(LeaderboardDTO(
            metric: metric.rawValue, asOf: board.asOf?.description, final: board.final, total: board.standings.count,
            standings: slice.map { StandingDTO($0, me: caller, portfolioName: $0.portfolio.flatMap { board.portfolioNames[$0] }) },
            me: me.map { StandingDTO($0, me: caller, portfolioName: $0.portfolio.flatMap { board.portfolioNames[$0] }) },
            nextCursor: offset + limit < board.standings.count ? PageCursor.encode(offset + limit) : nil,
            help: LeagueService.help))
    }

    // MARK: Settings

    @Sendable func updateMe(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let body = try req.decodeJSON(UpdateMeRequest.self)
        if let value = body.publicLeaderboard { try await req.bullpen.store.setPublicLeaderboard(caller.user, value) }
        return try jsonResponse(SettingsDTO(publicLeaderboard: try await req.bullpen.store.publicLeaderboard(caller.user)))
    }

    @Sendable func settings(req: Request) async throws -> Response {
        let caller = try await req.caller()
        return try jsonResponse(SettingsDTO(publicLeaderboard: try await req.bullpen.store.publicLeaderboard(caller.user)))
    }

    // MARK: Shapes

    private func detail(_ league: LeagueRecord, req: Request, caller: UserID) async throws -> LeagueDTO {
        let store = req.bullpen.store
        let members = try await store.members(of: league.id)
        let member = members.first { $0.userID == caller }
        let board = try? await req.bullpen.leagues.leaderboard(league, metric: league.defaultMetric)
        var result = try await dto(league, req: req, caller: caller, member: member,
                                   count: members.filter { $0.status == .active }.count,
                                   rank: board?.standings.first { $0.player == caller }?.rank)
        let owner = league.ownerID == caller
        result.members = members.filter { owner || $0.status == .active }.map { member in
            LeagueMemberDTO(userId: member.userID.description, username: member.username, status: member.status.rawValue,
                            isOwner: member.userID == league.ownerID, mayRejoin: member.mayRejoin, joinedAt: member.joinedAt,
                            leftAt: member.leftAt)
        }
        return result
    }

    private func dto(_ league: LeagueRecord, req: Request, caller: UserID, member: LeagueMember?, count: Int,
                     rank: Int?) async throws -> LeagueDTO {
        let owner = league.ownerID == caller
        let ownerName = try await req.bullpen.store.user(id: league.ownerID)?.username ?? ""
        var clock = LeagueClockDTO(mode: "live", start: nil, date: nil, advance: nil, every: nil, days: nil, nextAdvanceAt: nil)
        if case .replay(_, let advance) = league.clock {
            clock = LeagueClockDTO(mode: "replay", start: league.replayStart?.description, date: league.replayDate?.description,
                                   advance: "manual", every: nil, days: nil, nextAdvanceAt: league.nextAdvanceAt)
            if case .every(let seconds, let days) = advance {
                clock.advance = "scheduled"
                clock.every = LeagueAdvance.describe(seconds: seconds)
                clock.days = days
            }
        }
        let rules = league.rules
        let active = member?.status == .active
        var rulesDTO = LeagueRulesDTO(commissionPerTrade: rules.commission.perOrder.decimalString,
                                      commissionPercent: Percent(hundredths: rules.commission.basisPoints).decimalString,
                                      maxPositionPercent: rules.maxPositionBasisPoints.map { Percent(hundredths: $0).decimalString },
                                      minimumPrice: rules.minimumPrice?.decimalString, maxHoldings: rules.maxDistinctHoldings,
                                      marketHoursOnly: rules.marketHoursOnly, lateJoin: league.settings.lateJoin,
                                      holdingsVisible: league.settings.holdingsVisible)
        rulesDTO.allowOptions = rules.allowedInstruments.contains(.option)
        rulesDTO.allowOptionWriting = rules.optionWriting
        rulesDTO.allowFractionalShares = rules.fractionalShares
        rulesDTO.allowCrypto = rules.allowCrypto
        rulesDTO.volumeCapPercent = rules.volumeCapBasisPoints.map { Percent(hundredths: $0).decimalString }
        rulesDTO.slippagePercent = rules.slippageBasisPoints > 0 ? Percent(hundredths: rules.slippageBasisPoints).decimalString : nil
        if let margin = rules.margin {
            rulesDTO.allowShortSelling = true
            rulesDTO.initialMarginPercent = Percent(hundredths: margin.initialBasisPoints).decimalString
            rulesDTO.maintenanceMarginPercent = Percent(hundredths: margin.maintenanceBasisPoints).decimalString
        }
        return LeagueDTO(
            id: league.id.description, name: league.name, description: league.description,
            visibility: league.visibility.rawValue, status: league.status(at: req.bullpen.time.now()).rawValue,
            ownerId: league.ownerID.description, ownerName: ownerName, code: owner ? league.code : nil,
            startingCash: league.startingCash.decimalString, clock: clock,
            rules: rulesDTO,
            defaultMetric: league.defaultMetric.rawValue, startsAt: league.startsAt, endsAt: league.endsAt, memberCount: count,
            isMember: active, isOwner: owner, myPortfolioId: active ? member?.portfolioID?.description : nil, myRank: rank,
            members: nil, createdAt: league.createdAt)
    }
}

extension StandingDTO {
    init(_ standing: Leaderboard.Standing, me: UserID, portfolioName: String?) {
        self.init(rank: standing.rank, userId: standing.player.description, username: standing.name, portfolioName: portfolioName,
                  equity: standing.equity.decimalString, totalReturnPercent: Percent(hundredths: standing.totalReturn).decimalString,
                  todayChange: standing.todayChange.decimalString,
                  sharpe: standing.sharpe.map { FixedPoint.format($0, scale: 2) },
                  maxDrawdownPercent: Percent(hundredths: standing.maxDrawdown).decimalString,
                  vsBenchmarkPercent: standing.vsBenchmark.map { Percent(hundredths: $0).decimalString },
                  trades: standing.trades, isMe: standing.player == me)
    }
}

extension Request {
    func leagueID() throws -> LeagueID {
        guard let id = parameters.get("leagueId").flatMap(LeagueID.init) else { throw APIError.notFound("League") }
        return id
    }

    func memberID() throws -> UserID {
        guard let id = parameters.get("userId").flatMap(UserID.init) else { throw StoreError.notMember }
        return id
    }
}
