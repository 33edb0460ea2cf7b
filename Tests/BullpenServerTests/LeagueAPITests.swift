import BullpenAPI
import BullpenCore
import BullpenMarketData
import BullpenStore
@testable import BullpenServer
import BullpenTestSupport
import Foundation
import NIOHTTP1
import Testing

extension TestServer {
    func createLeague(_ player: Player, _ body: String) async throws -> LeagueDTO {
        let reply = try await send(.POST, "/api/v1/leagues", token: player.accessToken, body: body)
        try #require(reply.status == 201, "create league: \(reply.text)")
        return try reply.decode(LeagueDTO.self)
    }

    func joinLeague(_ player: Player, code: String) async throws -> LeagueDTO {
        let reply = try await send(.POST, "/api/v1/leagues/join", token: player.accessToken, body: #"{"code":"\#(code)"}"#)
        try #require(reply.status == 201, "join: \(reply.text)")
        return try reply.decode(LeagueDTO.self)
    }

    func leaderboard(_ player: Player, _ league: String, metric: String = "return") async throws -> LeaderboardDTO {
        let reply = try await send(.GET, "/api/v1/leagues/\(league)/leaderboard?metric=\(metric)", token: player.accessToken)
        try #require(reply.status == 200, "leaderboard: \(reply.text)")
        return try reply.decode(LeaderboardDTO.self)
    }
}

@Suite("Leagues API")
struct LeagueAPITests {
    // MARK: Authorization

    enum Role: String, CaseIterable { case anonymous, outsider, kicked, member, owner }

