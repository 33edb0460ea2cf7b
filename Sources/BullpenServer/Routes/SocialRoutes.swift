import BullpenAPI
import BullpenCore
import BullpenStore
import Foundation
import Vapor

/// Profiles, follows, blocks and the feed: `GET /api/v1/users` (search), `GET /api/v1/users/{username}`
/// and its `avatar`, `followers` and `following`, `PUT/DELETE /api/v1/users/{username}/follow`
/// and `…/block`, `GET /api/v1/me/blocks`, `PATCH /api/v1/me/profile`, `PUT/DELETE /api/v1/me/avatar`,
/// `GET /api/v1/feed`. A player either of two blocked is, to the other, a player who does not exist.
struct SocialRoutes: RouteCollection {
    static let maxPageSize = 100

    func boot(routes: any RoutesBuilder) throws {
        let users = routes.grouped("users")
        users.get(use: search)
        users.get(":username", use: profile)
        users.get(":username", "avatar", use: avatar)
        users.get(":username", "followers", use: followers)
        users.get(":username", "following", use: following)
        users.put(":username", "follow", use: follow)
        users.delete(":username", "follow", use: unfollow)
        users.put(":username", "block", use: block)
        users.delete(":username", "block", use: unblock)
        let me = routes.grouped("me")
        me.get("blocks", use: blocks)
        me.patch("profile", use: updateProfile)
        me.on(.PUT, "avatar", body: .collect(maxSize: ByteCount(value: AvatarImage.maxBytes)), use: putAvatar)
        me.delete("avatar", use: deleteAvatar)
        routes.get("feed", use: feed)
    }

    // MARK: Profiles

    @Sendable func search(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let prefix = (req.query[String.self, at: "search"] ?? "").trimmingCharacters(in: .whitespaces)
        guard (1...32).contains(prefix.unicodeScalars.count) else {
            throw APIError.validation("search is the start of a username: 1 to 32 characters.")
        }
        let (offset, limit) = try Self.page(req)
        let found = try await req.bullpen.store.searchUsers(prefix: prefix, viewer: caller.user, offset: offset, limit: limit + 1)
        return try jsonResponse(UserList(users: found.prefix(limit).map(UserSummaryDTO.init),
                                         nextCursor: found.count > limit ? PageCursor.encode(offset + limit) : nil))
    }

    @Sendable func profile(req: Request) async throws -> Response {
        let caller = try await req.caller()
        return try jsonResponse(try await Self.profileDTO(try await Self.visibleProfile(req, viewer: caller.user), req: req, viewer: caller.user))
    }

    @Sendable func updateProfile(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let body = try req.decodeJSON(UpdateProfileRequest.self)
        let displayName = try body.displayName.map { try Self.text($0, field: "displayName", max: BullpenStore.maxDisplayNameLength, lines: false) }
        let bio = try body.bio.map { try Self.text($0, field: "bio", max: BullpenStore.maxBioLength, lines: true) }
        try await req.bullpen.store.updateProfile(caller.user, displayName: displayName, bio: bio)
        return try jsonResponse(try await Self.ownProfile(req, caller.user))
    }

    /// The avatar: the uploaded image as stored (its type found by its header, never the
    /// uploader's claim), or the monogram. Public, like the username it stands for: an `<img>`
    /// carries no token.
    @Sendable func avatar(req: Request) async throws -> Response {
        let username = try Self.usernameParameter(req)
        guard let user = try await req.bullpen.store.user(usernameKey: username.lowercased()) else { throw APIError.notFound("Player") }
        var headers = HTTPHeaders()
        headers.replaceOrAdd(name: "X-Content-Type-Options", value: "nosniff")
        headers.replaceOrAdd(name: .cacheControl, value: "public, max-age=300")
        headers.replaceOrAdd(name: "Content-Security-Policy", value: "default-src 'none'; style-src 'unsafe-inline'; sandbox")
        if let image = try await req.bullpen.store.avatar(user.id) {
            headers.replaceOrAdd(name: .contentType, value: image.contentType)
            return Response(status: .ok, headers: headers, body: .init(data: image.bytes))
        }
        headers.replaceOrAdd(name: .contentType, value: "image/svg+xml")
        return Response(status: .ok, headers: headers, body: .init(string: MonogramLogo.svg(forUsername: user.username)))
    }

