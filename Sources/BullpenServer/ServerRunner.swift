import BullpenCore
import BullpenMarketData
import BullpenStore
import Foundation
import Vapor

/// Runs the server as `bullpen serve` does: opens and migrates the database, loads market data,
/// listens, prints the URL, and on SIGINT/SIGTERM drains (answers every request already received,
/// see ``Drain``), stops accepting, and closes the database.
public enum ServerRunner {
    /// Opens the store the configuration names: PostgreSQL with `DATABASE_URL`, else SQLite in the data directory.
    public static func openStore(_ config: ServerConfiguration, logger: Logger) throws -> BullpenStore {
        if let url = config.databaseURL {
            return try BullpenStore(backend: .postgres(url: url), logger: logger)
        }
        try FileManager.default.createDirectory(at: config.dataDirectory, withIntermediateDirectories: true)
        return try BullpenStore(backend: .sqlite(path: config.sqlitePath), logger: logger)
    }

    /// Sets up logging once per process, at `LOG_LEVEL` (default info): lines of text, or with
    /// `LOG_FORMAT=json` one JSON object a line (see ``JSONLogHandler``).
    public static func bootstrapLogging(_ config: ServerConfiguration) {
        if config.logFormat == .json {
            let level = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
            LoggingSystem.bootstrap { label in JSONLogHandler(label: label, level: level) }
            return
        }
        var environment = Environment(name: config.mode.rawValue, arguments: ["bullpen"])
        try? LoggingSystem.bootstrap(from: &environment)
    }

    public static func serve(_ config: ServerConfiguration) async throws {
        let logger = Logger(label: "bullpen")
        let store = try openStore(config, logger: Logger(label: "bullpen.store"))
        do {
            try await serve(config, store: store, logger: logger)
        } catch {
            await store.shutdown()
            throw error
        }
        await store.shutdown()
    }

    private static func serve(_ config: ServerConfiguration, store: BullpenStore, logger: Logger) async throws {
        if config.databaseURL == nil || config.migrateOnStart {
            try await store.migrate()
        } else {
            let pending = try await store.pendingMigrations()
            guard pending.isEmpty else {
                throw ConfigurationError(problems: ["the PostgreSQL schema is behind (\(pending.joined(separator: ", "))): run `bullpen migrate` first, or set BULLPEN_MIGRATE_ON_START=1"])
            }
        }
        logger.notice("database: \(store.backend)")

        var marketData: (any MarketDataSource)?
        if config.quotesProvider != nil && config.marketDataDirectory == nil {
            throw ConfigurationError(problems: ["live quotes from \(config.quotesProvider!) need a data pack for the listing and history: set BULLPEN_MARKET_DATA (import Stooq's bulk download with `bullpen data import stooq`)"])
        }
        if let directory = config.marketDataDirectory {
            let started = ContinuousClock.now
            let loaded = try await PackMarketData.load(directory: directory)
            for problem in loaded.problems.prefix(20) { logger.warning("market data: skipped \(problem)") }
            logger.notice("market data: real daily history from \(directory.path): \(loaded.source.history.symbols.count) symbols, \(loaded.source.history.barCount) bars in \(ContinuousClock.now - started)")
            marketData = loaded.source
            if let name = config.quotesProvider {
                let provider: any QuoteProvider = name == "finnhub"
                    ? FinnhubProvider(key: config.finnhubKey ?? "", baseURL: config.providerURL ?? "https://finnhub.io")
                    : StooqProvider(baseURL: config.providerURL ?? "https://stooq.com")
                marketData = await LiveMarketData(base: loaded.source, cache: ProviderCache(provider: provider))
                logger.notice("market data: live quotes from \(name)\(provider.delayed ? " (delayed)" : ""), cached and rate-limited to \(provider.requestsPerMinute) requests a minute")
            }
        } else {
            let started = ContinuousClock.now
            let demo = DemoExchange()
            let companies = try await demo.listing().count
            logger.notice("market data: DEMO MARKET, SIMULATED PRICES: \(companies) invented companies, history generated in \(ContinuousClock.now - started) (use --market-data DIR for real prices)")
            marketData = demo
        }

        let traces = config.traces ? try Traces(logger: Logger(label: "bullpen.traces")) : nil
        if traces != nil { logger.notice("traces: OpenTelemetry over OTLP/HTTP") }
        let environment = Environment(name: config.mode.rawValue, arguments: ["bullpen"])
        let app: Application
        do {
            app = try await BullpenApp.make(configuration: config, store: store, marketData: marketData, environment: environment)
        } catch {
            await traces?.shutdown()
            throw error
        }
        do {
            let port = try await app.startServing(host: config.host, port: config.port)
            FileHandle.standardOutput.write(Data("Bullpen listening on http://\(config.host):\(port)\n".utf8))
            await waitForTerminationSignal()
            logger.notice("shutting down: answering every request that arrives until none has for \(Drain.quiet) (at most \(config.shutdownGrace)), then closing the connections")
            let drained = await app.drainAndStop(delay: config.shutdownDelay, grace: config.shutdownGrace)
            logger.notice("shut down: \(drained.answered) requests answered while draining\(drained.unfinished > 0 ? ", \(drained.unfinished) still unfinished at the grace's end" : "")")
        } catch {
            try? await app.asyncShutdown()
            await traces?.shutdown()
            throw error
        }
        try await app.asyncShutdown()
        await traces?.shutdown()   // the spans still buffered go out before the process ends
    }

    /// Suspends until SIGINT or SIGTERM arrives.
    static func waitForTerminationSignal() async {
        let (signals, continuation) = AsyncStream<Int32>.makeStream()
        let queue = DispatchQueue(label: "bullpen.signals")
        let sources = [SIGINT, SIGTERM].map { code in
            signal(code, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: code, queue: queue)
            source.setEventHandler { continuation.yield(code) }
            source.resume()
            return source
        }
        for await _ in signals { break }
        sources.forEach { $0.cancel() }
    }
}
