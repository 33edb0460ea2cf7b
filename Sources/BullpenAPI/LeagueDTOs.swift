import Foundation

// MARK: Requests

/// How a replay league's clock moves: `"manual"`, or `{"every": "1h", "days": 1}`.
public enum ClockAdvanceRequest: Codable, Sendable, Hashable {
    case manual
    case every(String, days: Int)

    struct Schedule: Codable, RequestBody {
        enum CodingKeys: String, CodingKey, CaseIterable { case every, days }
        var every: String
        var days: Int
        init(every: String, days: Int) { self.every = every; self.days = days }
        init(from decoder: any Decoder) throws {
            try StrictFields.check(Self.self, decoder)
            let c = try decoder.container(keyedBy: CodingKeys.self)
            every = try c.decode(String.self, forKey: .every)
            days = try c.decode(Int.self, forKey: .days)
        }
    }

    public init(from decoder: any Decoder) throws {
        if let text = try? decoder.singleValueContainer().decode(String.self) {
            guard text == "manual" else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription:
                    "The field 'clock.advance' must be \"manual\" or a schedule like {\"every\": \"1h\", \"days\": 1}."))
            }
            self = .manual
            return
        }
        let schedule = try Schedule(from: decoder)
        self = .every(schedule.every, days: schedule.days)
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .manual:
            var c = encoder.singleValueContainer()
            try c.encode("manual")
        case .every(let every, let days):
            try Schedule(every: every, days: days).encode(to: encoder)
        }
    }
}

/// A league's clock: `{"mode": "live"}` or `{"mode": "replay", "start": "2008-09", "advance": "manual"}`.
public struct LeagueClockRequest: Codable, Sendable, Hashable, RequestBody {
    public enum CodingKeys: String, CodingKey, CaseIterable { case mode, start, advance }
    public var mode: String
    /// `YYYY-MM`, `YYYY-MM-DD` or `random`.
    public var start: String?
    public var advance: ClockAdvanceRequest?
    public init(mode: String, start: String? = nil, advance: ClockAdvanceRequest? = nil) {
        self.mode = mode; self.start = start; self.advance = advance
    }
    public init(from decoder: any Decoder) throws {
        try StrictFields.check(Self.self, decoder)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        mode = try c.decode(String.self, forKey: .mode)
        start = try c.decodeIfPresent(String.self, forKey: .start)
        advance = try c.decodeIfPresent(ClockAdvanceRequest.self, forKey: .advance)
    }
}

/// The rules of a league, every field optional (left out: no limit, no commission).
public struct LeagueRulesRequest: Codable, Sendable, Hashable, RequestBody {
    public enum CodingKeys: String, CodingKey, CaseIterable {
        case commissionPerTrade, commissionPercent, maxPositionPercent, minimumPrice, maxHoldings, marketHoursOnly,
             lateJoin, holdingsVisible, allowOptions, allowOptionWriting, volumeCapPercent, slippagePercent,
             allowShortSelling, initialMarginPercent, maintenanceMarginPercent, allowFractionalShares, allowCrypto
    }
    /// Whether members may trade cryptocurrencies (default true; false keeps the league to stocks).
    public var allowCrypto: Bool?
    /// Whether members may trade stocks in fractions of a share, to the millionth (default false: whole shares).
    public var allowFractionalShares: Bool?
    /// Short selling on margin (default false), with its initial (default 50) and maintenance (default 30) margins in percent.
    public var allowShortSelling: Bool?
    public var initialMarginPercent: String?
    public var maintenanceMarginPercent: String?
    /// Working orders fill at most this share of a daily bar's volume (replay leagues), `"1"` (percent, 0.01 to 100).
    public var volumeCapPercent: String?
    /// Market orders fill this much worse than the quote, `"0.05"` (percent, 0 to 5).
    public var slippagePercent: String?
    /// A flat fee per trade, `"4.95"`.
    public var commissionPerTrade: String?
    /// A share of each trade's notional, `"0.10"` (percent, two places).
    public var commissionPercent: String?
    /// The largest share of equity one position may reach by a buy, `"25"` (percent, 1 to 100).
    public var maxPositionPercent: String?
    /// Stocks priced below this cannot be bought, `"5.00"`.
    public var minimumPrice: String?
    public var maxHoldings: Int?
    /// Live leagues: orders only while the exchange is open.
    public var marketHoursOnly: Bool?
    /// Whether players may join after the start (default true).
    public var lateJoin: Bool?
    /// Whether members see each other's holdings (default false).
    public var holdingsVisible: Bool?
    /// Whether members may trade option contracts (default false: stocks only).
    public var allowOptions: Bool?
    /// Whether members may write (sell to open) covered calls and cash-secured puts (default false).
    public var allowOptionWriting: Bool?
    public init(commissionPerTrade: String? = nil, commissionPercent: String? = nil, maxPositionPercent: String? = nil,
                minimumPrice: String? = nil, maxHoldings: Int? = nil, marketHoursOnly: Bool? = nil, lateJoin: Bool? = nil,
                holdingsVisible: Bool? = nil) {
        self.commissionPerTrade = commissionPerTrade; self.commissionPercent = commissionPercent
        self.maxPositionPercent = maxPositionPercent; self.minimumPrice = minimumPrice; self.maxHoldings = maxHoldings
        self.marketHoursOnly = marketHoursOnly; self.lateJoin = lateJoin; self.holdingsVisible = holdingsVisible
    }
    public init(from decoder: any Decoder) throws {
        try StrictFields.check(Self.self, decoder)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        commissionPerTrade = try c.decodeIfPresent(String.self, forKey: .commissionPerTrade)
        commissionPercent = try c.decodeIfPresent(String.self, forKey: .commissionPercent)
        maxPositionPercent = try c.decodeIfPresent(String.self, forKey: .maxPositionPercent)
        minimumPrice = try c.decodeIfPresent(String.self, forKey: .minimumPrice)
        maxHoldings = try c.decodeIfPresent(Int.self, forKey: .maxHoldings)
        marketHoursOnly = try c.decodeIfPresent(Bool.self, forKey: .marketHoursOnly)
        lateJoin = try c.decodeIfPresent(Bool.self, forKey: .lateJoin)
        holdingsVisible = try c.decodeIfPresent(Bool.self, forKey: .holdingsVisible)
        allowOptions = try c.decodeIfPresent(Bool.self, forKey: .allowOptions)
        allowOptionWriting = try c.decodeIfPresent(Bool.self, forKey: .allowOptionWriting)
        allowFractionalShares = try c.decodeIfPresent(Bool.self, forKey: .allowFractionalShares)
        allowCrypto = try c.decodeIfPresent(Bool.self, forKey: .allowCrypto)
    }
}

