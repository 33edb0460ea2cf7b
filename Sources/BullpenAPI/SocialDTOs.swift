import Foundation

// Profiles, follows, blocks and the feed.

/// A player in a list: search results, followers, a feed item's author.
public struct UserSummaryDTO: Codable, Sendable, Hashable {
    public var username: String
    public var displayName: String?
    /// The uploaded image, or the generated monogram (`…/avatar`).
    public var avatarUrl: String

    public init(username: String, displayName: String?, avatarUrl: String) {
        self.username = username
        self.displayName = displayName
        self.avatarUrl = avatarUrl
    }
}

/// A page of players.
public struct UserList: Codable, Sendable, Hashable {
    public var users: [UserSummaryDTO]
    public var nextCursor: String?
    public init(users: [UserSummaryDTO], nextCursor: String? = nil) { self.users = users; self.nextCursor = nextCursor }
}

/// A holding of a public portfolio: its weight always, its amounts only when the owner shows them.
public struct PublicHoldingDTO: Codable, Sendable, Hashable {
    public var symbol: String
    public var name: String?
    /// Percent of the portfolio's equity, two places.
    public var weightPercent: String
    public var quantity: ExactNumber?
    public var marketValue: String?

    public init(symbol: String, name: String?, weightPercent: String, quantity: ExactNumber?, marketValue: String?) {
        self.symbol = symbol
        self.name = name
        self.weightPercent = weightPercent
        self.quantity = quantity
        self.marketValue = marketValue
    }
}

/// A portfolio as its owner's profile shows it.
public struct PublicPortfolioDTO: Codable, Sendable, Hashable {
    public var id: String
    public var name: String
    /// `public` (weights) or `full` (amounts too).
    public var visibility: String
    public var clock: ClockDTO
    /// Percent, two places.
    public var totalReturnPercent: String
    /// Cash as a percent of equity.
    public var cashWeightPercent: String
    public var equity: String?
    public var holdings: [PublicHoldingDTO]

    public init(id: String, name: String, visibility: String, clock: ClockDTO, totalReturnPercent: String, cashWeightPercent: String,
                equity: String?, holdings: [PublicHoldingDTO]) {
        self.id = id
        self.name = name
        self.visibility = visibility
        self.clock = clock
        self.totalReturnPercent = totalReturnPercent
        self.cashWeightPercent = cashWeightPercent
        self.equity = equity
        self.holdings = holdings
    }
}

/// A public league a player plays in, on their profile.
public struct ProfileLeagueDTO: Codable, Sendable, Hashable {
    public var id: String
    public var name: String
    public init(id: String, name: String) { self.id = id; self.name = name }
}

/// `GET /api/v1/users/{username}`: what a player shows; everything else is private.
public struct ProfileDTO: Codable, Sendable, Hashable {
    public var username: String
    public var displayName: String?
    public var bio: String?
    public var avatarUrl: String
    public var joinedAt: Date
    public var followers: Int
    public var following: Int
    /// Whether the caller follows this player (nil on one's own profile).
    public var followedByMe: Bool?
    public var isMe: Bool
    public var portfolios: [PublicPortfolioDTO]
    public var leagues: [ProfileLeagueDTO]
    /// Earned ones with their dates, oldest first; on one's own profile the rest follow, not earned yet.
    public var achievements: [AchievementDTO]

    public init(username: String, displayName: String?, bio: String?, avatarUrl: String, joinedAt: Date, followers: Int, following: Int,
                followedByMe: Bool?, isMe: Bool, portfolios: [PublicPortfolioDTO], leagues: [ProfileLeagueDTO],
                achievements: [AchievementDTO] = []) {
        self.achievements = achievements
        self.username = username
        self.displayName = displayName
        self.bio = bio
        self.avatarUrl = avatarUrl
        self.joinedAt = joinedAt
        self.followers = followers
        self.following = following
        self.followedByMe = followedByMe
        self.isMe = isMe
        self.portfolios = portfolios
        self.leagues = leagues
    }
}

/// `PATCH /api/v1/me/profile`: a field left out stays; an empty text clears it.
public struct UpdateProfileRequest: Codable, Sendable, Hashable, RequestBody {
    public enum CodingKeys: String, CodingKey, CaseIterable { case displayName, bio }

    public var displayName: String?
    public var bio: String?
    public init(displayName: String? = nil, bio: String? = nil) { self.displayName = displayName; self.bio = bio }
}

/// One line of the feed.
public struct FeedItemDTO: Codable, Sendable, Hashable {
    public struct Trade: Codable, Sendable, Hashable {
        public var portfolioId: String
        public var portfolioName: String
        public var symbol: String
        public var side: String
        /// Only when the portfolio shows amounts.
        public var quantity: ExactNumber?
        public var price: String
        /// A replay's trade: the past session whose price it got.
        public var replayDate: String?

        public init(portfolioId: String, portfolioName: String, symbol: String, side: String, quantity: ExactNumber?, price: String,
                    replayDate: String? = nil) {
            self.replayDate = replayDate
            self.portfolioId = portfolioId
            self.portfolioName = portfolioName
            self.symbol = symbol
            self.side = side
            self.quantity = quantity
            self.price = price
        }
    }

    public var id: String
    /// `trade`, `league_joined` or `achievement`.
    public var kind: String
    public var at: Date
    public var user: UserSummaryDTO
    public var trade: Trade?
    public var league: ProfileLeagueDTO?
    public var achievement: AchievementDTO?

    public init(id: String, kind: String, at: Date, user: UserSummaryDTO, trade: Trade? = nil, league: ProfileLeagueDTO? = nil,
                achievement: AchievementDTO? = nil) {
        self.achievement = achievement
        self.id = id
        self.kind = kind
        self.at = at
        self.user = user
        self.trade = trade
        self.league = league
    }
}

/// `GET /api/v1/feed`.
public struct FeedPage: Codable, Sendable, Hashable {
    public var items: [FeedItemDTO]
    public var nextCursor: String?
    public init(items: [FeedItemDTO], nextCursor: String? = nil) { self.items = items; self.nextCursor = nextCursor }
}
