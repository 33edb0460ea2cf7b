import Foundation

/// How an achievement is earned: one of the facts that the places where things happen report
/// (see ``AchievementEvent``). A new achievement is a new line in ``Achievement/catalog`` with one
/// of these rules; a new kind of rule is a case here and a line in ``Achievement/isMet(by:)``.
public enum AchievementRule: Sendable, Hashable {
    /// Fills made in all portfolios together, at least this many.
    case trades(atLeast: Int)
    /// A sale (or a buy back of a written contract) that realized a gain.
    case profitableClose
    /// Shares of companies in at least this many sectors held at once in one portfolio.
    case sectorsHeld(atLeast: Int)
    /// A trade of an option contract.
    case optionTrade
    /// A portfolio's return over its last `sessions` closes above the S&P 500's over the same closes.
    case beatBenchmark(sessions: Int)
    /// A final rank of `rank` or better in a league of at least `players` players.
    case leagueRank(atBest: Int, players: Int)
    /// A replay of a scenario of this kind that reached the scenario's end holding shares at every close after its first.
    case heldThroughScenario(kind: String)
    /// Days in a row with a sign-in, at least this many.
    case signInStreak(days: Int)
    /// Followers, at least this many.
    case followers(atLeast: Int)
    /// Leagues joined, at least this many.
    case leaguesJoined(atLeast: Int)
    /// A portfolio made public.
    case portfolioShared
    /// A replay ended (by its player or at the end of the data).
    case replayFinished
    /// Pass this many lessons' quizzes.
    case quizzesPassed(atLeast: Int)
}

/// Something that happened to a player, with the facts the rules are checked against. Reported
/// from one place per kind (the order route, sign-in, the replay and league services, follows);
/// ``Achievement/earned(by:already:)`` decides what it earns.
public enum AchievementEvent: Sendable, Hashable {
    /// A fill: the player's fills in all portfolios so far (this one included), its realized
    /// P&L, whether it was an option, and the sectors the portfolio holds after it.
    case traded(fills: Int, realizedPnL: Money, option: Bool, sectorsHeld: Int)
    /// A signed-in day: the days in a row so far.
    case signedIn(streak: Int)
    /// A portfolio's return and the S&P 500's over its last `sessions` closes.
    case closes(sessions: Int, portfolioReturn: Percent, benchmarkReturn: Percent)
    case leagueEnded(rank: Int, players: Int)
    /// A replay passed the end of a scenario of `kind`, holding shares at every close after the first (or not).
    case scenarioPassed(kind: String, heldEveryClose: Bool)
    case replayEnded
    case followed(followers: Int)
    case joinedLeague(leagues: Int)
    case sharedPortfolio
    /// A lesson's quiz passed: the player's passed quizzes so far (this one included).
    case quizzesPassed(Int)
}

/// An achievement: what it is called, what it asks, how it is earned. The list is the data of
/// ``catalog``; grants happen in one place on the server, once per player and achievement.
public struct Achievement: Sendable, Hashable, Identifiable {
    /// Stable: stored with each grant.
    public var id: String
    public var name: String
    public var description: String
    public var rule: AchievementRule

    public init(id: String, name: String, description: String, rule: AchievementRule) {
        self.id = id; self.name = name; self.description = description; self.rule = rule
    }

    /// Whether `event` meets this achievement's rule.
    public func isMet(by event: AchievementEvent) -> Bool {
        switch (rule, event) {
        case (.trades(let least), .traded(let fills, _, _, _)): fills >= least
        case (.profitableClose, .traded(_, let pnl, _, _)): pnl > .zero
        case (.sectorsHeld(let least), .traded(_, _, _, let sectors)): sectors >= least
        case (.optionTrade, .traded(_, _, let option, _)): option
        case (.beatBenchmark(let wanted), .closes(let sessions, let mine, let benchmark)): sessions >= wanted && mine > benchmark
        case (.leagueRank(let best, let least), .leagueEnded(let rank, let players)): players >= least && rank >= 1 && rank <= best
        case (.heldThroughScenario(let wanted), .scenarioPassed(let kind, let held)): kind == wanted && held
        case (.signInStreak(let days), .signedIn(let streak)): streak >= days
        case (.followers(let least), .followed(let followers)): followers >= least
        case (.leaguesJoined(let least), .joinedLeague(let leagues)): leagues >= least
        case (.portfolioShared, .sharedPortfolio): true
        case (.replayFinished, .replayEnded): true
        case (.quizzesPassed(let least), .quizzesPassed(let passed)): passed >= least
        default: false
        }
    }

    /// The achievements `event` earns that are not among `already`, in catalog order.
    public static func earned(by event: AchievementEvent, already: Set<String>) -> [Achievement] {
        catalog.filter { !already.contains($0.id) && $0.isMet(by: event) }
    }

    public static func named(_ id: String) -> Achievement? { catalog.first { $0.id == id } }

    /// Sessions of the "beat the market over a month" rule: the longest any rule asks for.
    public static var benchmarkWindow: Int {
        catalog.compactMap { if case .beatBenchmark(let sessions) = $0.rule { sessions } else { nil } }.max() ?? 0
    }