/// `POST /api/v1/leagues`.
public struct CreateLeagueRequest: Codable, Sendable, Hashable, RequestBody {
    public enum CodingKeys: String, CodingKey, CaseIterable {
        case name, description, visibility, startingCash, clock, rules, startsAt, endsAt, defaultMetric
    }
    public var name: String
    public var description: String?
    /// `public` or `private`.
    public var visibility: String
    /// `"100.00"` to `"10000000.00"`; `"100000.00"` when left out.
    public var startingCash: String?
    /// `{"mode": "live"}` when left out.
    public var clock: LeagueClockRequest?
    public var rules: LeagueRulesRequest?
    /// Now when left out.
    public var startsAt: Date?
    /// Open-ended when left out.
    public var endsAt: Date?
    /// `return` (default), `sharpe`, `drawdown` or `vs_benchmark`.
    public var defaultMetric: String?
    public init(name: String, description: String? = nil, visibility: String, startingCash: String? = nil,
                clock: LeagueClockRequest? = nil, rules: LeagueRulesRequest? = nil, startsAt: Date? = nil,
                endsAt: Date? = nil, defaultMetric: String? = nil) {
        self.name = name; self.description = description; self.visibility = visibility; self.startingCash = startingCash
        self.clock = clock; self.rules = rules; self.startsAt = startsAt; self.endsAt = endsAt; self.defaultMetric = defaultMetric
    }
}

/// `PATCH /api/v1/leagues/{id}`: name, description, visibility and default metric at any time;
/// the rest only before the league starts.
public struct UpdateLeagueRequest: Codable, Sendable, Hashable, RequestBody {
    public enum CodingKeys: String, CodingKey, CaseIterable {
        case name, description, visibility, startingCash, rules, startsAt, endsAt, defaultMetric
    }
    public var name: String?
    public var description: String?
    public var visibility: String?
    public var startingCash: String?
    public var rules: LeagueRulesRequest?
    public var startsAt: Date?
    public var endsAt: Date?
    public var defaultMetric: String?
    public init(name: String? = nil, description: String? = nil, visibility: String? = nil, startingCash: String? = nil,
                rules: LeagueRulesRequest? = nil, startsAt: Date? = nil, endsAt: Date? = nil, defaultMetric: String? = nil) {
        self.name = name; self.description = description; self.visibility = visibility; self.startingCash = startingCash
        self.rules = rules; self.startsAt = startsAt; self.endsAt = endsAt; self.defaultMetric = defaultMetric
    }
}

/// `POST /api/v1/leagues/join`: a code, or a public league's id.
public struct JoinLeagueRequest: Codable, Sendable, Hashable, RequestBody {
    public enum CodingKeys: String, CodingKey, CaseIterable { case code, leagueId }
    public var code: String?
    public var leagueId: String?
    public init(code: String? = nil, leagueId: String? = nil) { self.code = code; self.leagueId = leagueId }
}

