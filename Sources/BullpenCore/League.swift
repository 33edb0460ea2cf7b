import Foundation

/// Whether anyone may find and join a league, or only those given its code.
public enum LeagueVisibility: String, Sendable, Hashable, Codable, CaseIterable {
    case `public`, `private`
}

/// Where a league stands in its life, from its dates and the moment asked.
public enum LeagueStatus: String, Sendable, Hashable, Codable {
    case upcoming, active, ended

    public static func at(_ now: Date, startsAt: Date, endsAt: Date?) -> LeagueStatus {
        if now < startsAt { return .upcoming }
        if let endsAt, now >= endsAt { return .ended }
        return .active
    }
}

/// The time a league's portfolios live at: the live market, or one historical clock they all
/// share, moved by the owner or by a schedule.
public enum LeagueClock: Sendable, Hashable, Codable {
    case live
    /// `start` as asked (a month, a day or `random`), resolved once into the league's first session.
    case replay(start: String, advance: LeagueAdvance)

    public var isReplay: Bool { if case .replay = self { true } else { false } }
    public var advance: LeagueAdvance? { if case .replay(_, let advance) = self { advance } else { nil } }
}

/// How a replay league's clock moves.
public enum LeagueAdvance: Sendable, Hashable, Codable {
    /// Only when the owner says so.
    case manual
    /// `days` trading days every `seconds`.
    case every(seconds: Int, days: Int)

    /// Parses an interval such as `15m`, `1h`, `12h` or `1d` (15 minutes to 7 days) into seconds.
    public static func interval(parsing text: String) -> Int? {
        guard let unit = text.last, let count = Int(text.dropLast()), count > 0, count <= 10_080 else { return nil }
        let seconds: Int
        switch unit {
        case "m": seconds = count * 60
        case "h": seconds = count * 3_600
        case "d": seconds = count * 86_400
        default: return nil
        }
        return (900...7 * 86_400).contains(seconds) ? seconds : nil
    }

    /// The interval as written back: `1h`, `90m`, `2d`.
    public static func describe(seconds: Int) -> String {
        if seconds % 86_400 == 0 { return "\(seconds / 86_400)d" }
        if seconds % 3_600 == 0 { return "\(seconds / 3_600)h" }
        return "\(seconds / 60)m"
    }
}

/// What a league decides beyond the order rules: who may join late and who sees holdings.
public struct LeagueSettings: Sendable, Hashable, Codable {
    /// Whether players may join once the league has started.
    public var lateJoin: Bool
    /// Whether members see each other's positions (equity and rank are always visible).
    public var holdingsVisible: Bool

    public init(lateJoin: Bool = true, holdingsVisible: Bool = false) {
        self.lateJoin = lateJoin
        self.holdingsVisible = holdingsVisible
    }
}

/// A league's join code: 8 characters from an alphabet without look-alikes (no 0/O, 1/I/L), read
/// case-insensitively, with spaces and dashes ignored.
public enum JoinCode {
    public static let alphabet = Array("ABCDEFGHJKMNPQRSTUVWXYZ23456789")
    public static let length = 8

    public static func generate(using random: inout some RandomNumberGenerator) -> String {
        String((0..<length).map { _ in alphabet.randomElement(using: &random)! })
    }

    /// A code from the system's random numbers.
    public static func generate() -> String {
        var random = SystemRandomNumberGenerator()
        return generate(using: &random)
    }

    /// The code as typed, normalized; nil when it cannot be a code.
    public static func normalize(_ text: String) -> String? {
        let code = text.uppercased().filter { $0 != " " && $0 != "-" }
        guard code.count == length, code.allSatisfy(alphabet.contains) else { return nil }
        return code
    }
}

/// A portfolio's daily figures folded as its closing equity is stored, session by session: all a
/// leaderboard needs without reading the snapshots again. Returns are ratios (not money), so
/// they are `Double`; money stays in cents.
public struct EquityStats: Sendable, Hashable {
    /// The last session folded in.
    public var through: SessionDate?
    public var sessions: Int
    /// Equity at the last session folded in (the starting cash before any).
    public var last: Money
    /// Equity at the session before `through` (the starting cash when there is one session).
    public var previous: Money
    public var peak: Money
    /// The deepest fall from a peak, in hundredths of a percent of that peak.
    public var maxDrawdown: Int64
    /// Sums of the daily returns and of their squares.
    public var sumReturns: Double
    public var sumSquares: Double

    public init(startingCash: Money) {
        through = nil
        sessions = 0
        last = startingCash
        previous = startingCash
        peak = startingCash
        maxDrawdown = 0
        sumReturns = 0
        sumSquares = 0
    }

