import Foundation

/// The pure rules of executing an order against a book at a price. No I/O: the caller supplies
/// the book, the quote and the rules, and persists what comes back.
public enum TradingEngine {
    /// Checks a request against the rules and the book and, if it passes, fills it at `price`.
    ///
    /// - Returns: the fill and the book after it.
    /// - Throws: ``OrderRejection`` naming the first rule the order breaks.
    public static func execute(_ request: OrderRequest, on book: Book, at price: Price,
                               rules: PortfolioRules) throws(OrderRejection) -> (fill: Fill, book: Book) {
        try validate(request, rules: rules)
        let notional = price.notional(quantity: request.quantity)
        let commission = rules.commission.amount(on: notional)
        var book = book
        let fill: Fill
        switch request.side {
        case .buy:
            let required = notional + commission
            guard required <= book.cash else {
                throw .insufficientFunds(required: required, available: book.cash)
            }
            if let limit = rules.maxDistinctHoldings, book.positions[request.symbol] == nil,
               book.positions.count >= limit {
                throw .tooManyHoldings(limit: limit)
            }
            fill = Fill(symbol: request.symbol, side: .buy, quantity: request.quantity, price: price,
                        notional: notional, commission: commission, realizedPnL: .zero, cashDelta: -required)
            book.apply(fill)
        case .sell:
            let held = book.quantity(of: request.symbol)
            guard request.quantity <= held else {
                throw .insufficientShares(requested: request.quantity, held: held)
            }
            // A sell whose commission exceeds its proceeds still may not overdraw cash.
            let proceeds = notional - commission
            guard book.cash + proceeds >= .zero else {
                throw .insufficientFunds(required: commission, available: book.cash + notional)
            }
            var probe = book.positions[request.symbol]!
            let basis = probe.remove(quantity: request.quantity)
            fill = Fill(symbol: request.symbol, side: .sell, quantity: request.quantity, price: price,
                        notional: notional, commission: commission, realizedPnL: proceeds - basis,
                        cashDelta: proceeds)
            book.apply(fill)
        }
        return (fill, book)
    }

    /// The checks that need no price: quantity and instrument.
    public static func validate(_ request: OrderRequest, rules: PortfolioRules) throws(OrderRejection) {
        let allowed = 1...rules.maxOrderQuantity
        guard allowed.contains(request.quantity) else {
            throw .quantityOutOfRange(request.quantity, allowed: allowed)
        }
        guard rules.allowedInstruments.contains(request.instrument) else {
            throw .instrumentNotAllowed(request.instrument)
        }
    }

    /// How many whole shares `cash` buys at `price` under `rules`, commission included.
    public static func maxAffordable(cash: Money, price: Price, rules: PortfolioRules) -> Int64 {
        guard price.ticks > 0, cash > .zero else { return 0 }
        var quantity = min(cash.cents * Price.ticksPerCent / price.ticks, rules.maxOrderQuantity)
        while quantity > 0 {
            let notional = price.notional(quantity: quantity)
            if notional + rules.commission.amount(on: notional) <= cash { break }
            quantity -= 1
        }
        return quantity
    }
}
