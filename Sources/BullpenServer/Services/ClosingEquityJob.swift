import BullpenCore
import BullpenMarketData
import BullpenStore
import Foundation
import Logging
import Synchronization
import Vapor

/// Stores every live portfolio's equity at the close of each session, so that leaderboards and
/// reports read stored figures instead of replaying journals. Runs when the server starts
/// (catching up every session closed since a portfolio's last stored one) and again a few
/// minutes after each close. Replay portfolios store theirs as they advance.
struct ClosingEquityJob: Sendable {
    let store: BullpenStore
    let source: any MarketDataSource
    let logger: Logger
    /// Checks "beat the market over a month" on each portfolio's stored closes, when given.
    var notifier: Notifier? = nil

    /// Stores the closing equity of every session each live portfolio has not stored yet, up to
    /// the last session that closed. Returns how many snapshots it stored.
    @discardableResult
    func runOnce() async throws -> Int {
        guard let last = await source.replayRange()?.upperBound else { return 0 }
        let calendar = TradingCalendar()
        try await expireOptions(through: last)
        try await closeMargins(on: last)
        var stored = 0
        for portfolio in try await store.livePortfolios() {
            var last = last
            if let closes = portfolio.tradingCloses { last = min(last, calendar.lastSession(closedBy: closes)) }
            let start = TradingCalendar.sessionDate(at: portfolio.startedAt)
            let first = portfolio.lastSnapshot.map { max(start, $0.adding(days: 1)) } ?? start
            guard first <= last else { continue }
            do {
                let period = try await store.currentPeriod(of: portfolio.id, owner: portfolio.owner)
                let dates = calendar.tradingDays(from: start, through: last)
                guard !dates.isEmpty else { continue }
                let symbols = Set(period.journal.compactMap(\.symbol)).sorted()
                var closes: [Symbol: [SessionDate: Price]] = [:]
                for symbol in symbols {
                    let bars = try await source.dailyBars(symbol, from: start, through: last, asOf: .replay(last.date))
                    closes[symbol] = Dictionary(bars.map { ($0.date, $0.close) }, uniquingKeysWith: { _, later in later })
                }
                let points = EquityCurve.build(startingCash: period.startingCash, journal: period.journal, dates: dates,
                                               closes: closes, latest: [:], benchmark: [:], calendar: calendar, closing: true)
                let snapshots = points.filter { $0.date >= first }
                    .map { EquitySnapshot(date: $0.date, cash: $0.cash, marketValue: $0.equity - $0.cash) }
                try await store.saveClosingEquity(of: portfolio.id, period: portfolio.period, snapshots)
                stored += snapshots.count
                if !snapshots.isEmpty, let notifier {
                    await checkMonth(points.map { EquitySnapshot(date: $0.date, cash: $0.cash, marketValue: $0.equity - $0.cash) },
                                     journal: period.journal, owner: portfolio.owner, notifier: notifier)
                }
            } catch StoreError.notFound {
                continue   // deleted meanwhile
            }
        }
        return stored
    }

    /// Whether the portfolio beat the S&P 500 over its last month of closes (a window with a
    /// top-up in it is not judged: the deposit is not a gain).
    private func checkMonth(_ closes: [EquitySnapshot], journal: [JournalEntry], owner: UserID, notifier: Notifier) async {
        let window = Achievement.benchmarkWindow
        guard closes.count > window, let first = closes.suffix(window + 1).first, let last = closes.last,
              !journal.contains(where: { $0.kind == .grant && SessionDate($0.createdAt) >= first.date }) else { return }
        do {
            let bars = try await source.benchmarkBars("SPX", from: first.date, through: last.date, asOf: .replay(last.date.date)) ?? []
            let benchmark = Dictionary(bars.map { ($0.date, $0.close) }, uniquingKeysWith: { _, later in later })
            if let event = AchievementEvent.closes(closes, benchmark: benchmark, sessions: window) { await notifier.record(event, for: owner) }
        } catch {
            logger.notice("beat-the-market not checked", metadata: ["error": "\(error)"])
        }
    }