    /// Every achievement, in the order a profile lists them.
    public static let catalog: [Achievement] = [
        Achievement(id: "first-trade", name: "First trade", description: "Place your first order and see it fill.",
                    rule: .trades(atLeast: 1)),
        Achievement(id: "first-profit", name: "First profit", description: "Sell shares for more than they cost you.",
                    rule: .profitableClose),
        Achievement(id: "ten-trades", name: "Ten trades", description: "Make ten trades, in any of your portfolios.",
                    rule: .trades(atLeast: 10)),
        Achievement(id: "hundred-trades", name: "Active trader", description: "Make a hundred trades.",
                    rule: .trades(atLeast: 100)),
        Achievement(id: "diversified", name: "Diversified", description: "Hold companies from five different sectors at once in one portfolio.",
                    rule: .sectorsHeld(atLeast: 5)),
        Achievement(id: "beat-the-market", name: "Beat the market", description: "Do better than the S&P 500 over a month (21 trading days) in one portfolio.",
                    rule: .beatBenchmark(sessions: 21)),
        Achievement(id: "league-podium", name: "On the podium", description: "Finish a league of at least five players in the top three.",
                    rule: .leagueRank(atBest: 3, players: 5)),
        Achievement(id: "league-winner", name: "League champion", description: "Win a league of at least five players.",
                    rule: .leagueRank(atBest: 1, players: 5)),
        Achievement(id: "diamond-hands", name: "Held through the storm", description: "Hold shares through a bear-market scenario in replay, to its end, at every close.",
                    rule: .heldThroughScenario(kind: "bear")),
        Achievement(id: "first-option", name: "Options trader", description: "Buy or write your first option contract.",
                    rule: .optionTrade),
        Achievement(id: "streak-7", name: "A week in a row", description: "Sign in seven days in a row.",
                    rule: .signInStreak(days: 7)),
        Achievement(id: "streak-30", name: "Thirty-day streak", description: "Sign in thirty days in a row.",
                    rule: .signInStreak(days: 30)),
        Achievement(id: "time-traveller", name: "Time traveller", description: "Finish a historical replay.",
                    rule: .replayFinished),
        Achievement(id: "league-joiner", name: "Team player", description: "Join a league.",
                    rule: .leaguesJoined(atLeast: 1)),
        Achievement(id: "open-book", name: "Open book", description: "Make a portfolio public for others to learn from.",
                    rule: .portfolioShared),
        Achievement(id: "followed-10", name: "Worth following", description: "Have ten followers.",
                    rule: .followers(atLeast: 10)),
        Achievement(id: "first-lesson", name: "Quick study", description: "Pass a lesson's quiz in Learn.",
                    rule: .quizzesPassed(atLeast: 1)),
        Achievement(id: "all-lessons", name: "Well read", description: "Pass the quiz of every lesson in Learn.",
                    rule: .quizzesPassed(atLeast: 13)),
    ]
}

extension AchievementEvent {
    /// The portfolio's return and the benchmark's over the last `sessions` closes of `snapshots`
    /// (measured from the close before them), or nil with too few closes or no benchmark close
    /// at either end.
    public static func closes(_ snapshots: [EquitySnapshot], benchmark: [SessionDate: Price], sessions: Int) -> AchievementEvent? {
        let ordered = snapshots.sorted { $0.date < $1.date }
        guard sessions > 0, ordered.count > sessions, let first = ordered.dropLast(sessions).last, let last = ordered.last,
              let from = benchmark[first.date], let to = benchmark[last.date], from.ticks > 0,
              let mine = (last.equity - first.equity).percent(of: first.equity) else { return nil }
        let market = Percent(hundredths: FixedPoint.divideRounded((to.ticks - from.ticks) * 10_000, by: from.ticks))
        return .closes(sessions: sessions, portfolioReturn: mine, benchmarkReturn: market)
    }

    /// Whether a replay held shares at every close after `start` through `end` (the scenario's
    /// last day, which the replay reached or passed): `snapshots` are the replay's closes.
    public static func heldThrough(_ snapshots: [EquitySnapshot], from start: SessionDate, through end: SessionDate) -> Bool {
        let inside = snapshots.filter { $0.date > start && $0.date <= end }
        return !inside.isEmpty && inside.allSatisfy { $0.marketValue > .zero } && snapshots.contains { $0.date >= end }
    }
}

/// Days in a row with a sign-in, counted in UTC days.
public enum SignInStreak {
    /// The streak after a sign-in on `today`, given the last day counted and the streak then.
    public static func after(signingInOn today: SessionDate, last: SessionDate?, streak: Int) -> Int {
        guard let last else { return 1 }
        if last == today { return max(streak, 1) }
        if last.adding(days: 1) == today { return streak + 1 }
        return 1
    }
}

/// A grant of an achievement to a player.
public struct AchievementGrant: Sendable, Hashable {
    public var id: UUID
    public var user: UserID
    public var achievement: String
    public var earnedAt: Date

    public init(id: UUID, user: UserID, achievement: String, earnedAt: Date) {
        self.id = id; self.user = user; self.achievement = achievement; self.earnedAt = earnedAt
    }
}
