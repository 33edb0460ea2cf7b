import BullpenCore
import Foundation

/// What a batch needs from the database before it executes: the idempotency keys and client
/// order ids its commands use that were seen before. One query each, whatever the batch size.
struct BatchLookups: Sendable {
    struct KeyOwner: Hashable, Sendable {
        var user: UUID
        var key: String
    }

    struct ClientOrder: Hashable, Sendable {
        var portfolio: UUID
        var clientOrderID: String
    }

    var keys: [KeyOwner: IdempotencyRow] = [:]
    /// The orders that remembered keys stand for.
    var orders: [UUID: OrderRecord] = [:]
    var clientOrderIDs: Set<ClientOrder> = []
}

/// One batch of ledger commands executed in memory: the results to answer with, the portfolios'
/// new state, and every row to write. Nothing here touches the database; ``BullpenStore/write(_:)``
/// writes the rows in one transaction.
struct BatchPlan: Sendable {
    /// How the reason of a margin call's forced buy-back begins (the first run does not count it as the player's purchase).
    static let buyBackReason = "Bought back at the close of "
    /// The portfolios of the batch, as the commands leave them.
    var portfolios: [PortfolioID: LedgerPortfolio]
    /// The portfolios' versions when the batch read them: each row update is guarded by its own.
    let startVersions: [PortfolioID: Int64]
    var results: [Result<LedgerResult, any Error>] = []
    var touched: Set<PortfolioID> = []

    /// The orders placed or changed, one row each (the latest state): written as upserts.
    private(set) var orders: [OrderRow] = []
    private var orderIndex: [UUID: Int] = [:]
    /// Every change of an order's status in the batch.
    var orderEvents: [OrderEventRow] = []
    var fills: [FillRow] = []
    var journal: [JournalRow] = []
    /// The journal entries of each portfolio's current period made by this batch (since its
    /// reset, if any): the ledger adds them to the session totals it holds once written.
    var entries: [PortfolioID: [JournalEntry]] = [:]
    var keys: [IdempotencyRow] = []
    var periods: [PeriodRow] = []
    var snapshots: [EquitySnapshotRow] = []
    var stats: [EquityStatsRow] = []
    /// Portfolios reset in this batch: their stored positions are deleted before the new ones are written.
    var resets: Set<PortfolioID> = []
    /// The symbols whose position changed, per portfolio (since its reset, if any).
    var positions: [PortfolioID: Set<Symbol>] = [:]

    /// The rows of the positions the batch leaves held (inserted, or updated where they exist),
    /// and the positions it emptied (their rows are deleted).
    var positionChanges: (held: [PositionRow], emptied: [(portfolio: UUID, symbol: String)]) {
        var held: [PositionRow] = [], emptied: [(portfolio: UUID, symbol: String)] = []
        for (id, symbols) in positions.sorted(by: { $0.key.uuid < $1.key.uuid }) {
            guard let portfolio = portfolios[id] else { continue }
            for symbol in symbols.sorted() {
                if let position = portfolio.book.positions[symbol], position.quantity != 0 {
                    held.append(PositionRow(id: positionIDs[PositionKey(portfolio: id, symbol: symbol)] ?? UUID(),
                                            portfolioId: id.uuid, symbol: symbol.rawValue, quantity: position.quantity.units,
                                            costBasisCents: position.costBasis.cents, updatedAt: portfolio.record.updatedAt))
                } else {
                    emptied.append((id.uuid, symbol.rawValue))
                }
            }
        }
        return (held, emptied)
    }

    struct PositionKey: Hashable, Sendable {
        var portfolio: PortfolioID
        var symbol: Symbol
    }

    /// The id a position row gets if it is new (an existing row keeps its own), made when the
    /// position first changed in the batch.
    var positionIDs: [PositionKey: UUID] = [:]

    let lookups: BatchLookups
    let now: Date
    let ids: any IDSource
    /// Keys used earlier in this batch, with the request hash and the order they placed.
    var claimed: [BatchLookups.KeyOwner: (hash: String, order: OrderRecord)] = [:]
    var clientOrderIDs: Set<BatchLookups.ClientOrder> = []

