import AsyncHTTPClient
import BullpenAPI
import BullpenCore
import BullpenStore
import BullpenTestSupport
@testable import BullpenServer
import Foundation
import NIOCore
import NIOFoundationEssentialsCompat
import NIOHTTP1
import Testing

extension TestServer {
    /// Sends raw bytes with a content type (an image upload).
    func sendBytes(_ method: HTTPMethod, _ path: String, token: String?, bytes: [UInt8], contentType: String) async throws -> Reply {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        request.headers.add(name: "Content-Type", value: contentType)
        request.body = .bytes(ByteBuffer(bytes: bytes))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        let buffer = try await response.body.collect(upTo: 16 << 20)
        return Reply(status: Int(response.status.code), headers: response.headers, body: Data(buffer: buffer))
    }

    func profile(_ viewer: Player, _ username: String) async throws -> Reply {
        try await send(.GET, "/api/v1/users/\(username)", token: viewer.accessToken)
    }

    /// The player's feed; achievements (granted beside the answers, a moment later) left out
    /// unless asked for.
    func feed(_ player: Player, query: String = "", achievements: Bool = false) async throws -> FeedPage {
        let reply = try await send(.GET, "/api/v1/feed\(query)", token: player.accessToken)
        try #require(reply.status == 200, "feed: \(reply.text)")
        var page = try reply.decode(FeedPage.self)
        if !achievements { page.items.removeAll { $0.kind == "achievement" } }
        return page
    }

    func setVisibility(_ player: Player, _ visibility: String, portfolio: String? = nil) async throws {
        let reply = try await send(.PATCH, "/api/v1/portfolios/\(portfolio ?? player.mainPortfolio)", token: player.accessToken,
                                   json: UpdatePortfolioRequest(visibility: visibility))
        try #require(reply.status == 200, "visibility: \(reply.text)")
        #expect(try reply.decode(PortfolioDTO.self).visibility == visibility)
    }
}

/// Minimal images, made by hand: only their headers are read.
enum TestImages {
    static func png(width: UInt32, height: UInt32) -> [UInt8] {
        func u32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)] }
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + u32(13) + Array("IHDR".utf8) + u32(width) + u32(height)
            + [8, 6, 0, 0, 0] + [0, 0, 0, 0] + u32(0) + Array("IEND".utf8) + [0xAE, 0x42, 0x60, 0x82]
    }

    static func jpeg(width: UInt16, height: UInt16) -> [UInt8] {
        [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
            + [0xFF, 0xC0, 0x00, 0x11, 0x08, UInt8(height >> 8), UInt8(height & 0xff), UInt8(width >> 8), UInt8(width & 0xff), 3,
               1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1] + [0xFF, 0xD9]
    }
}

