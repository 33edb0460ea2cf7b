import AsyncHTTPClient
import BullpenAPI
import BullpenCore
import BullpenMarketData
import BullpenStore
import Foundation
import Logging
import NIOCore
import NIOFoundationEssentialsCompat
import NIOHTTP1
import Testing
import Vapor
@testable import BullpenServer

/// The real server, in-process, listening on a free loopback port, with a fresh SQLite file and
/// a small data pack the test writes itself; requests go over real HTTP.
final class TestServer: Sendable {
    let app: Vapor.Application
    let store: BullpenStore
    let baseURL: String
    let directory: URL

    struct Reply: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var body: Data
        var text: String { String(decoding: body, as: UTF8.self) }
        func json() throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any], "not a JSON object: \(text)")
        }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { try APIContract.makeDecoder().decode(T.self, from: body) }
        var errorCode: String? { (try? decode(ErrorEnvelope.self))?.error.code }
    }

    /// A registered user with tokens and the id of the "Main" portfolio.
    struct Player: Sendable {
        var id: String
        var username: String
        var password: String
        var accessToken: String
        var refreshToken: String
        var mainPortfolio: String
    }

    private init(app: Vapor.Application, store: BullpenStore, baseURL: String, directory: URL) {
        self.app = app
        self.store = store
        self.baseURL = baseURL
        self.directory = directory
    }

    /// Request logs go to the process-wide handler; keep them to warnings and worse in tests.
    static let quietProcessLogging: Void = LoggingSystem.bootstrap { label in
        var handler = StreamLogHandler.standardError(label: label)
        handler.logLevel = .warning
        return handler
    }

    static let quietLogger: Logger = {
        var logger = Logger(label: "bullpen.test")
        logger.logLevel = .critical
        return logger
    }()

    /// Starts a server on the tiny pack, on the pack at `packDirectory`, or (`marketData: false`) without any.
    static func start(marketData: Bool = true, packDirectory: URL? = nil, demo: Bool = false, time: any TimeSource = SystemTimeSource(),
                      demoTime: (any TimeSource)? = nil, source given: (any MarketDataSource)? = nil,
                      configure: (inout ServerConfiguration) -> Void = { _ in }) async throws -> TestServer {
        _ = quietProcessLogging
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bullpen-server-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var config = ServerConfiguration()
        config.dataDirectory = directory
        config.port = 0
        config.bcryptCost = 4   // production uses 12; tests would take minutes
        config.registrationsPerAddress = 100_000   // every test player comes from loopback
        config.ordersPerMinute = 1_000_000   // tests place orders as fast as they can
        // The background jobs run only where a test asks for them (most run them by hand).
        config.closingEquityJob = false
        config.leagueScheduleJob = false
        config.alertInterval = .zero
        config.orderInterval = .zero
        configure(&config)
        let store = try BullpenStore(backend: .sqlite(path: config.sqlitePath), time: time, logger: quietLogger)
        try await store.migrate()
        var source: (any MarketDataSource)? = given
        if source == nil {
            source = demo ? DemoExchange(time: demoTime ?? time) : marketData
                ? try await PackMarketData.load(directory: try packDirectory ?? TinyPack.write(in: directory)).source : nil
        }
        let app = try await BullpenApp.make(configuration: config, store: store, marketData: source, time: time,
                                            environment: .testing)
        app.logger = quietLogger
        let port = try await app.startServing(host: "127.0.0.1", port: 0)
        return TestServer(app: app, store: store, baseURL: "http://127.0.0.1:\(port)", directory: directory)
    }

    func stop() async {
        await app.stopServing()
        try? await app.asyncShutdown()
        await store.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Sends a request; `json` is encoded, `body` sent as is (as JSON unless `headers` say
    /// otherwise, or with no content type at all when `omitContentType`).
    func send(_ method: HTTPMethod, _ path: String, token: String? = nil, json: (any Encodable)? = nil,
              body: String? = nil, headers: [(String, String)] = [], omitContentType: Bool = false) async throws -> Reply {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(data: try APIContract.makeEncoder().encode(json)))
        } else if let body {
            if !omitContentType && !headers.contains(where: { $0.0.lowercased() == "content-type" }) {
                request.headers.add(name: "Content-Type", value: "application/json")
            }
            request.body = .bytes(ByteBuffer(string: body))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        let buffer = try await response.body.collect(upTo: 16 << 20)
        return Reply(status: Int(response.status.code), headers: response.headers, body: Data(buffer: buffer))
    }

    /// Registers a new player (random name unless given) and finds its Main portfolio.
    func register(_ username: String = "p" + UUID().uuidString.prefix(10).lowercased(),
                  password: String = "a long enough passphrase") async throws -> Player {
        let reply = try await send(.POST, "/api/v1/auth/register", json: Credentials(username: username, password: password))
        try #require(reply.status == 201, "register: \(reply.text)")
        let auth = try reply.decode(AuthResponse.self)
        let list = try await send(.GET, "/api/v1/portfolios", token: auth.tokens.accessToken).decode(PortfolioList.self)
        return Player(id: auth.user.id, username: username, password: password, accessToken: auth.tokens.accessToken,
                      refreshToken: try #require(auth.tokens.refreshToken), mainPortfolio: try #require(list.portfolios.first).id)
    }

    /// Places a market order.
    func order(_ player: Player, _ side: String, _ quantity: ExactNumber, _ symbol: String, portfolio: String? = nil,
               clientOrderId: String? = nil, idempotencyKey: String? = nil) async throws -> Reply {
        try await send(.POST, "/api/v1/portfolios/\(portfolio ?? player.mainPortfolio)/orders", token: player.accessToken,
                       json: PlaceOrderRequest(symbol: symbol, side: side, quantity: quantity, clientOrderId: clientOrderId),
                       headers: idempotencyKey.map { [("Idempotency-Key", $0)] } ?? [])
    }
}

/// Runs `body` against a fresh server and always stops it.
func withServer(marketData: Bool = true, packDirectory: URL? = nil, demo: Bool = false, time: any TimeSource = SystemTimeSource(),
                demoTime: (any TimeSource)? = nil, source: (any MarketDataSource)? = nil,
                configure: (inout ServerConfiguration) -> Void = { _ in },
                _ body: (TestServer) async throws -> Void) async throws {
    let server = try await TestServer.start(marketData: marketData, packDirectory: packDirectory, demo: demo, time: time, demoTime: demoTime,
                                            source: source, configure: configure)
    do {
        try await body(server)
    } catch {
        await server.stop()
        throw error
    }
    await server.stop()
}

/// A small data pack in the real pack's format, with made-up prices:
/// MSFT closes 395.50 then 400.00; ACME 20.00 then 19.50; NOPX is listed without history;
/// OLDCO's data ends a session early (10.00 on 2024-01-02), so it no longer trades;
/// the SPX benchmark has three days.
enum TinyPack {
    static func write(in parent: URL) throws -> URL {
        let pack = parent.appendingPathComponent("pack")
        let daily = pack.appendingPathComponent("daily")
        try FileManager.default.createDirectory(at: daily, withIntermediateDirectories: true)
        try """
        symbol,name,sector,industry,headquarters,founded,first_date,last_date,rows
        MSFT,Microsoft,Information Technology,Systems Software,"Redmond, Washington",1975,2024-01-02,2024-01-03,2
        ACME,Acme Corporation,Industrials,Industrial Machinery,"Springfield, Ohio",1920,2024-01-02,2024-01-03,2
        NOPX,No Price Inc,Financials,Diversified Banks,"Nowhere, Nevada",2001,,,0
        OLDCO,Old Company,Utilities,Electric Utilities,"Oldtown, Maine",1901,2023-12-29,2024-01-02,2

        """.write(to: pack.appendingPathComponent("universe.csv"), atomically: true, encoding: .utf8)
        try """
        date,open,high,low,close,volume
        2024-01-02,390,396,389,395.5,1000
        2024-01-03,396,401,395,400,1200

        """.write(to: daily.appendingPathComponent("MSFT.csv"), atomically: true, encoding: .utf8)
        try """
        date,open,high,low,close,volume
        2024-01-02,19.9,20.1,19.8,20,500
        2024-01-03,20,20,19.4,19.5,700

        """.write(to: daily.appendingPathComponent("ACME.csv"), atomically: true, encoding: .utf8)
        try """
        date,open,high,low,close,volume
        2023-12-29,9.5,9.9,9.5,9.8,300
        2024-01-02,9.8,10.1,9.7,10,400

        """.write(to: daily.appendingPathComponent("OLDCO.csv"), atomically: true, encoding: .utf8)
        let benchmarks = pack.appendingPathComponent("benchmarks")
        try FileManager.default.createDirectory(at: benchmarks, withIntermediateDirectories: true)
        try """
        date,close,volume
        2023-12-29,4700,100
        2024-01-02,4710.5,120
        2024-01-03,4690.25,130

        """.write(to: benchmarks.appendingPathComponent("SPX.csv"), atomically: true, encoding: .utf8)
        return pack
    }
}