    /// The close of `session` for every live portfolio under the margin rule: the borrow fee, the
    /// maintenance check (a margin call, told to the player), the shorts bought back when a call
    /// outlasted its grace sessions. A session's close is applied once (its journal says so).
    func closeMargins(on session: SessionDate) async throws {
        let calendar = TradingCalendar()
        for (id, owner) in try await store.liveMarginPortfolios() {
            for _ in 1...PortfolioService.attempts {
                do {
                    let state = try await store.state(of: id, owner: owner)
                    guard let rule = state.portfolio.rules.margin else { break }
                    let journal = try await store.currentPeriod(of: id, owner: owner).journal
                    let marginKinds: Set<JournalEntry.Kind> = [.borrowFee, .marginCall, .marginMet]
                    if journal.contains(where: { marginKinds.contains($0.kind) && $0.priceAsOf.map(SessionDate.init) == session }) { break }
                    let since = Margin.callSince(journal)
                    let passed = since.map { calendar.tradingDays(from: $0.adding(days: 1), through: session).count } ?? 0
                    // The book as it stood at that close: what traded after it takes no part.
                    let closed = calendar.sessionBounds(on: session)?.close ?? session.date
                    var atClose = Book.replaying(journal.filter { $0.createdAt <= closed }, startingCash: state.book.startingCash)
                    atClose.margin = rule
                    var closes: [Symbol: Price] = [:]
                    for symbol in atClose.positions.keys where !symbol.isOption {
                        closes[symbol] = try await source.dailyBars(symbol, from: session, through: session, asOf: .replay(session.date)).last?.close
                    }
                    var actions = Margin.close(atClose, closes: closes, rule: rule, callSince: since, sessionsSince: passed)
                    // A buy-back covers only what is still short now.
                    actions = actions.map { action in
                        guard case .liquidate(let covers) = action else { return action }
                        return .liquidate(covers.compactMap { cover in
                            let short = -state.book.quantity(of: cover.symbol)
                            return short > 0 ? Margin.Cover(symbol: cover.symbol, quantity: min(short, cover.quantity), price: cover.price) : nil
                        })
                    }
                    guard !actions.isEmpty else { break }
                    try await store.closeMarginSession(actions, session: session, version: state.portfolio.version, in: id, owner: owner)
                    await tell(actions, owner: owner, portfolio: state.portfolio)
                    break
                } catch StoreError.portfolioChanged {
                    continue
                } catch StoreError.notFound {
                    break
                }
            }
        }
    }

    /// Tells the player of a margin call and of a buy-back.
    private func tell(_ actions: [Margin.CloseAction], owner: UserID, portfolio: PortfolioRecord) async {
        guard let notifier else { return }
        for action in actions {
            switch action {
            case .call(let status):
                await notifier.notify([notifier.make(.marginCall, for: owner, title: "Margin call on \(portfolio.name)",
                                                     body: status.words, link: "#/portfolio")])
            case .liquidate(let covers):
                await notifier.notify([notifier.make(.marginCall, for: owner, title: "Your shorts in \(portfolio.name) were bought back",
                                                     body: "The margin call was not met within the grace sessions: \(covers.map { "\($0.quantity) \($0.symbol) at \($0.price.dollars)" }.joined(separator: ", ")).",
                                                     link: "#/history")])
            default: break
            }
        }
    }

    /// Settles the option contracts of live portfolios that expired by the close of `last` (each
    /// at its underlying's close on its expiration day), before that day's closing equity is
    /// stored. Returns how many contracts' positions it settled.
    @discardableResult
    func expireOptions(through last: SessionDate) async throws -> Int {
        var settled = 0
        for holder in try await store.liveOptionHolders(expiringBy: last) {
            var spots: [Symbol: Price] = [:]
            for contract in holder.contracts {
                // The close of the expiration day (or the last one before): a replay clock's quote.
                if let close = try await source.quote(contract.underlying, asOf: .replay(contract.expiration.date))?.price {
                    spots[contract.symbol] = close
                }
            }
            do {
                settled += try await store.expireOptions(OptionExpiry(through: last, spots: spots), in: holder.portfolio,
                                                         owner: holder.owner).count
            } catch StoreError.notFound {
                continue   // deleted meanwhile
            }
        }
        return settled
    }

    /// Runs once, logging what it did, and says how long to wait: until a few minutes after the
    /// next session's close.
    func runLogged() async -> Duration {
        do {
            // With several instances on one PostgreSQL, one of them runs it (an advisory lock).
            let job = self
            if let stored = try await store.exclusively("closing-equity", { try await job.runOnce() }) {
                if stored > 0 { logger.info("stored closing equity", metadata: ["snapshots": "\(stored)"]) }
            } else {
                logger.debug("closing equity: another instance is storing it")
            }
        } catch {
            logger.warning("closing equity job failed", metadata: ["error": "\(error)"])
        }
        let next = TradingCalendar().nextClose(after: Date()).addingTimeInterval(5 * 60)
        return .seconds(max(60, next.timeIntervalSinceNow))
    }
}

/// Runs `work` when the application has booted and again after each wait it returns, until the
/// application shuts down (the closing-equity job, scheduled league clocks).
final class BackgroundLoop: LifecycleHandler, Sendable {
    let work: @Sendable () async -> Duration
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(_ work: @escaping @Sendable () async -> Duration) {
        self.work = work
    }

    func didBootAsync(_ application: Application) async throws {
        let work = work
        task.withLock {
            $0 = Task {
                while !Task.isCancelled {
                    let wait = await work()
                    try? await Task.sleep(for: wait)
                }
            }
        }
    }

    func shutdownAsync(_ application: Application) async {
        let running = task.withLock { task -> Task<Void, Never>? in defer { task = nil }; return task }
        guard let running else { return }
        running.cancel()
        await running.value
    }
}
