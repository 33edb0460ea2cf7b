import BullpenCore
import Foundation

/// Working orders in a batch: placing one (holding its cash or shares, filling it at once when the
/// price is already there), cancelling, replacing, filling, expiring and tracking them. Each
/// builds the portfolio's new state aside and installs it only once nothing can throw, so a
/// refused command leaves the batch's state as it was.
extension BatchPlan {
    /// A working order placed in memory: the portfolio after it, the order, and the book to answer with.
    struct Placed {
        var portfolio: LedgerPortfolio
        var order: OrderRecord
    }

    /// Places `priced` (not a market order of the day) in `portfolio`: checks it against the cash
    /// and shares not held by other orders (at its hold price for a buy), fills it at once when the
    /// price now already reaches it, cancels an immediate-or-cancel or fill-or-kill order that does
    /// not, and otherwise leaves it working, holding what it may need.
    mutating func placeWorking(_ priced: PricedOrder, in portfolio: LedgerPortfolio, replacing old: OrderRecord?) throws -> Placed {
        let request = priced.request
        let terms = request.terms
        if let problem = terms.problem { throw OrderRejection.orderTypeNotAvailable(problem) }
        if request.symbol.isOption {
            throw OrderRejection.orderTypeNotAvailable("Option contracts trade at the market only: their prices are modelled from the underlying, so there is no market for a limit or stop to wait in.")
        }
        if request.side == .sell, portfolio.book.quantity(of: request.symbol) <= 0, portfolio.record.rules.margin != nil {
            throw OrderRejection.orderTypeNotAvailable("A short sale is a market order here: sell short at the market, then cover with any order type.")
        }
        let assetClass = request.assetClass
        if assetClass == .crypto, terms.timeInForce == .opg || terms.timeInForce == .cls {
            throw OrderRejection.coinAuction
        }
        var schedule: OrderSchedule
        switch priced.clock {
        case .replay(let date):
            schedule = OrderSchedule.replay(terms.timeInForce, on: SessionDate(date), assetClass: assetClass)
        case .live:
            if terms.timeInForce == .opg || terms.timeInForce == .cls {
                throw OrderRejection.orderTypeNotAvailable("At-the-open (opg) and at-the-close (cls) orders fill on the next session's daily bar: they are for replay portfolios. On the live market, use a day order.")
            }
            schedule = OrderSchedule.live(terms.timeInForce, now: now, assetClass: assetClass)
        }
        if terms.timeInForce == .ioc || terms.timeInForce == .fok { schedule.expiresAt = nil }
        var portfolio = portfolio
        let rules = portfolio.record.rules
        let holdPrice = OrderEvaluation.holdPrice(for: terms, side: request.side, now: priced.price)
        var context = priced.context(now: now)
        context.marketOpen = nil   // a working order may wait for the market to open
        if let problem = TradingEngine.problems(request, on: portfolio.book, at: holdPrice ?? priced.price, rules: rules,
                                                context: context).first {
            throw problem
        }
        let id = portfolio.record.id
        let orderID = OrderID(ids.makeUUID())
        let sequence = portfolio.journalSequence + 1
        var working = WorkingOrder(id: orderID, symbol: request.symbol, side: request.side, quantity: request.quantity,
                                   terms: terms, waterMark: terms.type == .trailingStop ? priced.price : nil,
                                   placedOn: schedule.placedOn, placedAt: now, lastSession: schedule.lastSession,
                                   expiresAt: schedule.expiresAt, holdPrice: holdPrice, commission: rules.commission)
        var record = OrderRecord(
            id: orderID, portfolioID: id, period: portfolio.record.period, sequence: sequence,
            clientOrderID: request.clientOrderID, symbol: request.symbol, side: request.side, type: terms.type,
            quantity: request.quantity, status: .new, filledQuantity: 0, fillPrice: nil, pricing: nil, notional: .zero,
            commission: .zero, realizedPnL: .zero, cashDelta: .zero, createdAt: now, filledAt: nil)
        record.terms = terms
        record.waterMark = working.waterMark
        record.placedOn = schedule.placedOn
        record.lastSession = schedule.lastSession
        record.expiresAt = schedule.expiresAt
        record.holdPrice = holdPrice
        record.replacesID = old?.id
        record.updatedAt = now
        var events = [OrderEventRow(id: ids.makeUUID(), orderId: orderID.uuid, portfolioId: id.uuid, status: OrderStatus.new.rawValue,
                                    at: now, note: old.map { "Replaces order \($0.id)." })]

        var (evaluated, fill) = OrderEvaluation.evaluate(working, quote: priced.price, at: priced.pricing.asOf)
        // Under market-hours rules, an order placed while the market is closed waits for it to open.
        if rules.marketHoursOnly, priced.clock == .live, !priced.pricing.marketOpen { fill = nil }
        // On a replay day the exchange is closed, the last close is not a price to trade shares at:
        // the order waits for the next session's bar.
        if priced.closedExchange != nil { fill = nil }
        working = evaluated
        record.waterMark = working.waterMark
        record.triggered = working.triggered
        portfolio.journalSequence = sequence
        if let fill {
            // Already reached: filled now, at the price a market order would get. A fill that
            // breaks a rule refuses the order, as a market order would be refused.
            record.status = .new
            portfolio.open.append(record)
            portfolio.refreshHolds()
            portfolio.journalSequence = sequence - 1
            let filled = try execute(fill, of: working, record: record, pricing: priced.pricing, in: portfolio,
                                     context: priced.context(now: now))
            portfolio = filled.portfolio
            record = filled.record
            events.append(filled.event)
        } else if terms.timeInForce == .ioc || terms.timeInForce == .fok {
            record.status = .canceled
            record.reason = terms.timeInForce == .ioc
                ? "Immediate or cancel: the price was not there at once, so nothing filled and the order was cancelled."
                : "Fill or kill: the whole order could not fill at once, so it was cancelled."
            events.append(OrderEventRow(id: ids.makeUUID(), orderId: orderID.uuid, portfolioId: id.uuid,
                                        status: OrderStatus.canceled.rawValue, at: now, note: record.reason))
        } else {
            portfolio.open.append(record)
            portfolio.refreshHolds()
        }
        put(OrderRow(record))
        orderEvents += events
        portfolio.record.version += 1
        portfolio.record.updatedAt = now
        return Placed(portfolio: portfolio, order: record)
    }