    init(portfolios: [PortfolioID: LedgerPortfolio], lookups: BatchLookups, now: Date, ids: any IDSource) {
        self.portfolios = portfolios
        self.startVersions = portfolios.mapValues(\.record.version)
        self.lookups = lookups
        self.now = now
        self.ids = ids
    }

    /// Records `row` as the order's state to write (replacing what the batch wrote for it before).
    mutating func put(_ row: OrderRow) {
        if let index = orderIndex[row.id] { orders[index] = row } else { orderIndex[row.id] = orders.count; orders.append(row) }
    }

    /// Executes one command against the batch's state so far and records its result.
    mutating func execute(_ command: LedgerCommand) {
        do {
            switch command {
            case .order(let priced, let id, let owner, let claim):
                results.append(.success(try order(priced, in: id, owner: owner, claim: claim)))
            case .reset(let id, let owner, let version, let endingEquity):
                results.append(.success(try reset(id, owner: owner, version: version, endingEquity: endingEquity)))
            case .advance(let step, let id, let owner):
                // An advance applies many events: one that fails leaves nothing of the others.
                let saved = self
                do {
                    results.append(.success(try advance(step, in: id, owner: owner)))
                } catch {
                    self = saved
                    throw error
                }
            case .endReplay(let id, let owner):
                results.append(.success(try endReplay(id, owner: owner)))
            case .exercise(let exercise, let id, let owner):
                results.append(.success(try self.exercise(exercise, in: id, owner: owner)))
            case .expire(let expiry, let id, let owner):
                results.append(.success(try expire(expiry, in: id, owner: owner)))
            case .grant(let amount, let id, let owner, let version):
                results.append(.success(try grant(amount, to: id, owner: owner, version: version)))
            case .cancel(let order, let id, let owner):
                results.append(.success(try cancel(order, in: id, owner: owner)))
            case .replace(let order, let priced, let id, let owner):
                results.append(.success(try replace(order, with: priced, in: id, owner: owner)))
            case .fill(let fill, let pricing, let id, let owner):
                results.append(.success(try fillWorking(fill, pricing: pricing, in: id, owner: owner)))
            case .expireOrders(let orders, let id, let owner):
                results.append(.success(try expireOrders(orders, in: id, owner: owner)))
            case .track(let order, let id, let owner):
                results.append(.success(try track(order, in: id, owner: owner)))
            case .corporate(let actions, let version, let id, let owner):
                results.append(.success(try corporate(actions, version: version, in: id, owner: owner)))
            case .marginClose(let actions, let session, let version, let id, let owner):
                results.append(.success(try marginClose(actions, session: session, version: version, in: id, owner: owner)))
            }
        } catch {
            results.append(.failure(error))
        }
    }

    func portfolio(_ id: PortfolioID, owner: UserID) throws -> LedgerPortfolio {
        guard let portfolio = portfolios[id], portfolio.record.ownerID == owner else { throw StoreError.notFound("Portfolio") }
        return portfolio
    }

