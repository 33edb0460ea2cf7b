import BullpenAPI
import Foundation
import NIOHTTP1
import Testing
import Vapor
@testable import BullpenServer

@Suite("Authorization")
struct AuthorizationTests {
    /// Every route under a portfolio, with a body where it needs one.
    static func portfolioRoutes(_ portfolio: String, order: String) -> [(HTTPMethod, String, String?)] {
        [
            (.GET, "/api/v1/portfolios/\(portfolio)", nil),
            (.PATCH, "/api/v1/portfolios/\(portfolio)", #"{"name":"Mine now"}"#),
            (.DELETE, "/api/v1/portfolios/\(portfolio)", nil),
            (.POST, "/api/v1/portfolios/\(portfolio)/reset", nil),
            (.GET, "/api/v1/portfolios/\(portfolio)/positions", nil),
            (.GET, "/api/v1/portfolios/\(portfolio)/orders", nil),
            (.POST, "/api/v1/portfolios/\(portfolio)/orders", #"{"symbol":"MSFT","side":"sell","quantity":1}"#),
            (.POST, "/api/v1/portfolios/\(portfolio)/orders/preview", #"{"symbol":"MSFT","side":"buy","quantity":1}"#),
            (.GET, "/api/v1/portfolios/\(portfolio)/orders/\(order)", nil),
            (.DELETE, "/api/v1/portfolios/\(portfolio)/orders/\(order)", nil),
            (.PATCH, "/api/v1/portfolios/\(portfolio)/orders/\(order)", #"{"limitPrice":"10"}"#),
            (.GET, "/api/v1/portfolios/\(portfolio)/activities", nil),
            (.GET, "/api/v1/portfolios/\(portfolio)/activities?format=csv", nil),
            (.GET, "/api/v1/portfolios/\(portfolio)/activities/summary", nil),
            (.GET, "/api/v1/portfolios/\(portfolio)/history", nil),
            (.POST, "/api/v1/portfolios/\(portfolio)/advance", #"{"days":1}"#),
            (.POST, "/api/v1/portfolios/\(portfolio)/end", nil),
            (.GET, "/api/v1/portfolios/\(portfolio)/report", nil),
            (.POST, "/api/v1/portfolios/\(portfolio)/options/MSFT261218C00100000/exercise", #"{"contracts":1}"#),
            (.POST, "/api/v1/portfolios/\(portfolio)/options/MSFT261218C00100000/exercise/preview", #"{"contracts":1}"#),
            (.GET, "/api/v1/portfolios/\(portfolio)/top-up", nil),
            (.POST, "/api/v1/portfolios/\(portfolio)/top-up", nil),
        ]
    }

    /// The routes of a player's own things outside portfolios and leagues, with a body where one
    /// is needed: `{W}` is a watchlist of theirs, `{A}` a price alert. Another player gets 404 on
    /// those naming either.
    static let userRoutes: [(HTTPMethod, String, String?)] = [
        (.GET, "/api/v1/me", nil),
        (.GET, "/api/v1/portfolios", nil),
        (.POST, "/api/v1/portfolios", #"{"name":"Another"}"#),
        (.GET, "/api/v1/watchlists", nil),
        (.POST, "/api/v1/watchlists", #"{"name":"Another"}"#),
        (.POST, "/api/v1/watchlists/{W}/symbols/MSFT", nil),
        (.DELETE, "/api/v1/watchlists/{W}/symbols/MSFT", nil),
        (.DELETE, "/api/v1/watchlists/{W}", nil),
        (.GET, "/api/v1/me/blocks", nil),
        (.PATCH, "/api/v1/me/profile", #"{"bio":"mine"}"#),
        (.PUT, "/api/v1/me/avatar", nil),
        (.DELETE, "/api/v1/me/avatar", nil),
        (.GET, "/api/v1/feed", nil),
        (.GET, "/api/v1/notifications", nil),
        (.GET, "/api/v1/notifications/unread", nil),
        (.POST, "/api/v1/notifications/read", #"{"all":true}"#),
        (.GET, "/api/v1/alerts", nil),
        (.POST, "/api/v1/alerts", #"{"symbol":"MSFT","condition":"above","value":"500"}"#),
        (.POST, "/api/v1/alerts/{A}/rearm", nil),
        (.DELETE, "/api/v1/alerts/{A}", nil),
        (.GET, "/api/v1/push", nil),
        (.PUT, "/api/v1/push/kinds", #"{"kinds":[]}"#),
        (.POST, "/api/v1/push/subscriptions", #"{"endpoint":"https://fcm.googleapis.com/fcm/send/x","keys":{"p256dh":"x","auth":"y"}}"#),
        (.POST, "/api/v1/push/unsubscribe", #"{"endpoint":"https://fcm.googleapis.com/fcm/send/x"}"#),
        (.GET, "/api/v1/keys", nil),
        (.POST, "/api/v1/keys", #"{"portfolioId":"00000000-0000-0000-0000-000000000000"}"#),
        (.DELETE, "/api/v1/keys/{K}", nil),
        (.GET, "/api/v1/learn/lessons", nil),
        (.GET, "/api/v1/learn/lessons/what-is-a-stock", nil),
        (.POST, "/api/v1/learn/lessons/what-is-a-stock/quiz", #"{"answers":[0,0,0,0]}"#),
        (.GET, "/api/v1/learn/first-run", nil),
        (.PUT, "/api/v1/learn/first-run", #"{"status":"skipped"}"#),
        (.POST, "/api/v1/learn/first-run/steps/find", nil),
        // These end the caller's credentials: last.
        (.POST, "/api/v1/me/password", #"{"currentPassword":"wrong password!","newPassword":"another long passphrase"}"#),
        (.DELETE, "/api/v1/me", #"{"password":"wrong password!"}"#),
        (.POST, "/api/v1/auth/logout", nil),
    ]

    /// Routes anyone may call, logged in or not.
    static let publicRoutes: [(HTTPMethod, String)] = [
        (.GET, "/health"), (.GET, "/ready"), (.GET, "/openapi.yaml"), (.GET, "/metrics"),
        (.POST, "/api/v1/auth/register"), (.POST, "/api/v1/auth/login"), (.POST, "/api/v1/auth/refresh"),
        (.GET, "/api/v1/market/status"), (.GET, "/api/v1/market/clock"), (.GET, "/api/v1/market/calendar"),
        (.GET, "/api/v1/market/movers"), (.GET, "/api/v1/assets"), (.GET, "/api/v1/assets/{symbol}"),
        (.GET, "/api/v1/assets/{symbol}/bars"), (.GET, "/api/v1/assets/{symbol}/logo.svg"), (.GET, "/api/v1/quotes"),
        (.GET, "/api/v1/benchmarks/{name}/bars"), (.GET, "/api/v1/stream"), (.GET, "/api/v1/replay/scenarios"),
        (.GET, "/api/v1/options/{symbol}/chain"), (.GET, "/api/v1/options/contracts/{contract}"),
        (.GET, "/api/v1/users/{username}/avatar"), (.GET, "/alpaca/openapi.yaml"), (.GET, "/api/v1/learn/glossary"),
    ]

    /// The routes about another player, `{U}`: each needs a token, and to a player `{U}` blocked,
    /// `{U}` does not exist (404), except that anyone may block or unblock a player who exists.
    static let socialRoutes: [(HTTPMethod, String, blockedSees: Int)] = [
        (.GET, "/api/v1/users?search={U}", 200),   // an empty list
        (.GET, "/api/v1/users/{U}", 404),
        (.GET, "/api/v1/users/{U}/followers", 404),
        (.GET, "/api/v1/users/{U}/following", 404),
        (.PUT, "/api/v1/users/{U}/follow", 404),
        (.DELETE, "/api/v1/users/{U}/follow", 404),
        (.PUT, "/api/v1/users/{U}/block", 204),
        (.DELETE, "/api/v1/users/{U}/block", 204),
    ]

    /// A route's `METHOD /path` with its parameters as `{...}` (their names not kept: a table row
    /// names the thing it uses, the router names the parameter).
    static func shape(_ method: HTTPMethod, _ path: String) -> String {
        let values: Set<Substring> = ["MSFT", "MSFT261218C00100000", "what-is-a-stock", "find"]   // the symbol, contract, lesson and first-run step the tables use
        let segments = path.split(separator: "?")[0].split(separator: "/").map { segment in
            segment.hasPrefix("{") || UUID(uuidString: String(segment)) != nil || values.contains(segment) ? "{}" : String(segment)
        }
        return "\(method.rawValue) /" + segments.joined(separator: "/")
    }

    /// A new route fails here until it has a row in one of the authorization tables: the
    /// portfolio routes (another player gets 404), the league roles' table, the player's own
    /// routes, or the public ones.
    @Test func everyRegisteredRouteHasARowInAnAuthorizationTable() async throws {
        try await withServer { server in
            let placeholder = UUID().uuidString
            var rows = Self.portfolioRoutes(placeholder, order: placeholder).map { Self.shape($0.0, $0.1) }
            rows += LeagueAPITests.leagueRoutes.map { Self.shape($0.0, $0.1) }
            rows += LeagueAPITests.otherRoutes.map { Self.shape($0.0, $0.1) }
            rows += Self.userRoutes.map { Self.shape($0.0, $0.1) }
            rows += Self.publicRoutes.map { Self.shape($0.0, $0.1) }
            rows += Self.socialRoutes.map { Self.shape($0.0, $0.1) }
            rows += AlpacaAPITests.routes.map { Self.shape($0.method, $0.path) }
            let registered = server.app.routes.all.map { route in
                Self.shape(route.method, "/" + route.path.map { component in
                    if case .constant(let text) = component { text } else { "{}" }
                }.joined(separator: "/"))
            }
            let missing = Set(registered).subtracting(rows)
            #expect(missing.isEmpty, "routes without a row in an authorization table: \(missing.sorted())")
        }
    }

    @Test func anotherUserGets404OnEveryThingOfMineAndNobodyWithoutAToken() async throws {
        try await withServer { server in
            let alice = try await server.register()
            let bob = try await server.register()
            let list = try await server.send(.POST, "/api/v1/watchlists", token: alice.accessToken, json: CreateWatchlistRequest(name: "Mine"))
                .decode(WatchlistDTO.self)
            let alert = try await server.send(.POST, "/api/v1/alerts", token: alice.accessToken,
                                              json: CreateAlertRequest(symbol: "MSFT", condition: "below", value: "1")).decode(AlertDTO.self)
            let key = try await server.send(.POST, "/api/v1/keys", token: alice.accessToken,
                                            json: CreateAPIKeyRequest(portfolioId: alice.mainPortfolio)).decode(APIKeyDTO.self)
            for (method, path, body) in Self.userRoutes {
                let concrete = path.replacingOccurrences(of: "{W}", with: list.id).replacingOccurrences(of: "{A}", with: alert.id)
                    .replacingOccurrences(of: "{K}", with: key.id)
                let anonymous = try await server.send(method, concrete, body: body)
                #expect(anonymous.status == 401, "\(method) \(path) without a token: \(anonymous.status)")
                if path.contains("{W}") || path.contains("{A}") || path.contains("{K}") {
                    let other = try await server.send(method, concrete, token: bob.accessToken, body: body)
                    #expect(other.status == 404, "\(method) \(path) by another player: \(other.status)")
                }
            }
            // Alice's list is as it was.
            let lists = try await server.send(.GET, "/api/v1/watchlists", token: alice.accessToken).decode(WatchlistList.self)
            #expect(lists.watchlists.map(\.id) == [list.id] && lists.watchlists[0].symbols.isEmpty)
            let alerts = try await server.send(.GET, "/api/v1/alerts", token: alice.accessToken).decode(AlertList.self)
            #expect(alerts.alerts.map(\.id) == [alert.id] && alerts.alerts[0].armed)
            let keys = try await server.send(.GET, "/api/v1/keys", token: alice.accessToken).decode(APIKeyList.self)
            #expect(keys.keys.map(\.id) == [key.id])
            // Every public route answers without a token (a 401 would mean it is not public after all).
            for (method, path) in Self.publicRoutes where method == .GET && !path.contains("{") && path != "/api/v1/stream" {
                let reply = try await server.send(method, path == "/api/v1/quotes" ? path + "?symbols=MSFT" : path)
                #expect(reply.status != 401, "\(path): \(reply.status)")
            }
        }
    }

    @Test func aPlayerBlockedSeesNothingOfTheBlockerAndNobodyWithoutAToken() async throws {
        try await withServer { server in
            let alice = try await server.register(), bob = try await server.register()
            #expect(try await server.send(.PUT, "/api/v1/users/\(bob.username)/block", token: alice.accessToken).status == 204)
            for (method, path, blockedSees) in Self.socialRoutes {
                let concrete = path.replacingOccurrences(of: "{U}", with: alice.username)
                let anonymous = try await server.send(method, concrete)
                #expect(anonymous.status == 401, "\(method) \(path) without a token: \(anonymous.status)")
                let blocked = try await server.send(method, concrete, token: bob.accessToken)
                #expect(blocked.status == blockedSees, "\(method) \(path) by the blocked player: \(blocked.status) \(blocked.text)")
                if method == .GET && blocked.status == 200 {
                    #expect(try blocked.decode(UserList.self).users.isEmpty)
                }
            }
            // The block toggled by Bob was his own; Alice's still stands.
            #expect(try await server.send(.GET, "/api/v1/users/\(alice.username)", token: bob.accessToken).status == 404)
        }
    }

    @Test func anotherUserGets404OnEveryRouteOfMyPortfolio() async throws {
        try await withServer { server in
            let alice = try await server.register()
            let bob = try await server.register()
            let order = try await server.order(alice, "buy", 2, "MSFT").decode(OrderDTO.self)
            for (method, path, body) in Self.portfolioRoutes(alice.mainPortfolio, order: order.id) {
                let reply = try await server.send(method, path, token: bob.accessToken, body: body)
                #expect(reply.status == 404 && reply.errorCode == "not_found", "\(method) \(path): \(reply.status)")
            }
            // Nothing of Alice's changed.
            let summary = try await server.send(.GET, "/api/v1/portfolios/\(alice.mainPortfolio)", token: alice.accessToken)
                .decode(PortfolioDTO.self)
            #expect(summary.name == "Main" && summary.cash == "99200.00" && summary.period == 1)
            let bobs = try await server.send(.GET, "/api/v1/portfolios", token: bob.accessToken).decode(PortfolioList.self)
            #expect(!bobs.portfolios.contains { $0.id == alice.mainPortfolio })
        }
    }

    @Test func everyPrivateRouteNeedsAToken() async throws {
        try await withServer { server in
            let alice = try await server.register()
            var routes = Self.portfolioRoutes(alice.mainPortfolio, order: UUID().uuidString)
            routes += [(.GET, "/api/v1/portfolios", nil), (.POST, "/api/v1/portfolios", #"{"name":"X"}"#),
                       (.GET, "/api/v1/me", nil), (.POST, "/api/v1/auth/logout", nil)]
            for (method, path, body) in routes {
                let reply = try await server.send(method, path, body: body)
                #expect(reply.status == 401 && reply.errorCode == "unauthorized", "\(method) \(path): \(reply.status)")
            }
        }
    }

    @Test func malformedIDsAreNotFoundNotErrors() async throws {
        try await withServer { server in
            let alice = try await server.register()
            for path in ["/api/v1/portfolios/12345", "/api/v1/portfolios/\(alice.mainPortfolio)/orders/xyz"] {
                let reply = try await server.send(.GET, path, token: alice.accessToken)
                #expect(reply.status == 404)
            }
        }
    }
}