    /// Installs a placed order's portfolio and remembers its idempotency key.
    mutating func finish(_ placed: Placed, owner: UserID, claim: IdempotencyClaim?) -> LedgerResult {
        let id = placed.portfolio.record.id
        portfolios[id] = placed.portfolio
        touched.insert(id)
        if let claim {
            keys.append(IdempotencyRow(id: ids.makeUUID(), userId: owner.uuid, key: claim.key, requestHash: claim.requestHash,
                                       statusCode: 201, responseBody: "", createdAt: now, orderId: placed.order.id.uuid))
            claimed[BatchLookups.KeyOwner(user: owner.uuid, key: claim.key)] = (claim.requestHash, placed.order)
        }
        return .executed(placed.order, placed.portfolio.book)
    }

    /// A fill executed in memory: the portfolio after it, the order's record, and its status event.
    struct Executed {
        var portfolio: LedgerPortfolio
        var record: OrderRecord
        var event: OrderEventRow
    }

    /// Executes `fill` of the working order `order` (its state after the evaluation), whose
    /// stored record is `record`, against `portfolio`: the journal, the fill and the position
    /// change; the order's figures add up its fills.
    /// - Throws: ``OrderRejection`` when the fill breaks a rule.
    mutating func execute(_ fill: WorkingFill, of order: WorkingOrder, record: OrderRecord, pricing: FillPricing,
                          in portfolio: LedgerPortfolio, context: OrderContext) throws -> Executed {
        var portfolio = portfolio
        let id = portfolio.record.id
        guard let held = record.working(commission: portfolio.record.rules.commission) else {
            throw StoreError.orderNotOpen(status: record.status.rawValue)
        }
        let done = try TradingEngine.fill(held, with: fill, on: portfolio.book, rules: portfolio.record.rules, context: context)
        let fillID = FillID(ids.makeUUID())
        let sequence = portfolio.journalSequence + 1
        let period = portfolio.record.period
        let made = JournalEntry.entries(of: done.fill, portfolioID: id, period: period, sequence: sequence, orderID: record.id,
                                        fillID: fillID, priceAsOf: pricing.asOf, createdAt: now, ids: ids)
        let note = fill.explanation
        fills.append(FillRow(
            id: fillID.uuid, orderId: record.id.uuid, portfolioId: id.uuid, period: period, symbol: done.fill.symbol.rawValue,
            side: done.fill.side.rawValue, quantity: done.fill.quantity.units, priceTicks: done.fill.price.ticks,
            priceSource: pricing.source.rawValue, priceAsOf: pricing.asOf, marketOpen: pricing.marketOpen,
            notionalCents: done.fill.notional.cents, commissionCents: done.fill.commission.cents,
            realizedPnlCents: done.fill.realizedPnL.cents, createdAt: now, note: note))
        journal.append(contentsOf: made.map(JournalRow.init))
        var record = record
        // The average of the fills' prices, weighted by their quantities, to the price's own
        // precision (the notional is rounded to cents: dividing it again would lose the ticks).
        let before = record.filledQuantity
        record.fillPrice = before == .zero ? done.fill.price
            : Price.average(record.fillPrice ?? done.fill.price, weight: before, done.fill.price, weight: done.fill.quantity)
        record.filledQuantity += done.fill.quantity
        record.notional += done.fill.notional
        record.commission += done.fill.commission
        record.realizedPnL += done.fill.realizedPnL
        record.cashDelta += done.fill.cashDelta
        record.pricing = pricing
        record.fillNote = note
        record.waterMark = order.waterMark
        record.triggered = order.triggered
        record.updatedAt = now
        record.status = record.filledQuantity >= record.quantity ? .filled : .partiallyFilled
        if record.status == .filled { record.filledAt = now }

        portfolio.book = done.book
        portfolio.record.cash = done.book.cash
        portfolio.realizedPnL += done.fill.realizedPnL
        portfolio.journalSequence = made.last?.sequence ?? sequence
        entries[id, default: []].append(contentsOf: made)
        positions[id, default: []].insert(done.fill.symbol)
        let key = PositionKey(portfolio: id, symbol: done.fill.symbol)
        if positionIDs[key] == nil { positionIDs[key] = ids.makeUUID() }
        if let index = portfolio.open.firstIndex(where: { $0.id == record.id }) {
            if record.status.isOpen { portfolio.open[index] = record } else { portfolio.open.remove(at: index) }
        }
        portfolio.refreshHolds()
        let event = OrderEventRow(id: ids.makeUUID(), orderId: record.id.uuid, portfolioId: id.uuid, status: record.status.rawValue,
                                  at: now, note: note)
        return Executed(portfolio: portfolio, record: record, event: event)
    }

