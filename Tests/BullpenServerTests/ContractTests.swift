import BullpenAPI
import Foundation
import Testing
import Vapor
import Yams
@testable import BullpenServer

@Suite("OpenAPI contract")
struct ContractTests {
    static let methods: Set<String> = ["get", "post", "put", "patch", "delete", "head", "options"]

    /// `METHOD /path/{param}` for every operation in openapi.yaml and alpaca.yaml (the
    /// Alpaca-compatible API's own description).
    static func documentedOperations() throws -> Set<String> {
        var operations: Set<String> = []
        for text in [try APIContract.openAPIDocument(), try APIContract.alpacaDocument()] {
            let document = try #require(try Yams.load(yaml: text) as? [String: Any])
            let paths = try #require(document["paths"] as? [String: Any])
            for (path, item) in paths {
                let item = try #require(item as? [String: Any])
                for method in item.keys where methods.contains(method) {
                    operations.insert("\(method.uppercased()) \(path)")
                }
            }
        }
        return operations
    }

    /// Routes no document can describe: the catch-alls that answer Alpaca's "not offered" for
    /// its crypto and options data, whatever the path after them.
    static let undocumentable: Set<String> = ["GET /alpaca/data/v1beta3/crypto/**", "GET /alpaca/data/v1beta1/options/**"]

    @Test func everyRegisteredRouteIsDocumentedAndEveryDocumentedRouteExists() async throws {
        try await withServer { server in
            // The same naming the query-parameter check looks operations up by.
            let registered = Set(server.app.routes.all.map(QueryParameterRules.operation)).subtracting(Self.undocumentable)
            let documented = try Self.documentedOperations()
            #expect(registered.subtracting(documented).isEmpty, "routes missing from openapi.yaml: \(registered.subtracting(documented).sorted())")
            #expect(documented.subtracting(registered).isEmpty, "documented but not served: \(documented.subtracting(registered).sorted())")
        }
    }

    @Test func theDocumentIsOpenAPI31WithAnErrorEnvelope() throws {
        let document = try #require(try Yams.load(yaml: try APIContract.openAPIDocument()) as? [String: Any])
        #expect(document["openapi"] as? String == "3.1.0")
        let components = try #require(document["components"] as? [String: Any])
        let schemas = try #require(components["schemas"] as? [String: Any])
        for name in ["ErrorEnvelope", "Portfolio", "Order", "Activity", "Position", "AuthResponse"] {
            #expect(schemas[name] != nil, "schema \(name) missing")
        }
    }

    /// The required properties of each response schema are present in what the server sends.
    @Test func responsesCarryEveryRequiredProperty() async throws {
        let document = try #require(try Yams.load(yaml: try APIContract.openAPIDocument()) as? [String: Any])
        let schemas = try #require((document["components"] as? [String: Any])?["schemas"] as? [String: Any])
        func required(_ schema: String) -> [String] {
            ((schemas[schema] as? [String: Any])?["required"] as? [String]) ?? []
        }
        try await withServer { server in
            let player = try await server.register()
            let order = try await server.order(player, "buy", 1, "MSFT").json()
            let portfolio = try await server.send(.GET, "/api/v1/portfolios/\(player.mainPortfolio)", token: player.accessToken).json()
            let positions = try await server.send(.GET, "/api/v1/portfolios/\(player.mainPortfolio)/positions", token: player.accessToken).json()
            let activities = try await server.send(.GET, "/api/v1/portfolios/\(player.mainPortfolio)/activities", token: player.accessToken).json()
            let error = try await server.send(.GET, "/nowhere").json()
            let preview = try await server.send(.POST, "/api/v1/portfolios/\(player.mainPortfolio)/orders/preview", token: player.accessToken,
                                                body: #"{"symbol":"MSFT","side":"buy","quantity":1}"#).json()
            let summary = try await server.send(.GET, "/api/v1/portfolios/\(player.mainPortfolio)/activities/summary",
                                                token: player.accessToken).json()
            let assets = try await server.send(.GET, "/api/v1/assets").json()
            let detail = try await server.send(.GET, "/api/v1/assets/OLDCO").json()
            let quotes = try await server.send(.GET, "/api/v1/quotes?symbols=MSFT").json()
            let unknownParameter = try await server.send(.GET, "/api/v1/assets?q=x").json()
            let checks: [(String, [String: Any]?)] = [
                ("Order", order), ("Portfolio", portfolio),
                ("Position", (positions["positions"] as? [[String: Any]])?.first),
                ("Activity", (activities["activities"] as? [[String: Any]])?.first),
                ("ErrorEnvelope", error), ("ErrorEnvelope", unknownParameter),
                ("OrderPreview", preview), ("RealizedSummary", summary),
                ("AssetSummary", (assets["assets"] as? [[String: Any]])?.first), ("AssetDetail", detail),
                ("Quote", (quotes["quotes"] as? [[String: Any]])?.first),
            ]
            for key in ["priceSource", "priceAsOf", "marketOpen"] { #expect(order[key] != nil, "the order answer lacks \(key)") }
            for (schema, object) in checks {
                let object = try #require(object, "no \(schema) to check")
                for key in required(schema) {
                    #expect(object[key] != nil, "\(schema) lacks required '\(key)'")
                }
            }
        }
    }
}