/// `POST /api/v1/leagues/{id}/advance`.
public struct LeagueAdvanceRequest: Codable, Sendable, Hashable, RequestBody {
    public enum CodingKeys: String, CodingKey, CaseIterable { case days }
    public var days: Int
    public init(days: Int) { self.days = days }
}

/// `POST /api/v1/leagues/{id}/owner`.
public struct TransferOwnerRequest: Codable, Sendable, Hashable, RequestBody {
    public enum CodingKeys: String, CodingKey, CaseIterable { case userId }
    public var userId: String
    public init(userId: String) { self.userId = userId }
}

/// `PATCH /api/v1/me`.
public struct UpdateMeRequest: Codable, Sendable, Hashable, RequestBody {
    public enum CodingKeys: String, CodingKey, CaseIterable { case publicLeaderboard }
    /// Whether your live portfolios appear on the global leaderboard (off until you say so).
    public var publicLeaderboard: Bool?
    public init(publicLeaderboard: Bool? = nil) { self.publicLeaderboard = publicLeaderboard }
}

// MARK: Responses

public struct LeagueClockDTO: Codable, Sendable, Hashable {
    /// `live` or `replay`.
    public var mode: String
    /// A replay league's first session and the session its clock stands on.
    public var start: String?
    public var date: String?
    /// `manual` or `scheduled`.
    public var advance: String?
    /// A schedule: `1h`, and the trading days each step moves.
    public var every: String?
    public var days: Int?
    public var nextAdvanceAt: Date?
    public init(mode: String, start: String?, date: String?, advance: String?, every: String?, days: Int?, nextAdvanceAt: Date?) {
        self.mode = mode; self.start = start; self.date = date; self.advance = advance; self.every = every
        self.days = days; self.nextAdvanceAt = nextAdvanceAt
    }
}

public struct LeagueRulesDTO: Codable, Sendable, Hashable {
    public var commissionPerTrade: String
    public var commissionPercent: String
    public var maxPositionPercent: String?
    public var minimumPrice: String?
    public var maxHoldings: Int?
    public var marketHoursOnly: Bool
    public var lateJoin: Bool
    public var holdingsVisible: Bool
    /// Whether members may trade option contracts.
    public var allowOptions: Bool = false
    /// Whether members may write covered calls and cash-secured puts.
    public var allowOptionWriting: Bool = false
    public var volumeCapPercent: String?
    public var slippagePercent: String?
    public var allowShortSelling: Bool = false
    public var initialMarginPercent: String?
    public var maintenanceMarginPercent: String?
    /// Whether members trade stocks in fractions of a share.
    public var allowFractionalShares: Bool = false
    /// Whether members trade cryptocurrencies.
    public var allowCrypto: Bool = true
    public init(commissionPerTrade: String, commissionPercent: String, maxPositionPercent: String?, minimumPrice: String?,
                maxHoldings: Int?, marketHoursOnly: Bool, lateJoin: Bool, holdingsVisible: Bool) {
        self.commissionPerTrade = commissionPerTrade; self.commissionPercent = commissionPercent
        self.maxPositionPercent = maxPositionPercent; self.minimumPrice = minimumPrice; self.maxHoldings = maxHoldings
        self.marketHoursOnly = marketHoursOnly; self.lateJoin = lateJoin; self.holdingsVisible = holdingsVisible
    }
}

public struct LeagueMemberDTO: Codable, Sendable, Hashable {
    public var userId: String
    public var username: String
    /// `active`, `left` or `kicked` (the owner sees every member; others see the active ones).
    public var status: String
    public var isOwner: Bool
    public var mayRejoin: Bool
    public var joinedAt: Date
    public var leftAt: Date?
    public init(userId: String, username: String, status: String, isOwner: Bool, mayRejoin: Bool, joinedAt: Date, leftAt: Date?) {
        self.userId = userId; self.username = username; self.status = status; self.isOwner = isOwner
        self.mayRejoin = mayRejoin; self.joinedAt = joinedAt; self.leftAt = leftAt
    }
}