    /// Fills a working order at a live quote, or rejects it (saying why) when the fill breaks a rule.
    mutating func fillWorking(_ fill: WorkingFill, pricing: FillPricing, in id: PortfolioID, owner: UserID) throws -> LedgerResult {
        var portfolio = try portfolio(id, owner: owner)
        if portfolio.record.closedAt != nil { throw StoreError.portfolioClosed }
        guard let record = portfolio.open.first(where: { $0.id == fill.orderID }),
              let held = record.working(commission: portfolio.record.rules.commission) else {
            throw StoreError.orderNotOpen(status: "no longer working")
        }
        // The price must still reach the order as it stands now (its mark, its trigger).
        let (evaluated, reached) = OrderEvaluation.evaluate(held, quote: fill.price, at: pricing.asOf)
        guard reached != nil else { throw StoreError.orderNotOpen(status: "not reached at that price") }
        let outcome: OrderRecord
        do {
            let done = try execute(fill, of: evaluated, record: record, pricing: pricing, in: portfolio,
                                   context: OrderContext(trading: true, now: now))
            portfolio = done.portfolio
            orderEvents.append(done.event)
            put(OrderRow(done.record))
            outcome = done.record
        } catch let rejection as OrderRejection {
            outcome = close(record, in: id, status: .rejected, reason: Self.rejectedFill(rejection))
            portfolio.open.removeAll { $0.id == record.id }
            portfolio.refreshHolds()
        }
        portfolio.record.version += 1
        portfolio.record.updatedAt = now
        portfolios[id] = portfolio
        touched.insert(id)
        return .executed(outcome, portfolio.book)
    }

