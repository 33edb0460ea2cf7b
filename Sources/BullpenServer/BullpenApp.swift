import BullpenAPI
import BullpenCore
import BullpenMarketData
import BullpenStore
import Foundation
import NIOPosix
import Vapor

/// Builds the Vapor application: middleware, routes and services.
public enum BullpenApp {
    /// A configured application, not yet serving. The caller owns `store` and shuts it down after
    /// the application.
    public static func make(configuration: ServerConfiguration, store: BullpenStore, marketData: (any MarketDataSource)?,
                            time: any TimeSource = SystemTimeSource(),
                            environment: Environment = .development) async throws -> Application {
        let app = try await Application.make(environment)
        do {
            try configure(app, configuration: configuration, store: store, marketData: marketData, time: time)
        } catch {
            try await app.asyncShutdown()
            throw error
        }
        return app
    }

    static func configure(_ app: Application, configuration: ServerConfiguration, store: BullpenStore,
                          marketData: (any MarketDataSource)?, time: any TimeSource) throws {
        // Option contracts are priced by the model from their underlying's prices, whatever the source.
        let marketData = marketData.map(OptionMarketData.wrapping)
        _ = BullpenMetrics.bootstrapped
        BullpenMetrics.marketData(source: marketData?.sourceName ?? "none", simulated: marketData?.isSimulated ?? false,
                                  available: marketData != nil)
        let secret = try SigningSecret.load(configuration)
        // Throttles count in memory when one process owns the database (SQLite), in the database
        // when several instances may share it (PostgreSQL).
        let throttles: any ThrottleBook = store.backend.isSQLite ? MemoryThrottleBook() : DatabaseThrottleBook(store: store)
        let inbox = Inbox()
        let push = PushSender.make(store: store, configuration: configuration, logger: app.logger)
        let background = BackgroundTasks()
        let notifier = Notifier(store: store, inbox: inbox, push: push, background: background, logger: BullpenServices.notifyLogger)
        let alertMonitor = marketData.map { AlertMonitor(store: store, source: $0, notifier: notifier, logger: app.logger) }
        let orderMonitor = marketData.map { OrderMonitor(store: store, source: $0, notifier: notifier, time: time, logger: app.logger) }
        app.bullpen = BullpenServices(
            store: store, marketData: marketData, tokens: AccessTokens(secret: secret, time: time, lifetime: configuration.accessTokenLifetime),
            hasher: PasswordHasher(cost: configuration.bcryptCost),
            throttle: LoginThrottle(policy: .init(perPair: configuration.loginFailuresPerPair,
                                                  perAccount: configuration.loginFailuresPerAccount,
                                                  perAddress: configuration.loginFailuresPerAddress,
                                                  window: configuration.loginWindow), time: time, book: throttles),
            registrations: RateLimiter(name: "register", limit: configuration.registrationsPerAddress,
                                       window: configuration.registrationWindow, time: time, book: throttles),
            // Orders are counted per instance, in memory: a shared count would put a database
            // transaction, serialized per player, before every order (on PostgreSQL the orders bench
            // fell from 3,201 to 896 orders/s with 64 clients, and to 223 on one shared portfolio).
            // With N instances a player may send up to N times the limit; logins and registrations,
            // which guard accounts, are counted in the database.
            orders: RateLimiter(name: "orders", limit: configuration.ordersPerMinute, window: 60, time: time, book: MemoryThrottleBook()),
            time: time, configuration: configuration, inbox: inbox, push: push, alertMonitor: alertMonitor,
            orderMonitor: orderMonitor, background: background)
        // (Shut down in the reverse order: the background work first, then the push client it uses.)
        if let push { app.lifecycle.use(PushClientLifecycle(client: push.client)) }
        app.lifecycle.use(BackgroundTasksLifecycle(tasks: background))

        app.http.server.configuration.hostname = configuration.host
        app.http.server.configuration.port = configuration.port
        // A connection with nothing read or written for this long is closed (keep-alive
        // connections left open, clients gone silent); streams ping well within it.
        // Behind the connection guard, the guard closes idle clients (never one whose answer is
        // still being made); Vapor's own timeout, which closes a connection even then, only backs it
        // up, for answers slower than four idle timeouts (and a minute at least).
        let idle = configuration.idleTimeout.components.seconds
        app.http.server.configuration.idleTimeout = .seconds(configuration.connectionGuard ? max(idle * 4, 60) : idle)
        app.routes.defaultMaxBodySize = "1mb"
        app.routes.caseInsensitive = false

        app.middleware = Middlewares()
        app.middleware.use(DrainMiddleware(drain: app.drain))
        app.middleware.use(RequestLogMiddleware())
        // A server span per request (route, method, status) when traces are on.
        if configuration.traces { app.middleware.use(TracingMiddleware()) }
        app.middleware.use(SecurityHeadersMiddleware(simulatedMarket: marketData?.isSimulated ?? false))
        app.middleware.use(CORSMiddleware(allowed: configuration.allowedOrigins))
        app.middleware.use(ErrorEnvelopeMiddleware())
        app.middleware.use(WebAppMiddleware())
        app.middleware.use(MethodNotAllowedMiddleware())
        // Compress the web app's files; small API answers are faster sent as they are.
        app.http.server.configuration.responseCompression = .disabled(
            allowedTypes: [.html, .css, HTTPMediaType(type: "text", subType: "javascript")], allowRequestOverrides: false)

        // Query parameters the contract does not list for a route are refused, on every route.
        let checked = app.grouped(QueryParameterMiddleware(rules: try QueryParameterRules(
            contracts: [APIContract.openAPIDocument(), APIContract.alpacaDocument()])))
        try checked.register(collection: SystemRoutes())
        // Alpaca's API for bots, on API keys: trading at /alpaca/v2, market data at /alpaca/data/v2.
        try checked.register(collection: AlpacaTradingRoutes())
        try checked.register(collection: AlpacaDataRoutes())
        try app.register(collection: AlpacaUnsupportedRoutes())
        let v1 = checked.grouped("api", "v1")
        for routes: any RouteCollection in [AuthRoutes(), PortfolioRoutes(), OrderRoutes(), ActivityRoutes(), MarketRoutes(),
                                            AssetRoutes(), StreamRoutes(), WatchlistRoutes(), ReplayRoutes(), LeagueRoutes(),
                                            OptionRoutes(), SocialRoutes(), NotificationRoutes(), APIKeyRoutes(), LearnRoutes()] {
            try v1.register(collection: routes)
        }
        // The lessons are read and checked at start: a broken lesson file stops the server, saying which.
        if case .failure(let error) = LearnCatalog.shared { throw error }
        if let marketData {
            let hub = QuoteHub(source: marketData, interval: configuration.streamInterval, logger: app.logger)
            app.quoteHub = hub
            app.lifecycle.use(QuoteHubLifecycle(hub: hub))
            if configuration.closingEquityJob {
                let job = ClosingEquityJob(store: store, source: marketData, logger: app.logger, notifier: notifier)
                app.lifecycle.use(BackgroundLoop { await job.runLogged() })
            }
            if let alertMonitor, configuration.alertInterval > .zero {
                let interval = configuration.alertInterval
                app.lifecycle.use(BackgroundLoop {
                    await alertMonitor.runLogged()
                    return interval
                })
            }
            if configuration.closingEquityJob {
                let actions = CorporateActionJob(store: store, source: marketData, logger: app.logger)
                app.lifecycle.use(BackgroundLoop {
                    await actions.runLogged()
                    return .seconds(60)
                })
            }
            if let orderMonitor, configuration.orderInterval > .zero {
                let interval = configuration.orderInterval
                app.lifecycle.use(BackgroundLoop {
                    await orderMonitor.runLogged()
                    return interval
                })
            }
            if configuration.leagueScheduleJob {
                let leagues = app.bullpen.leagues, logger = app.logger
                app.lifecycle.use(BackgroundLoop {
                    // One instance at a time moves the clocks (an advisory lock on PostgreSQL).
                    do { _ = try await store.exclusively("league-schedule") { try await leagues.runSchedule() } } catch { logger.warning("league schedule failed", metadata: ["error": "\(error)"]) }
                    do { try await leagues.announceEndings(notifier: notifier) } catch { logger.warning("league endings not announced", metadata: ["error": "\(error)"]) }
                    return .seconds(30)
                })
            }
        }
    }
}

