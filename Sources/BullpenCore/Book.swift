import Foundation

/// The tradable state of one portfolio period: cash and positions. Pure value; the store loads it,
/// the ``TradingEngine`` changes it, the store saves the change with its journal entries.
public struct Book: Sendable, Hashable {
    public var startingCash: Money
    public var cash: Money
    public var positions: [Symbol: Position]
    /// Money added since the period began (grants): with the starting cash, what was put in.
    public var deposits: Money
    /// What working orders hold back (see ``OrderHolds``): not part of the journal, kept beside it.
    public var holds: OrderHolds = .none
    /// The margin rule short sales are held under (the portfolio's): their collateral is reserved.
    public var margin: MarginRule?

    public init(startingCash: Money, cash: Money? = nil, positions: [Symbol: Position] = [:], deposits: Money = .zero) {
        self.startingCash = startingCash
        self.cash = cash ?? startingCash
        self.positions = positions
        self.deposits = deposits
    }

    /// The starting cash and the deposits since: the money returns are measured against.
    public var invested: Money { startingCash + deposits }

    /// Shares held of `symbol` (0 if none).
    public func quantity(of symbol: Symbol) -> Quantity { positions[symbol]?.quantity ?? .zero }

    /// Applies a fill: cash moves by `fill.cashDelta`, the position by `fill.quantityDelta`.
    /// A buy of a written contract buys it back, a sell of one not held writes it (see
    /// ``Position``). Returns the cost basis a sell or a buy back removed (zero when opening).
    @discardableResult
    public mutating func apply(_ fill: Fill) -> Money {
        cash += fill.cashDelta
        var position = positions[fill.symbol] ?? Position(symbol: fill.symbol)
        var removedBasis = Money.zero
        switch fill.side {
        case .buy where position.quantity < 0:
            removedBasis = position.cover(quantity: fill.quantity)
        case .buy:
            position.add(quantity: fill.quantity, cost: fill.notional + fill.commission)
        case .sell where position.quantity > 0:
            removedBasis = position.remove(quantity: fill.quantity)
        case .sell:
            position.add(quantity: -fill.quantity, cost: fill.commission - fill.notional)
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
        case .grant:
            cash += entry.cashDelta
            deposits += entry.cashDelta
        case .borrowFee, .marginCall, .marginMet, .dividend:
            cash += entry.cashDelta
        case .split:
            cash += entry.cashDelta
            guard let symbol = entry.symbol, var position = positions[symbol] else { return }
            position.quantity += entry.quantityDelta
            position.costBasis -= entry.carriedBasis
            positions[symbol] = position.quantity == 0 ? nil : position
        case .exercise, .expiry, .assignment:
            settle(entry.symbol, quantityDelta: entry.quantityDelta, cashDelta: entry.cashDelta, carriedBasis: entry.carriedBasis)
        }
    }

    /// Applies a settlement's leg (see ``OptionSettlement``): cash moves by `cashDelta`; units
    /// coming in cost what was paid plus the basis carried, units going take their basis along.
    public mutating func settle(_ symbol: Symbol?, quantityDelta: Quantity, cashDelta: Money, carriedBasis: Money) {
        cash += cashDelta
        guard let symbol, quantityDelta != 0 else { return }
        var position = positions[symbol] ?? Position(symbol: symbol)
        if quantityDelta > 0, position.quantity < 0 {
            _ = position.cover(quantity: quantityDelta)
        } else if quantityDelta > 0 {
            position.add(quantity: quantityDelta, cost: -cashDelta + carriedBasis)
        } else {
            _ = position.remove(quantity: -quantityDelta)
        }
        positions[symbol] = position.quantity == 0 ? nil : position
    }

    // MARK: Written contracts

    /// The cash written puts hold back (the strike of 100 shares for each, which buying the shares
    /// on assignment would need), working buy orders hold back, and short sales hold as collateral.
    /// Buys, exercises and written puts may spend only the cash beyond it.
    public var reservedCash: Money {
        positions.values.reduce(holds.cash + shortCollateral(margin)) { total, position in
            guard position.quantity < 0, let contract = position.symbol.option, contract.type == .put else { return total }
            return total + contract.strike.notional(quantity: -position.quantity * OptionContract.multiplier)
        }
    }

    /// Cash that buys and exercises may spend: the cash less what written puts hold back.
    public var freeCash: Money { cash - reservedCash }

    /// Shares sold short: stock positions below zero (written option contracts are not shorts).
    public var shorts: [Position] { positions.values.filter { $0.quantity < 0 && !$0.symbol.isOption }.sorted { $0.symbol < $1.symbol } }

    /// The cash short sales hold as collateral under `rule`: each short's proceeds (its basis) and
    /// the initial margin on them. It stays in cash, but buys cannot spend it.
    public func shortCollateral(_ rule: MarginRule?) -> Money {
        guard let rule else { return .zero }
        let proceeds = shorts.reduce(Money.zero) { $0 - $1.costBasis }
        return Money(cents: FixedPoint.divideRoundedUp(proceeds.cents * (10_000 + rule.initialBasisPoints), by: 10_000))
    }

    /// Shares of `underlying` that written calls (100 for each) and working sell orders hold back:
    /// they cannot be sold or delivered elsewhere while those are open.
    public func committedShares(of underlying: Symbol) -> Quantity {
        positions.values.reduce(holds.shares[underlying] ?? 0) { total, position in
            guard position.quantity < 0, let contract = position.symbol.option, contract.type == .call,
                  contract.underlying == underlying else { return total }
            return total - position.quantity * OptionContract.multiplier
        }
    }

    /// Shares of `symbol` that can be sold or delivered: those held less those written calls hold back.
    public func freeShares(of symbol: Symbol) -> Quantity { quantity(of: symbol) - committedShares(of: symbol) }
}
