import Foundation

/// The accounting invariants every portfolio period must satisfy. Tests call ``check(_:)`` after
/// every scenario; an operator can run it against a live database.
public enum Invariants {
    /// Everything needed to audit one portfolio period.
    public struct Snapshot: Sendable {
        public var startingCash: Money
        public var cash: Money
        public var positions: [Position]
        public var journal: [JournalEntry]
        public var fills: [Fill]
        /// Prices for valuing positions; symbols without a price are valued at cost.
        public var prices: [Symbol: Price]
        /// The realized P&L as stored beside the cash, if it is stored; must equal the journal's.
        public var realizedPnL: Money?
        /// Whether the portfolio's rules allow short sales (stock positions below zero).
        public var allowShort = false

        public init(startingCash: Money, cash: Money, positions: [Position], journal: [JournalEntry],
                    fills: [Fill], prices: [Symbol: Price], realizedPnL: Money? = nil) {
            self.startingCash = startingCash
            self.cash = cash
            self.positions = positions
            self.journal = journal
            self.fills = fills
            self.prices = prices
            self.realizedPnL = realizedPnL
        }
    }

    /// A broken invariant, in words.
    public struct Violation: Error, Sendable, Hashable, CustomStringConvertible {
        public var description: String
    }

    /// Returns every broken invariant; empty when the books balance.
    public static func check(_ snapshot: Snapshot) -> [Violation] {
        var violations: [Violation] = []
        func fail(_ text: String) { violations.append(Violation(description: text)) }

        let journalCash = snapshot.journal.reduce(Money.zero) { $0 + $1.cashDelta }
        if snapshot.cash != snapshot.startingCash + journalCash {
            fail("cash \(snapshot.cash) != starting cash \(snapshot.startingCash) + journal \(journalCash)")
        }
        // Only a forced buy-back of shorts that lost more than everything leaves a debt.
        if snapshot.cash.isNegative, !snapshot.allowShort { fail("cash is negative: \(snapshot.cash)") }

        var filledQuantity: [Symbol: Quantity] = [:]
        for fill in snapshot.fills { filledQuantity[fill.symbol, default: 0] += fill.quantityDelta }
        // Exercises, expiries and splits change positions without fills.
        for entry in snapshot.journal where entry.isSettlement || entry.kind == .split {
            if let symbol = entry.symbol { filledQuantity[symbol, default: 0] += entry.quantityDelta }
        }
        var journalQuantity: [Symbol: Quantity] = [:]
        for entry in snapshot.journal { if let symbol = entry.symbol { journalQuantity[symbol, default: 0] += entry.quantityDelta } }
        let held = Dictionary(snapshot.positions.map { ($0.symbol, $0.quantity) }, uniquingKeysWith: +)
        for symbol in Set(filledQuantity.keys).union(held.keys).union(journalQuantity.keys) {
            let position = held[symbol] ?? 0
            if position < 0, !symbol.isOption, !snapshot.allowShort { fail("\(symbol): negative position \(position)") }
            if position != (filledQuantity[symbol] ?? 0) {
                fail("\(symbol): position \(position) != sum of fills and settlements \(filledQuantity[symbol] ?? 0)")
            }
            if position != (journalQuantity[symbol] ?? 0) {
                fail("\(symbol): position \(position) != sum of journal \(journalQuantity[symbol] ?? 0)")
            }
        }

        // A dividend is cash, a realized gain (or, paid by a short, a loss), and nothing else.
        for entry in snapshot.journal where entry.kind == .dividend {
            if entry.quantityDelta != 0 || entry.realizedPnL != entry.cashDelta || entry.symbol == nil {
                fail("dividend \(entry.id) moves what it may not: \(entry)")
            }
        }
        // Margin calls and their end move nothing; a borrow fee moves cash out, a realized loss.
        for entry in snapshot.journal where entry.kind == .marginCall || entry.kind == .marginMet || entry.kind == .borrowFee {
            if entry.symbol != nil || entry.quantityDelta != 0 || entry.realizedPnL != (entry.kind == .borrowFee ? entry.cashDelta : .zero)
                || (entry.kind == .borrowFee ? entry.cashDelta >= .zero : entry.cashDelta != .zero) {
                fail("\(entry.kind.rawValue) \(entry.id) moves what it may not: \(entry)")
            }
        }
        // Grants add cash and nothing else: no symbol, no quantity, no P&L.
        for entry in snapshot.journal where entry.kind == .grant {
            if entry.symbol != nil || entry.quantityDelta != 0 || entry.realizedPnL != .zero || entry.cashDelta <= .zero {
                fail("grant \(entry.id) moves more than cash in: \(entry)")
            }
        }
        let deposits = snapshot.journal.filter { $0.kind == .grant }.reduce(Money.zero) { $0 + $1.cashDelta }
        let replayed = Book.replaying(snapshot.journal, startingCash: snapshot.startingCash)
        let stored = Book(startingCash: snapshot.startingCash, cash: snapshot.cash,
                          positions: Dictionary(snapshot.positions.map { ($0.symbol, $0) }, uniquingKeysWith: { a, _ in a }),
                          deposits: deposits)
        if replayed != stored {
            fail("replaying the journal gives cash \(replayed.cash) and \(replayed.positions.values.sorted { $0.symbol < $1.symbol }), stored state differs")
        }

        // Written contracts are covered: calls by shares, puts by cash.
        for underlying in Set(stored.positions.keys.compactMap { $0.option?.underlying }) {
            let committed = stored.committedShares(of: underlying)
            if committed > stored.quantity(of: underlying) {
                fail("\(underlying): written calls need \(committed) shares, \(stored.quantity(of: underlying)) held")
            }
        }
        if stored.reservedCash > max(stored.cash, .zero) { fail("written puts hold back \(stored.reservedCash), cash is \(stored.cash)") }

        let journalRealized = snapshot.journal.reduce(Money.zero) { $0 + $1.realizedPnL }
        if let stored = snapshot.realizedPnL, stored != journalRealized {
            fail("stored realized P&L \(stored) != journal's \(journalRealized)")
        }
        let valuation = Valuation(book: stored, quotes: snapshot.prices.mapValues { Quote(price: $0) },
                                  realizedPnL: journalRealized)
        if valuation.equity - snapshot.startingCash - deposits != valuation.realizedPnL + valuation.unrealizedPnL {
            fail("equity - starting cash - deposits \(valuation.equity - snapshot.startingCash - deposits) != realized \(valuation.realizedPnL) + unrealized \(valuation.unrealizedPnL)")
        }
        return violations
    }
}
