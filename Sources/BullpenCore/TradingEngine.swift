import Foundation

/// The pure rules of executing an order against a book at a price. No I/O: the caller supplies
/// the book, the quote and the rules, and persists what comes back.
public enum TradingEngine {
    /// Checks a request against the rules and the book and, if it passes, fills it at `price`.
    ///
    /// - Parameter trading: whether the symbol trades on the portfolio's date; a symbol whose
    ///   data has ended can be sold at its last price but not bought.
    /// - Returns: the fill and the book after it.
    /// - Throws: ``OrderRejection`` naming the first rule the order breaks.
    public static func execute(_ request: OrderRequest, on book: Book, at price: Price, rules: PortfolioRules,
                               trading: Bool) throws(OrderRejection) -> (fill: Fill, book: Book) {
        try execute(request, on: book, at: price, rules: rules, context: OrderContext(trading: trading))
    }

    /// ``execute(_:on:at:rules:trading:)`` with everything the rules may ask about the moment.
    public static func execute(_ request: OrderRequest, on book: Book, at price: Price, rules: PortfolioRules,
                               context: OrderContext) throws(OrderRejection) -> (fill: Fill, book: Book) {
        if let problem = problems(request, on: book, at: price, rules: rules, context: context).first { throw problem }
        let notional = price.notional(quantity: request.quantity)
        let commission = rules.commission.amount(on: notional)
        var book = book
        let fill: Fill
        var probe = book.positions[request.symbol] ?? Position(symbol: request.symbol)
        switch request.side {
        case .buy:
            // Buying back written contracts realizes the premium received less what they cost now.
            let credit = probe.quantity < 0 ? -probe.cover(quantity: request.quantity) : nil
            fill = Fill(symbol: request.symbol, side: .buy, quantity: request.quantity, price: price,
                        notional: notional, commission: commission,
                        realizedPnL: credit.map { $0 - notional - commission } ?? .zero,
                        cashDelta: -(notional + commission))
        case .sell:
            // Writing contracts realizes nothing yet: the premium is the written position's basis.
            let basis = probe.quantity > 0 ? probe.remove(quantity: request.quantity) : nil
            let proceeds = notional - commission
            fill = Fill(symbol: request.symbol, side: .sell, quantity: request.quantity, price: price,
                        notional: notional, commission: commission, realizedPnL: basis.map { proceeds - $0 } ?? .zero,
                        cashDelta: proceeds)
        }
        book.apply(fill)
        return (fill, book)
    }

    /// The checks that need no price: quantity and instrument.
    public static func validate(_ request: OrderRequest, rules: PortfolioRules) throws(OrderRejection) {
        if request.assetClass == .crypto, !rules.allowCrypto { throw .cryptoNotAllowed }
        let lot = request.lotChecked ? .crypto : rules.lot(for: request.symbol, assetClass: request.assetClass)
        let most = rules.maxQuantity(for: request.assetClass)
        if request.quantity > most {
            throw .quantityOutOfRange(request.quantity, allowed: lot.quantity...most)
        }
        if request.quantity > .zero, !request.quantity.isMultiple(of: lot) {
            throw .quantityNotInLots(request.quantity, lot: lot)
        }
        let allowed = lot.quantity...most
        guard allowed.contains(request.quantity) else {
            throw .quantityOutOfRange(request.quantity, allowed: allowed)
        }
        guard rules.allowedInstruments.contains(request.instrument) else {
            throw .instrumentNotAllowed(request.instrument)
        }
    }

    /// The most of `lot` that `cash` buys at `price` under `rules`, commission included (whole
    /// shares unless the lot is finer).
    public static func maxAffordable(cash: Money, price: Price, rules: PortfolioRules, lot: Lot = .whole,
                                     assetClass: AssetClass = .usEquity) -> Quantity {
        guard price.ticks > 0, cash > .zero else { return .zero }
        func fits(_ lots: Int64) -> Bool {
            let notional = price.notional(quantity: Quantity(units: lots * lot.units))
            return notional + rules.commission.amount(on: notional) <= cash
        }
        // The cost grows with the quantity: search the lots between none and what the cash buys before commission.
        var low: Int64 = 0
        var high = min(price.quantity(affordableWith: cash, lot: lot), rules.maxQuantity(for: assetClass)).units / lot.units
        while low < high {
            let middle = low + (high - low + 1) / 2
            if fits(middle) { low = middle } else { high = middle - 1 }
        }
        return Quantity(units: low * lot.units)
    }
}
