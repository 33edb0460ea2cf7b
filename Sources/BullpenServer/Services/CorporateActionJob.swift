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
                // Applied already: this period's journal says so (by kind, symbol and ex-date).
                let applied = Set(journal.filter { $0.kind == .split || $0.kind == .dividend }
                    .map { "\($0.kind.rawValue) \($0.symbol?.rawValue ?? "") \($0.priceAsOf.map { SessionDate($0).description } ?? "")" })
                var due: [CorporateActionAt] = []
                for action in actions {
                    let kind = if case .split = action.kind { JournalEntry.Kind.split } else { JournalEntry.Kind.dividend }
                    guard !applied.contains("\(kind.rawValue) \(action.symbol) \(action.exDate)") else { continue }
                    // The shares held when the ex-date's session opened: what moved since (trades of
                    // that session or later, this period) takes no part.
                    let opened = TradingCalendar().sessionBounds(on: action.exDate)?.open ?? action.exDate.date
                    let since = journal.filter { entry in
                        entry.symbol == action.symbol && (entry.priceAsOf.map { SessionDate($0) >= action.exDate } ?? (entry.createdAt >= opened))
                    }.reduce(0) { $0 + $1.quantityDelta }
                    let entitled = state.book.quantity(of: action.symbol) - since
                    let ordered = state.working.contains { $0.symbol == action.symbol && $0.placedOn < action.exDate }
                    guard entitled != 0 || ordered else { continue }
                    // The ex-date's close, when the session is over (else the fraction of a split is paid at its basis).
                    let bars = try await source.dailyBars(action.symbol, from: action.exDate, through: action.exDate, asOf: .live)
                    due.append(CorporateActionAt(action: action, price: bars.first?.close, entitled: entitled))
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