    /// Folds in the snapshots after `through`, in date order (earlier ones were folded already).
    public mutating func add(_ snapshots: [EquitySnapshot]) {
        for snapshot in snapshots.sorted(by: { $0.date < $1.date }) where through.map({ snapshot.date > $0 }) ?? true {
            let equity = snapshot.equity
            if last.cents > 0 {
                let r = Double(equity.cents) / Double(last.cents) - 1
                sumReturns += r
                sumSquares += r * r
            }
            previous = last
            last = equity
            through = snapshot.date
            sessions += 1
            peak = max(peak, equity)
            maxDrawdown = max(maxDrawdown, Self.drawdown(from: peak, to: equity))
        }
    }

    public static func drawdown(from peak: Money, to equity: Money) -> Int64 {
        guard peak.cents > 0, equity < peak else { return 0 }
        return FixedPoint.divideRounded((peak.cents - equity.cents) * 10_000, by: peak.cents)
    }
}

/// Ranks players by one of four measures. Every figure comes from stored closing equity plus
/// the current valuation: nothing replays a journal.
public enum Leaderboard {
    public enum Metric: String, Sendable, Hashable, Codable, CaseIterable {
        /// Total return since the start.
        case `return`
        /// Sharpe ratio of daily returns, annualised (×√252), risk-free rate 0.
        case sharpe
        /// Maximum drawdown: the deepest fall from a high, smallest first.
        case drawdown
        /// Total return less the S&P 500's over the same days.
        case vsBenchmark = "vs_benchmark"
    }

    /// One player's inputs.
    public struct Entry: Sendable, Hashable {
        public var player: UserID
        public var name: String
        public var startingCash: Money
        public var equity: Money
        public var stats: EquityStats
        /// The session the current equity stands on (live: today's; replay: the league's date).
        public var session: SessionDate
        /// The benchmark's return over the player's days, in hundredths of a percent (nil without data).
        public var benchmarkReturn: Int64?
        public var trades: Int
        public var portfolio: PortfolioID?

        public init(player: UserID, name: String, startingCash: Money, equity: Money, stats: EquityStats,
                    session: SessionDate, benchmarkReturn: Int64?, trades: Int, portfolio: PortfolioID? = nil) {
            self.portfolio = portfolio
            self.player = player; self.name = name; self.startingCash = startingCash; self.equity = equity
            self.stats = stats; self.session = session; self.benchmarkReturn = benchmarkReturn; self.trades = trades
        }
    }

    /// A player's figures and rank.
    public struct Standing: Sendable, Hashable {
        public var rank: Int
        public var player: UserID
        public var name: String
        public var equity: Money
        /// In hundredths of a percent.
        public var totalReturn: Int64
        public var todayChange: Money
        /// In hundredths (1.23 is 123); nil with fewer than two daily returns or no variation.
        public var sharpe: Int64?
        /// In hundredths of a percent, zero or positive.
        public var maxDrawdown: Int64
        /// Total return less the benchmark's, in hundredths of a percent.
        public var vsBenchmark: Int64?
        public var trades: Int
        public var portfolio: PortfolioID?
    }

    /// The figures of one entry, the current equity counted as the latest day.
    public static func figures(of entry: Entry) -> Standing {
        // The current valuation is the latest day, unless its session's close is stored already.
        var current = entry.stats
        if entry.stats.through.map({ entry.session > $0 }) ?? true {
            current.add([EquitySnapshot(date: entry.session, cash: entry.equity, marketValue: .zero)])
        }
        let reference = entry.stats.through == entry.session ? entry.stats.previous : entry.stats.last
        let totalReturn = entry.startingCash.cents > 0
            ? FixedPoint.divideRounded((entry.equity.cents - entry.startingCash.cents) * 10_000, by: entry.startingCash.cents) : 0
        let drawdown = max(current.maxDrawdown, EquityStats.drawdown(from: current.peak, to: entry.equity))
        return Standing(rank: 0, player: entry.player, name: entry.name, equity: entry.equity, totalReturn: totalReturn,
                        todayChange: entry.equity - reference, sharpe: sharpe(current), maxDrawdown: drawdown,
                        vsBenchmark: entry.benchmarkReturn.map { totalReturn - $0 }, trades: entry.trades,
                        portfolio: entry.portfolio)
    }

    /// The annualised Sharpe ratio of the folded daily returns, in hundredths.
    public static func sharpe(_ stats: EquityStats) -> Int64? {
        let n = Double(stats.sessions)
        guard stats.sessions >= 2 else { return nil }
        let mean = stats.sumReturns / n
        let variance = (stats.sumSquares - n * mean * mean) / (n - 1)
        guard variance > 1e-18 else { return nil }
        let ratio = mean / variance.squareRoot() * 252.0.squareRoot()
        guard ratio.isFinite else { return nil }
        return Int64((ratio * 100).rounded())
    }

    /// The value a standing is ranked by under `metric` (larger is better), nil ranking last.
    static func key(_ standing: Standing, _ metric: Metric) -> Int64? {
        switch metric {
        case .return: standing.totalReturn
        case .sharpe: standing.sharpe
        case .drawdown: -standing.maxDrawdown
        case .vsBenchmark: standing.vsBenchmark
        }
    }

