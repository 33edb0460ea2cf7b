import BullpenAPI
import BullpenCore
import BullpenStore
import BullpenTestSupport
import Foundation
import NIOHTTP1
import Testing
import Vapor
import Yams
@testable import BullpenServer

/// What every route does with what it is given: unknown query parameters refused from one place,
/// every error code with one status, and `.env` read under the environment.
@Suite("Request rules")
struct RequestRulesTests {
    @Test func unknownQueryParametersAreRefusedWithTheAllowedNames() async throws {
        try await withServer { server in
            let reply = try await server.send(.GET, "/api/v1/assets?q=micro")
            #expect(reply.status == 400 && reply.errorCode == "unknown_parameter")
            #expect(reply.text.contains("search") && reply.text.contains("'q'"))
            #expect(try await server.send(.GET, "/api/v1/assets?search=micro").status == 200)
        }
    }

    /// Every route the server has, with a bogus parameter: refused before anything else happens
    /// (no token needed to be told), whatever the route.
    @Test func everyRouteRefusesAParameterItDoesNotKnow() async throws {
        try await withServer { server in
            let routes = server.app.routes.all
            #expect(routes.count > 30)
            for route in routes where !AlpacaUnsupportedRoutes.operations.contains(QueryParameterRules.operation(route)) {
                let path = route.path.map { component -> String in
                    switch component {
                    case .constant(let text): text
                    case .parameter(let name): name == "symbol" ? "MSFT" : name == "name" ? "SPX" : UUID().uuidString
                    case .anything, .catchall: "x"
                    }
                }.joined(separator: "/")
                let reply = try await server.send(route.method, "/\(path)?zzz=1", body: route.method == .GET ? nil : "{}")
                if path.hasPrefix("alpaca/") {   // Alpaca's status and error format, the same native code beside
                    #expect(reply.status == 422 && AlpacaAPITests.alpacaError(reply)?.bullpen == "unknown_parameter",
                            "\(route.method) /\(path): \(reply.status) \(reply.text)")
                    continue
                }
                #expect(reply.status == 400 && reply.errorCode == "unknown_parameter", "\(route.method) /\(path): \(reply.status) \(reply.text)")
            }
        }
    }

    @Test func everyDomainErrorCodeIsOneOfTheEnumsCodes() {
        let rejections: [OrderRejection] = [
            .unknownSymbol(Symbol("X")!), .noPrice(Symbol("X")!), .notTrading(Symbol("X")!),
            .insufficientFunds(required: .zero, available: .zero), .insufficientShares(requested: 1, held: 0),
            .quantityOutOfRange(0, allowed: 1...2), .tooManyHoldings(limit: 1), .instrumentNotAllowed(.option),
            .marketDataUnavailable,
        ]
        let stores: [StoreError] = [
            .usernameTaken, .portfolioNameTaken, .tooManyPortfolios(limit: 1), .notFound("X"), .duplicateClientOrderID("x"),
            .idempotencyKeyReused, .invalidRefreshToken, .refreshTokenReused, .invalidCursor, .watchlistNameTaken,
            .tooManyWatchlists(limit: 1), .watchlistFull(limit: 1), .portfolioChanged, .corruptRow(table: "t", id: "i"),
            .unavailable, .contention,
        ]
        let credentials: [CredentialProblem] = [.usernameInvalid, .passwordTooShort(minimum: 8), .passwordTooLong(maximum: 1),
                                                .passwordTooCommon, .passwordContainsUsername]
        let wire = rejections.map(\.code) + stores.map(\.code) + credentials.map(\.code)
        for code in wire { #expect(ErrorCode(rawValue: code) != nil, "\(code) is not in ErrorCode") }
        #expect(APIError(OrderRejection.unknownSymbol(Symbol("X")!)).status == .notFound)
        #expect(APIError(OrderRejection.marketDataUnavailable).status == .serviceUnavailable)
        #expect(APIError(StoreError.corruptRow(table: "orders", id: "1")).status == .internalServerError)
    }

    @Test func theContractListsExactlyTheErrorCodes() throws {
        let document = try #require(try Yams.load(yaml: try APIContract.openAPIDocument()) as? [String: Any])
        let schemas = try #require((document["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let listed = try #require((schemas["ErrorCode"] as? [String: Any])?["enum"] as? [String])
        #expect(Set(listed) == Set(ErrorCode.allCases.map(\.rawValue)))
        #expect(listed.count == ErrorCode.allCases.count)
    }

    @Test func dotEnvFillsInWhatTheEnvironmentDoesNotSet() {
        let file = DotEnvFile(parsing: """
            # a comment
            BULLPEN_PORT=9000
            export BULLPEN_HOST = 0.0.0.0
            BULLPEN_DATA_DIR="/srv/bullpen data"
            LOG_LEVEL=debug # trailing comment
            BULLPEN_QUOTES=
            not a line
            9BAD=1
            BULLPEN_ENV='production
            """)
        #expect(file.values == ["BULLPEN_PORT": "9000", "BULLPEN_HOST": "0.0.0.0", "BULLPEN_DATA_DIR": "/srv/bullpen data",
                                "LOG_LEVEL": "debug", "BULLPEN_QUOTES": ""])
        #expect(file.problems == [".env:7: expected NAME=value", ".env:8: '9BAD' is not a variable name",
                                  ".env:9: the value of BULLPEN_ENV has no closing quote"])
        let merged = file.filling(["BULLPEN_PORT": "7000", "BULLPEN_HOST": ""])
        #expect(merged["BULLPEN_PORT"] == "7000")        // the environment wins
        #expect(merged["BULLPEN_HOST"] == "0.0.0.0")     // an empty variable is no setting
        #expect(merged["BULLPEN_DATA_DIR"] == "/srv/bullpen data")
        let config = try? ServerConfiguration.fromEnvironment(merged)
        #expect(config?.port == 7000 && config?.host == "0.0.0.0")
    }

    @Test func theHardeningVariablesAreReadAndChecked() throws {
        let config = try ServerConfiguration.fromEnvironment([
            "BULLPEN_ORDERS_PER_MINUTE": "0", "BULLPEN_IDLE_TIMEOUT": "30", "BULLPEN_SHUTDOWN_GRACE": "5", "BULLPEN_SHUTDOWN_DELAY": "3",
            "OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318",
        ])
        #expect(config.ordersPerMinute == 0 && config.idleTimeout == .seconds(30) && config.shutdownGrace == .seconds(5)
                && config.shutdownDelay == .seconds(3) && config.traces)
        let defaults = try ServerConfiguration.fromEnvironment([:])
        #expect(defaults.ordersPerMinute == 120 && defaults.idleTimeout == .seconds(75) && defaults.shutdownGrace == .seconds(20) && !defaults.traces)
        let guarded = try ServerConfiguration.fromEnvironment([
            "BULLPEN_CONNECTION_GUARD": "off", "BULLPEN_HEADER_TIMEOUT": "4", "BULLPEN_BODY_TIMEOUT": "6", "BULLPEN_CONNECTIONS_PER_ADDRESS": "0",
        ])
        #expect(!guarded.connectionGuard && guarded.headerTimeout == .seconds(4) && guarded.bodyTimeout == .seconds(6)
                && guarded.connectionsPerAddress == 0)
        #expect(defaults.connectionGuard && defaults.headerTimeout == .seconds(10) && defaults.bodyTimeout == .seconds(10)
                && defaults.connectionsPerAddress == 500)
        let pushing = try ServerConfiguration.fromEnvironment([
            "BULLPEN_ALERT_INTERVAL": "0", "BULLPEN_PUSH_SUBJECT": "mailto:ops@school.example", "BULLPEN_PUSH_HOSTS": " Push.Example , fcm.googleapis.com",
            "BULLPEN_PUSH_ALLOW_HTTP": "1",
        ])
        #expect(pushing.alertInterval == .zero && pushing.pushSubject == "mailto:ops@school.example"
                && pushing.pushHosts == ["push.example", "fcm.googleapis.com"] && pushing.pushAllowHTTP)
        #expect(defaults.alertInterval == .seconds(5) && defaults.pushHosts == PushSender.defaultHosts && !defaults.pushAllowHTTP)
        let shortLived = try ServerConfiguration.fromEnvironment(["BULLPEN_ACCESS_TOKEN_SECONDS": "5"])
        #expect(defaults.accessTokenLifetime == 900 && shortLived.accessTokenLifetime == 5)
        for (name, value) in [("BULLPEN_ORDERS_PER_MINUTE", "-1"), ("BULLPEN_IDLE_TIMEOUT", "0"), ("BULLPEN_SHUTDOWN_GRACE", "x"),
                              ("BULLPEN_CONNECTION_GUARD", "maybe"), ("BULLPEN_HEADER_TIMEOUT", "0"), ("BULLPEN_BODY_TIMEOUT", "1.5"),
                              ("BULLPEN_CONNECTIONS_PER_ADDRESS", "-3"), ("BULLPEN_ALERT_INTERVAL", "soon"),
                              ("BULLPEN_PUSH_SUBJECT", "bob@example.com"), ("BULLPEN_ACCESS_TOKEN_SECONDS", "4"),
                              ("BULLPEN_ACCESS_TOKEN_SECONDS", "90000")] {
            #expect(throws: ConfigurationError.self, "\(name)=\(value)") { try ServerConfiguration.fromEnvironment([name: value]) }
        }
    }

    @Test func theExampleEnvironmentFileListsEveryVariable() throws {
        let example = try String(contentsOf: RealPack.checkout.appendingPathComponent(".env.example"), encoding: .utf8)
        let listed = DotEnvFile(parsing: example).values.keys
        for variable in ServerConfiguration.variables + ["BULLPEN_TEST_POSTGRES_URL", "BULLPEN_REQUIRE_POSTGRES",
                                                         "BULLPEN_REQUIRE_PACK", "BULLPEN_REQUIRE_BROWSER"] {
            #expect(listed.contains(variable), "\(variable) is missing from .env.example")
        }
        #expect(DotEnvFile(parsing: example).problems.isEmpty)
        // Every variable the server's code reads is in the list.
        let sources = RealPack.checkout.appendingPathComponent("Sources/BullpenServer/ServerConfiguration.swift")
        let code = try String(contentsOf: sources, encoding: .utf8)
        let read = Set(code.matches(of: /environment\["([A-Z_]+)"\]/).map { String($0.1) })
        #expect(read.isSubset(of: Set(ServerConfiguration.variables)), "\(read.subtracting(ServerConfiguration.variables))")
    }
}