    static func rejectedFill(_ rejection: OrderRejection) -> String {
        "The price reached the order, but the fill was refused: \(rejection.message)"
    }

    /// Ends a working order's record with `status`, writing its row and the event; returns the record.
    @discardableResult
    mutating func close(_ record: OrderRecord, in id: PortfolioID, status: OrderStatus, reason: String,
                        replacedBy: OrderID? = nil) -> OrderRecord {
        var record = record
        record.status = status
        record.reason = reason
        record.updatedAt = now
        record.replacedByID = replacedBy ?? record.replacedByID
        put(OrderRow(record))
        orderEvents.append(OrderEventRow(id: ids.makeUUID(), orderId: record.id.uuid, portfolioId: id.uuid, status: status.rawValue,
                                         at: now, note: reason))
        return record
    }

    mutating func cancel(_ orderID: OrderID, in id: PortfolioID, owner: UserID) throws -> LedgerResult {
        var portfolio = try portfolio(id, owner: owner)
        guard let record = portfolio.open.first(where: { $0.id == orderID }) else {
            throw StoreError.orderNotOpen(status: "no longer working")
        }
        let closed = close(record, in: id, status: .canceled, reason: "Cancelled by you.")
        portfolio.open.removeAll { $0.id == orderID }
        portfolio.refreshHolds()
        install(&portfolio)
        return .ordersChanged([closed], replacement: nil)
    }

    mutating func replace(_ orderID: OrderID, with priced: PricedOrder, in id: PortfolioID, owner: UserID) throws -> LedgerResult {
        let portfolio = try portfolio(id, owner: owner)
        if portfolio.record.closedAt != nil { throw StoreError.portfolioClosed }
        if portfolio.record.replay?.ended == true { throw StoreError.replayEnded }
        guard priced.clock == portfolio.record.clock else { throw StoreError.portfolioChanged }
        guard let old = portfolio.open.first(where: { $0.id == orderID }) else {
            throw StoreError.orderNotOpen(status: "no longer working")
        }
        var without = portfolio
        without.open.removeAll { $0.id == orderID }
        without.refreshHolds()
        let placed = try placeWorking(priced, in: without, replacing: old)
        if let clientOrderID = priced.request.clientOrderID {
            clientOrderIDs.insert(BatchLookups.ClientOrder(portfolio: id.uuid, clientOrderID: clientOrderID))
        }
        let closed = close(old, in: id, status: .replaced, reason: "Replaced by order \(placed.order.id).", replacedBy: placed.order.id)
        var after = placed.portfolio
        install(&after)
        return .ordersChanged([closed], replacement: placed.order)
    }

    mutating func expireOrders(_ orderIDs: [OrderID], in id: PortfolioID, owner: UserID) throws -> LedgerResult {
        var portfolio = try portfolio(id, owner: owner)
        var closed: [OrderRecord] = []
        for orderID in orderIDs {
            guard let record = portfolio.open.first(where: { $0.id == orderID }) else { continue }
            guard let expires = record.expiresAt, expires <= now else { continue }
            closed.append(close(record, in: id, status: .expired, reason: Self.expiryReason(record.terms.timeInForce)))
            portfolio.open.removeAll { $0.id == orderID }
        }
        guard !closed.isEmpty else { return .ordersChanged([], replacement: nil) }
        portfolio.refreshHolds()
        install(&portfolio)
        return .ordersChanged(closed, replacement: nil)
    }

    static func expiryReason(_ timeInForce: TimeInForce) -> String {
        switch timeInForce {
        case .gtc: "Expired: a good-'til-cancelled order lasts at most \(TimeInForce.gtcDays) days."
        case .opg: "Expired: the opening price did not meet the order's limit."
        case .cls: "Expired: the closing price did not meet the order's limit."
        default: "Expired: a day order ends with its trading session."
        }
    }