    /// Every entry's figures, best first under `metric`. Equal figures (as shown, to the
    /// hundredth) share a rank, and the next rank skips them (1, 1, 3); players without the
    /// figure come last, sharing the last rank. Within a rank, by name.
    public static func rank(_ entries: [Entry], by metric: Metric) -> [Standing] {
        let standings = entries.map(figures)
        let keys = standings.map { key($0, metric) }
        // Positions are sorted, not the standings themselves (moving them is most of the work).
        let order = standings.indices.sorted { i, j in
            if keys[i] != keys[j] {
                guard let ki = keys[i] else { return false }
                guard let kj = keys[j] else { return true }
                return ki > kj
            }
            if standings[i].name != standings[j].name { return standings[i].name < standings[j].name }
            if standings[i].player != standings[j].player { return standings[i].player.uuid < standings[j].player.uuid }
            return (standings[i].portfolio?.uuid ?? standings[i].player.uuid) < (standings[j].portfolio?.uuid ?? standings[j].player.uuid)
        }
        var ranked: [Standing] = []
        ranked.reserveCapacity(order.count)
        for (position, index) in order.enumerated() {
            var standing = standings[index]
            standing.rank = position > 0 && keys[index] == keys[order[position - 1]] ? ranked[position - 1].rank : position + 1
            ranked.append(standing)
        }
        return ranked
    }
}

/// A stored league.
public struct LeagueRecord: Sendable, Hashable {
    public var id: LeagueID
    public var ownerID: UserID
    public var name: String
    public var description: String
    public var visibility: LeagueVisibility
    public var code: String
    public var startingCash: Money
    public var clock: LeagueClock
    /// The order rules every member's portfolio trades under (the league's dates are added as
    /// the trading window when a portfolio is made).
    public var rules: PortfolioRules
    public var settings: LeagueSettings
    public var defaultMetric: Leaderboard.Metric
    public var startsAt: Date
    public var endsAt: Date?
    /// A replay league's first session and the session its clock stands on.
    public var replayStart: SessionDate?
    public var replayDate: SessionDate?
    /// When a scheduled replay league moves next.
    public var nextAdvanceAt: Date?
    public var createdAt: Date
    public var updatedAt: Date
    public var version: Int64

    public init(id: LeagueID, ownerID: UserID, name: String, description: String, visibility: LeagueVisibility,
                code: String, startingCash: Money, clock: LeagueClock, rules: PortfolioRules, settings: LeagueSettings,
                defaultMetric: Leaderboard.Metric, startsAt: Date, endsAt: Date?, replayStart: SessionDate?,
                replayDate: SessionDate?, nextAdvanceAt: Date?, createdAt: Date, updatedAt: Date, version: Int64) {
        self.id = id; self.ownerID = ownerID; self.name = name; self.description = description
        self.visibility = visibility; self.code = code; self.startingCash = startingCash; self.clock = clock
        self.rules = rules; self.settings = settings; self.defaultMetric = defaultMetric; self.startsAt = startsAt
        self.endsAt = endsAt; self.replayStart = replayStart; self.replayDate = replayDate
        self.nextAdvanceAt = nextAdvanceAt; self.createdAt = createdAt; self.updatedAt = updatedAt; self.version = version
    }

    public func status(at now: Date) -> LeagueStatus { .at(now, startsAt: startsAt, endsAt: endsAt) }

    /// The rules of a member's portfolio: the league's, open from its start to its end.
    public var portfolioRules: PortfolioRules {
        var rules = rules
        rules.tradingOpens = startsAt
        rules.tradingCloses = endsAt
        return rules
    }

    /// The clock a member's portfolio stands on now.
    public var portfolioClock: PortfolioClock {
        if let replayDate { return .replay(replayDate.date) }
        return .live
    }

    /// How a member's replay portfolio begins: on the league's date, with cash only.
    public var portfolioReplay: ReplayInfo? { replayDate.map { ReplayInfo(start: $0, scenario: nil, holdings: [:]) } }
}

/// A player's place in a league.
public struct LeagueMember: Sendable, Hashable {
    public enum Status: String, Sendable, Hashable, Codable { case active, left, kicked }

    public var userID: UserID
    public var username: String
    public var portfolioID: PortfolioID?
    public var status: Status
    /// Whether a removed player may join again.
    public var mayRejoin: Bool
    public var joinedAt: Date
    public var leftAt: Date?

    public init(userID: UserID, username: String, portfolioID: PortfolioID?, status: Status, mayRejoin: Bool,
                joinedAt: Date, leftAt: Date?) {
        self.userID = userID; self.username = username; self.portfolioID = portfolioID; self.status = status
        self.mayRejoin = mayRejoin; self.joinedAt = joinedAt; self.leftAt = leftAt
    }
}
