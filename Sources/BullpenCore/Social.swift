import Foundation

/// Who may see a portfolio on its owner's profile and in followers' feeds.
public enum PortfolioVisibility: String, Sendable, Hashable, CaseIterable, Codable {
    /// Only its owner (the default).
    case `private`
    /// Everyone who can see the profile: its return, and its holdings as weights (percent of
    /// equity), never amounts; its trades in followers' feeds without quantities.
    case `public`
    /// As public, with amounts: quantities, values and cash.
    case full
}

/// What a player shows of themselves: everything else about them is private.
public struct ProfileRecord: Sendable, Hashable {
    public var user: UserID
    public var username: String
    public var displayName: String?
    public var bio: String?
    public var joinedAt: Date
    /// When the uploaded avatar was stored (nil: a generated monogram).
    public var avatarUpdatedAt: Date?
    public var followers: Int
    public var following: Int

    public init(user: UserID, username: String, displayName: String?, bio: String?, joinedAt: Date, avatarUpdatedAt: Date?,
                followers: Int, following: Int) {
        self.user = user
        self.username = username
        self.displayName = displayName
        self.bio = bio
        self.joinedAt = joinedAt
        self.avatarUpdatedAt = avatarUpdatedAt
        self.followers = followers
        self.following = following
    }
}

/// A player in a list (search, followers, a feed item).
public struct UserSummary: Sendable, Hashable {
    public var user: UserID
    public var username: String
    public var displayName: String?
    public var avatarUpdatedAt: Date?

    public init(user: UserID, username: String, displayName: String?, avatarUpdatedAt: Date?) {
        self.user = user
        self.username = username
        self.displayName = displayName
        self.avatarUpdatedAt = avatarUpdatedAt
    }
}

/// One line of a player's feed: something a player they follow did that they made public.
public struct FeedEvent: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// A fill in a public portfolio (the quantity only when the portfolio shows amounts; a
        /// replay's fill with the past session it was priced on).
        case trade(portfolio: PortfolioID, portfolioName: String, symbol: Symbol, side: OrderSide, quantity: Quantity?, price: Price,
                   replayDate: SessionDate?)
        /// Joined a public league.
        case leagueJoined(league: LeagueID, name: String)
        /// Earned an achievement (by its id in ``Achievement/catalog``).
        case achievement(String)
    }

    /// Stable and unique: `trade:<fill id>`, `league:<league id>:<user id>` or `achievement:<grant id>`.
    public var id: String
    public var actor: UserSummary
    public var at: Date
    public var kind: Kind

    public init(id: String, actor: UserSummary, at: Date, kind: Kind) {
        self.id = id
        self.actor = actor
        self.at = at
        self.kind = kind
    }
}

/// Checks an uploaded avatar by its header: a PNG or a JPEG, square, of a sensible size. Only
/// the header is trusted as far as it is read; the bytes are served as the type found, with
/// `nosniff`, never as what the uploader claimed.
public enum AvatarImage {
    public static let maxBytes = 1_048_576
    public static let sides = 32...4_096

    public enum Problem: Error, Equatable, Sendable {
        case tooLarge, notAnImage, notSquare(width: Int, height: Int), wrongSize(Int)
    }

    /// The image's content type (`image/png` or `image/jpeg`) and side.
    public static func inspect(_ bytes: [UInt8]) throws(Problem) -> (contentType: String, side: Int) {
        guard bytes.count <= maxBytes else { throw .tooLarge }
        let (type, width, height): (String, Int, Int)
        if let size = pngSize(bytes) {
            (type, width, height) = ("image/png", size.0, size.1)
        } else if let size = jpegSize(bytes) {
            (type, width, height) = ("image/jpeg", size.0, size.1)
        } else {
            throw .notAnImage
        }
        guard width == height else { throw .notSquare(width: width, height: height) }
        guard sides.contains(width) else { throw .wrongSize(width) }
        return (type, width)
    }

    /// A PNG's signature, then its IHDR chunk first: width and height.
    static func pngSize(_ b: [UInt8]) -> (Int, Int)? {
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard b.count >= 33, Array(b[0..<8]) == signature, Array(b[12..<16]) == Array("IHDR".utf8) else { return nil }
        func u32(_ i: Int) -> Int { Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3]) }
        guard Array(b[b.count - 12..<b.count - 4]) == [0, 0, 0, 0] + Array("IEND".utf8) else { return nil }
        return (u32(16), u32(20))
    }

    /// A JPEG's segments up to its first start-of-frame: height and width.
    static func jpegSize(_ b: [UInt8]) -> (Int, Int)? {
        guard b.count >= 4, b[0] == 0xFF, b[1] == 0xD8, b[b.count - 2] == 0xFF, b[b.count - 1] == 0xD9 else { return nil }
        var i = 2
        while i + 9 < b.count {
            guard b[i] == 0xFF else { return nil }
            let marker = b[i + 1]
            if marker == 0xFF { i += 1; continue }
            let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
            guard length >= 2 else { return nil }
            // SOF0...SOF15 but DHT (C4), JPG (C8) and DAC (CC).
            if (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker) {
                let height = Int(b[i + 5]) << 8 | Int(b[i + 6]), width = Int(b[i + 7]) << 8 | Int(b[i + 8])
                return (width, height)
            }
            i += 2 + length
        }
        return nil
    }
}