public struct LeagueDTO: Codable, Sendable, Hashable {
    public var id: String
    public var name: String
    public var description: String
    public var visibility: String
    /// `upcoming`, `active` or `ended`.
    public var status: String
    public var ownerId: String
    public var ownerName: String
    /// The join code: shown to the owner only.
    public var code: String?
    public var startingCash: String
    public var clock: LeagueClockDTO
    public var rules: LeagueRulesDTO
    public var defaultMetric: String
    public var startsAt: Date
    public var endsAt: Date?
    public var memberCount: Int
    /// The caller's membership: their league portfolio and rank under the default metric.
    public var isMember: Bool
    public var isOwner: Bool
    public var myPortfolioId: String?
    public var myRank: Int?
    /// On `GET /api/v1/leagues/{id}` only.
    public var members: [LeagueMemberDTO]?
    public var createdAt: Date
    public init(id: String, name: String, description: String, visibility: String, status: String, ownerId: String,
                ownerName: String, code: String?, startingCash: String, clock: LeagueClockDTO, rules: LeagueRulesDTO,
                defaultMetric: String, startsAt: Date, endsAt: Date?, memberCount: Int, isMember: Bool, isOwner: Bool,
                myPortfolioId: String?, myRank: Int?, members: [LeagueMemberDTO]?, createdAt: Date) {
        self.id = id; self.name = name; self.description = description; self.visibility = visibility; self.status = status
        self.ownerId = ownerId; self.ownerName = ownerName; self.code = code; self.startingCash = startingCash
        self.clock = clock; self.rules = rules; self.defaultMetric = defaultMetric; self.startsAt = startsAt
        self.endsAt = endsAt; self.memberCount = memberCount; self.isMember = isMember; self.isOwner = isOwner
        self.myPortfolioId = myPortfolioId; self.myRank = myRank; self.members = members; self.createdAt = createdAt
    }
}

public struct LeagueList: Codable, Sendable, Hashable {
    public var leagues: [LeagueDTO]
    public var nextCursor: String?
    public init(leagues: [LeagueDTO], nextCursor: String? = nil) { self.leagues = leagues; self.nextCursor = nextCursor }
}

/// One line of a leaderboard.
public struct StandingDTO: Codable, Sendable, Hashable {
    public var rank: Int
    public var userId: String
    public var username: String
    /// The global leaderboard ranks portfolios: which one.
    public var portfolioName: String?
    public var equity: String
    public var totalReturnPercent: String
    public var todayChange: String
    /// Annualised Sharpe ratio of daily returns (two places); null with fewer than two days.
    public var sharpe: String?
    public var maxDrawdownPercent: String
    public var vsBenchmarkPercent: String?
    public var trades: Int
    public var isMe: Bool
    public init(rank: Int, userId: String, username: String, portfolioName: String?, equity: String,
                totalReturnPercent: String, todayChange: String, sharpe: String?, maxDrawdownPercent: String,
                vsBenchmarkPercent: String?, trades: Int, isMe: Bool) {
        self.rank = rank; self.userId = userId; self.username = username; self.portfolioName = portfolioName
        self.equity = equity; self.totalReturnPercent = totalReturnPercent; self.todayChange = todayChange
        self.sharpe = sharpe; self.maxDrawdownPercent = maxDrawdownPercent; self.vsBenchmarkPercent = vsBenchmarkPercent
        self.trades = trades; self.isMe = isMe
    }
}

public struct LeaderboardDTO: Codable, Sendable, Hashable {
    public var metric: String
    /// The session the figures stand on.
    public var asOf: String?
    /// True once the league ended: the standings are final.
    public var final: Bool
    public var total: Int
    public var standings: [StandingDTO]
    /// The caller's own line, wherever it is.
    public var me: StandingDTO?
    public var nextCursor: String?
    /// What each measure means, in plain words.
    public var help: [String: String]
    public init(metric: String, asOf: String?, final: Bool, total: Int, standings: [StandingDTO], me: StandingDTO?,
                nextCursor: String?, help: [String: String]) {
        self.metric = metric; self.asOf = asOf; self.final = final; self.total = total; self.standings = standings
        self.me = me; self.nextCursor = nextCursor; self.help = help
    }
}

/// `POST /api/v1/leagues/{id}/advance`.
public struct LeagueAdvanceDTO: Codable, Sendable, Hashable {
    public var from: String
    public var to: String
    public var days: Int
    public var endOfData: Bool
    public var portfolios: Int
    public var league: LeagueDTO
    public init(from: String, to: String, days: Int, endOfData: Bool, portfolios: Int, league: LeagueDTO) {
        self.from = from; self.to = to; self.days = days; self.endOfData = endOfData; self.portfolios = portfolios
        self.league = league
    }
}

/// The owner's (or, where holdings are visible, a member's) view of one member's portfolio.
public struct MemberPortfolioDTO: Codable, Sendable, Hashable {
    public var username: String
    public var portfolio: PortfolioDTO
    public var positions: [PositionDTO]
    public init(username: String, portfolio: PortfolioDTO, positions: [PositionDTO]) {
        self.username = username; self.portfolio = portfolio; self.positions = positions
    }
}

/// `GET /api/v1/me` with the settings.
public struct SettingsDTO: Codable, Sendable, Hashable {
    public var publicLeaderboard: Bool
    public init(publicLeaderboard: Bool) { self.publicLeaderboard = publicLeaderboard }
}
