import BullpenCore
import BullpenMarketData
import BullpenStore
import Foundation
import Logging

/// Checks every player's price alerts, in one place: each round asks the market data once for
/// the quotes of every symbol with an armed alert, finds the alerts they fire through the
/// ``AlertBook`` index, fires them in the store (each once, even with several instances: the
/// store fires only alerts still armed) and sends the notifications on.
///
/// The armed alerts are read from the database when they changed here (a route says so) or a
/// round found some fired, and at least every ``reloadInterval`` (changes made by other instances).
actor AlertMonitor {
    static let reloadInterval: Duration = .seconds(30)

    private let store: BullpenStore
    private let source: any MarketDataSource
    private let notifier: Notifier
    private let logger: Logger
    private var book: AlertBook?
    private var loadedAt: ContinuousClock.Instant?

    init(store: BullpenStore, source: any MarketDataSource, notifier: Notifier, logger: Logger) {
        self.store = store
        self.source = source
        self.notifier = notifier
        self.logger = logger
    }

    /// The alerts changed: read them again before the next round.
    func invalidate() { book = nil }

    /// One round. Answers how many alerts fired.
    @discardableResult
    func runOnce() async throws -> Int {
        if book == nil || loadedAt.map({ ContinuousClock.now - $0 > Self.reloadInterval }) ?? true {
            book = AlertBook(try await store.armedAlerts())
            loadedAt = .now
        }
        guard let book, book.count > 0 else { return 0 }
        let quotes = try await source.quotes(book.symbols, asOf: .live)
        let fired = book.fired(by: quotes)
        guard !fired.isEmpty else { return 0 }
        let notifications = try await store.fire(fired.map { ($0.id, $0.quote.price) })
        self.book = nil
        await notifier.deliver(notifications)
        return notifications.count
    }

    /// A round for the background loop: errors are logged, and the next round comes anyway.
    func runLogged() async {
        do { try await runOnce() } catch { logger.warning("price alerts not checked", metadata: ["error": "\(error)"]) }
    }
}
