import BullpenCore
import FluentKit
import FluentSQL
import Foundation
import Synchronization

/// Leaderboards from memory, kept current by what changed.
///
/// Each board (a league, or the global leaderboard) is a *feed*: a row in `standings_feeds`
/// whose `seq` moves in the same transaction as any change of one of its portfolios (cash,
/// positions, trades, closing figures, clock, name, membership), and whose `epoch` moves when one
/// of them is deleted. Each portfolio carries its feed and the feed's `seq` at its last change.
/// A reader asks for the feed's row (one row by its key); when it has not moved, the board is
/// answered from memory; when it has, only the portfolios changed since are read again (and the
/// whole board when the epoch moved). The feed's row is updated in every writing transaction, so
/// its lock orders them: a change never commits with a sequence below one already read, and
/// another instance's changes are seen as soon as they commit.
///
/// League portfolios belong to their league's feed; other portfolios to the global feed once
/// their owner opts in to the global leaderboard (they stay in it after opting out, and are read
/// again and left out, so that nothing is missed if they opt in again).
struct StandingsBoard: Sendable {
    var seq: Int64
    var epoch: Int64
    var inputs: [PortfolioID: StandingInput]
    /// `inputs` as an array, made again when they change.
    var list: [StandingInput] = []
    /// The global board's recent closes, read on first demand from `windowsFrom` on.
    var windows: [PortfolioID: [EquitySnapshot]]?
    var windowsFrom: SessionDate?
    /// Portfolios changed by a read that did not ask for closes: theirs are read again by the
    /// next read that does.
    var staleWindows: Set<PortfolioID> = []
}

