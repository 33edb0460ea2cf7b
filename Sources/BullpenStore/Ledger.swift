import BullpenCore
import Foundation
import Synchronization

/// A command that changes cash or positions. Every such change in the process goes through the
/// ``Ledger``: new kinds (replay advances, grants, exercises, working-order fills) are new cases.
enum LedgerCommand: Sendable {
    case order(PricedOrder, portfolio: PortfolioID, owner: UserID, idempotency: IdempotencyClaim?)
    case reset(portfolio: PortfolioID, owner: UserID, version: Int64, endingEquity: Money)
    /// Moves a replay portfolio's clock, storing its equity at each session passed.
    case advance(ReplayStep, portfolio: PortfolioID, owner: UserID)
    case endReplay(portfolio: PortfolioID, owner: UserID)
    /// Exercises contracts the portfolio holds, at the underlying's price gathered before.
    case exercise(OptionExercise, portfolio: PortfolioID, owner: UserID)
    /// Settles the contracts that expired by a session's close (the live clock's closing job).
    case expire(OptionExpiry, portfolio: PortfolioID, owner: UserID)
    /// Adds `amount` of cash as a deposit (a top-up), if the portfolio still stands at `version`.
    case grant(Money, portfolio: PortfolioID, owner: UserID, version: Int64)
    /// Cancels a working order, releasing what it held.
    case cancel(OrderID, portfolio: PortfolioID, owner: UserID)
    /// Replaces a working order with a new one linked to it (priced outside the ledger).
    case replace(OrderID, PricedOrder, portfolio: PortfolioID, owner: UserID)
    /// Fills a working order as a live quote reached its price (decided outside the ledger; the
    /// order must still be working).
    case fill(WorkingFill, pricing: FillPricing, portfolio: PortfolioID, owner: UserID)
    /// Expires working orders whose time ran out.
    case expireOrders([OrderID], portfolio: PortfolioID, owner: UserID)
    /// Keeps a working order's moved trailing mark or triggered stop.
    case track(WorkingOrder, portfolio: PortfolioID, owner: UserID)
    /// Splits and dividends reaching a live portfolio (decided outside the ledger at `version`).
    case corporate([CorporateActionAt], version: Int64, portfolio: PortfolioID, owner: UserID)
    /// A live session's close under the margin rule (decided outside the ledger at `version`).
    case marginClose([Margin.CloseAction], session: SessionDate, version: Int64, portfolio: PortfolioID, owner: UserID)

    var portfolio: PortfolioID {
        switch self {
        case .order(_, let id, _, _), .reset(let id, _, _, _), .advance(_, let id, _), .endReplay(let id, _),
             .exercise(_, let id, _), .expire(_, let id, _), .grant(_, let id, _, _), .cancel(_, let id, _),
             .replace(_, _, let id, _), .fill(_, _, let id, _), .expireOrders(_, let id, _), .track(_, let id, _),
             .marginClose(_, _, _, let id, _), .corporate(_, _, let id, _): id
        }
    }
}

/// An exercise asked for by a player, priced outside the ledger.
public struct OptionExercise: Sendable {
    public var contract: OptionContract
    public var contracts: Quantity
    /// The underlying's price at the clock.
    public var spot: Price
    /// The session the clock stands on.
    public var date: SessionDate
    /// The clock the spot was asked at: a replay that moved since is asked again.
    public var clock: PortfolioClock

    public init(contract: OptionContract, contracts: Quantity, spot: Price, date: SessionDate, clock: PortfolioClock) {
        self.contract = contract; self.contracts = contracts; self.spot = spot; self.date = date; self.clock = clock
    }
}

/// The contracts to settle at the close of `through`: each one's underlying close on its
/// expiration day, by the contract's symbol.
public struct OptionExpiry: Sendable {
    public var through: SessionDate
    public var spots: [Symbol: Price]

    public init(through: SessionDate, spots: [Symbol: Price]) { self.through = through; self.spots = spots }
}

/// One move of a replay clock, computed outside the ledger from the state at `version`.
struct ReplayStep: Sendable {
    var version: Int64
    var from: SessionDate
    var to: SessionDate
    /// The equity at the close of `from` and of each session through `to`.
    var snapshots: [EquitySnapshot]
    /// The period's folded daily figures with `snapshots` added (for leaderboards).
    var stats: EquityStats?
    /// The option contracts that expired on the way, in order.
    var settlements: [OptionSettlement] = []
    /// What happened to working orders and expiring contracts on the way, in order (when
    /// non-empty, it holds the settlements too).
    var events: [ReplayOrderEvent] = []
}