    /// Every league route, with the status each role gets on a private live league. Roles are
    /// tried in this order on a fresh league per row (the owner last: some rows change the league).
    /// `{L}` is the league, `{M}` the member, `{O}` the owner, `{K}` the kicked member.
    static let leagueRoutes: [(HTTPMethod, String, String?, [Role: Int])] = [
        (.GET, "/api/v1/leagues/{L}", nil, [.outsider: 404, .kicked: 403, .member: 200, .owner: 200]),
        (.PATCH, "/api/v1/leagues/{L}", #"{"name":"Renamed"}"#, [.outsider: 404, .kicked: 403, .member: 403, .owner: 200]),
        (.DELETE, "/api/v1/leagues/{L}", nil, [.outsider: 404, .kicked: 403, .member: 403, .owner: 204]),
        (.POST, "/api/v1/leagues/{L}/code", nil, [.outsider: 404, .kicked: 403, .member: 403, .owner: 200]),
        (.POST, "/api/v1/leagues/{L}/advance", #"{"days":1}"#, [.outsider: 404, .kicked: 403, .member: 403, .owner: 409]),
        (.POST, "/api/v1/leagues/{L}/owner", #"{"userId":"{M}"}"#, [.outsider: 404, .kicked: 403, .member: 403, .owner: 200]),
        (.GET, "/api/v1/leagues/{L}/leaderboard", nil, [.outsider: 404, .kicked: 403, .member: 200, .owner: 200]),
        (.GET, "/api/v1/leagues/{L}/export", nil, [.outsider: 404, .kicked: 403, .member: 403, .owner: 200]),
        (.DELETE, "/api/v1/leagues/{L}/members/me", nil, [.outsider: 404, .kicked: 403, .member: 204, .owner: 409]),
        (.DELETE, "/api/v1/leagues/{L}/members/{M}", nil, [.outsider: 404, .kicked: 403, .member: 403, .owner: 204]),
        (.POST, "/api/v1/leagues/{L}/members/{K}/readmit", nil, [.outsider: 404, .kicked: 403, .member: 403, .owner: 204]),
        (.GET, "/api/v1/leagues/{L}/members/{O}/portfolio", nil, [.outsider: 404, .kicked: 403, .member: 403, .owner: 200]),
        (.GET, "/api/v1/leagues/{L}/members/{O}/activities", nil, [.outsider: 404, .kicked: 403, .member: 403, .owner: 200]),
    ]

    /// Routes outside one league: anyone logged in may call them.
    static let otherRoutes: [(HTTPMethod, String, String?, Int)] = [
        (.GET, "/api/v1/leagues", nil, 200),
        (.POST, "/api/v1/leagues", #"{"name":"Another","visibility":"public"}"#, 201),
        (.GET, "/api/v1/leagues/public", nil, 200),
        (.POST, "/api/v1/leagues/join", #"{"code":"ZZZZZZZZ"}"#, 404),
        (.GET, "/api/v1/leaderboard", nil, 200),
        (.PATCH, "/api/v1/me", #"{"publicLeaderboard":false}"#, 200),
        (.GET, "/api/v1/me/settings", nil, 200),
    ]

    /// The contract's league and leaderboard operations, as `METHOD /path` with `{...}` placeholders.
    static func documentedLeagueOperations() throws -> Set<String> {
        var found: Set<String> = []
        var path: String?
        for line in try APIContract.openAPIDocument().split(separator: "\n") {
            if line.hasPrefix("  /") {
                let text = String(line.dropFirst(2).dropLast())
                path = text.hasPrefix("/api/v1/leagues") || text == "/api/v1/leaderboard" || text.hasPrefix("/api/v1/me/settings") ? text : nil
            } else if let current = path, let method = ["get", "post", "patch", "delete"].first(where: { line == "    \($0):" }) {
                found.insert(method.uppercased() + " " + current)
            }
        }
        return found
    }

    @Test func everyLeagueRouteHasARowInTheTable() throws {
        func template(_ path: String) -> String {
            path.replacingOccurrences(of: "{L}", with: "{leagueId}").replacingOccurrences(of: "{M}", with: "{userId}")
                .replacingOccurrences(of: "{O}", with: "{userId}").replacingOccurrences(of: "{K}", with: "{userId}")
        }
        var table = Set(Self.leagueRoutes.map { "\($0.0.rawValue) " + template($0.1) })
        table.formUnion(Self.otherRoutes.filter { $0.1 != "/api/v1/me" }.map { "\($0.0.rawValue) \($0.1)" })
        #expect(try Self.documentedLeagueOperations() == table)
    }

    @Test func everyRoleGetsWhatTheTableSays() async throws {
        try await withServer { server in
            for (method, path, body, expected) in Self.leagueRoutes {
                let owner = try await server.register(), member = try await server.register()
                let kicked = try await server.register(), outsider = try await server.register()
                let league = try await server.createLeague(owner, #"{"name":"Class","visibility":"private"}"#)
                let code = try #require(league.code)
                _ = try await server.joinLeague(member, code: code)
                _ = try await server.joinLeague(kicked, code: code)
                let kick = try await server.send(.DELETE, "/api/v1/leagues/\(league.id)/members/\(kicked.id)", token: owner.accessToken)
                try #require(kick.status == 204, "kick: \(kick.text)")
                func fill(_ text: String) -> String {
                    text.replacingOccurrences(of: "{L}", with: league.id).replacingOccurrences(of: "{M}", with: member.id)
                        .replacingOccurrences(of: "{O}", with: owner.id).replacingOccurrences(of: "{K}", with: kicked.id)
                }
                for role in Role.allCases {
                    let token: String? = switch role {
                    case .anonymous: nil
                    case .outsider: outsider.accessToken
                    case .kicked: kicked.accessToken
                    case .member: member.accessToken
                    case .owner: owner.accessToken
                    }
                    let reply = try await server.send(method, fill(path), token: token, body: body.map(fill))
                    let status = role == .anonymous ? 401 : try #require(expected[role])
                    #expect(reply.status == status, "\(role) \(method) \(path): \(reply.status) \(reply.text)")
                    if reply.status >= 400 { #expect(reply.errorCode != nil, "\(role) \(method) \(path): no error code") }
                }
            }
            let player = try await server.register()
            for (method, path, body, status) in Self.otherRoutes {
                #expect(try await server.send(method, path, body: body).status == 401, "anonymous \(method) \(path)")
                let reply = try await server.send(method, path, token: player.accessToken, body: body)
                #expect(reply.status == status, "\(method) \(path): \(reply.status) \(reply.text)")
            }
        }
    }

    // MARK: Rules

    @Test func commissionIsChargedAndJournaledAsItsOwnEntry() async throws {
        try await withServer { server in
            let owner = try await server.register()
            let league = try await server.createLeague(owner, #"""
                {"name":"Fees","visibility":"public","startingCash":"100000.00",
                 "rules":{"commissionPerTrade":"4.95","commissionPercent":"0.10"}}
                """#)
            #expect(league.rules.commissionPerTrade == "4.95" && league.rules.commissionPercent == "0.10")
            let portfolio = try #require(league.myPortfolioId)
            let buy = try await server.order(owner, "buy", 10, "MSFT", portfolio: portfolio)
            #expect(buy.status == 201, "\(buy.text)")
            let order = try buy.decode(OrderDTO.self)
            // 10 × 400.00 = 4,000.00; 4.95 + 0.10 % of 4,000.00 = 8.95.
            #expect(order.commission == "8.95" && order.cashDelta == "-4008.95")
            let activities = try await server.send(.GET, "/api/v1/portfolios/\(portfolio)/activities", token: owner.accessToken)
                .decode(ActivityPage.self).activities
            #expect(activities.map(\.type) == ["commission", "buy"])
            #expect(activities.map(\.amount) == ["-8.95", "-4000.00"])
            let sell = try await server.order(owner, "sell", 10, "MSFT", portfolio: portfolio).decode(OrderDTO.self)
            #expect(sell.commission == "8.95" && sell.cashDelta == "3991.05")
            let summary = try await server.portfolio(owner, portfolio)
            #expect(summary.cash == "99982.10" && summary.leagueId == league.id)
            try await server.expectBalanced(owner, portfolio)
        }
    }

    @Test func positionCapMinimumPriceAndMaxHoldings() async throws {
        try await withServer { server in
            let owner = try await server.register()
            let league = try await server.createLeague(owner, #"""
                {"name":"Careful","visibility":"private",
                 "rules":{"maxPositionPercent":"25","minimumPrice":"20.00","maxHoldings":2}}
                """#)
            let portfolio = try #require(league.myPortfolioId)
            // 63 × 400.00 = 25,200.00 of 100,000.00 is 25.2 %: over the cap; 62 is 24.8 %.
            let big = try await server.order(owner, "buy", 63, "MSFT", portfolio: portfolio)
            #expect(big.status == 422 && big.errorCode == "position_limit", "\(big.text)")
            #expect(big.text.contains("25.20 %"))
            #expect(try await server.order(owner, "buy", 62, "MSFT", portfolio: portfolio).status == 201)
            // Adding one more share would pass 25 % too.
            #expect(try await server.order(owner, "buy", 1, "MSFT", portfolio: portfolio).errorCode == "position_limit")
            // ACME at 19.50 is below the minimum price.
            let cheap = try await server.order(owner, "buy", 1, "ACME", portfolio: portfolio)
            #expect(cheap.status == 422 && cheap.errorCode == "below_minimum_price", "\(cheap.text)")
            // The preview names the problem too.
            let preview = try await server.send(.POST, "/api/v1/portfolios/\(portfolio)/orders/preview", token: owner.accessToken,
                                                body: #"{"symbol":"MSFT","side":"buy","quantity":100}"#)
            #expect(preview.text.contains("position_limit"), "\(preview.text)")
            try await server.expectBalanced(owner, portfolio)

            let holdings = try await server.createLeague(owner, #"{"name":"One stock","visibility":"private","rules":{"maxHoldings":1}}"#)
            let one = try #require(holdings.myPortfolioId)
            #expect(try await server.order(owner, "buy", 1, "ACME", portfolio: one).status == 201)
            #expect(try await server.order(owner, "buy", 1, "MSFT", portfolio: one).errorCode == "too_many_holdings")
            // Selling is never stopped by these rules.
            #expect(try await server.order(owner, "sell", 1, "ACME", portfolio: one).status == 201)
            try await server.expectBalanced(owner, one)
        }
    }

    /// Sunday 2024-01-07 16:00 UTC: the exchange is closed.
    static let sunday = Date(timeIntervalSince1970: 1_704_643_200)

    @Test func marketHoursLateJoinStartAndEnd() async throws {
        let time = FixedTimeSource(Self.sunday)
        try await withServer(time: time) { server in
            let owner = try await server.register(), late = try await server.register()
            let hours = try await server.createLeague(owner, #"{"name":"Hours","visibility":"private","rules":{"marketHoursOnly":true,"lateJoin":false}}"#)
            let hoursPortfolio = try #require(hours.myPortfolioId)
            let closed = try await server.order(owner, "buy", 1, "MSFT", portfolio: hoursPortfolio)
            #expect(closed.status == 409 && closed.errorCode == "market_closed", "\(closed.text)")
            // Started and closed to late joiners.
            let refused = try await server.send(.POST, "/api/v1/leagues/join", token: late.accessToken,
                                                body: #"{"code":"\#(try #require(hours.code))"}"#)
            #expect(refused.status == 409 && refused.errorCode == "late_join_closed")

            // Upcoming: joining is fine, trading is not yet; then the league runs and ends.
            let starts = ISO8601DateFormatter().string(from: Self.sunday.addingTimeInterval(60))
            let ends = ISO8601DateFormatter().string(from: Self.sunday.addingTimeInterval(120))
            let later = try await server.createLeague(owner, #"""
                {"name":"Later","visibility":"private","startsAt":"\#(starts)","endsAt":"\#(ends)","rules":{"lateJoin":false}}
                """#)
            #expect(later.status == "upcoming")
            let joined = try await server.joinLeague(late, code: try #require(later.code))
            let latePortfolio = try #require(joined.myPortfolioId)
            let early = try await server.order(late, "buy", 1, "MSFT", portfolio: latePortfolio)
            #expect(early.status == 409 && early.errorCode == "league_not_started", "\(early.text)")
            // Rules can change before the start, not after.
            let patched = try await server.send(.PATCH, "/api/v1/leagues/\(later.id)", token: owner.accessToken,
                                                body: #"{"rules":{"commissionPerTrade":"1.00","lateJoin":false}}"#)
            #expect(patched.status == 200, "\(patched.text)")
            time.advance(by: 70)
            #expect(try await server.order(late, "buy", 1, "MSFT", portfolio: latePortfolio).status == 201)
            let fixed = try await server.send(.PATCH, "/api/v1/leagues/\(later.id)", token: owner.accessToken,
                                              body: #"{"startingCash":"5000.00"}"#)
            #expect(fixed.status == 409 && fixed.errorCode == "league_started")
            let renamed = try await server.send(.PATCH, "/api/v1/leagues/\(later.id)", token: owner.accessToken,
                                                body: #"{"name":"Later, renamed"}"#)
            #expect(renamed.status == 200)
            time.advance(by: 60)
            let over = try await server.order(late, "sell", 1, "MSFT", portfolio: latePortfolio)
            #expect(over.status == 409 && over.errorCode == "league_ended", "\(over.text)")
            let board = try await server.leaderboard(owner, later.id)
            #expect(board.final && board.standings.count == 2)
            try await server.expectBalanced(late, latePortfolio)
        }
    }

    // MARK: Membership

    @Test func leaveKickRejoinAndDelete() async throws {
        try await withServer { server in
            let owner = try await server.register(), member = try await server.register()
            let league = try await server.createLeague(owner, #"{"name":"Club","visibility":"private"}"#)
            let code = try #require(league.code)
            // Typed in lower case with a dash: the same code.
            let joined = try await server.joinLeague(member, code: code.lowercased().prefix(4) + "-" + code.lowercased().dropFirst(4))
            let first = try #require(joined.myPortfolioId)
            let again = try await server.send(.POST, "/api/v1/leagues/join", token: member.accessToken, body: #"{"code":"\#(code)"}"#)
            #expect(again.status == 409 && again.errorCode == "already_member")
            // The league's portfolio is listed with the member's others, and cannot be reset or deleted.
            let list = try await server.send(.GET, "/api/v1/portfolios", token: member.accessToken).decode(PortfolioList.self)
            #expect(list.portfolios.contains { $0.id == first && $0.leagueId == league.id && $0.name == "Club" })
            #expect(try await server.send(.POST, "/api/v1/portfolios/\(first)/reset", token: member.accessToken).errorCode == "league_portfolio")
            #expect(try await server.send(.DELETE, "/api/v1/portfolios/\(first)", token: member.accessToken).errorCode == "league_portfolio")
            #expect(try await server.order(member, "buy", 1, "MSFT", portfolio: first).status == 201)

            // The owner cannot leave; the member can, and the portfolio stays, read-only.
            let stay = try await server.send(.DELETE, "/api/v1/leagues/\(league.id)/members/me", token: owner.accessToken)
            #expect(stay.status == 409 && stay.errorCode == "owner_must_stay")
            #expect(try await server.send(.DELETE, "/api/v1/leagues/\(league.id)/members/me", token: member.accessToken).status == 204)
            let closed = try await server.portfolio(member, first)
            #expect(closed.closedAt != nil && closed.holdingsCount == 1)
            let blocked = try await server.order(member, "sell", 1, "MSFT", portfolio: first)
            #expect(blocked.status == 409 && blocked.errorCode == "portfolio_closed")

            // Rejoining makes a fresh portfolio; a kick blocks the code until the owner readmits.
            let rejoined = try await server.joinLeague(member, code: code)
            let second = try #require(rejoined.myPortfolioId)
            #expect(second != first)
            #expect(try await server.send(.DELETE, "/api/v1/leagues/\(league.id)/members/\(member.id)", token: owner.accessToken).status == 204)
            let kicked = try await server.send(.POST, "/api/v1/leagues/join", token: member.accessToken, body: #"{"code":"\#(code)"}"#)
            #expect(kicked.status == 403 && kicked.errorCode == "kicked_from_league")
            #expect(try await server.send(.POST, "/api/v1/leagues/\(league.id)/members/\(member.id)/readmit", token: owner.accessToken).status == 204)
            _ = try await server.joinLeague(member, code: code)

            // A new code: the old one joins nothing.
            let fresh = try await server.send(.POST, "/api/v1/leagues/\(league.id)/code", token: owner.accessToken).decode(LeagueDTO.self)
            #expect(fresh.code != code && fresh.code?.count == 8)
            let stale = try await server.send(.POST, "/api/v1/leagues/join", token: (try await server.register()).accessToken,
                                              body: #"{"code":"\#(code)"}"#)
            #expect(stale.status == 404 && stale.errorCode == "invalid_join_code")

            // Handing over, then deleting: every portfolio is kept read-only.
            #expect(try await server.send(.POST, "/api/v1/leagues/\(league.id)/owner", token: owner.accessToken,
                                          body: #"{"userId":"\#(member.id)"}"#).status == 200)
            #expect(try await server.send(.DELETE, "/api/v1/leagues/\(league.id)", token: owner.accessToken).errorCode == "not_league_owner")
            #expect(try await server.send(.DELETE, "/api/v1/leagues/\(league.id)", token: member.accessToken).status == 204)
            #expect(try await server.send(.GET, "/api/v1/leagues/\(league.id)", token: member.accessToken).status == 404)
            let ownerList = try await server.send(.GET, "/api/v1/portfolios", token: owner.accessToken).decode(PortfolioList.self)
            #expect(ownerList.portfolios.contains { $0.leagueId == league.id && $0.closedAt != nil })
            try await server.expectBalanced(member, first)
        }
    }

    // MARK: A replay league

    @Test(arguments: ReplayMarket.available)
    func membersShareTheLeaguesClock(market: ReplayMarket) async throws {
        try await withServer(source: try await market.source()) { server in
            let owner = try await server.register(), member = try await server.register()
            let league = try await server.createLeague(owner, #"""
                {"name":"Crisis class","visibility":"private","startingCash":"10000.00",
                 "clock":{"mode":"replay","start":"2008-09","advance":"manual"}}
                """#)
            #expect(league.clock.mode == "replay" && league.clock.date == "2008-09-02")
            let joined = try await server.joinLeague(member, code: try #require(league.code))
            let mine = try #require(league.myPortfolioId), theirs = try #require(joined.myPortfolioId)
            let stock = market == .pack ? "MSFT" : "OKHP"
            for (player, portfolio) in [(owner, mine), (member, theirs)] {
                let buy = try await server.order(player, "buy", 10, stock, portfolio: portfolio)
                #expect(buy.status == 201, "\(buy.text)")
            }
            // Members cannot move the clock, on the league or on their own portfolio.
            let notOwner = try await server.send(.POST, "/api/v1/leagues/\(league.id)/advance", token: member.accessToken, body: #"{"days":5}"#)
            #expect(notOwner.status == 403 && notOwner.errorCode == "not_league_owner")
            let alone = try await server.advance(member, theirs, #"{"days":5}"#)
            #expect(alone.status == 409 && alone.errorCode == "league_clock")
            // Nor can a bot with a trading key of theirs (the Alpaca API's advance).
            let key = try await AlpacaAPITests.makeKey(server, member, portfolio: theirs)
            let bot = try await server.send(.POST, "/alpaca/bullpen/advance", body: #"{"days":5}"#, headers: key.headers)
            #expect(bot.status == 422 && AlpacaAPITests.alpacaError(bot)?.bullpen == "league_clock", "\(bot.text)")
            let moved = try await server.send(.POST, "/api/v1/leagues/\(league.id)/advance", token: owner.accessToken, body: #"{"days":5}"#)
            #expect(moved.status == 200, "\(moved.text)")
            let advance = try moved.decode(LeagueAdvanceDTO.self)
            #expect(advance.from == "2008-09-02" && advance.to == "2008-09-09" && advance.portfolios == 2)
            // Both portfolios stand on the same date, at the same prices.
            let a = try await server.portfolio(owner, mine), b = try await server.portfolio(member, theirs)
            #expect(a.clock.date == "2008-09-09" && b.clock.date == "2008-09-09")
            // The league's schedule moved the bot's clock too.
            let clock = try await server.send(.GET, "/alpaca/v2/clock", headers: key.headers).json()
            #expect((clock["timestamp"] as? String)?.hasPrefix("2008-09-09T15:59:00") == true && clock["bullpen_clock"] as? String == "replay")
            let pa = try await server.send(.GET, "/api/v1/portfolios/\(mine)/positions", token: owner.accessToken).decode(PositionList.self)
            let pb = try await server.send(.GET, "/api/v1/portfolios/\(theirs)/positions", token: member.accessToken).decode(PositionList.self)
            #expect(pa.positions.map(\.lastPrice) == pb.positions.map(\.lastPrice) && pa.positions.count == 1)
            if market == .pack {
                let close = try #require(PackFile.closes("MSFT").first { $0.date == "2008-09-09" }).close
                #expect(Decimal(string: pa.positions[0].lastPrice ?? "") == Decimal(string: close))
            }
            // Orders fill at the league's date; a late joiner starts on it.
            let late = try await server.register()
            let lateJoined = try await server.joinLeague(late, code: try #require(league.code))
            #expect(try await server.portfolio(late, try #require(lateJoined.myPortfolioId)).clock.date == "2008-09-09")
            // The leaderboard counts everyone, on the league's date.
            let board = try await server.leaderboard(owner, league.id)
            #expect(board.asOf == "2008-09-09" && board.total == 3)
            try await server.expectBalanced(owner, mine)
            try await server.expectBalanced(member, theirs)
        }
    }

    // MARK: Leaderboards

    /// Figures checked against ones computed here from the stored snapshots (the history route).
    @Test(arguments: ReplayMarket.available)
    func leaderboardFiguresMatchTheSnapshots(market: ReplayMarket) async throws {
        try await withServer(source: try await market.source()) { server in
            let owner = try await server.register(), second = try await server.register(), idle = try await server.register()
            let league = try await server.createLeague(owner, #"""
                {"name":"Numbers","visibility":"private","startingCash":"10000.00",
                 "clock":{"mode":"replay","start":"2009-03-02","advance":"manual"}}
                """#)
            let code = try #require(league.code)
            let secondPortfolio = try #require(try await server.joinLeague(second, code: code).myPortfolioId)
            let idlePortfolio = try #require(try await server.joinLeague(idle, code: code).myPortfolioId)
            let mine = try #require(league.myPortfolioId)
            let stock = market == .pack ? "MSFT" : "OKHP"
            #expect(try await server.order(owner, "buy", 100, stock, portfolio: mine).status == 201)
            #expect(try await server.order(second, "buy", 20, stock, portfolio: secondPortfolio).status == 201)
            for _ in 0..<3 {
                let moved = try await server.send(.POST, "/api/v1/leagues/\(league.id)/advance", token: owner.accessToken, body: #"{"days":4}"#)
                try #require(moved.status == 200, "\(moved.text)")
            }
            for metric in ["return", "sharpe", "drawdown", "vs_benchmark"] {
                let board = try await server.leaderboard(owner, league.id, metric: metric)
                #expect(board.standings.count == 3 && board.metric == metric && board.help[metric] != nil)
                for standing in board.standings {
                    let (player, portfolio) = standing.userId == owner.id ? (owner, mine)
                        : standing.userId == second.id ? (second, secondPortfolio) : (idle, idlePortfolio)
                    let history = try await server.send(.GET, "/api/v1/portfolios/\(portfolio)/history", token: player.accessToken)
                        .decode(EquityHistoryDTO.self)
                    let equities = history.points.map { Double($0.equity)! }
                    let start = 10_000.0
                    #expect(standing.equity == history.points.last?.equity)
                    let totalReturn = (equities.last! - start) / start * 100
                    #expect(abs(Double(standing.totalReturnPercent)! - totalReturn) < 0.006, "\(metric) return")
                    var peak = start, deepest = 0.0
                    for value in equities { peak = max(peak, value); deepest = max(deepest, (peak - value) / peak * 100) }
                    #expect(abs(Double(standing.maxDrawdownPercent)! - deepest) < 0.006, "drawdown \(standing.username)")
                    var previous = start, returns: [Double] = []
                    for value in equities { returns.append(value / previous - 1); previous = value }
                    let mean = returns.reduce(0, +) / Double(returns.count)
                    let sd = (returns.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(returns.count - 1)).squareRoot()
                    if sd > 1e-9 {
                        let sharpe = mean / sd * 252.0.squareRoot()
                        #expect(abs(Double(try #require(standing.sharpe))! - sharpe) < 0.011, "sharpe \(standing.username): \(standing.sharpe ?? "nil") vs \(sharpe)")
                    } else {
                        #expect(standing.sharpe == nil)
                    }
                }
                // Ranked best first under the metric; the idle player's figures are all zero.
                let keys = board.standings.map { s -> Double in
                    switch metric {
                    case "return": Double(s.totalReturnPercent)!
                    case "sharpe": s.sharpe.flatMap(Double.init) ?? -.infinity
                    case "drawdown": -Double(s.maxDrawdownPercent)!
                    default: s.vsBenchmarkPercent.flatMap(Double.init) ?? -.infinity
                    }
                }
                #expect(keys == keys.sorted(by: >), "\(metric): \(keys)")
                #expect(board.me?.userId == owner.id && board.me?.isMe == true)
            }
        }
    }

    @Test func tiesShareARank() async throws {
        try await withServer { server in
            let owner = try await server.register(), a = try await server.register(), b = try await server.register()
            let league = try await server.createLeague(owner, #"{"name":"Ties","visibility":"private"}"#)
            let code = try #require(league.code)
            _ = try await server.joinLeague(a, code: code)
            let bp = try #require(try await server.joinLeague(b, code: code).myPortfolioId)
            // b buys and sells at the same price: back to even with the others (no commission).
            #expect(try await server.order(b, "buy", 1, "ACME", portfolio: bp).status == 201)
            #expect(try await server.order(b, "sell", 1, "ACME", portfolio: bp).status == 201)
            let board = try await server.leaderboard(owner, league.id)
            #expect(board.standings.map(\.rank) == [1, 1, 1])
            #expect(board.standings.first { $0.userId == b.id }?.trades == 2)
            // Paging: one at a time.
            let first = try await server.send(.GET, "/api/v1/leagues/\(league.id)/leaderboard?limit=1", token: owner.accessToken)
                .decode(LeaderboardDTO.self)
            #expect(first.standings.count == 1 && first.nextCursor != nil && first.total == 3)
        }
    }

    @Test func publicLeaguesGlobalLeaderboardAndExport() async throws {
        try await withServer { server in
            let owner = try await server.register(), other = try await server.register()
            let league = try await server.createLeague(owner, #"{"name":"Open \#(UUID().uuidString.prefix(6))","visibility":"public"}"#)
            let found = try await server.send(.GET, "/api/v1/leagues/public?q=\(league.name.split(separator: " ")[1])",
                                              token: other.accessToken).decode(LeagueList.self)
            #expect(found.leagues.map(\.id) == [league.id] && found.leagues[0].code == nil)
            let joined = try await server.send(.POST, "/api/v1/leagues/join", token: other.accessToken, body: #"{"leagueId":"\#(league.id)"}"#)
            #expect(joined.status == 201)
            let mineList = try await server.send(.GET, "/api/v1/leagues", token: other.accessToken).decode(LeagueList.self)
            #expect(mineList.leagues.map(\.id) == [league.id] && mineList.leagues[0].myRank == 1)
            let otherPortfolio = try #require(try joined.decode(LeagueDTO.self).myPortfolioId)
            #expect(try await server.order(other, "buy", 2, "MSFT", portfolio: otherPortfolio).status == 201)

            // Off until a player opts in.
            var global = try await server.send(.GET, "/api/v1/leaderboard", token: owner.accessToken).decode(LeaderboardDTO.self)
            #expect(!global.standings.contains { $0.userId == owner.id })
            let settings = try await server.send(.PATCH, "/api/v1/me", token: owner.accessToken, body: #"{"publicLeaderboard":true}"#)
                .decode(SettingsDTO.self)
            #expect(settings.publicLeaderboard)
            global = try await server.send(.GET, "/api/v1/leaderboard?period=week&metric=sharpe", token: owner.accessToken).decode(LeaderboardDTO.self)
            #expect(global.standings.filter { $0.userId == owner.id }.map(\.portfolioName) == ["Main"])
            #expect(try await server.send(.GET, "/api/v1/leaderboard?period=year", token: owner.accessToken).status == 400)
            #expect(try await server.send(.GET, "/api/v1/leagues/\(league.id)/leaderboard?metric=luck", token: owner.accessToken)
                .errorCode == "invalid_metric")

            let standings = try await server.send(.GET, "/api/v1/leagues/\(league.id)/export?kind=standings", token: owner.accessToken)
            #expect(standings.status == 200 && standings.text.hasPrefix("rank,username,equity"))
            #expect(standings.text.contains(other.username) && standings.text.split(separator: "\n").count == 3)
            let trades = try await server.send(.GET, "/api/v1/leagues/\(league.id)/export?kind=trades", token: owner.accessToken)
            #expect(trades.text.split(separator: "\n").count == 2 && trades.text.contains("\(other.username),"))
            // The owner sees a member's holdings; with holdings hidden, members do not.
            let view = try await server.send(.GET, "/api/v1/leagues/\(league.id)/members/\(other.id)/portfolio", token: owner.accessToken)
                .decode(MemberPortfolioDTO.self)
            #expect(view.positions.map(\.symbol) == ["MSFT"])
            #expect(try await server.send(.GET, "/api/v1/leagues/\(league.id)/members/\(owner.id)/portfolio", token: other.accessToken)
                .errorCode == "not_league_owner")
        }
    }

    @Test func anOwnersDeletedAccountHandsTheLeagueOver() async throws {
        try await withServer { server in
            let owner = try await server.register(), member = try await server.register()
            let league = try await server.createLeague(owner, #"{"name":"Inherited","visibility":"private"}"#)
            _ = try await server.joinLeague(member, code: try #require(league.code))
            let alone = try await server.createLeague(owner, #"{"name":"Alone","visibility":"public"}"#)
            let gone = try await server.send(.DELETE, "/api/v1/me", token: owner.accessToken, body: #"{"password":"\#(owner.password)"}"#)
            #expect(gone.status == 204, "\(gone.text)")
            let now = try await server.send(.GET, "/api/v1/leagues/\(league.id)", token: member.accessToken).decode(LeagueDTO.self)
            #expect(now.isOwner && now.ownerId == member.id && now.members?.map(\.userId) == [member.id])
            #expect(try await server.send(.GET, "/api/v1/leagues/\(alone.id)", token: member.accessToken).status == 404)
        }
    }

    @Test func badRequestsAreRefused() async throws {
        try await withServer { server in
            let owner = try await server.register()
            for (body, code) in [
                (#"{"name":"X","visibility":"secret"}"#, "validation_failed"),
                (#"{"name":"X","visibility":"public","extra":1}"#, "validation_failed"),
                (#"{"name":"X","visibility":"public","rules":{"maxPositionPercent":"0"}}"#, "validation_failed"),
                (#"{"name":"X","visibility":"public","rules":{"commissionPerTrade":"-1"}}"#, "validation_failed"),
                (#"{"name":"X","visibility":"public","rules":{"cheat":true}}"#, "validation_failed"),
                (#"{"name":"X","visibility":"public","clock":{"mode":"replay","start":"1800-01"}}"#, "invalid_replay_start"),
                (#"{"name":"X","visibility":"public","clock":{"mode":"replay","start":"2024-01-02","advance":{"every":"1s","days":1}}}"#, "invalid_advance"),
                (#"{"name":"X","visibility":"public","clock":{"mode":"replay","start":"2024-01-02","advance":"sometimes"}}"#, "validation_failed"),
                (#"{"name":"X","visibility":"public","startingCash":"5"}"#, "invalid_starting_cash"),
                (#"{"name":"X","visibility":"public","startsAt":"2030-01-02T00:00:00Z","endsAt":"2030-01-01T00:00:00Z"}"#, "invalid_dates"),
                (#"{"name":"X","visibility":"public","defaultMetric":"luck"}"#, "invalid_metric"),
            ] {
                let reply = try await server.send(.POST, "/api/v1/leagues", token: owner.accessToken, body: body)
                #expect(reply.errorCode == code && reply.status < 500, "\(body): \(reply.status) \(reply.text)")
            }
            let noCode = try await server.send(.POST, "/api/v1/leagues/join", token: owner.accessToken, body: #"{"code":"0O1IL"}"#)
            #expect(noCode.status == 400 && noCode.errorCode == "validation_failed")
            #expect(try await server.send(.GET, "/api/v1/leagues/nope", token: owner.accessToken).status == 404)
        }
    }
}