    mutating func track(_ order: WorkingOrder, in id: PortfolioID, owner: UserID) throws -> LedgerResult {
        var portfolio = try portfolio(id, owner: owner)
        guard let index = portfolio.open.firstIndex(where: { $0.id == order.id }) else {
            throw StoreError.orderNotOpen(status: "no longer working")
        }
        var record = portfolio.open[index]
        // A mark from before a split (the order was adjusted since) is not written back.
        guard record.quantity == order.quantity, record.terms == order.terms else {
            throw StoreError.orderNotOpen(status: "changed since")
        }
        record.waterMark = order.waterMark
        record.triggered = order.triggered
        portfolio.open[index] = record
        portfolio.refreshHolds()
        put(OrderRow(record))
        install(&portfolio)
        return .ordersChanged([record], replacement: nil)
    }

    /// Moves the portfolio's version and installs it in the batch.
    mutating func install(_ portfolio: inout LedgerPortfolio) {
        portfolio.record.version += 1
        portfolio.record.updatedAt = now
        portfolios[portfolio.record.id] = portfolio
        touched.insert(portfolio.record.id)
    }

    /// Applies what a replay's advance did to working orders and expiring contracts, in order:
    /// each fill executed again here on the same book the walk started from (so with the same
    /// result), each rejection and expiry closing its order, each change kept.
    mutating func apply(_ events: [ReplayOrderEvent], to portfolio: LedgerPortfolio) throws -> LedgerPortfolio {
        var portfolio = portfolio
        let id = portfolio.record.id
        for event in events {
            switch event {
            case .settled(let settlement):
                portfolio = record([settlement], in: portfolio)
            case .filled(let fill, let order):
                guard let record = portfolio.open.first(where: { $0.id == order.id }) else { throw StoreError.portfolioChanged }
                let session = fill.reason.session ?? SessionDate(now)
                let pricing = FillPricing(source: .dailyBar, asOf: session.date, marketOpen: false)
                let done: Executed
                do {
                    done = try execute(fill, of: order, record: record, pricing: pricing, in: portfolio, context: OrderContext(trading: true))
                } catch {
                    throw StoreError.portfolioChanged   // the walk executed it on another book
                }
                portfolio = done.portfolio
                orderEvents.append(done.event)
                put(OrderRow(done.record))
            case .rejected(let order, let rejection, _):
                guard let record = portfolio.open.first(where: { $0.id == order.id }) else { throw StoreError.portfolioChanged }
                close(record, in: id, status: .rejected, reason: Self.rejectedFill(rejection))
                portfolio.open.removeAll { $0.id == order.id }
            case .expired(let order, _):
                guard let record = portfolio.open.first(where: { $0.id == order.id }) else { throw StoreError.portfolioChanged }
                close(record, in: id, status: .expired, reason: Self.expiryReason(record.terms.timeInForce))
                portfolio.open.removeAll { $0.id == order.id }
            case .margin(let action, let session):
                portfolio = applyMargin(action, session: session, to: portfolio)
            case .corporate(let action, let price):
                portfolio = applyCorporate(action, price: price, to: portfolio)
            case .changed(let order):
                guard let index = portfolio.open.firstIndex(where: { $0.id == order.id }) else { throw StoreError.portfolioChanged }
                portfolio.open[index].waterMark = order.waterMark
                portfolio.open[index].triggered = order.triggered
                portfolio.open[index].updatedAt = now
                put(OrderRow(portfolio.open[index]))
            }
            portfolio.refreshHolds()
        }
        return portfolio
    }

    // MARK: Splits and dividends

    /// Applies live corporate actions (decided outside the ledger at `version`).
    mutating func corporate(_ actions: [CorporateActionAt], version: Int64, in id: PortfolioID, owner: UserID) throws -> LedgerResult {
        var portfolio = try portfolio(id, owner: owner)
        guard portfolio.record.version == version else { throw StoreError.portfolioChanged }
        for item in actions { portfolio = applyCorporate(item.action, price: item.price, entitled: item.entitled, to: portfolio) }
        install(&portfolio)
        return .ordersChanged([], replacement: nil)
    }

