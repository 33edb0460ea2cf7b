import BullpenCore
import BullpenMarketData
import BullpenServer
import BullpenStore
import BullpenTestSupport
import Foundation
import Logging
import Testing
import Vapor

/// The real server in-process (the isowords way): a fresh SQLite file, the real data pack, a free
/// loopback port. The SDK talks to it over real HTTP and a real WebSocket.
final class ClientServer: Sendable {
    let app: Vapor.Application
    let store: BullpenStore
    let url: URL
    let directory: URL

    /// The pack is read once for every test of the process.
    static let pack = Task { try await PackMarketData.load(directory: try RealPack.require()).source }

    static let quiet: Logger = {
        var logger = Logger(label: "bullpen.client-test")
        logger.logLevel = .critical
        return logger
    }()

    private init(app: Vapor.Application, store: BullpenStore, url: URL, directory: URL) {
        self.app = app
        self.store = store
        self.url = url
        self.directory = directory
    }

    static func start(configure: (inout ServerConfiguration) -> Void = { _ in }) async throws -> ClientServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bullpen-client-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var config = ServerConfiguration()
        config.dataDirectory = directory
        config.bcryptCost = 4
        config.registrationsPerAddress = 100_000
        config.closingEquityJob = false
        config.leagueScheduleJob = false
        configure(&config)
        let store = try BullpenStore(backend: .sqlite(path: config.sqlitePath), time: SystemTimeSource(), logger: quiet)
        try await store.migrate()
        let app = try await BullpenApp.make(configuration: config, store: store, marketData: try await pack.value,
                                            time: SystemTimeSource(), environment: .testing)
        app.logger = quiet
        let port = try await app.startServing(host: "127.0.0.1", port: 0)
        return ClientServer(app: app, store: store, url: URL(string: "http://127.0.0.1:\(port)")!, directory: directory)
    }

    func stop() async {
        await app.stopServing()
        try? await app.asyncShutdown()
        await store.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }

    /// The books of a portfolio balance: cash is the starting cash plus the journal, positions are the fills.
    func expectBalanced(portfolio: String, owner: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let audit = try await store.auditSnapshot(of: try #require(PortfolioID(portfolio)), owner: try #require(UserID(owner)), prices: [:])
        #expect(Invariants.check(audit).isEmpty, "\(Invariants.check(audit))", sourceLocation: sourceLocation)
    }
}

/// Runs `body` against a fresh server and always stops it.
func withClientServer(configure: (inout ServerConfiguration) -> Void = { _ in },
                      _ body: (ClientServer) async throws -> Void) async throws {
    let server = try await ClientServer.start(configure: configure)
    do { try await body(server) } catch {
        await server.stop()
        throw error
    }
    await server.stop()
}

/// A name no other test uses.
func uniqueName(_ prefix: String) -> String { prefix + UUID().uuidString.prefix(8).lowercased() }
