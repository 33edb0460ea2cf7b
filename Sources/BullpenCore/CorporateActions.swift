import Foundation

/// A split or a cash dividend of one company, as unadjusted data brings them (a live provider, a
/// pack with `corporate_actions.csv`, the demo exchange). Applied to positions, cash and working
/// orders on the ex-date, before that session trades.
public struct CorporateAction: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// `cash` a share, to holders on the ex-date (paid that day here; the pay date is shown).
        case dividend(cash: Price)
        /// `to` new shares for every `from` (2-for-1 is to 2, from 1).
        case split(to: Int64, from: Int64)
    }

    public var symbol: Symbol
    public var exDate: SessionDate
    public var payDate: SessionDate?
    public var kind: Kind

    public init(symbol: Symbol, exDate: SessionDate, payDate: SessionDate? = nil, kind: Kind) {
        self.symbol = symbol
        self.exDate = exDate
        self.payDate = payDate
        self.kind = kind
    }

    /// In words, for the history.
    public var words: String {
        switch kind {
        case .dividend(let cash):
            "\(symbol) paid a dividend of \(cash.dollars) a share (ex-date \(exDate)\(payDate.map { ", paid \($0)" } ?? ""))."
        case .split(let to, let from):
            "\(symbol) split \(to)-for-\(from) on \(exDate): each \(from == 1 ? "share" : "\(from) shares") became \(to)."
        }
    }

    /// What it does to `book`'s position: the quantity change, the cash, the realized P&L and the
    /// basis that leaves (a split's fraction paid in cash at `price`, the price after the split).
    /// Nil when the book holds none of the symbol. `entitled` is the part of the position held when
    /// the ex-date's session opened (shares bought since, at the new prices, take no part); all of
    /// it when nil.
    public func effect(on book: Book, price: Price?, entitled: Quantity? = nil) -> (quantityDelta: Quantity, cash: Money, realized: Money, basisOut: Money)? {
        guard let position = book.positions[symbol], position.quantity != 0, !symbol.isOption else { return nil }
        let held = entitled.map { position.quantity > 0 ? min(max($0, 0), position.quantity) : max(min($0, 0), position.quantity) }
            ?? position.quantity
        guard held != 0 else { return nil }
        let heldBasis = held == position.quantity ? position.costBasis
            : Money(cents: FixedPoint.multiplyDivide(position.costBasis.cents, held.units, position.quantity.units))
        switch kind {
        case .dividend(let cash):
            let amount = cash.notional(quantity: held)
            return amount == .zero ? nil : (0, amount, amount, .zero)
        case .split(let to, let from):
            guard to > 0, from > 0 else { return nil }
            let lot = Lot.shares(keeping: held)
            // In 1/from of a unit of a new share; a position the split would take past a quantity is not split.
            let (scaled, overflow) = held.units.multipliedReportingOverflow(by: to)
            guard !overflow else { return nil }
            let exact = scaled / from   // toward zero: a short's fraction too
            let kept = exact - exact % lot.units
            let fraction = scaled - kept * from   // in 1/from of a unit of a new share
            let delta = Quantity(units: kept) - held
            guard fraction != 0 else { return (delta, .zero, .zero, .zero) }
            // The fraction of a new share leaves with its share of the basis, paid at the price after
            // the split (at that basis when no price is known: nothing gained or lost).
            let basisOut = Money(cents: FixedPoint.multiplyDivide(heldBasis.cents, fraction, scaled))
            let cash = price.map { Money(cents: FixedPoint.multiplyDivide($0.ticks, fraction, from * Price.ticksPerCent * Quantity.unitsPerWhole)) }
                ?? basisOut
            return (delta, cash, cash - basisOut, basisOut)
        }
    }

    /// The journal entry of its effect on `book`, or nil.
    public func entry(on book: Book, price: Price?, entitled: Quantity? = nil, portfolioID: PortfolioID, period: Int, sequence: Int64,
                      createdAt: Date, ids: any IDSource) -> JournalEntry? {
        guard let effect = effect(on: book, price: price, entitled: entitled) else { return nil }
        let (kind, unit): (JournalEntry.Kind, Price?) = switch self.kind {
        case .dividend(let cash): (.dividend, cash)
        case .split: (.split, price)
        }
        return JournalEntry(id: JournalEntryID(ids.makeUUID()), portfolioID: portfolioID, period: period, sequence: sequence,
                            kind: kind, symbol: symbol, side: nil, quantityDelta: effect.quantityDelta, price: unit,
                            cashDelta: effect.cash, commission: .zero, realizedPnL: effect.realized, orderID: nil, fillID: nil,
                            priceAsOf: exDate.date, createdAt: createdAt, carriedBasis: effect.basisOut)
    }
}

extension Book {
    /// Applies a corporate action's effect (see ``CorporateAction/effect(on:price:)``).
    public mutating func apply(_ action: CorporateAction, price: Price?) {
        guard let effect = action.effect(on: self, price: price), var position = positions[action.symbol] else { return }
        cash += effect.cash
        position.quantity += effect.quantityDelta
        position.costBasis -= effect.basisOut
        positions[action.symbol] = position.quantity == 0 ? nil : position
    }
}

extension WorkingOrder {
    /// The order after a split of its symbol, as brokers adjust it: the quantity left multiplied
    /// (whole shares), prices divided (to the tick), a trailing mark and a hold price too.
    public func adjusted(for action: CorporateAction) -> WorkingOrder {
        guard action.symbol == symbol, case .split(let to, let from) = action.kind, to > 0, from > 0 else { return self }
        func scale(_ price: Price?) -> Price? { price.map { Price(ticks: FixedPoint.divideRounded($0.ticks * from, by: to)) } }
        var order = self
        // What filled stays as it filled (its fills are history); what remains is in new shares.
        order.quantity = filledQuantity + remaining.scaled(by: to, over: from, lot: .shares(keeping: remaining))
        order.terms.limit = scale(terms.limit)
        order.terms.stop = scale(terms.stop)
        if case .price(let amount)? = terms.trail { order.terms.trail = .price(scale(amount)!) }
        order.waterMark = scale(waterMark)
        order.holdPrice = scale(holdPrice)
        return order
    }
}
