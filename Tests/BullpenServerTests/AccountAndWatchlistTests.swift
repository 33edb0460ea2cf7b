import BullpenAPI
import BullpenCore
import BullpenTestSupport
import Foundation
import NIOHTTP1
import Testing

@Suite("Account settings, watchlists and equity history over HTTP")
struct AccountAndWatchlistTests {
    @Test func changingThePasswordNeedsTheOldOneAndLogsOutOtherSessions() async throws {
        try await withServer { server in
            let player = try await server.register("hana")
            let other = try await server.send(.POST, "/api/v1/auth/login", json: Credentials(username: "hana", password: player.password))
                .decode(AuthResponse.self)
            let wrong = try await server.send(.POST, "/api/v1/me/password", token: player.accessToken,
                                              json: ChangePasswordRequest(currentPassword: "not it at all", newPassword: "a brand new passphrase"))
            #expect(wrong.status == 403 && wrong.errorCode == "wrong_password")
            let weak = try await server.send(.POST, "/api/v1/me/password", token: player.accessToken,
                                             json: ChangePasswordRequest(currentPassword: player.password, newPassword: "password"))
            #expect(weak.status == 422 && weak.errorCode == "weak_password")
            let changed = try await server.send(.POST, "/api/v1/me/password", token: player.accessToken,
                                                json: ChangePasswordRequest(currentPassword: player.password, newPassword: "a brand new passphrase"))
            #expect(changed.status == 204)
            #expect(try await server.send(.GET, "/api/v1/me", token: player.accessToken).status == 200)   // this session stays
            #expect(try await server.send(.GET, "/api/v1/me", token: other.tokens.accessToken).status == 401)  // the other ends
            #expect(try await server.send(.POST, "/api/v1/auth/login", json: Credentials(username: "hana", password: player.password)).status == 401)
            #expect(try await server.send(.POST, "/api/v1/auth/login", json: Credentials(username: "hana", password: "a brand new passphrase")).status == 200)
        }
    }

    @Test func deletingTheAccountRemovesEverythingAndFreesTheName() async throws {
        try await withServer { server in
            let player = try await server.register("ivan")
            _ = try await server.order(player, "buy", 2, "MSFT")
            let refused = try await server.send(.DELETE, "/api/v1/me", token: player.accessToken, json: DeleteAccountRequest(password: "wrong password!"))
            #expect(refused.status == 403)
            #expect(try await server.send(.DELETE, "/api/v1/me", token: player.accessToken, json: DeleteAccountRequest(password: player.password)).status == 204)
            #expect(try await server.send(.GET, "/api/v1/me", token: player.accessToken).status == 401)
            #expect(try await server.send(.POST, "/api/v1/auth/login", json: Credentials(username: "ivan", password: player.password)).status == 401)
            let again = try await server.register("ivan")
            let portfolios = try await server.send(.GET, "/api/v1/portfolios", token: again.accessToken).decode(PortfolioList.self)
            #expect(portfolios.portfolios.count == 1 && portfolios.portfolios[0].holdingsCount == 0)
        }
    }

    @Test func watchlistsKeepSymbolsInOrderAndBelongToTheirOwner() async throws {
        try await withServer { server in
            let player = try await server.register()
            let created = try await server.send(.POST, "/api/v1/watchlists", token: player.accessToken, json: CreateWatchlistRequest(name: "Tech"))
            #expect(created.status == 201)
            let list = try created.decode(WatchlistDTO.self)
            _ = try await server.send(.POST, "/api/v1/watchlists/\(list.id)/symbols/msft", token: player.accessToken)
            _ = try await server.send(.POST, "/api/v1/watchlists/\(list.id)/symbols/ACME", token: player.accessToken)
            let twice = try await server.send(.POST, "/api/v1/watchlists/\(list.id)/symbols/MSFT", token: player.accessToken).decode(WatchlistDTO.self)
            #expect(twice.symbols == ["MSFT", "ACME"])
            let unknown = try await server.send(.POST, "/api/v1/watchlists/\(list.id)/symbols/ZZZZ", token: player.accessToken)
            #expect(unknown.status == 404 && unknown.errorCode == "unknown_symbol")
            let removed = try await server.send(.DELETE, "/api/v1/watchlists/\(list.id)/symbols/MSFT", token: player.accessToken).decode(WatchlistDTO.self)
            #expect(removed.symbols == ["ACME"])
            let duplicate = try await server.send(.POST, "/api/v1/watchlists", token: player.accessToken, json: CreateWatchlistRequest(name: "tech"))
            #expect(duplicate.status == 409 && duplicate.errorCode == "watchlist_name_taken")

            let stranger = try await server.register()
            #expect(try await server.send(.POST, "/api/v1/watchlists/\(list.id)/symbols/MSFT", token: stranger.accessToken).status == 404)
            #expect(try await server.send(.DELETE, "/api/v1/watchlists/\(list.id)", token: stranger.accessToken).status == 404)
            #expect(try await server.send(.GET, "/api/v1/watchlists", token: stranger.accessToken).decode(WatchlistList.self).watchlists.isEmpty)
            #expect(try await server.send(.DELETE, "/api/v1/watchlists/\(list.id)", token: player.accessToken).status == 204)
            #expect(try await server.send(.GET, "/api/v1/watchlists", token: player.accessToken).decode(WatchlistList.self).watchlists.isEmpty)
        }
    }

