import BullpenAPI
import Foundation
import NIOHTTP1
import Testing

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
            (.GET, "/api/v1/portfolios/\(portfolio)/activities", nil),
            (.GET, "/api/v1/portfolios/\(portfolio)/activities?format=csv", nil),
            (.GET, "/api/v1/portfolios/\(portfolio)/activities/summary", nil),
            (.GET, "/api/v1/portfolios/\(portfolio)/history", nil),
            (.POST, "/api/v1/portfolios/\(portfolio)/advance", #"{"days":1}"#),
            (.POST, "/api/v1/portfolios/\(portfolio)/end", nil),
            (.GET, "/api/v1/portfolios/\(portfolio)/report", nil),
            (.POST, "/api/v1/portfolios/\(portfolio)/options/MSFT261218C00100000/exercise", #"{"contracts":1}"#),
            (.POST, "/api/v1/portfolios/\(portfolio)/options/MSFT261218C00100000/exercise/preview", #"{"contracts":1}"#),
        ]
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
