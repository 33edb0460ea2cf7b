import BullpenCore
import BullpenMarketData
import BullpenStore
import BullpenTestSupport
import Foundation
import Synchronization
import Testing
@testable import BullpenServer

/// A test's wrapper of a market data source: everything goes to `base` except what it changes.
protocol ForwardingMarketData: MarketDataSource {
    var base: any MarketDataSource { get }
}

extension ForwardingMarketData {
    var sourceName: String { base.sourceName }
    var isSimulated: Bool { base.isSimulated }
    func status() async -> SourceStatus { await base.status() }
    func listing() async throws -> [AssetInfo] { try await base.listing() }
    func asset(_ symbol: Symbol) async throws -> AssetInfo? { try await base.asset(symbol) }
    func isMarketOpen(at instant: Date) async -> Bool { await base.isMarketOpen(at: instant) }
    func dailyBars(_ symbol: Symbol, from start: SessionDate?, through end: SessionDate?, asOf clock: PortfolioClock) async throws -> [DailyBar] {
        try await base.dailyBars(symbol, from: start, through: end, asOf: clock)
    }
    func benchmarkBars(_ name: String, from start: SessionDate?, through end: SessionDate?, asOf clock: PortfolioClock) async throws -> [DailyBar]? {
        try await base.benchmarkBars(name, from: start, through: end, asOf: clock)
    }
    func sessionDate(asOf clock: PortfolioClock) async -> SessionDate? { await base.sessionDate(asOf: clock) }
    func replayRange() async -> ClosedRange<SessionDate>? { await base.replayRange() }
}

/// A market data source whose quotes wait at a gate while it is closed: a slow provider.
final class GatedMarketData: ForwardingMarketData {
    let base: any MarketDataSource
    private let state = Mutex<(closed: Bool, waiting: [CheckedContinuation<Void, Never>], arrivals: Int)>((false, [], 0))

    init(base: any MarketDataSource) { self.base = base }

    func close() { state.withLock { $0.closed = true } }
    func open() {
        let waiting = state.withLock { state in
            state.closed = false
            defer { state.waiting = [] }
            return state.waiting
        }
        waiting.forEach { $0.resume() }
    }
    /// How many quote requests reached the gate while it was closed.
    var arrivals: Int { state.withLock { $0.arrivals } }

    private func pass() async {
        await withCheckedContinuation { continuation in
            let wait = state.withLock { state in
                guard state.closed else { return false }
                state.arrivals += 1
                state.waiting.append(continuation)
                return true
            }
            if !wait { continuation.resume() }
        }
    }

    func quote(_ symbol: Symbol, asOf clock: PortfolioClock) async throws -> Quote? {
        await pass()
        return try await base.quote(symbol, asOf: clock)
    }
    func quotes(_ symbols: [Symbol], asOf clock: PortfolioClock) async throws -> [Symbol: Quote] {
        await pass()
        return try await base.quotes(symbols, asOf: clock)
    }
}

@Suite("Portfolio service")
struct PortfolioServiceTests {
    /// A reset prices the book before it takes the writer lock: while the prices are slow to come,
    /// other orders (SQLite: any portfolio, one writer) go through; and an order that lands on the
    /// same portfolio meanwhile is caught by the version check and valued in the closed period.
    @Test func aSlowPriceDuringAResetStallsNoWrite() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bullpen-reset-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try BullpenStore(backend: .sqlite(path: directory.appendingPathComponent("db.sqlite").path))
        try await store.migrate()
        let pack = try await PackMarketData.load(directory: try TinyPack.write(in: directory)).source
        let gated = GatedMarketData(base: pack)
        let service = PortfolioService(store: store, marketData: gated, time: SystemTimeSource())
        let user = try await store.createUser(username: "resetter", usernameKey: "resetter", passwordHash: "x")
        let main = try await store.portfolios(owner: user.id)[0]
        let other = try await store.createPortfolio(owner: user.id, name: "Other", startingCash: Money(dollars: 1_000))
        let buy = { (portfolio: PortfolioID, quantity: Quantity) in
            try await service.placeOrder(OrderRequest(symbol: Symbol("MSFT")!, side: .buy, quantity: quantity), in: portfolio,
                                         owner: user.id, idempotency: nil)
        }
        _ = try await buy(main.id, 10)

        gated.close()
        let reset = Task { try await service.reset(main.id, owner: user.id) }
        while gated.arrivals == 0 { try await Task.sleep(for: .milliseconds(5)) }
        // The reset waits for prices. A write elsewhere is not held up by it...
        let elsewhere = try await store.placeOrder(
            PricedOrder(request: OrderRequest(symbol: Symbol("ACME")!, side: .buy, quantity: 1), price: Price(parsing: "19.5")!,
                        pricing: FillPricing(source: .close, asOf: Date(), marketOpen: false), trading: true),
            in: other.id, owner: user.id, idempotency: nil)
        guard case .executed = elsewhere else { Issue.record("the other order must execute"); return }
        // ...and one on the same portfolio lands before the reset is written.
        _ = try await store.placeOrder(
            PricedOrder(request: OrderRequest(symbol: Symbol("MSFT")!, side: .buy, quantity: 5), price: Price(parsing: "400")!,
                        pricing: FillPricing(source: .close, asOf: Date(), marketOpen: false), trading: true),
            in: main.id, owner: user.id, idempotency: nil)
        gated.open()
        try await reset.value

        let closed = try await store.closedPeriods(of: main.id, owner: user.id)
        #expect(closed.count == 1)
        // The closed period was valued after the second order: 15 shares at 400.00 plus the cash left.
        #expect(closed.first?.endingCash == Money(dollars: 100_000 - 4_000 - 2_000))
        #expect(closed.first?.endingEquity == Money(dollars: 100_000))
        let state = try await store.state(of: main.id, owner: user.id)
        #expect(state.portfolio.period == 2 && state.book.positions.isEmpty && state.book.cash == Money(dollars: 100_000))
        for portfolio in [main.id, other.id] {
            let audit = try await store.auditSnapshot(of: portfolio, owner: user.id, prices: [:])
            #expect(Invariants.check(audit).isEmpty)
        }
        await store.shutdown()
    }
}