    private mutating func order(_ priced: PricedOrder, in id: PortfolioID, owner: UserID,
                                claim: IdempotencyClaim?) throws -> LedgerResult {
        let request = priced.request
        if let claim, let earlier = try remembered(claim, owner: owner) { return earlier }
        var portfolio = try portfolio(id, owner: owner)
        if portfolio.record.closedAt != nil { throw StoreError.portfolioClosed }
        if portfolio.record.replay?.ended == true { throw StoreError.replayEnded }
        // Priced at another date than the one the portfolio stands on now (a replay moved since).
        guard priced.clock == portfolio.record.clock else { throw StoreError.portfolioChanged }
        // The client order id is taken only by an order that goes through.
        var taken: BatchLookups.ClientOrder?
        if let clientOrderID = request.clientOrderID {
            let key = BatchLookups.ClientOrder(portfolio: id.uuid, clientOrderID: clientOrderID)
            guard !lookups.clientOrderIDs.contains(key), !clientOrderIDs.contains(key) else {
                throw StoreError.duplicateClientOrderID(clientOrderID)
            }
            taken = key
        }
        if !request.terms.fillsAtOnce {
            let placed = try placeWorking(priced, in: portfolio, replacing: nil)
            if let taken { clientOrderIDs.insert(taken) }
            return finish(placed, owner: owner, claim: claim)
        }
        let (fill, book) = try TradingEngine.execute(request, on: portfolio.book, at: priced.price,
                                                     rules: portfolio.record.rules, context: priced.context(now: now))
        if let taken { clientOrderIDs.insert(taken) }
        let orderID = OrderID(ids.makeUUID()), fillID = FillID(ids.makeUUID())
        let sequence = portfolio.journalSequence + 1
        let period = portfolio.record.period
        let pricing = priced.pricing
        let order = OrderRow(
            id: orderID.uuid, portfolioId: id.uuid, period: period, sequence: sequence,
            clientOrderId: request.clientOrderID, symbol: request.symbol.rawValue, side: request.side.rawValue,
            type: request.type.rawValue, quantity: request.quantity.units, status: OrderRecord.Status.filled.rawValue,
            filledQuantity: fill.quantity.units, fillPriceTicks: fill.price.ticks, priceSource: pricing.source.rawValue,
            priceAsOf: pricing.asOf, marketOpen: pricing.marketOpen, notionalCents: fill.notional.cents,
            commissionCents: fill.commission.cents, realizedPnlCents: fill.realizedPnL.cents,
            cashDeltaCents: fill.cashDelta.cents, createdAt: now, filledAt: now,
            timeInForce: request.terms.timeInForce.rawValue, updatedAt: now)
        let made = JournalEntry.entries(of: fill, portfolioID: id, period: period, sequence: sequence, orderID: orderID,
                                        fillID: fillID, priceAsOf: pricing.asOf, createdAt: now, ids: ids)
        put(order)
        fills.append(FillRow(
            id: fillID.uuid, orderId: orderID.uuid, portfolioId: id.uuid, period: period, symbol: fill.symbol.rawValue,
            side: fill.side.rawValue, quantity: fill.quantity.units, priceTicks: fill.price.ticks,
            priceSource: pricing.source.rawValue, priceAsOf: pricing.asOf, marketOpen: pricing.marketOpen,
            notionalCents: fill.notional.cents, commissionCents: fill.commission.cents,
            realizedPnlCents: fill.realizedPnL.cents, createdAt: now))
        journal.append(contentsOf: made.map(JournalRow.init))

        portfolio.book = book
        portfolio.record.cash = book.cash
        portfolio.record.version += 1
        portfolio.record.updatedAt = now
        portfolio.realizedPnL += fill.realizedPnL
        portfolio.journalSequence = made.last?.sequence ?? sequence
        entries[id, default: []].append(contentsOf: made)
        portfolios[id] = portfolio
        touched.insert(id)
        positions[id, default: []].insert(fill.symbol)
        let position = PositionKey(portfolio: id, symbol: fill.symbol)
        if positionIDs[position] == nil { positionIDs[position] = ids.makeUUID() }

        let record = try order.record()
        if let claim {
            keys.append(IdempotencyRow(id: ids.makeUUID(), userId: owner.uuid, key: claim.key, requestHash: claim.requestHash,
                                       statusCode: 201, responseBody: "", createdAt: now, orderId: orderID.uuid))
            claimed[BatchLookups.KeyOwner(user: owner.uuid, key: claim.key)] = (claim.requestHash, record)
        }
        return .executed(record, book)
    }

    /// The answer remembered for `claim`, from the database or from earlier in this batch.
    /// - Throws: ``StoreError/idempotencyKeyReused`` when the key came with a different request.
    func remembered(_ claim: IdempotencyClaim, owner: UserID) throws -> LedgerResult? {
        let key = BatchLookups.KeyOwner(user: owner.uuid, key: claim.key)
        if let row = lookups.keys[key] {
            guard row.requestHash == claim.requestHash else { throw StoreError.idempotencyKeyReused }
            if let orderID = row.orderId {
                guard let order = lookups.orders[orderID] else { throw StoreError.corruptRow(table: "idempotency_keys", id: row.id.uuidString) }
                return .replayed(order)
            }
            return .remembered(IdempotentResult(outcome: row.statusCode, payload: row.responseBody))
        }
        if let earlier = claimed[key] {
            guard earlier.hash == claim.requestHash else { throw StoreError.idempotencyKeyReused }
            return .replayed(earlier.order)
        }
        return nil
    }

