import BullpenCore
import BullpenMarketData
import BullpenStore
import Foundation
import Logging

/// Works the live clock's working orders, in one place for all of them: each round reads the
/// orders still working, asks the market data once for the quotes of their symbols, finds through
/// the ``TriggerIndex`` the orders those prices reach, and hands the fills, the expiries and the
/// moved trailing marks to the ledger together (each answers for itself: an order cancelled
/// meanwhile is simply no longer working there, so a cancel racing a fill has one outcome).
/// Orders fill only while the market is open (a coin's at any hour), and only at fresh prices of the session (a trade
/// or a tick of the last few minutes: never a cached close when a provider fails); they expire
/// whenever their time is out, even when the quotes cannot be had. Each filled order's player is
/// told (`order_filled`). Trailing stops' best prices are followed here at every round and
/// written when they moved by a tenth of a percent or more (or the stop-limit triggered), so that
/// a rising market does not rewrite the portfolio every round.
actor OrderMonitor {
    /// The oldest quote that may fill an order.
    static let freshness: TimeInterval = 15 * 60
    /// The move of a trailing mark, in hundredths of a percent, that is written.
    static let markStep: Int64 = 10
    private let store: BullpenStore
    private let source: any MarketDataSource
    private let notifier: Notifier
    private let time: any TimeSource
    private let logger: Logger
    /// Trailing marks followed here: the best seen, the last written, and the order's quantity
    /// then (a split changes it, and its prices: a mark from before a split is forgotten).
    private var marks: [OrderID: (best: Price, written: Price?, quantity: Quantity)] = [:]
    /// Which symbols are coins (their orders are worked around the clock).
    private var coinSymbols: [Symbol: Bool] = [:]

    init(store: BullpenStore, source: any MarketDataSource, notifier: Notifier, time: any TimeSource, logger: Logger) {
        self.store = store
        self.source = source
        self.notifier = notifier
        self.time = time
        self.logger = logger
    }

    struct Round: Sendable {
        var working = 0
        var filled = 0
        var expired = 0
        var rejected = 0
    }

    /// One round.
    @discardableResult
    func runOnce() async throws -> Round {
        var round = Round()
        let open = try await store.openLiveOrders()
        round.working = open.count
        guard !open.isEmpty else { return round }
        let now = time.now()
        let owners = Dictionary(open.map { ($0.order.id, ($0.portfolio, $0.owner)) }, uniquingKeysWith: { first, _ in first })
        var changes: [WorkingOrderChange] = []
        // Expired ones, per portfolio.
        var expiring: [PortfolioID: (owner: UserID, ids: [OrderID])] = [:]
        for item in open where item.order.expiresAt.map({ $0 <= now }) ?? false {
            expiring[item.portfolio, default: (item.owner, [])].ids.append(item.order.id)
        }
        for (portfolio, entry) in expiring { changes.append(.init(portfolio: portfolio, owner: entry.owner, kind: .expire(entry.ids))) }
        let expired = Set(expiring.values.flatMap(\.ids))

        let marketOpen = await source.isMarketOpen(at: now)
        var quotes: [Symbol: Quote] = [:]
        var working = open.map(\.order).filter { !expired.contains($0.id) }
        // Marks followed here are better than the ones written: evaluate with them.
        marks = marks.filter { id, held in working.contains { $0.id == id && $0.quantity == held.quantity } }
        for index in working.indices {
            guard let held = marks[working[index].id], let mark = working[index].waterMark else { continue }
            working[index].waterMark = working[index].side == .sell ? max(mark, held.best) : min(mark, held.best)
        }
        // Coins trade around the clock: their orders are worked whether the exchange is open or not.
        if !marketOpen {
            var coins: Set<Symbol> = []
            for symbol in Set(working.map(\.symbol)) where await isCoin(symbol) { coins.insert(symbol) }
            working = working.filter { coins.contains($0.symbol) }
        }
        if !working.isEmpty {
            let index = TriggerIndex(working)
            do {
                quotes = try await source.quotes(index.symbols, asOf: .live)
            } catch {
                logger.warning("working orders: no quotes this round", metadata: ["error": "\(error)"])
            }
            var prices: [Symbol: (price: Price, at: Date)] = [:]
            for (symbol, quote) in quotes where quote.trading && Self.isFresh(quote, now: now) {
                prices[symbol] = (quote.price, quote.asOf ?? now)
            }
            let (fills, changed) = index.evaluate(prices)
            for (order, fill) in fills {
                guard let (portfolio, owner) = owners[order.id], let quote = quotes[order.symbol] else { continue }
                let pricing = FillPricing.of(quote, clock: .live, simulated: source.isSimulated, marketOpen: true, now: now)
                changes.append(.init(portfolio: portfolio, owner: owner, kind: .fill(fill, pricing)))
            }
            for order in changed {
                guard let (portfolio, owner) = owners[order.id] else { continue }
                let before = working.first { $0.id == order.id }
                if let mark = order.waterMark {
                    let written = marks[order.id]?.written ?? open.first { $0.order.id == order.id }?.order.waterMark
                    marks[order.id] = (mark, written, order.quantity)
                    let moved = written.map { abs(mark.ticks - $0.ticks) * 10_000 >= $0.ticks * Self.markStep } ?? true
                    guard moved || before?.triggered != order.triggered else { continue }
                    marks[order.id] = (mark, mark, order.quantity)
                }
                changes.append(.init(portfolio: portfolio, owner: owner, kind: .track(order)))
            }
        }
        guard !changes.isEmpty else { return round }
        var notifications: [NotificationRecord] = []
        for (change, result) in zip(changes, await store.applyWorkingOrderChanges(changes)) {
            switch result {
            case .success(let order?):
                switch order.status {
                case .filled, .partiallyFilled:
                    round.filled += 1
                    notifications.append(notice(order, for: change.owner))
                case .rejected:
                    round.rejected += 1
                    notifications.append(notice(order, for: change.owner))
                case .expired:
                    round.expired += 1
                default: break
                }
            case .success(nil):
                break
            case .failure(StoreError.orderNotOpen):
                break   // cancelled or filled meanwhile: nothing to do
            case .failure(let error):
                logger.warning("working order not changed", metadata: ["portfolio": "\(change.portfolio)", "error": "\(error)"])
            }
        }
        await notifier.notify(notifications)
        return round
    }

    /// Whether `symbol` is a coin, asked of the market data once per symbol.
    private func isCoin(_ symbol: Symbol) async -> Bool {
        if let known = coinSymbols[symbol] { return known }
        guard let asset = try? await source.asset(symbol) else { return false }
        coinSymbols[symbol] = asset.assetClass == .crypto
        return asset.assetClass == .crypto
    }

    /// A price of the session in progress, of the last few minutes (a daily close is stamped at
    /// midnight: never fresh).
    static func isFresh(_ quote: Quote, now: Date) -> Bool {
        guard let asOf = quote.asOf, asOf.timeIntervalSince1970.truncatingRemainder(dividingBy: 86_400) != 0 else { return false }
        return asOf <= now.addingTimeInterval(60) && now.timeIntervalSince(asOf) <= freshness
    }

    private func notice(_ order: OrderRecord, for owner: UserID) -> NotificationRecord {
        let verb = order.side == .buy ? "Bought" : "Sold"
        let title: String
        let body: String
        switch order.status {
        case .rejected:
            title = "Your \(order.type.words) order for \(order.symbol) could not fill"
            body = order.reason ?? ""
        default:
            let price = order.fillPrice?.dollars ?? ""
            title = "\(verb) \(order.filledQuantity) \(order.symbol) at \(price)"
            body = (order.status == .partiallyFilled ? "Part of your \(order.type.words) order filled. " : "Your \(order.type.words) order filled. ")
                + (order.fillNote ?? "")
        }
        return notifier.make(.orderFilled, for: owner, title: title, body: body,
                                   link: "#/portfolio/\(order.portfolioID)/orders/\(order.id)")
    }

    /// A round for the background loop: errors are logged, and the next round comes anyway.
    func runLogged() async {
        do { try await runOnce() } catch { logger.warning("working orders not evaluated", metadata: ["error": "\(error)"]) }
    }
}