    @Sendable func putAvatar(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let declared = req.headers.contentType.map { "\($0.type)/\($0.subType)".lowercased() }
        guard let declared, ["image/png", "image/jpeg"].contains(declared) else {
            throw APIError(.unsupportedMediaType, "Send the image itself as the body, with Content-Type: image/png or image/jpeg.")
        }
        let bytes = req.body.data.map { Array($0.readableBytesView) } ?? []
        let found: (contentType: String, side: Int)
        do {
            found = try AvatarImage.inspect(bytes)
        } catch {
            throw APIError(.invalidImage, Self.message(error))
        }
        guard found.contentType == declared else {
            throw APIError(.invalidImage, "The body is \(found.contentType == "image/png" ? "a PNG" : "a JPEG") image, not \(declared).")
        }
        try await req.bullpen.store.setAvatar(caller.user, contentType: found.contentType, bytes: bytes)
        return try jsonResponse(try await Self.ownProfile(req, caller.user))
    }

    @Sendable func deleteAvatar(req: Request) async throws -> Response {
        let caller = try await req.caller()
        try await req.bullpen.store.deleteAvatar(caller.user)
        return Response(status: .noContent)
    }

    // MARK: Follows and blocks

    @Sendable func followers(req: Request) async throws -> Response { try await follows(req, followers: true) }
    @Sendable func following(req: Request) async throws -> Response { try await follows(req, followers: false) }

    private func follows(_ req: Request, followers: Bool) async throws -> Response {
        let caller = try await req.caller()
        let profile = try await Self.visibleProfile(req, viewer: caller.user)
        let (offset, limit) = try Self.page(req)
        let found = try await req.bullpen.store.follows(of: profile.user, followers: followers, viewer: caller.user, offset: offset, limit: limit + 1)
        return try jsonResponse(UserList(users: found.prefix(limit).map(UserSummaryDTO.init),
                                         nextCursor: found.count > limit ? PageCursor.encode(offset + limit) : nil))
    }

    @Sendable func follow(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let profile = try await Self.visibleProfile(req, viewer: caller.user)
        guard profile.user != caller.user else { throw APIError(.notYourself, "You cannot follow yourself.") }
        if try await req.bullpen.store.follow(profile.user, by: caller.user) {
            await req.bullpen.notifier.followed(profile.user, by: caller.user)
        }
        return Response(status: .noContent)
    }

    @Sendable func unfollow(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let profile = try await Self.visibleProfile(req, viewer: caller.user)
        try await req.bullpen.store.unfollow(profile.user, by: caller.user)
        return Response(status: .noContent)
    }

    /// Blocking works on anyone who exists, even one who blocked the caller first.
    @Sendable func block(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let user = try await Self.existingUser(req)
        guard user.id != caller.user else { throw APIError(.notYourself, "You cannot block yourself.") }
        try await req.bullpen.store.block(user.id, by: caller.user)
        return Response(status: .noContent)
    }

    @Sendable func unblock(req: Request) async throws -> Response {
        let caller = try await req.caller()
        try await req.bullpen.store.unblock(try await Self.existingUser(req).id, by: caller.user)
        return Response(status: .noContent)
    }

    @Sendable func blocks(req: Request) async throws -> Response {
        let caller = try await req.caller()
        return try jsonResponse(UserList(users: try await req.bullpen.store.blockedUsers(by: caller.user).map(UserSummaryDTO.init)))
    }

    // MARK: The feed

    @Sendable func feed(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let limit = min(try req.pageLimit(), Self.maxPageSize)
        let after = try req.pageCursor.map { cursor in
            guard let position = FeedCursor.decode(cursor) else { throw APIError.invalidCursor }
            return position
        }
        let events = try await req.bullpen.store.feed(for: caller.user, after: after, limit: limit + 1)
        let page = Array(events.prefix(limit))
        let next = events.count > limit ? page.last.map { FeedCursor.encode(BullpenStore.FeedPosition(id: $0.id, at: $0.at)) } : nil
        return try jsonResponse(FeedPage(items: page.map(FeedItemDTO.init), nextCursor: next))
    }

    // MARK: Helpers