    /// Starts the portfolio over if it is still at `version` (the one the caller valued).
    private mutating func reset(_ id: PortfolioID, owner: UserID, version: Int64, endingEquity: Money) throws -> LedgerResult {
        var portfolio = try portfolio(id, owner: owner)
        if portfolio.record.leagueID != nil { throw StoreError.leaguePortfolio }
        guard portfolio.record.version == version else { throw StoreError.portfolioChanged }
        let record = portfolio.record
        periods.append(PeriodRow(id: ids.makeUUID(), portfolioId: id.uuid, period: record.period,
                                 startingCashCents: record.startingCash.cents, endingCashCents: record.cash.cents,
                                 endingEquityCents: endingEquity.cents, realizedPnlCents: portfolio.realizedPnL.cents,
                                 startedAt: portfolio.periodStartedAt, endedAt: now))
        for open in portfolio.open { close(open, in: id, status: .canceled, reason: "Cancelled: the portfolio was reset.") }
        portfolio.open = []
        portfolio.book = Book(startingCash: record.startingCash)
        portfolio.refreshHolds()
        portfolio.record.cash = record.startingCash
        // A replay starts over from its first day, with cash only.
        if var replay = record.replay {
            replay.holdings = [:]
            replay.ended = false
            portfolio.record.replay = replay
            portfolio.record.clock = .replay(replay.start.date)
        }
        portfolio.record.period += 1
        portfolio.record.version += 1
        portfolio.record.updatedAt = now
        portfolio.realizedPnL = .zero
        portfolio.periodStartedAt = now
        entries[id] = []
        portfolios[id] = portfolio
        touched.insert(id)
        resets.insert(id)
        positions[id] = []
        return .reset(portfolio.record)
    }

    /// Journals a deposit of `amount` (a top-up) if the portfolio still stands at `version`, the
    /// version its eligibility was decided on.
    private mutating func grant(_ amount: Money, to id: PortfolioID, owner: UserID, version: Int64) throws -> LedgerResult {
        var portfolio = try portfolio(id, owner: owner)
        if portfolio.record.closedAt != nil { throw StoreError.portfolioClosed }
        guard portfolio.record.version == version, amount > .zero else { throw StoreError.portfolioChanged }
        let entry = JournalEntry(id: JournalEntryID(ids.makeUUID()), portfolioID: id, period: portfolio.record.period,
                                 sequence: portfolio.journalSequence + 1, kind: .grant, symbol: nil, side: nil, quantityDelta: 0,
                                 price: nil, cashDelta: amount, commission: .zero, realizedPnL: .zero, orderID: nil, fillID: nil,
                                 priceAsOf: nil, createdAt: now)
        journal.append(JournalRow(entry))
        portfolio.book.apply(entry)
        portfolio.record.cash = portfolio.book.cash
        portfolio.journalSequence = entry.sequence
        portfolio.record.version += 1
        portfolio.record.updatedAt = now
        entries[id, default: []].append(entry)
        portfolios[id] = portfolio
        touched.insert(id)
        return .granted(entry, portfolio.record)
    }

    /// Moves a replay's clock if it still stands where the step was computed from.
    private mutating func advance(_ step: ReplayStep, in id: PortfolioID, owner: UserID) throws -> LedgerResult {
        var portfolio = try portfolio(id, owner: owner)
        if portfolio.record.closedAt != nil { throw StoreError.portfolioClosed }
        guard let replay = portfolio.record.replay else { throw StoreError.notReplay }
        guard !replay.ended else { throw StoreError.replayEnded }
        guard portfolio.record.version == step.version, portfolio.record.clock == .replay(step.from.date) else {
            throw StoreError.portfolioChanged
        }
        let period = portfolio.record.period
        for snapshot in step.snapshots {
            snapshots.append(EquitySnapshotRow(id: ids.makeUUID(), portfolioId: id.uuid, period: period,
                                               date: snapshot.date.description, cashCents: snapshot.cash.cents,
                                               marketValueCents: snapshot.marketValue.cents,
                                               equityCents: snapshot.equity.cents))
        }
        if let figures = step.stats { stats.append(EquityStatsRow(portfolio: id.uuid, period: period, stats: figures)) }
        if !step.events.isEmpty {
            portfolio = try apply(step.events, to: portfolio)
        } else if !step.settlements.isEmpty {
            portfolio = record(step.settlements, in: portfolio)
        }
        portfolio.record.clock = .replay(step.to.date)
        portfolio.record.version += 1
        portfolio.record.updatedAt = now
        portfolios[id] = portfolio
        touched.insert(id)
        return .advanced(portfolio.record)
    }

