/// What an order would do, before it is placed: the estimated price and cost, the cash after,
/// the most shares it could be for, and every rule it would break (empty when it would go through).
public struct OrderPreview: Sendable, Hashable {
    public var request: OrderRequest
    public var price: Price
    public var notional: Money
    public var commission: Money
    /// What a buy costs (notional plus commission) or a sell brings in (notional less commission).
    public var total: Money
    public var cashBefore: Money
    public var cashAfter: Money
    /// For a buy, the most whole shares the cash affords; for a sell, the shares held.
    public var maxQuantity: Quantity
    public var held: Quantity
    public var problems: [OrderRejection]
}

extension TradingEngine {
    /// Previews `request` at `price` without changing anything.
    public static func preview(_ request: OrderRequest, on book: Book, at price: Price, rules: PortfolioRules,
                               trading: Bool) -> OrderPreview {
        preview(request, on: book, at: price, rules: rules, context: OrderContext(trading: trading))
    }

    /// ``preview(_:on:at:rules:trading:)`` with everything the rules may ask about the moment.
    public static func preview(_ request: OrderRequest, on book: Book, at price: Price, rules: PortfolioRules,
                               context: OrderContext) -> OrderPreview {
        var book = book
        book.margin = book.margin ?? rules.margin
        let trading = context.trading
        let quantity = max(.zero, min(request.quantity, rules.maxQuantity(for: request.assetClass)))
        let notional = price.notional(quantity: quantity)
        let commission = rules.commission.amount(on: notional)
        let total = request.side == .buy ? notional + commission : notional - commission
        let held = book.quantity(of: request.symbol)
        return OrderPreview(
            request: request, price: price, notional: notional, commission: commission, total: total,
            cashBefore: book.cash, cashAfter: request.side == .buy ? book.cash - total : book.cash + total,
            maxQuantity: request.side == .buy ? (trading ? maxAffordable(cash: book.freeCash, price: price, rules: rules, lot: rules.lot(for: request.symbol, assetClass: request.assetClass), assetClass: request.assetClass) : .zero) : held,
            held: held, problems: problems(request, on: book, at: price, rules: rules, context: context))
    }

    /// Every rule `request` breaks, in the order ``execute(_:on:at:rules:context:)`` checks them.
    public static func problems(_ request: OrderRequest, on book: Book, at price: Price, rules: PortfolioRules,
                                trading: Bool) -> [OrderRejection] {
        problems(request, on: book, at: price, rules: rules, context: OrderContext(trading: trading))
    }