/// The HS256 secret for access tokens: `BULLPEN_JWT_SECRET`, or in development a random one
/// generated once and kept in the data directory (never in the repository).
enum SigningSecret {
    static func load(_ configuration: ServerConfiguration) throws -> Data {
        if let secret = configuration.jwtSecret { return Data(secret.utf8) }
        guard configuration.mode == .development else {
            throw ConfigurationError(problems: ["BULLPEN_JWT_SECRET is required in production"])
        }
        let url = configuration.dataDirectory.appendingPathComponent("jwt-secret")
        if let existing = try? Data(contentsOf: url), existing.count >= 32 { return existing }
        try FileManager.default.createDirectory(at: configuration.dataDirectory, withIntermediateDirectories: true)
        var generator = SystemRandomNumberGenerator()
        let secret = Data((0..<48).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
        guard FileManager.default.createFile(atPath: url.path, contents: secret, attributes: [.posixPermissions: 0o600]) else {
            throw ConfigurationError(problems: ["cannot write the development signing secret to \(url.path)"])
        }
        return secret
    }
}

/// Stops the stream's poller when the application shuts down.
struct QuoteHubLifecycle: LifecycleHandler {
    let hub: QuoteHub
    func shutdownAsync(_ application: Application) async { await hub.stop() }
}