    private mutating func endReplay(_ id: PortfolioID, owner: UserID) throws -> LedgerResult {
        var portfolio = try portfolio(id, owner: owner)
        if portfolio.record.closedAt != nil { throw StoreError.portfolioClosed }
        guard var replay = portfolio.record.replay else { throw StoreError.notReplay }
        guard !replay.ended else { throw StoreError.replayEnded }
        replay.ended = true
        portfolio.record.replay = replay
        // Nothing trades any more: the orders still working end with it.
        for open in portfolio.open { close(open, in: id, status: .canceled, reason: "Cancelled: the replay ended.") }
        portfolio.open = []
        portfolio.refreshHolds()
        portfolio.record.version += 1
        portfolio.record.updatedAt = now
        portfolios[id] = portfolio
        touched.insert(id)
        return .advanced(portfolio.record)
    }

    // MARK: Options

    private mutating func exercise(_ exercise: OptionExercise, in id: PortfolioID, owner: UserID) throws -> LedgerResult {
        var portfolio = try portfolio(id, owner: owner)
        if portfolio.record.closedAt != nil { throw StoreError.portfolioClosed }
        if portfolio.record.replay?.ended == true { throw StoreError.replayEnded }
        guard exercise.clock == portfolio.record.clock else { throw StoreError.portfolioChanged }
        let (settlement, _) = try OptionSettlement.exercise(exercise.contract, contracts: exercise.contracts,
                                                            on: portfolio.book, spot: exercise.spot, date: exercise.date)
        portfolio = record([settlement], in: portfolio)
        portfolio.record.version += 1
        portfolio.record.updatedAt = now
        portfolios[id] = portfolio
        touched.insert(id)
        return .settled([settlement], portfolio.record)
    }

    private mutating func expire(_ expiry: OptionExpiry, in id: PortfolioID, owner: UserID) throws -> LedgerResult {
        var portfolio = try portfolio(id, owner: owner)
        let settled = OptionSettlement.expire(on: portfolio.book, through: expiry.through) { expiry.spots[$0.symbol] }
        guard !settled.settlements.isEmpty else { return .settled([], portfolio.record) }
        portfolio = record(settled.settlements, in: portfolio)
        portfolio.record.version += 1
        portfolio.record.updatedAt = now
        portfolios[id] = portfolio
        touched.insert(id)
        return .settled(settled.settlements, portfolio.record)
    }

    /// Journals `settlements` in `portfolio` and applies them to its book (the caller moves its
    /// version and marks it touched).
    mutating func record(_ settlements: [OptionSettlement], in portfolio: LedgerPortfolio) -> LedgerPortfolio {
        var portfolio = portfolio
        let id = portfolio.record.id
        for settlement in settlements {
            let made = JournalEntry.entries(of: settlement, portfolioID: id, period: portfolio.record.period,
                                            sequence: portfolio.journalSequence + 1, fillID: FillID(ids.makeUUID()),
                                            createdAt: now, ids: ids)
            journal.append(contentsOf: made.map(JournalRow.init))
            for entry in made {
                portfolio.book.apply(entry)
                portfolio.realizedPnL += entry.realizedPnL
                if let symbol = entry.symbol {
                    positions[id, default: []].insert(symbol)
                    let key = PositionKey(portfolio: id, symbol: symbol)
                    if positionIDs[key] == nil { positionIDs[key] = ids.makeUUID() }
                }
            }
            portfolio.journalSequence = made.last?.sequence ?? portfolio.journalSequence
            entries[id, default: []].append(contentsOf: made)
        }
        portfolio.record.cash = portfolio.book.cash
        return portfolio
    }
}
