import Foundation

/// The tradable state of one portfolio period: cash and positions. Pure value; the store loads it,
/// the ``TradingEngine`` changes it, the store saves the change with its journal entries.
public struct Book: Sendable, Hashable {
    public var startingCash: Money
    public var cash: Money
    public var positions: [Symbol: Position]

    public init(startingCash: Money, cash: Money? = nil, positions: [Symbol: Position] = [:]) {
        self.startingCash = startingCash
        self.cash = cash ?? startingCash
        self.positions = positions
    }

    /// Shares held of `symbol` (0 if none).
    public func quantity(of symbol: Symbol) -> Int64 { positions[symbol]?.quantity ?? 0 }

    /// Applies a fill: cash moves by `fill.cashDelta`, the position by `fill.quantityDelta`.
    /// Returns the cost basis removed by a sell (zero for a buy).
    @discardableResult
    public mutating func apply(_ fill: Fill) -> Money {
        cash += fill.cashDelta
        var position = positions[fill.symbol] ?? Position(symbol: fill.symbol)
        var removedBasis = Money.zero
        switch fill.side {
        case .buy:
            position.add(quantity: fill.quantity, cost: fill.notional + fill.commission)
        case .sell:
            removedBasis = position.remove(quantity: fill.quantity)
        }
        positions[fill.symbol] = position.quantity == 0 ? nil : position
        return removedBasis
    }

    /// Rebuilds the book from its journal alone: the proof that the journal is the whole truth.
    public static func replaying(_ journal: [JournalEntry], startingCash: Money) -> Book {
        var book = Book(startingCash: startingCash)
        for entry in journal.sorted(by: { $0.sequence < $1.sequence }) { book.apply(entry) }
        return book
    }

    /// Applies one journal entry: a trade moves its shares and the notional, a commission entry
    /// its cash.
    public mutating func apply(_ entry: JournalEntry) {
        switch entry.kind {
        case .trade:
            if var fill = entry.fill {
                fill.cashDelta = entry.cashDelta
                apply(fill)
            } else {
                cash += entry.cashDelta
            }
        case .commission:
            cash += entry.cashDelta
        case .exercise, .expiry:
            settle(entry.symbol, quantityDelta: entry.quantityDelta, cashDelta: entry.cashDelta, carriedBasis: entry.carriedBasis)
        }
    }

    /// Applies a settlement's leg (see ``OptionSettlement``): cash moves by `cashDelta`; units
    /// coming in cost what was paid plus the basis carried, units going take their basis along.
    public mutating func settle(_ symbol: Symbol?, quantityDelta: Int64, cashDelta: Money, carriedBasis: Money) {
        cash += cashDelta
        guard let symbol, quantityDelta != 0 else { return }
        var position = positions[symbol] ?? Position(symbol: symbol)
        if quantityDelta > 0 {
            position.add(quantity: quantityDelta, cost: -cashDelta + carriedBasis)
        } else {
            _ = position.remove(quantity: -quantityDelta)
        }
        positions[symbol] = position.quantity == 0 ? nil : position
    }
}