    @Test func theEquityCurveFollowsTradesAndTheBenchmark() async throws {
        // On the demo exchange a portfolio lives through real sessions: three days after it was opened.
        let opened = TradingCalendar.instant(SessionDate(year: 2025, month: 10, day: 13), 11, 0)   // Monday
        let clock = FixedTimeSource(opened)
        try await withServer(demo: true, time: clock) { server in
            var player = try await server.register()
            let order = try await server.order(player, "buy", 100, "HMCR").decode(OrderDTO.self)
            clock.advance(by: 3 * 86_400)   // Thursday 11:00; the access token has long expired
            let refreshed = try await server.send(.POST, "/api/v1/auth/refresh", json: RefreshRequest(refreshToken: player.refreshToken))
            player.accessToken = try refreshed.decode(AuthResponse.self).tokens.accessToken
            let reply = try await server.send(.GET, "/api/v1/portfolios/\(player.mainPortfolio)/history", token: player.accessToken)
            try #require(reply.status == 200, "\(reply.status): \(reply.text)")
            let history = try reply.decode(EquityHistoryDTO.self)
            #expect(history.points.map(\.date) == ["2025-10-13", "2025-10-14", "2025-10-15", "2025-10-16"])
            #expect(history.points.first?.benchmark == "100000.00")
            #expect(history.points.allSatisfy { $0.benchmark != nil })
            // Each point: cash after the buy plus 100 shares at that day's close (the last at the live price).
            let bars = try await server.send(.GET, "/api/v1/assets/HMCR/bars?range=1M", token: player.accessToken).decode(BarSeriesDTO.self)
            let tuesday = try #require(bars.bars.first { $0.date == "2025-10-14" })
            let cash = Money(dollars: 100_000) + Money(parsing: order.cashDelta)!
            let expected = cash + Price(parsing: tuesday.close)!.notional(quantity: 100)
            #expect(history.points[1].equity == expected.decimalString)
            let summary = try await server.send(.GET, "/api/v1/portfolios/\(player.mainPortfolio)", token: player.accessToken).decode(PortfolioDTO.self)
            #expect(history.points.last?.equity == summary.equity)
        }
    }

    @Test func theWebAppIsServedWithItsSecurityPolicy() async throws {
        try await withServer { server in
            let page = try await server.send(.GET, "/")
            #expect(page.status == 200 && page.text.contains("<script type=\"module\" src=\"/app.js\">"))
            #expect(page.headers.first(name: "Content-Security-Policy")?.contains("default-src 'self'") == true)
            let script = try await server.send(.GET, "/app.js")
            #expect(script.headers.first(name: "Content-Type")?.hasPrefix("text/javascript") == true)
            let etag = try #require(script.headers.first(name: "ETag"))
            let again = try await server.send(.GET, "/app.js", headers: [("If-None-Match", etag)])
            #expect(again.status == 304)
            #expect(try await server.send(.GET, "/../Package.swift").status == 404)
            let total = try await ["/", "/app.js", "/api.js", "/chart.js", "/format.js", "/styles.css"].asyncReduce(0) { sum, path in
                sum + (try await server.send(.GET, path).body.count)
            }
            #expect(total < 200_000, "the web app weighs \(total) bytes")
        }
    }
}

extension Sequence {
    func asyncReduce<Result>(_ initial: Result, _ next: (Result, Element) async throws -> Result) async rethrows -> Result {
        var result = initial
        for element in self { result = try await next(result, element) }
        return result
    }
}
