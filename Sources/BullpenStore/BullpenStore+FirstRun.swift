import BullpenCore
import FluentKit
import FluentSQL
import Foundation

struct FirstRunRow: Codable, Sendable {
    var id: UUID
    var userId: UUID
    var startedAt: Date?
    var foundAt: Date?
    var seenAt: Date?
    var skippedAt: Date?
    var finishedAt: Date?

    init(id: UUID, userId: UUID, run: FirstRun) {
        self.id = id; self.userId = userId
        startedAt = run.startedAt; foundAt = run.foundAt; seenAt = run.seenAt; skippedAt = run.skippedAt
        finishedAt = run.finishedAt
    }

    var run: FirstRun {
        FirstRun(startedAt: startedAt, foundAt: foundAt, seenAt: seenAt, skippedAt: skippedAt, finishedAt: finishedAt)
    }
}

/// A player's first run as it stands: what is stored, and whether they bought since it started.
public struct FirstRunState: Sendable, Hashable {
    public var run: FirstRun
    public var bought: Bool
}

extension BullpenStore {
    /// The player's first run; an account from before first runs existed has an `available` one.
    public func firstRun(owner: UserID) async throws -> FirstRunState {
        try await firstRun(owner: owner, on: db)
    }

    /// Starts the first run again from its first step (from Help), or for the first time.
    public func startFirstRun(owner: UserID) async throws -> FirstRunState {
        try await saveFirstRun(owner: owner) { _, _ in .success(.started(at: self.time.now())) }.get()
    }

    /// Skips the first run; a finished one stays finished.
    public func skipFirstRun(owner: UserID) async throws -> FirstRunState {
        try await saveFirstRun(owner: owner) { run, _ in .success(run.skipping(at: self.time.now())) }.get()
    }

    /// Marks `step` done (the rules are ``FirstRun/marking(_:bought:at:)``'s).
    public func markFirstRun(_ step: FirstRunStep, owner: UserID) async throws -> Result<FirstRunState, FirstRun.Refusal> {
        try await saveFirstRun(owner: owner) { run, bought in run.marking(step, bought: bought, at: self.time.now()) }
    }

    /// Reads the run, changes it with `change` and writes it back, in one transaction.
    private func saveFirstRun(owner: UserID, _ change: @escaping @Sendable (FirstRun, Bool) -> Result<FirstRun, FirstRun.Refusal>)
        async throws -> Result<FirstRunState, FirstRun.Refusal> {
        try await transaction { db in
            // A skip and a step (or a start from another tab) at once do not undo each other.
            try await self.lockPlayer(owner, on: db)
            let stored = try await self.firstRunRow(owner: owner, on: db)
            let current = stored?.run ?? FirstRun()
            let bought = try await self.bought(in: current, owner: owner, on: db)
            switch change(current, bought) {
            case .failure(let refusal): return .failure(refusal)
            case .success(let run) where run == current: return .success(FirstRunState(run: run, bought: bought))
            case .success(let run):
                let row = FirstRunRow(id: stored?.id ?? self.ids.makeUUID(), userId: owner.uuid, run: run)
                try await self.sql(db).insert(into: "first_runs").model(row, with: Self.rowEncoder)
                    .onConflict(with: ["user_id"]) { update in
                        update.set(excludedValueOf: "started_at").set(excludedValueOf: "found_at").set(excludedValueOf: "seen_at")
                            .set(excludedValueOf: "skipped_at").set(excludedValueOf: "finished_at")
                    }.run()
                // A run started again counts only what is bought from now on.
                let boughtNow = run.startedAt == current.startedAt ? bought : try await self.bought(in: run, owner: owner, on: db)
                return .success(FirstRunState(run: run, bought: boughtNow))
            }
        }
    }

    private func firstRun(owner: UserID, on db: any Database) async throws -> FirstRunState {
        let run = try await firstRunRow(owner: owner, on: db)?.run ?? FirstRun()
        return FirstRunState(run: run, bought: try await bought(in: run, owner: owner, on: db))
    }

    /// Whether the player bought since `run` started, while it matters (a finished run's steps are all done).
    private func bought(in run: FirstRun, owner: UserID, on db: any Database) async throws -> Bool {
        run.finishedAt != nil ? true : try await boughtSince(run.startedAt, owner: owner, on: db)
    }

    private func firstRunRow(owner: UserID, on db: any Database) async throws -> FirstRunRow? {
        try await sql(db).select().column("*").from("first_runs").where("user_id", .equal, owner.uuid)
            .first(decoding: FirstRunRow.self, with: Self.rowDecoder)
    }

    /// Whether the player bought shares (or coins), in any portfolio, since `start`: option contracts
    /// (symbols longer than a stock's, as `Symbol.isOption` tells) and a margin call's forced buy-back
    /// are not the player buying a share. One row at most is read, however many such fills there are.
    private func boughtSince(_ start: Date?, owner: UserID, on db: any Database) async throws -> Bool {
        guard let start else { return false }
        return try await sql(db).raw("""
            SELECT 1 AS "one" FROM "fills" AS "f"
            JOIN "portfolios" AS "p" ON "p"."id" = "f"."portfolio_id"
            JOIN "orders" AS "o" ON "o"."id" = "f"."order_id"
            WHERE "p"."user_id" = \(bind: owner.uuid) AND "f"."side" = \(bind: OrderSide.buy.rawValue)
              AND "f"."created_at" >= \(bind: start) AND LENGTH("f"."symbol") <= \(bind: Symbol.maxStockLength)
              AND ("o"."reason" IS NULL OR "o"."reason" NOT LIKE \(bind: BatchPlan.buyBackReason + "%"))
            LIMIT 1
            """).first() != nil
    }
}