    static func usernameParameter(_ req: Request) throws -> String {
        guard let name = req.parameters.get("username"), (1...64).contains(name.count) else { throw APIError.notFound("Player") }
        return name
    }

    /// The account named in the path, whether or not it blocked the caller.
    static func existingUser(_ req: Request) async throws -> UserRecord {
        guard let user = try await req.bullpen.store.user(usernameKey: try usernameParameter(req).lowercased()) else {
            throw APIError.notFound("Player")
        }
        return user
    }

    /// The profile named in the path, or 404 when there is none or either blocked the other.
    static func visibleProfile(_ req: Request, viewer: UserID) async throws -> ProfileRecord {
        guard let profile = try await req.bullpen.store.profile(usernameKey: try usernameParameter(req).lowercased(), viewer: viewer) else {
            throw APIError.notFound("Player")
        }
        return profile
    }

    static func ownProfile(_ req: Request, _ user: UserID) async throws -> ProfileDTO {
        guard let record = try await req.bullpen.store.user(id: user),
              let profile = try await req.bullpen.store.profile(usernameKey: record.username.lowercased(), viewer: user)
        else { throw APIError.unauthorized }
        return try await profileDTO(profile, req: req, viewer: user)
    }

    /// The profile as `viewer` sees it: public portfolios valued now, as weights unless shown in full.
    static func profileDTO(_ profile: ProfileRecord, req: Request, viewer: UserID) async throws -> ProfileDTO {
        var portfolios: [PublicPortfolioDTO] = []
        for portfolio in try await req.bullpen.store.publicPortfolios(owner: profile.user) {
            let valued = try await req.bullpen.portfolios.valued(portfolio.id, owner: profile.user)
            portfolios.append(await PublicPortfolioDTO(valued.state.portfolio, valuation: valued.valuation, req: req))
        }
        let leagues = try await req.bullpen.store.leagues(of: profile.user).filter { $0.visibility == .public }
        let isMe = profile.user == viewer
        // Earned, with dates; one's own profile lists the rest too, to aim for.
        let grants = try await req.bullpen.store.achievements(of: profile.user)
        let earned = Dictionary(grants.map { ($0.achievement, $0.earnedAt) }, uniquingKeysWith: { a, _ in a })
        var achievements = grants.compactMap { grant in
            Achievement.named(grant.achievement).map { AchievementDTO(id: $0.id, name: $0.name, description: $0.description, earnedAt: grant.earnedAt) }
        }
        if isMe {
            achievements += Achievement.catalog.filter { earned[$0.id] == nil }
                .map { AchievementDTO(id: $0.id, name: $0.name, description: $0.description, earnedAt: nil) }
        }
        return ProfileDTO(username: profile.username, displayName: profile.displayName, bio: profile.bio,
                          avatarUrl: UserSummaryDTO.avatarURL(username: profile.username, updatedAt: profile.avatarUpdatedAt),
                          joinedAt: profile.joinedAt, followers: profile.followers, following: profile.following,
                          followedByMe: isMe ? nil : try await req.bullpen.store.isFollowing(profile.user, by: viewer), isMe: isMe,
                          portfolios: portfolios, leagues: leagues.map { ProfileLeagueDTO(id: $0.id.description, name: $0.name) },
                          achievements: achievements)
    }

    static func page(_ req: Request) throws -> (offset: Int, limit: Int) {
        let limit = min(try req.pageLimit(), maxPageSize)
        guard let cursor = req.pageCursor else { return (0, limit) }
        guard let offset = PageCursor.decode(cursor) else { throw APIError.invalidCursor }
        return (offset, limit)
    }

    /// A display name (one line) or a bio (lines allowed), trimmed, without other control characters.
    static func text(_ raw: String, field: String, max: Int, lines: Bool) throws -> String {
        let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        let allowed: Set<Unicode.Scalar> = lines ? ["\n"] : []
        guard raw.unicodeScalars.count <= max,
              !raw.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && !allowed.contains($0) }) else {
            throw APIError(.invalidName, "\(field) is at most \(max) characters\(lines ? "" : " on one line"), without control characters.")
        }
        return text
    }

    static func message(_ error: any Error) -> String {
        switch error as? AvatarImage.Problem {
        case .tooLarge: "An avatar is at most 1 MB."
        case .notSquare(let width, let height): "An avatar is square; this image is \(width)×\(height)."
        case .wrongSize(let side): "An avatar is \(AvatarImage.sides.lowerBound) to \(AvatarImage.sides.upperBound) pixels a side; this one is \(side)."
        case .notAnImage, nil: "The body is not a PNG or JPEG image."
        }
    }
}

