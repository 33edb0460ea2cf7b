import BullpenCore
import BullpenMarketData
import BullpenStore
import Foundation
import Logging

/// Applies the market data's splits and dividends to live portfolios on their ex-dates: each
/// holder's position and cash change (journaled as `split` and `dividend`), and working orders of
/// a split's symbol are adjusted. Runs every minute; does the work once per session (and, at the
/// start, for the last month's actions). Each action reaches a portfolio once: its journal says
/// whether it was applied. One instance at a time (an advisory lock on PostgreSQL).
actor CorporateActionJob {
    /// How far back the first run looks.
    static let lookBack = 31

    private let store: BullpenStore
    private let source: any MarketDataSource
    private let logger: Logger
    private var done: SessionDate?

    init(store: BullpenStore, source: any MarketDataSource, logger: Logger) {
        self.store = store
        self.source = source
        self.logger = logger
    }

    /// Applies what is due; answers how many actions reached portfolios.
    @discardableResult
    func runOnce() async throws -> Int {
        guard let session = await source.sessionDate(asOf: .live), session != done else { return 0 }
        let start = (done ?? session.adding(days: -Self.lookBack)).adding(days: 1)
        let actions = try await source.corporateActions(from: start, through: session, asOf: .live)
        var applied = 0
        for (symbol, own) in Dictionary(grouping: actions, by: \.symbol) {
            for (id, owner) in try await store.liveHolders(of: [symbol]) {
                applied += try await apply(own.sorted { $0.exDate < $1.exDate }, to: id, owner: owner)
            }
        }
        done = session
        return applied
    }

    /// The actions not yet applied to the portfolio, with each ex-date's close, through the ledger.
    private func apply(_ actions: [CorporateAction], to id: PortfolioID, owner: UserID) async throws -> Int {
        for _ in 1...PortfolioService.attempts {
            do {
                let state = try await store.state(of: id, owner: owner)
                let journal = try await store.currentPeriod(of: id, owner: owner).journal
                let applied = Set(journal.filter { $0.kind == .split || $0.kind == .dividend }
                    .map { "\($0.symbol?.rawValue ?? "") \($0.priceAsOf.map { SessionDate($0).description } ?? "")" })
                var due: [CorporateActionAt] = []
                for action in actions where !applied.contains("\(action.symbol) \(action.exDate)") {
                    let bars = try await source.dailyBars(action.symbol, from: action.exDate, through: action.exDate, asOf: .live)
                    // The ex-date's close, or the price now while that session trades.
                    var price = bars.first?.close
                    if price == nil { price = try await source.quote(action.symbol, asOf: .live)?.price }
                    due.append(CorporateActionAt(action: action, price: price))
                }
                guard !due.isEmpty else { return 0 }
                try await store.applyCorporateActions(due, version: state.portfolio.version, in: id, owner: owner)
                return due.count
            } catch StoreError.portfolioChanged {
                continue
            } catch StoreError.notFound {
                return 0
            }
        }
        return 0
    }

    /// A round for the background loop.
    func runLogged() async {
        do {
            let job = self
            if let applied = try await store.exclusively("corporate-actions", { try await job.runOnce() }), applied > 0 {
                logger.info("applied splits and dividends", metadata: ["actions": "\(applied)"])
            }
        } catch {
            logger.warning("splits and dividends not applied", metadata: ["error": "\(error)"])
        }
    }
}