/// What became of a ledger command.
enum LedgerResult: Sendable {
    case executed(OrderRecord, Book)
    /// The idempotency key was seen before with the same request: the order it placed.
    case replayed(OrderRecord)
    /// The idempotency key was seen before, by a version that kept the response itself.
    case remembered(IdempotentResult)
    case reset(PortfolioRecord)
    /// A replay's clock moved, or the replay ended.
    case advanced(PortfolioRecord)
    /// Contracts were exercised or expired.
    case settled([OptionSettlement], PortfolioRecord)
    /// A deposit was journaled.
    case granted(JournalEntry, PortfolioRecord)
    /// Working orders changed (cancelled, expired, replaced, tracked): the first, and the order
    /// that replaced it.
    case ordersChanged([OrderRecord], replacement: OrderRecord?)
}

/// A portfolio as the ledger holds it: the row's figures, the book, and its trades of the session
/// last asked for, totalled (today's change).
struct LedgerPortfolio: Sendable {
    var record: PortfolioRecord
    var book: Book
    var realizedPnL: Money
    var journalSequence: Int64
    /// When the current period began (the previous period's end, or the portfolio's creation).
    var periodStartedAt: Date
    /// The current period's trades of one session (nil until a session was asked for), read once
    /// and then kept as batches are written: a read of today's change never goes over the day's
    /// journal.
    var today: SessionTrades?
    var usedAt: ContinuousClock.Instant
    /// The orders still working, oldest first; `book.holds` is what they hold.
    var open: [OrderRecord] = []

    var working: [WorkingOrder] { open.compactMap { $0.working(commission: record.rules.commission) } }

    var state: PortfolioState {
        var state = PortfolioState(portfolio: record, book: book, realizedPnL: realizedPnL)
        state.working = working
        return state
    }

    /// Sets the book's holds from the orders working, and the margin its shorts are held under.
    mutating func refreshHolds() {
        book.holds = OrderHolds(working)
        book.margin = record.rules.margin
    }
}