/// A feed page's position: the last event's id (the store continues after its stored time and
/// id) and its time, used only if that event is gone.
enum FeedCursor {
    static func encode(_ position: BullpenStore.FeedPosition) -> String {
        PageCursor.wrap("f1:\(String(position.at.timeIntervalSince1970.bitPattern, radix: 16)):\(position.id)")
    }

    static func decode(_ cursor: String) -> BullpenStore.FeedPosition? {
        guard let plain = PageCursor.unwrap(cursor) else { return nil }
        let parts = plain.split(separator: ":", maxSplits: 2).map(String.init)
        guard parts.count == 3, parts[0] == "f1", let bits = UInt64(parts[1], radix: 16), !parts[2].isEmpty else { return nil }
        let seconds = Double(bitPattern: bits)
        guard seconds.isFinite else { return nil }
        return BullpenStore.FeedPosition(id: parts[2], at: Date(timeIntervalSince1970: seconds))
    }
}

extension UserSummaryDTO {
    init(_ user: UserSummary) {
        self.init(username: user.username, displayName: user.displayName,
                  avatarUrl: Self.avatarURL(username: user.username, updatedAt: user.avatarUpdatedAt))
    }

    /// The avatar's address; an uploaded one carries its version, so that a new one is fetched anew.
    static func avatarURL(username: String, updatedAt: Date?) -> String {
        let base = "/api/v1/users/\(username)/avatar"
        guard let updatedAt else { return base }
        return base + "?v=\(Int64(updatedAt.timeIntervalSince1970 * 1000))"
    }
}

extension PublicPortfolioDTO {
    init(_ portfolio: PortfolioRecord, valuation: Valuation, req: Request) async {
        let full = portfolio.visibility == .full
        func weight(_ amount: Money) -> String { (amount.percent(of: valuation.equity) ?? Percent(hundredths: 0)).decimalString }
        var holdings: [PublicHoldingDTO] = []
        for position in valuation.positions {
            let symbol = position.position.symbol
            holdings.append(PublicHoldingDTO(symbol: symbol.rawValue, name: try? await req.bullpen.marketData?.asset(symbol)?.name,
                                             weightPercent: weight(position.marketValue),
                                             quantity: full ? position.position.quantity.wire : nil,
                                             marketValue: full ? position.marketValue.decimalString : nil))
        }
        self.init(id: portfolio.id.description, name: portfolio.name, visibility: portfolio.visibility.rawValue,
                  clock: ClockDTO(portfolio.clock, replay: portfolio.replay),
                  totalReturnPercent: (valuation.totalReturnPercent ?? Percent(hundredths: 0)).decimalString,
                  cashWeightPercent: weight(valuation.cash), equity: full ? valuation.equity.decimalString : nil, holdings: holdings)
    }
}

extension FeedItemDTO {
    init(_ event: FeedEvent) {
        switch event.kind {
        case let .trade(portfolio, name, symbol, side, quantity, price, replayDate):
            self.init(id: event.id, kind: "trade", at: event.at, user: UserSummaryDTO(event.actor),
                      trade: Trade(portfolioId: portfolio.description, portfolioName: name, symbol: symbol.rawValue, side: side.rawValue,
                                   quantity: quantity?.wire, price: price.perShare(of: symbol).decimalString, replayDate: replayDate?.description))
        case let .leagueJoined(league, name):
            self.init(id: event.id, kind: "league_joined", at: event.at, user: UserSummaryDTO(event.actor),
                      league: ProfileLeagueDTO(id: league.description, name: name))
        case let .achievement(id):
            let known = Achievement.named(id)
            self.init(id: event.id, kind: "achievement", at: event.at, user: UserSummaryDTO(event.actor),
                      achievement: AchievementDTO(id: id, name: known?.name ?? id, description: known?.description ?? "", earnedAt: event.at))
        }
    }
}
