import BullpenAPI
import BullpenCore
import BullpenMarketData
import BullpenStore
import Foundation
import Vapor

/// The dependencies every route uses, built once per application: one environment struct,
/// injected, so tests can pin the clock and ids.
struct BullpenServices: Sendable {
    let store: BullpenStore
    let marketData: (any MarketDataSource)?
    let tokens: AccessTokens
    let hasher: PasswordHasher
    let throttle: LoginThrottle
    /// Registrations per client address.
    let registrations: RateLimiter
    /// Orders and exercises per player.
    let orders: RateLimiter
    let time: any TimeSource
    let configuration: ServerConfiguration
    /// Players' open streams, for notifications.
    let inbox: Inbox
    /// Browser pushes; nil where the VAPID key could not be made.
    let push: PushSender?
    /// Price alerts' checks; nil without market data.
    let alertMonitor: AlertMonitor?
    let orderMonitor: OrderMonitor?
    /// Work beside the answers, waited for at shutdown.
    let background: BackgroundTasks

    /// Achievements and notifications.
    var notifier: Notifier { Notifier(store: store, inbox: inbox, push: push, background: background, logger: Self.notifyLogger) }
    static let notifyLogger = Logger(label: "bullpen.notify")

    /// Portfolios, valuations and orders: the store and the market data together.
    var portfolios: PortfolioService { PortfolioService(store: store, marketData: marketData, time: time) }

    /// Where prices come from, as the API reports it.
    var marketDataStatus: MarketDataStatus {
        MarketDataStatus(source: marketData?.sourceName ?? "none", simulated: marketData?.isSimulated ?? false,
                         available: marketData != nil)
    }

    /// Leagues and leaderboards.
    var leagues: LeagueService { LeagueService(store: store, marketData: marketData, time: time) }

    /// Historical replay; needs market data.
    func replay() throws -> ReplayService {
        ReplayService(store: store, source: try requireMarketData(), time: time)
    }

    /// Counts one order (or exercise) of `user`'s, or throws 429 `rate_limited` with `Retry-After`.
    /// A request retried with its idempotency key counts once: the retry gets the order's answer.
    func takeOrder(by user: UserID, idempotencyKey: String? = nil) async throws {
        guard configuration.ordersPerMinute > 0 else { return }
        if let wait = try await orders.take(user.description, once: idempotencyKey) {
            throw APIError(.rateLimited, "At most \(configuration.ordersPerMinute) orders a minute. Try again in \(wait) seconds.",
                           headers: ["Retry-After": String(wait)])
        }
    }

    func requireMarketData() throws -> any MarketDataSource {
        guard let marketData else { throw APIError.marketDataUnavailable }
        return marketData
    }
}

struct MarketDataStatus: Sendable {
    var source: String
    var simulated: Bool
    var available: Bool
}

extension Application {
    private struct ServicesKey: StorageKey { typealias Value = BullpenServices }

    var bullpen: BullpenServices {
        get {
            guard let services = storage[ServicesKey.self] else { fatalError("configure(_:) sets the services first") }
            return services
        }
        set { storage[ServicesKey.self] = newValue }
    }
}

extension Request {
    private struct ServicesKey: StorageKey { typealias Value = BullpenServices }

    /// The application's services, kept with the request from its start (see
    /// ``RequestLogMiddleware``), so that a request still running when the application shuts
    /// down (its client gone) meets a closed store, not a crash.
    var bullpen: BullpenServices {
        if let services = storage[ServicesKey.self] { return services }
        let services = application.bullpen
        storage[ServicesKey.self] = services
        return services
    }
}