    /// Journals a split or a dividend on the position (a split with only working orders of the
    /// symbol journals nothing moved, so that it is applied once), and adjusts the working orders of
    /// a split's symbol as brokers do, each adjustment an event of the order.
    mutating func applyCorporate(_ action: CorporateAction, price: Price?, entitled: Quantity? = nil,
                                 to portfolio: LedgerPortfolio) -> LedgerPortfolio {
        var portfolio = portfolio
        let id = portfolio.record.id
        var entry = action.entry(on: portfolio.book, price: price, entitled: entitled, portfolioID: id, period: portfolio.record.period,
                                 sequence: portfolio.journalSequence + 1, createdAt: now, ids: ids)
        // Orders placed before the ex-date are in old shares; those placed since already in new ones.
        func placedBefore(_ record: OrderRecord) -> Bool { (record.placedOn ?? SessionDate(record.createdAt)) < action.exDate }
        let ordered = portfolio.open.contains { $0.symbol == action.symbol && placedBefore($0) }
        if entry == nil, ordered, case .split = action.kind {
            entry = JournalEntry(id: JournalEntryID(ids.makeUUID()), portfolioID: id, period: portfolio.record.period,
                                 sequence: portfolio.journalSequence + 1, kind: .split, symbol: action.symbol, side: nil,
                                 quantityDelta: 0, price: price, cashDelta: .zero, commission: .zero, realizedPnL: .zero, orderID: nil,
                                 fillID: nil, priceAsOf: action.exDate.date, createdAt: now)
        }
        if let entry {
            journal.append(JournalRow(entry))
            portfolio.book.apply(entry)
            portfolio.realizedPnL += entry.realizedPnL
            portfolio.journalSequence = entry.sequence
            entries[id, default: []].append(entry)
            if entry.quantityDelta != 0 || entry.carriedBasis != .zero {
                positions[id, default: []].insert(action.symbol)
                let key = PositionKey(portfolio: id, symbol: action.symbol)
                if positionIDs[key] == nil { positionIDs[key] = ids.makeUUID() }
            }
        }
        if case .split = action.kind {
            var ended: [OrderID] = []
            for index in portfolio.open.indices where portfolio.open[index].symbol == action.symbol && placedBefore(portfolio.open[index]) {
                guard let working = portfolio.open[index].working(commission: portfolio.record.rules.commission) else { continue }
                let adjusted = working.adjusted(for: action)
                if adjusted.remaining <= 0 {
                    close(portfolio.open[index], in: id, status: .canceled, reason: "Cancelled: after the split no whole share was left to fill.")
                    ended.append(adjusted.id)
                    continue
                }
                var record = portfolio.open[index]
                record.quantity = adjusted.quantity
                record.filledQuantity = adjusted.filledQuantity
                record.terms = adjusted.terms
                record.waterMark = adjusted.waterMark
                record.holdPrice = adjusted.holdPrice
                record.updatedAt = now
                portfolio.open[index] = record
                put(OrderRow(record))
                orderEvents.append(OrderEventRow(id: ids.makeUUID(), orderId: record.id.uuid, portfolioId: id.uuid,
                                                 status: record.status.rawValue, at: now, note: "Adjusted for the split: \(action.words)"))
            }
            portfolio.open.removeAll { ended.contains($0.id) }
        }
        portfolio.record.cash = portfolio.book.cash
        portfolio.refreshHolds()
        return portfolio
    }

    // MARK: Margin

    /// Applies a live session's close under the margin rule, if the portfolio still stands at `version`.
    mutating func marginClose(_ actions: [Margin.CloseAction], session: SessionDate, version: Int64, in id: PortfolioID,
                              owner: UserID) throws -> LedgerResult {
        var portfolio = try portfolio(id, owner: owner)
        guard portfolio.record.version == version else { throw StoreError.portfolioChanged }
        guard !actions.isEmpty else { return .ordersChanged([], replacement: nil) }
        for action in actions { portfolio = applyMargin(action, session: session, to: portfolio) }
        if case .liquidate? = actions.last, portfolio.book.shorts.isEmpty {
            portfolio = applyMargin(.met, session: session, to: portfolio)
        }
        install(&portfolio)
        return .ordersChanged([], replacement: nil)
    }