@Suite("Social: profiles, follows, blocks, the feed")
struct SocialAPITests {
    /// Everything about a player but what they made public is private: a new player's profile
    /// shows no portfolio; a public one shows weights, never amounts; full shows amounts.
    @Test func profilesShowOnlyWhatThePlayerMadePublic() async throws {
        try await withServer { server in
            let alice = try await server.register(), bob = try await server.register()
            #expect(try await server.order(alice, "buy", 10, "MSFT").status == 201)

            var seen = try await server.profile(bob, alice.username).decode(ProfileDTO.self)
            #expect(seen.username == alice.username && seen.portfolios.isEmpty && !seen.isMe && seen.followedByMe == false)
            #expect(seen.avatarUrl == "/api/v1/users/\(alice.username)/avatar")

            try await server.setVisibility(alice, "public")
            seen = try await server.profile(bob, alice.username).decode(ProfileDTO.self)
            let shown = try #require(seen.portfolios.first)
            #expect(seen.portfolios.count == 1 && shown.visibility == "public" && shown.equity == nil)
            let holding = try #require(shown.holdings.first)
            #expect(holding.symbol == "MSFT" && holding.quantity == nil && holding.marketValue == nil)
            // 10 × 400.00 of 100,000.00 of equity less the spread: about 4 %.
            #expect(holding.weightPercent == "4.00" && shown.cashWeightPercent == "96.00", "\(holding.weightPercent) \(shown.cashWeightPercent)")
            // Nothing private leaks in the raw answer either.
            let raw = try await server.profile(bob, alice.username).text
            #expect(!raw.contains("\"cash\"") && !raw.contains("startingCash"))

            try await server.setVisibility(alice, "full")
            seen = try await server.profile(bob, alice.username).decode(ProfileDTO.self)
            #expect(seen.portfolios.first?.holdings.first?.quantity == 10 && seen.portfolios.first?.equity != nil)

            try await server.setVisibility(alice, "private")
            #expect(try await server.profile(bob, alice.username).decode(ProfileDTO.self).portfolios.isEmpty)
            let bad = try await server.send(.PATCH, "/api/v1/portfolios/\(alice.mainPortfolio)", token: alice.accessToken,
                                            body: #"{"visibility":"everyone"}"#)
            #expect(bad.status == 400 && bad.errorCode == "validation_failed")
            // Only the owner sets it.
            let other = try await server.send(.PATCH, "/api/v1/portfolios/\(alice.mainPortfolio)", token: bob.accessToken,
                                              body: #"{"visibility":"public"}"#)
            #expect(other.status == 404)
            #expect(try await server.profile(bob, alice.username).decode(ProfileDTO.self).portfolios.isEmpty)
            #expect(try await server.profile(bob, "nobody-here").status == 404)
        }
    }

    @Test func onlyTheOwnerChangesTheirProfile() async throws {
        try await withServer { server in
            let alice = try await server.register(), bob = try await server.register()
            let updated = try await server.send(.PATCH, "/api/v1/me/profile", token: alice.accessToken,
                                                json: UpdateProfileRequest(displayName: "  Alice A. ", bio: "Long on patience.\nShort on nothing."))
            let mine = try updated.decode(ProfileDTO.self)
            #expect(mine.displayName == "Alice A." && mine.bio == "Long on patience.\nShort on nothing." && mine.isMe && mine.followedByMe == nil)
            #expect(try await server.profile(bob, alice.username).decode(ProfileDTO.self).displayName == "Alice A.")
            for body in [#"{"displayName":"two\nlines"}"#, #"{"bio":"bell\u0007"}"#, #"{"displayName":"\#(String(repeating: "x", count: 41))"}"#] {
                let refused = try await server.send(.PATCH, "/api/v1/me/profile", token: alice.accessToken, body: body)
                #expect(refused.status == 422 && refused.errorCode == "invalid_name", "\(body): \(refused.text)")
            }
            let unknown = try await server.send(.PATCH, "/api/v1/me/profile", token: alice.accessToken, body: #"{"username":"mallory"}"#)
            #expect(unknown.status == 400)
            // An empty text clears; a field left out stays.
            let cleared = try await server.send(.PATCH, "/api/v1/me/profile", token: alice.accessToken, body: #"{"bio":""}"#).decode(ProfileDTO.self)
            #expect(cleared.bio == nil && cleared.displayName == "Alice A.")
            // Bob's own profile is untouched.
            #expect(try await server.profile(bob, bob.username).decode(ProfileDTO.self).displayName == nil)
        }
    }

    /// The feed: trades of public portfolios of the players followed, newest first, in pages that
    /// neither repeat nor skip; a portfolio made private leaves it at once; private ones never enter.
    @Test func theFeedShowsPublicTradesOfThePlayersFollowed() async throws {
        try await withServer { server in
            let alice = try await server.register(), bob = try await server.register(), carol = try await server.register()
            #expect(try await server.send(.PUT, "/api/v1/users/\(alice.username)/follow", token: bob.accessToken).status == 204)
            #expect(try await server.send(.PUT, "/api/v1/users/\(alice.username)/follow", token: bob.accessToken).status == 204)   // twice: once
            #expect(try await server.send(.PUT, "/api/v1/users/\(carol.username)/follow", token: bob.accessToken).status == 204)
            #expect(try await server.order(alice, "buy", 3, "MSFT").status == 201)   // private: not in any feed
            #expect(try await server.feed(bob).items.isEmpty)

            try await server.setVisibility(alice, "public")
            for _ in 0..<5 { #expect(try await server.order(alice, "buy", 1, "ACME").status == 201) }
            #expect(try await server.order(carol, "buy", 2, "ACME").status == 201)   // Carol's stays private
            let all = try await server.feed(bob, query: "?limit=100")
            // The earlier private trade shows too now that the portfolio is public: its trades are what it shows.
            #expect(all.items.count == 6 && all.items.allSatisfy { $0.user.username == alice.username && $0.kind == "trade" })
            #expect(all.items.allSatisfy { $0.trade?.quantity == nil }, "weights only: no quantities")
            #expect(zip(all.items, all.items.dropFirst()).allSatisfy { $0.at >= $1.at })

            var paged: [String] = [], cursor: String?
            repeat {
                let page = try await server.feed(bob, query: "?limit=4" + (cursor.map { "&cursor=\($0)" } ?? ""))
                paged += page.items.map(\.id)
                cursor = page.nextCursor
            } while cursor != nil
            #expect(paged == all.items.map(\.id))
            #expect(try await server.send(.GET, "/api/v1/feed?cursor=nonsense", token: bob.accessToken).errorCode == "invalid_cursor")

            try await server.setVisibility(alice, "full")
            #expect(try await server.feed(bob).items.first?.trade?.quantity == 1)
            try await server.setVisibility(alice, "private")
            #expect(try await server.feed(bob).items.isEmpty)
            // Alice follows nobody: her own trades are not her feed.
            #expect(try await server.feed(alice).items.isEmpty)

            // Joining a public league shows; a private league does not.
            let open = try await server.createLeague(carol, #"{"name":"Open League","visibility":"public"}"#)
            _ = try await server.createLeague(carol, #"{"name":"Secret Club","visibility":"private"}"#)
            let joined = try await server.feed(bob).items
            #expect(joined.count == 1 && joined[0].kind == "league_joined" && joined[0].league?.id == open.id && joined[0].user.username == carol.username)

            #expect(try await server.send(.DELETE, "/api/v1/users/\(carol.username)/follow", token: bob.accessToken).status == 204)
            #expect(try await server.feed(bob).items.isEmpty)
            let following = try await server.send(.GET, "/api/v1/users/\(bob.username)/following", token: alice.accessToken).decode(UserList.self)
            #expect(following.users.map(\.username) == [alice.username])
            let followers = try await server.send(.GET, "/api/v1/users/\(alice.username)/followers", token: carol.accessToken).decode(UserList.self)
            #expect(followers.users.map(\.username) == [bob.username])
            #expect(try await server.profile(carol, alice.username).decode(ProfileDTO.self).followers == 1)
            let me = try await server.send(.PUT, "/api/v1/users/\(bob.username)/follow", token: bob.accessToken)
            #expect(me.status == 422 && me.errorCode == "not_yourself")
        }
    }

    /// Many events at one time (a batch writes its fills at one time; here the clock stands still,
    /// at a time with a fraction of a second) are paged without a repeat or a gap; a league
    /// portfolio, the league's, cannot be shared.
    @Test func eventsAtOneTimeArePagedExactly() async throws {
        try await withServer(time: FixedTimeSource(Date(timeIntervalSince1970: 1_790_000_000.123457))) { server in
            let alice = try await server.register(), bob = try await server.register()
            #expect(try await server.send(.PUT, "/api/v1/users/\(alice.username)/follow", token: bob.accessToken).status == 204)
            try await server.setVisibility(alice, "public")
            for _ in 0..<7 { #expect(try await server.order(alice, "buy", 1, "ACME").status == 201) }
            let league = try await server.createLeague(alice, #"{"name":"Same Time League","visibility":"public"}"#)
            // Her achievements, at the same time too: a first trade, a public portfolio, a league.
            for achievement in ["first-trade", "open-book", "league-joiner"] { _ = try await server.waitForAchievement(alice, achievement) }
            let all = try await server.feed(bob, query: "?limit=100", achievements: true).items
            // (The join's time is stored by another path, to another precision: it may not tie with the fills'.)
            #expect(all.count == 11 && Set(all.filter { $0.kind == "trade" }.map(\.at)).count == 1)
            #expect(all.filter { $0.kind == "trade" }.count == 7 && all.filter { $0.kind == "league_joined" }.count == 1)
            #expect(all.filter { $0.kind == "achievement" }.count == 3)
            for size in [1, 2, 3] {
                var paged: [String] = [], cursor: String?
                repeat {
                    let page = try await server.feed(bob, query: "?limit=\(size)" + (cursor.map { "&cursor=\($0)" } ?? ""), achievements: true)
                    paged += page.items.map(\.id)
                    cursor = page.nextCursor
                } while cursor != nil
                #expect(paged == all.map(\.id), "pages of \(size)")
            }
            let shared = try await server.send(.PATCH, "/api/v1/portfolios/\(try #require(league.myPortfolioId))", token: alice.accessToken,
                                               json: UpdatePortfolioRequest(visibility: "public"))
            #expect(shared.status == 409 && shared.errorCode == "league_portfolio", "\(shared.text)")
            #expect(try await server.profile(bob, alice.username).decode(ProfileDTO.self).portfolios.count == 1)
        }
    }

    /// A block hides each from the other everywhere and ends their follows; blocked users see nothing.
    @Test func aBlockedPlayerSeesNothing() async throws {
        try await withServer { server in
            let alice = try await server.register(), bob = try await server.register()
            try await server.setVisibility(alice, "public")
            #expect(try await server.order(alice, "buy", 1, "MSFT").status == 201)
            #expect(try await server.send(.PUT, "/api/v1/users/\(alice.username)/follow", token: bob.accessToken).status == 204)
            #expect(try await server.send(.PUT, "/api/v1/users/\(bob.username)/follow", token: alice.accessToken).status == 204)
            #expect(try await server.feed(bob).items.count == 1)

            #expect(try await server.send(.PUT, "/api/v1/users/\(bob.username)/block", token: alice.accessToken).status == 204)
            for path in ["/api/v1/users/\(alice.username)", "/api/v1/users/\(alice.username)/followers", "/api/v1/users/\(alice.username)/following"] {
                let reply = try await server.send(.GET, path, token: bob.accessToken)
                #expect(reply.status == 404 && reply.errorCode == "not_found", "\(path): \(reply.status)")
            }
            let follow = try await server.send(.PUT, "/api/v1/users/\(alice.username)/follow", token: bob.accessToken)
            #expect(follow.status == 404)
            #expect(try await server.feed(bob).items.isEmpty)
            #expect(try await server.feed(alice).items.isEmpty)
            let search = try await server.send(.GET, "/api/v1/users?search=\(alice.username)", token: bob.accessToken).decode(UserList.self)
            #expect(search.users.isEmpty)
            let searchBack = try await server.send(.GET, "/api/v1/users?search=\(bob.username)", token: alice.accessToken).decode(UserList.self)
            #expect(searchBack.users.isEmpty)
            #expect(try await server.profile(alice, bob.username).status == 404)
            let blocks = try await server.send(.GET, "/api/v1/me/blocks", token: alice.accessToken).decode(UserList.self)
            #expect(blocks.users.map(\.username) == [bob.username])
            // Bob may block back (he knows the name); it changes nothing for Alice's view.
            #expect(try await server.send(.PUT, "/api/v1/users/\(alice.username)/block", token: bob.accessToken).status == 204)

            #expect(try await server.send(.DELETE, "/api/v1/users/\(bob.username)/block", token: alice.accessToken).status == 204)
            #expect(try await server.send(.DELETE, "/api/v1/users/\(alice.username)/block", token: bob.accessToken).status == 204)
            let again = try await server.profile(bob, alice.username).decode(ProfileDTO.self)
            #expect(again.followedByMe == false && again.followers == 0, "the follows ended with the block")
        }
    }

    @Test func searchFindsPlayersByTheStartOfTheirName() async throws {
        try await withServer { server in
            let tag = String(UUID().uuidString.prefix(6)).lowercased()
            let viewer = try await server.register()
            for name in ["zed\(tag)a", "Zed\(tag)b", "zed\(tag)c", "xzed\(tag)"] { _ = try await server.register(name) }
            let found = try await server.send(.GET, "/api/v1/users?search=ZED\(tag)&limit=2", token: viewer.accessToken).decode(UserList.self)
            #expect(found.users.map { $0.username.lowercased() } == ["zed\(tag)a", "zed\(tag)b"])
            let rest = try await server.send(.GET, "/api/v1/users?search=zed\(tag)&limit=2&cursor=\(try #require(found.nextCursor))",
                                             token: viewer.accessToken).decode(UserList.self)
            #expect(rest.users.map(\.username) == ["zed\(tag)c"] && rest.nextCursor == nil)
            // `%` and `_` are letters here, not patterns.
            #expect(try await server.send(.GET, "/api/v1/users?search=%25", token: viewer.accessToken).decode(UserList.self).users.isEmpty)
            #expect(try await server.send(.GET, "/api/v1/users", token: viewer.accessToken).status == 400)
            #expect(try await server.send(.GET, "/api/v1/users?search=zed", token: nil).status == 401)
        }
    }

    @Test func avatarsAreCheckedByTheirHeaderAndServedSafely() async throws {
        try await withServer { server in
            let alice = try await server.register(), bob = try await server.register()
            let monogram = try await server.send(.GET, "/api/v1/users/\(alice.username)/avatar")
            #expect(monogram.status == 200 && monogram.headers.first(name: "Content-Type") == "image/svg+xml")
            #expect(monogram.headers.first(name: "X-Content-Type-Options") == "nosniff")

            let png = TestImages.png(width: 64, height: 64)
            let put = try await server.sendBytes(.PUT, "/api/v1/me/avatar", token: alice.accessToken, bytes: png, contentType: "image/png")
            #expect(put.status == 200, "\(put.text)")
            let url = try put.decode(ProfileDTO.self).avatarUrl
            #expect(url.hasPrefix("/api/v1/users/\(alice.username)/avatar?v="))
            let served = try await server.send(.GET, url)
            #expect(served.status == 200 && Array(served.body) == png && served.headers.first(name: "Content-Type") == "image/png")
            #expect(served.headers.first(name: "X-Content-Type-Options") == "nosniff")
            #expect(try await server.profile(bob, alice.username).decode(ProfileDTO.self).avatarUrl == url)

            let jpeg = TestImages.jpeg(width: 128, height: 128)
            #expect(try await server.sendBytes(.PUT, "/api/v1/me/avatar", token: bob.accessToken, bytes: jpeg, contentType: "image/jpeg").status == 200)
            #expect(try await server.send(.GET, "/api/v1/users/\(bob.username)/avatar").headers.first(name: "Content-Type") == "image/jpeg")

            let refusals: [([UInt8], String, Int, String)] = [
                (TestImages.png(width: 64, height: 32), "image/png", 422, "invalid_image"),        // not square
                (TestImages.png(width: 8, height: 8), "image/png", 422, "invalid_image"),          // too small
                (Array("GIF89a....".utf8), "image/png", 422, "invalid_image"),                     // not a PNG
                (Array("<svg onload=alert(1)/>".utf8), "image/png", 422, "invalid_image"),
                (png, "image/jpeg", 422, "invalid_image"),                                           // a PNG claimed as a JPEG
                (png, "image/svg+xml", 415, "unsupported_media_type"),
                (Array(repeating: 0, count: 1_100_000), "image/png", 413, "payload_too_large"),
            ]
            for (bytes, type, status, code) in refusals {
                let reply = try await server.sendBytes(.PUT, "/api/v1/me/avatar", token: alice.accessToken, bytes: bytes, contentType: type)
                #expect(reply.status == status && reply.errorCode == code, "\(type) \(bytes.count) bytes: \(reply.status) \(reply.text)")
            }
            // The stored avatar is still the PNG.
            #expect(Array(try await server.send(.GET, "/api/v1/users/\(alice.username)/avatar").body) == png)
            #expect(try await server.send(.DELETE, "/api/v1/me/avatar", token: alice.accessToken).status == 204)
            #expect(try await server.send(.GET, "/api/v1/users/\(alice.username)/avatar").headers.first(name: "Content-Type") == "image/svg+xml")
        }
    }
}

@Suite("Avatar images")
struct AvatarImageTests {
    @Test func headersAreReadExactly() throws {
        let png = try AvatarImage.inspect(TestImages.png(width: 256, height: 256))
        #expect(png.contentType == "image/png" && png.side == 256)
        let jpeg = try AvatarImage.inspect(TestImages.jpeg(width: 40, height: 40))
        #expect(jpeg.contentType == "image/jpeg" && jpeg.side == 40)
        #expect(throws: AvatarImage.Problem.notSquare(width: 300, height: 200)) { try AvatarImage.inspect(TestImages.jpeg(width: 300, height: 200)) }
        #expect(throws: AvatarImage.Problem.wrongSize(5_000)) { try AvatarImage.inspect(TestImages.png(width: 5_000, height: 5_000)) }
        var truncated = TestImages.png(width: 64, height: 64)
        truncated.removeLast(12)   // no IEND
        #expect(throws: AvatarImage.Problem.notAnImage) { try AvatarImage.inspect(truncated) }
        #expect(throws: AvatarImage.Problem.notAnImage) { try AvatarImage.inspect([0xFF, 0xD8, 0xFF, 0xD9]) }
        #expect(throws: AvatarImage.Problem.notAnImage) { try AvatarImage.inspect([]) }
    }
}