    /// Every rule `request` breaks at the moment `context` describes.
    public static func problems(_ request: OrderRequest, on book: Book, at price: Price, rules: PortfolioRules,
                                context: OrderContext) -> [OrderRejection] {
        var book = book
        book.margin = book.margin ?? rules.margin   // short sales' collateral is reserved cash
        let trading = context.trading
        var found: [OrderRejection] = []
        if let now = context.now {
            if let opens = rules.tradingOpens, now < opens { found.append(.tradingNotOpen(until: opens)) }
            if let closes = rules.tradingCloses, now >= closes { found.append(.tradingClosed(since: closes)) }
        }
        // Crypto trades around the clock: the exchange's hours are not its.
        if rules.marketHoursOnly, context.marketOpen == false, request.assetClass != .crypto { found.append(.marketClosed) }
        if let amount = request.notional, request.quantity == .zero {
            // An amount that buys less than a lot: that, and whatever else the order breaks.
            let lot = rules.lot(for: request.symbol, assetClass: request.assetClass)
            found.append(.notionalTooSmall(amount, price: price, lot: lot))
            var probe = request
            probe.quantity = lot.quantity
            do { try validate(probe, rules: rules) } catch { found.append(error) }
        } else {
            do { try validate(request, rules: rules) } catch { found.append(error) }
        }
        if request.reduceOnly {
            let held = book.quantity(of: request.symbol)
            if request.side == .sell, request.quantity > max(held, 0) {
                found.append(.insufficientShares(requested: request.quantity, held: max(held, 0)))
            } else if request.side == .buy, request.quantity > max(-held, 0) {
                found.append(.coverExceedsShort(requested: request.quantity, short: max(-held, 0)))
            }
        }
        let quantity = max(.zero, min(request.quantity, rules.maxQuantity(for: request.assetClass)))
        let notional = price.notional(quantity: quantity)
        let commission = rules.commission.amount(on: notional)
        let held = book.quantity(of: request.symbol)
        let contract = request.symbol.option
        if let contract, book.quantity(of: contract.underlying) < 0 { found.append(.optionsWhileShort(contract.underlying)) }
        switch request.side {
        case .buy:
            if !trading { found.append(.notTrading(request.symbol)) }
            if held < 0, request.quantity > -held {
                found.append(contract == nil ? .coverExceedsShort(requested: request.quantity, short: -held)
                                             : .buyBackExceedsWritten(requested: request.quantity, written: -held))
            }
            if contract != nil, held >= 0, !context.listed { found.append(.contractNotListed(request.symbol)) }
            let required = notional + commission
            // Buying back a short frees the collateral it held.
            var covered = book
            if contract == nil, var position = covered.positions[request.symbol], position.quantity < 0 {
                _ = position.cover(quantity: min(request.quantity, -position.quantity))
                covered.positions[request.symbol] = position.quantity == 0 ? nil : position
            }
            let reserved = covered.reservedCash
            if required > book.cash {
                found.append(.insufficientFunds(required: required, available: book.cash))
            } else if required > book.cash - reserved {
                found.append(.cashReserved(required: required, free: book.cash - reserved, reserved: reserved))
            }
            if let limit = rules.maxDistinctHoldings, book.positions[request.symbol] == nil,
               book.positions.count >= limit {
                found.append(.tooManyHoldings(limit: limit))
            }
            if let minimum = rules.minimumPrice, !request.symbol.isOption, price.ticks < minimum.cents * Price.ticksPerCent {
                found.append(.belowMinimumPrice(request.symbol, price: price, minimum: minimum))
            }
            if let limit = rules.maxPositionBasisPoints, quantity > 0 {
                // The position and the equity after the buy: holdings at their marks (at cost
                // without one), this symbol at the order's price, cash less the order's total.
                let position = price.notional(quantity: book.quantity(of: request.symbol) + quantity)
                var equity = book.cash - required + position
                for (symbol, held) in book.positions where symbol != request.symbol {
                    equity += context.marks[symbol].map { $0.notional(quantity: held.quantity) } ?? held.costBasis
                }
                if equity.cents > 0, position.cents * 10_000 > limit * equity.cents {
                    let share = FixedPoint.divideRounded(position.cents * 10_000, by: equity.cents)
                    found.append(.positionTooLarge(symbol: request.symbol, limitBasisPoints: limit, wouldBeBasisPoints: share))
                }
            }
        case .sell:
            if let contract, held <= 0 {
                found += writingProblems(contract, quantity: quantity, on: book, rules: rules, context: context)
            } else if contract != nil {
                if request.quantity > held { found.append(.insufficientContracts(requested: request.quantity, held: held)) }
            } else if let margin = rules.margin, held <= 0 {
                // A short sale: its proceeds and the initial margin on them are held from the free cash.
                if !trading { found.append(.notTrading(request.symbol)) }
                if book.positions.keys.contains(where: { $0.option?.underlying == request.symbol }) {
                    found.append(.optionsWhileShort(request.symbol))
                }
                let collateral = Money(cents: FixedPoint.divideRoundedUp(notional.cents * (10_000 + margin.initialBasisPoints), by: 10_000))
                let free = book.cash + notional - commission - book.reservedCash
                if collateral > free { found.append(.marginInsufficient(required: collateral, available: max(.zero, free))) }
            } else if request.quantity > held {
                found.append(rules.margin == nil || held == 0 ? .insufficientShares(requested: request.quantity, held: held)
                                                              : .shortingNotAllowed(request.symbol, held: held))
            } else if request.quantity > book.freeShares(of: request.symbol) {
                let committed = book.committedShares(of: request.symbol)
                found.append(.sharesCommitted(request.symbol, requested: request.quantity, free: held - committed, committed: committed))
            }
            // A sell whose commission exceeds its proceeds still may not overdraw cash.
            if book.cash + notional - commission < .zero {
                found.append(.insufficientFunds(required: commission, available: book.cash + notional))
            }
        }
        return found
    }

    /// What writing `quantity` more of `contract` breaks: the rules must allow it, the contract be
    /// listed, and each contract covered (a call by 100 free shares) or secured (a put by the
    /// free cash to buy 100 shares at the strike; the premium it brings is not counted).
    static func writingProblems(_ contract: OptionContract, quantity: Quantity, on book: Book, rules: PortfolioRules,
                                context: OrderContext) -> [OrderRejection] {
        guard rules.optionWriting else { return [.writingNotAllowed(contract.symbol)] }
        var found: [OrderRejection] = []
        if !context.listed { found.append(.contractNotListed(contract.symbol)) }
        let shares = quantity * OptionContract.multiplier
        switch contract.type {
        case .call:
            let free = book.freeShares(of: contract.underlying)
            if shares > free { found.append(.uncoveredCall(contract.symbol, sharesNeeded: shares, sharesFree: max(0, free))) }
        case .put:
            let needed = contract.strike.notional(quantity: shares)
            if needed > book.freeCash { found.append(.unsecuredPut(contract.symbol, cashNeeded: needed, cashFree: book.freeCash)) }
        }
        return found
    }
}