    /// Journals one margin action of the close of `session`: a borrow fee (cash out), a call or
    /// its end (nothing moves), or the shorts bought back at their closes (an order and a fill
    /// each, whatever the cash).
    mutating func applyMargin(_ action: Margin.CloseAction, session: SessionDate, to portfolio: LedgerPortfolio) -> LedgerPortfolio {
        var portfolio = portfolio
        let id = portfolio.record.id, period = portfolio.record.period
        func note(_ kind: JournalEntry.Kind, _ cash: Money) {
            // A fee is a realized loss: it is in the P&L as a commission is.
            let entry = JournalEntry(id: JournalEntryID(ids.makeUUID()), portfolioID: id, period: period,
                                     sequence: portfolio.journalSequence + 1, kind: kind, symbol: nil, side: nil, quantityDelta: 0,
                                     price: nil, cashDelta: cash, commission: .zero, realizedPnL: kind == .borrowFee ? cash : .zero,
                                     orderID: nil, fillID: nil, priceAsOf: session.date, createdAt: now)
            journal.append(JournalRow(entry))
            portfolio.book.apply(entry)
            portfolio.realizedPnL += entry.realizedPnL
            portfolio.journalSequence = entry.sequence
            entries[id, default: []].append(entry)
        }
        switch action {
        case .fee(let fee): note(.borrowFee, Money.zero - fee)
        case .call: note(.marginCall, .zero)
        case .met: note(.marginMet, .zero)
        case .liquidate(let covers):
            for cover in covers {
                guard let done = Margin.buyBack(cover, on: portfolio.book, commission: portfolio.record.rules.commission) else { continue }
                let orderID = OrderID(ids.makeUUID()), fillID = FillID(ids.makeUUID())
                let sequence = portfolio.journalSequence + 1
                let pricing = FillPricing(source: .dailyBar, asOf: session.date, marketOpen: false)
                let reason = "\(Self.buyBackReason)\(session): the margin call was not met within the grace sessions."
                var order = OrderRecord(id: orderID, portfolioID: id, period: period, sequence: sequence, clientOrderID: nil,
                                        symbol: cover.symbol, side: .buy, type: .market, quantity: cover.quantity, status: .filled,
                                        filledQuantity: cover.quantity, fillPrice: cover.price, pricing: pricing,
                                        notional: done.fill.notional, commission: done.fill.commission,
                                        realizedPnL: done.fill.realizedPnL, cashDelta: done.fill.cashDelta, createdAt: now, filledAt: now)
                order.reason = reason
                order.fillNote = reason
                order.updatedAt = now
                put(OrderRow(order))
                orderEvents.append(OrderEventRow(id: ids.makeUUID(), orderId: orderID.uuid, portfolioId: id.uuid,
                                                 status: OrderStatus.filled.rawValue, at: now, note: reason))
                let made = JournalEntry.entries(of: done.fill, portfolioID: id, period: period, sequence: sequence, orderID: orderID,
                                                fillID: fillID, priceAsOf: session.date, createdAt: now, ids: ids)
                fills.append(FillRow(
                    id: fillID.uuid, orderId: orderID.uuid, portfolioId: id.uuid, period: period, symbol: cover.symbol.rawValue,
                    side: OrderSide.buy.rawValue, quantity: cover.quantity.units, priceTicks: cover.price.ticks,
                    priceSource: pricing.source.rawValue, priceAsOf: pricing.asOf, marketOpen: false,
                    notionalCents: done.fill.notional.cents, commissionCents: done.fill.commission.cents,
                    realizedPnlCents: done.fill.realizedPnL.cents, createdAt: now, note: reason))
                journal.append(contentsOf: made.map(JournalRow.init))
                portfolio.book = done.book
                portfolio.realizedPnL += done.fill.realizedPnL
                portfolio.journalSequence = made.last?.sequence ?? sequence
                entries[id, default: []].append(contentsOf: made)
                positions[id, default: []].insert(cover.symbol)
                let key = PositionKey(portfolio: id, symbol: cover.symbol)
                if positionIDs[key] == nil { positionIDs[key] = ids.makeUUID() }
            }
        }
        portfolio.record.cash = portfolio.book.cash
        return portfolio
    }
}