/// The one writer of cash and positions in this process, and the memory that portfolio reads come
/// from.
///
/// Commands queue up; a batch takes whatever arrived while the previous batch was being written
/// (at most ``maxBatch``; a lone command goes at once), executes each through the core's engine
/// against the portfolios' current state, writes the effects of the whole batch in one database
/// transaction and only then answers each command. A rejected command rejects only itself. The
/// state in memory changes only after its transaction committed, so a read never sees a change
/// that could still be lost.
///
/// When other instances may write the same database (PostgreSQL), each batch's update of a
/// portfolio row is guarded by the version the batch started from, a batch that finds a
/// portfolio moved re-executes on the new state, and a read first asks the database for the
/// portfolio's version (one small query instead of the portfolio, its positions and its journal),
/// reading the rest again only when it moved.
actor Ledger {
    static let maxBatch = 512

    /// Most portfolios kept in memory; the least recently used go first.
    let capacity: Int

    typealias Delivery = @Sendable (Result<LedgerResult, any Error>) -> Void
    private var queue: [(command: LedgerCommand, deliver: Delivery)] = []
    private var draining = false
    /// Batches written (committed) since the start, and the commands they carried.
    private(set) var batchesWritten = 0
    private(set) var commandsWritten = 0
    /// Batches that found a portfolio moved by another writer, wrote nothing and ran again.
    private(set) var batchConflicts = 0
    private var portfolios: [PortfolioID: LedgerPortfolio] = [:]
    private var loads: [PortfolioID: Task<LedgerPortfolio?, any Error>] = [:]
    /// Bumped when a portfolio is dropped, so that a load started before does not bring back what it read.
    private var epochs: [PortfolioID: Int] = [:]
    private var owners: [UserID: [PortfolioID]] = [:]
    /// The portfolios of the batch being written (its state is not installed yet).
    private var writing: Set<PortfolioID> = []

    init(capacity: Int = 250_000) {
        self.capacity = capacity
    }

    // MARK: Commands

    /// Queues `command`, and answers once the batch it went in committed. When nothing is being
    /// written, the command is written at once, as a batch of its own, by the caller's task.
    func submit(_ command: LedgerCommand, store: BullpenStore) async throws -> LedgerResult {
        if !draining {
            draining = true
            let result = await run([command], store: store)[0]
            // What arrived meanwhile is written next, by a task of its own.
            if queue.isEmpty { draining = false } else { Task { await self.drain(store: store) } }
            return try result.get()
        }
        return try await withCheckedThrowingContinuation { answer in
            enqueue(command, store: store) { answer.resume(with: $0) }
        }
    }

    /// Queues `commands` together (they go in one batch, in this order, when there are at most
    /// ``maxBatch``), and answers each once written.
    func submit(_ commands: [LedgerCommand], store: BullpenStore) async -> [Result<LedgerResult, any Error>] {
        let collected = Collected(count: commands.count)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            guard !commands.isEmpty else { return done.resume() }
            for (index, command) in commands.enumerated() {
                enqueue(command, store: store) { result in
                    if collected.set(index, result) { done.resume() }
                }
            }
        }
        return collected.results
    }

    private func enqueue(_ command: LedgerCommand, store: BullpenStore, deliver: @escaping Delivery) {
        queue.append((command, deliver))
        if !draining {
            draining = true
            Task { await self.drain(store: store) }
        }
    }

    private func drain(store: BullpenStore) async {
        while !queue.isEmpty {
            let batch = Array(queue.prefix(Self.maxBatch))
            queue.removeFirst(batch.count)
            let results = await run(batch.map(\.command), store: store)
            for (item, result) in zip(batch, results) { item.deliver(result) }
        }
        draining = false
    }

    /// Executes and writes one batch, starting over (on fresh state) when another instance moved
    /// a portfolio or the database asks to retry.
    private func run(_ commands: [LedgerCommand], store: BullpenStore) async -> [Result<LedgerResult, any Error>] {
        var attempt = 0
        while true {
            attempt += 1
            var current: [PortfolioID: LedgerPortfolio] = [:]
            var plan: BatchPlan
            var epochsWritten: [PortfolioID: Int] = [:]
            do {
                for id in Set(commands.map(\.portfolio)) {
                    if let portfolio = try await loaded(id, store: store, fresh: false) { current[id] = portfolio }
                }
                let lookups = try await store.batchLookups(for: commands)
                // Whole milliseconds: what the database keeps of a time, so that the orders in
                // memory equal the orders read back.
                let now = Date(timeIntervalSince1970: (store.time.now().timeIntervalSince1970 * 1000).rounded(.down) / 1000)
                plan = BatchPlan(portfolios: current, lookups: lookups, now: now, ids: store.ids)
                for command in commands { plan.execute(command) }
                writing = plan.touched
                defer { writing = [] }
                for id in plan.touched { epochsWritten[id] = epochs[id, default: 0] }
                let started = ContinuousClock.now
                try await store.write(plan)
                if !plan.touched.isEmpty { StoreMetrics.batchWritten(commands: commands.count, committedIn: ContinuousClock.now - started) }
            } catch let conflict as BatchConflict {
                StoreMetrics.batchConflict()
                batchConflicts += 1
                conflict.portfolios.forEach(drop)
                if attempt < BullpenStore.maxAttempts { continue }
                return commands.map { _ in .failure(StoreError.contention) }
            } catch where BullpenStore.isTransient(error) || BullpenStore.isConstraintFailure(error) {
                if attempt < BullpenStore.maxAttempts {
                    await BullpenStore.backOff(after: attempt)
                    continue
                }
                return commands.map { _ in .failure(StoreError.contention) }
            } catch {
                return commands.map { _ in .failure(error) }
            }
            if !plan.touched.isEmpty {
                batchesWritten += 1
                commandsWritten += commands.count
            }
            let now = ContinuousClock.now
            for (id, var portfolio) in plan.portfolios where plan.touched.contains(id) {
                // Dropped while the batch was written (renamed, deleted, its owner gone): the
                // next use reads it again rather than bring back what the batch started from.
                guard epochs[id, default: 0] == epochsWritten[id] else { continue }
                portfolio.usedAt = now
                // The batch's trades go onto the session totals held now (which a read may have
                // set while the batch was planned); after a reset they are all there is.
                portfolio.today = portfolios[id]?.today.map { held in
                    var today = plan.resets.contains(id) ? SessionTrades.none(session: held.session) : held
                    today.include(plan.entries[id] ?? [])
                    return today
                }
                epochs[id, default: 0] += 1
                portfolios[id] = portfolio
            }
            return plan.results
        }
    }

    // MARK: Reads

    /// The portfolio's state if `owner` owns it.
    func state(of id: PortfolioID, owner: UserID, store: BullpenStore) async throws -> PortfolioState {
        try owned(try await loaded(id, store: store, fresh: true), by: owner).state
    }

    /// The portfolio as this instance holds it, not checked against other writers.
    func heldRecord(of id: PortfolioID, owner: UserID, store: BullpenStore) async throws -> PortfolioRecord {
        try owned(try await loaded(id, store: store, fresh: false), by: owner).record
    }

    /// The owner's portfolios, oldest first.
    func portfolios(of owner: UserID, store: BullpenStore) async throws -> [PortfolioRecord] {
        let ids: [PortfolioID]
        if let index = owners[owner], !store.hasOtherWriters {
            ids = index
        } else {
            ids = try await store.portfolioIDs(owner: owner)
            owners[owner] = ids
        }
        var records: [PortfolioRecord] = []
        for id in ids {
            if let portfolio = try await loaded(id, store: store, fresh: true), portfolio.record.ownerID == owner {
                records.append(portfolio.record)
            }
        }
        return records
    }

    /// The portfolio's state with its trades of `session` (see ``SessionTrades``).
    func sessionState(of id: PortfolioID, owner: UserID, session: SessionDate,
                      store: BullpenStore) async throws -> (state: PortfolioState, today: SessionTrades) {
        let portfolio = try owned(try await loaded(id, store: store, fresh: true), by: owner)
        if let today = portfolio.today, today.session == session { return (portfolio.state, today) }
        let epoch = epochs[id, default: 0]
        let today = SessionTrades(session: session, journal: try await store.sessionJournal(of: portfolio.record, session: session))
        // Keep them only if nothing was written meanwhile, nor is being written (they could miss
        // it, or hold it already when the batch adds its trades).
        if epochs[id, default: 0] == epoch, !writing.contains(id), var now = portfolios[id],
           now.journalSequence == portfolio.journalSequence,
           now.record.period == portfolio.record.period {
            now.today = today
            keep(now)
        }
        return (portfolio.state, today)
    }

    /// Forgets a portfolio (renamed, deleted, or its owner gone): the next use reads it again.
    func drop(_ id: PortfolioID) {
        portfolios[id] = nil
        epochs[id, default: 0] += 1
    }

    /// Forgets which portfolios `owner` has (one was created, renamed or deleted).
    func dropOwner(_ owner: UserID) {
        owners[owner] = nil
    }

    /// How many portfolios are held in memory.
    var loadedCount: Int { portfolios.count }

    // MARK: Memory

    private func owned(_ portfolio: LedgerPortfolio?, by owner: UserID) throws -> LedgerPortfolio {
        guard let portfolio, portfolio.record.ownerID == owner else { throw StoreError.notFound("Portfolio") }
        return portfolio
    }

    /// The portfolio from memory, or read from the database on first use (and, with `fresh`, when
    /// another writer moved it). Nil when it does not exist.
    private func loaded(_ id: PortfolioID, store: BullpenStore, fresh: Bool) async throws -> LedgerPortfolio? {
        if var portfolio = portfolios[id] {
            var current = true
            if fresh && store.hasOtherWriters {
                let version = try await store.portfolioVersion(id)
                current = version == portfolio.record.version
                if let held = portfolios[id] { portfolio = held }
            }
            if current {
                portfolio.usedAt = .now
                portfolios[id] = portfolio
                return portfolio
            }
        }
        if let load = loads[id] { return try await load.value }
        let epoch = epochs[id, default: 0]
        let load = Task { try await store.loadLedgerPortfolio(id) }
        loads[id] = load
        defer { loads[id] = nil }
        let read = try await load.value
        guard var read else { return nil }
        if epochs[id, default: 0] == epoch, (portfolios[id]?.record.version ?? .min) <= read.record.version {
            if let held = portfolios[id], held.record.version == read.record.version {
                read.today = held.today
            }
            keep(read)
        }
        return portfolios[id] ?? read
    }

    private func keep(_ portfolio: LedgerPortfolio) {
        portfolios[portfolio.record.id] = portfolio
        if portfolios.count > capacity { evictLeastRecentlyUsed() }
    }

    /// Drops the least recently used tenth of the portfolios held.
    private func evictLeastRecentlyUsed() {
        let victims = portfolios.values.sorted { $0.usedAt < $1.usedAt }.prefix(max(1, capacity / 10))
        for victim in victims { drop(victim.record.id) }
    }
}

/// Thrown inside a batch's transaction when portfolios moved since they were read (another
/// instance wrote them): the batch starts over after reading them again.
struct BatchConflict: Error {
    var portfolios: [PortfolioID]
}

/// The results of commands submitted together, filled in as their batches commit.
private final class Collected: Sendable {
    private let slots: Mutex<(results: [Result<LedgerResult, any Error>?], missing: Int)>

    init(count: Int) {
        slots = Mutex((Array(repeating: nil, count: count), count))
    }

    /// Records one result; true when it was the last one missing.
    func set(_ index: Int, _ result: Result<LedgerResult, any Error>) -> Bool {
        slots.withLock { slots in
            slots.results[index] = result
            slots.missing -= 1
            return slots.missing == 0
        }
    }

    var results: [Result<LedgerResult, any Error>] {
        slots.withLock { $0.results.map { $0 ?? .failure(StoreError.unavailable) } }
    }
}