extension BullpenStore {
    /// The global leaderboard's feed (no league has this id).
    static let globalStandingsFeed = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))

    /// Puts each portfolio in its feed (its league's, or the global one if its owner opted in)
    /// and records that it changed: call in the transaction that changes it.
    func markStandings(_ portfolios: [UUID], on db: any Database) async throws {
        guard !portfolios.isEmpty else { return }
        let sql = sql(db)
        for chunk in Self.chunks(portfolios) {
            try await sql.raw("""
                UPDATE "portfolios" SET "standings_feed" = COALESCE("league_id", CASE WHEN
                    (SELECT "u"."public_leaderboard" FROM "users" AS "u" WHERE "u"."id" = "portfolios"."user_id") = \(bind: true)
                    THEN \(bind: Self.globalStandingsFeed) ELSE "standings_feed" END)
                WHERE "id" IN (\(binds: chunk))
                """).run()
            try await bumpFeeds(of: chunk, epoch: false, on: sql)
        }
    }

    /// Records that portfolios are about to be deleted: their boards are read again whole.
    func retireStandings(_ portfolios: [UUID], on db: any Database) async throws {
        for chunk in Self.chunks(portfolios) { try await bumpFeeds(of: chunk, epoch: true, on: sql(db)) }
    }

    private func bumpFeeds(of portfolios: [UUID], epoch: Bool, on sql: any SQLDatabase) async throws {
        try await sql.raw("""
            UPDATE "standings_feeds" SET "seq" = "seq" + 1\(unsafeRaw: epoch ? #", "epoch" = "epoch" + 1"# : "")
            WHERE "id" IN (SELECT "standings_feed" FROM "portfolios" WHERE "id" IN (\(binds: portfolios)))
            """).run()
        guard !epoch else { return }
        try await sql.raw("""
            UPDATE "portfolios" SET "standings_seq" = (SELECT "f"."seq" FROM "standings_feeds" AS "f"
                WHERE "f"."id" = "portfolios"."standings_feed")
            WHERE "id" IN (\(binds: portfolios)) AND "standings_feed" IS NOT NULL
            """).run()
    }

    static func chunks(_ ids: [UUID]) -> [[UUID]] {
        stride(from: 0, to: ids.count, by: 5_000).map { Array(ids[$0..<min($0 + 5_000, ids.count)]) }
    }

    // MARK: Reading

    /// What a league's leaderboard needs of each active member.
    public func standingInputs(of league: LeagueID) async throws -> [StandingInput] {
        try await board(league.uuid, windowsFrom: nil).list
    }

    /// What the global leaderboard needs of each live portfolio whose owner made it public and,
    /// with `windowsFrom`, each one's closes from that session on (ask for the earliest window
    /// needed: the closes before it are dropped from memory).
    public func publicStandingInputs(windowsFrom: SessionDate? = nil) async throws
        -> (inputs: [StandingInput], windows: [PortfolioID: [EquitySnapshot]]) {
        let board = try await board(Self.globalStandingsFeed, windowsFrom: windowsFrom)
        return (board.list, windowsFrom == nil ? [:] : board.windows ?? [:])
    }

    /// Forgets a board (a league deleted here).
    func forgetBoard(_ feed: UUID) {
        _ = standings.withLock { $0.removeValue(forKey: feed) }
    }

    /// The board of `feed` as of now: from memory, with what changed since read again.
    private func board(_ feed: UUID, windowsFrom: SessionDate?) async throws -> StandingsBoard {
        let sql = try sql(db)
        // The feed first: whatever commits after this read has a higher sequence.
        guard let row = try await sql.select().column("seq").column("epoch").from("standings_feeds")
            .where("id", .equal, feed).first()
        else { return StandingsBoard(seq: 0, epoch: 0, inputs: [:]) }
        let seq = try row.decode(column: "seq", as: Int64.self), epoch = try row.decode(column: "epoch", as: Int64.self)
        let cached = standings.withLock { $0[feed] }
        var board: StandingsBoard
        var changed: [PortfolioID]
        if let cached, cached.epoch == epoch {
            board = cached
            changed = []
            if cached.seq != seq {
                changed = try await readInputs(of: feed, after: cached.seq, into: &board.inputs)
            }
        } else {
            board = StandingsBoard(seq: seq, epoch: epoch, inputs: [:])
            changed = try await readInputs(of: feed, after: -1, into: &board.inputs)
        }
        board.seq = seq
        board.epoch = epoch
        if cached == nil || !changed.isEmpty { board.list = Array(board.inputs.values) }
        if let windowsFrom {
            if board.windows == nil || board.windowsFrom.map({ $0 > windowsFrom }) ?? true {
                board.windowsFrom = windowsFrom
                let read = try await snapshots(of: Array(board.inputs.keys), from: windowsFrom)
                board.windows = board.inputs.mapValues { read[$0.portfolio] ?? [] }
            } else {
                if let from = board.windowsFrom, from < windowsFrom {
                    // A new day: the closes before the window are dropped.
                    board.windowsFrom = windowsFrom
                    board.windows = board.windows?.mapValues { $0.filter { $0.date >= windowsFrom } }
                }
                let outdated = Array(board.staleWindows.union(changed))
                if !outdated.isEmpty {
                    let fresh = try await snapshots(of: outdated, from: windowsFrom)
                    for id in outdated { board.windows?[id] = board.inputs[id] == nil ? nil : fresh[id] ?? [] }
                }
            }
            board.staleWindows = []
        } else if board.windows != nil {
            board.staleWindows.formUnion(changed)
        }
        let result = board
        standings.withLock { boards in
            // A newer read stored meanwhile stays.
            if let stored = boards[feed], stored.epoch == result.epoch, stored.seq > result.seq { return }
            if let stored = boards[feed], stored.epoch == result.epoch, stored.seq == result.seq,
               stored.windows != nil, result.windows == nil || !result.staleWindows.isEmpty && stored.staleWindows.isEmpty { return }
            boards[feed] = result
        }
        return result
    }

    /// Reads the feed's portfolios changed after `seq` (all of them for -1) into `inputs`: those
    /// still on the board replaced, the others removed. Returns the portfolios read.
    private func readInputs(of feed: UUID, after seq: Int64, into inputs: inout [PortfolioID: StandingInput]) async throws
        -> [PortfolioID] {
        let sql = try sql(db)
        let global = feed == Self.globalStandingsFeed
        // Which of the feed's portfolios are on its board: a league's active members; on the
        // global board, live portfolios outside leagues whose owner opted in.
        let onBoard: SQLQueryString = global
            // (A portfolio topped up in its period is not ranked: its daily figures count the deposit as a gain.)
            ? #"""
              "p"."league_id" IS NULL AND "p"."closed_at" IS NULL AND "p"."clock" = 'live' AND "u"."public_leaderboard" = \#(bind: true)
              AND NOT EXISTS (SELECT 1 FROM "journal_entries" AS "j" WHERE "j"."portfolio_id" = "p"."id" AND "j"."kind" = 'grant'
                              AND "j"."period" = "p"."period")
              """#
            : #""m"."status" = 'active'"#
        let rows = try await sql.raw("""
            SELECT "p"."id", "p"."user_id", "u"."username", "p"."name", "p"."created_at", "p"."starting_cash_cents",
                   "p"."cash_cents", "p"."replay", "s"."through", "s"."sessions", "s"."last_cents", "s"."previous_cents",
                   "s"."peak_cents", "s"."max_drawdown", "s"."sum_returns", "s"."sum_squares", "m"."joined_at",
                   CASE WHEN \(onBoard) THEN 1 ELSE 0 END AS "on_board",
                   (SELECT COUNT(*) FROM "orders" AS "o" WHERE "o"."portfolio_id" = "p"."id" AND "o"."period" = "p"."period"
                    AND "o"."filled_quantity" > 0) AS "trades"
            FROM "portfolios" AS "p" JOIN "users" AS "u" ON "u"."id" = "p"."user_id"
            LEFT JOIN "league_members" AS "m" ON "m"."portfolio_id" = "p"."id"
            LEFT JOIN "equity_stats" AS "s" ON "s"."portfolio_id" = "p"."id" AND "s"."period" = "p"."period"
            WHERE "p"."standings_feed" = \(bind: feed) AND "p"."standings_seq" > \(bind: seq)
            """).all()
        let positions = try await sql.raw("""
            SELECT "pos"."portfolio_id", "pos"."symbol", "pos"."quantity", "pos"."cost_basis_cents" FROM "positions" AS "pos"
            WHERE "pos"."quantity" <> 0 AND "pos"."portfolio_id" IN (SELECT "p"."id" FROM "portfolios" AS "p"
                WHERE "p"."standings_feed" = \(bind: feed) AND "p"."standings_seq" > \(bind: seq))
            """).all()
        var read: [PortfolioID] = []
        var fresh: Set<PortfolioID> = []
        for row in rows {
            let id = PortfolioID(try row.decode(column: "id", as: UUID.self))
            read.append(id)
            guard try row.decode(column: "on_board", as: Int.self) == 1 else {
                inputs[id] = nil
                continue
            }
            let startingCash = Money(cents: try row.decode(column: "starting_cash_cents", as: Int64.self))
            inputs[id] = StandingInput(
                portfolio: id, player: UserID(try row.decode(column: "user_id", as: UUID.self)),
                username: try row.decode(column: "username", as: String.self),
                portfolioName: try row.decode(column: "name", as: String.self),
                joinedAt: try row.decode(column: "joined_at", as: Date?.self) ?? (try row.decode(column: "created_at", as: Date.self)),
                startingCash: startingCash, cash: Money(cents: try row.decode(column: "cash_cents", as: Int64.self)),
                holdings: [:], costs: [:],
                replayStart: try row.decode(column: "replay", as: String?.self).flatMap {
                    try? JSONDecoder().decode(ReplayInfo.self, from: Data($0.utf8)).start },
                stats: try EquityStatsRow.stats(of: row, startingCash: startingCash),
                trades: try row.decode(column: "trades", as: Int.self))
            fresh.insert(id)
        }
        for row in positions {
            let id = PortfolioID(try row.decode(column: "portfolio_id", as: UUID.self))
            let text = try row.decode(column: "symbol", as: String.self)
            // (A portfolio changed between the two reads is read again next time, whole.)
            guard fresh.contains(id), let symbol = Symbol(text) else { continue }
            inputs[id]!.holdings[symbol] = Quantity(units: try row.decode(column: "quantity", as: Int64.self))
            inputs[id]!.costs[symbol] = Money(cents: try row.decode(column: "cost_basis_cents", as: Int64.self))
        }
        return read
    }
}
