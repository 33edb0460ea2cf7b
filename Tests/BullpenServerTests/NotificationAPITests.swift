import AsyncHTTPClient
import BullpenAPI
import BullpenCore
import BullpenMarketData
import BullpenStore
import BullpenTestSupport
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization
import Testing
import Vapor
@testable import BullpenServer

/// The tiny pack, with live prices a test can move: a stock that crashes, a price that crosses an alert.
final class MovableMarketData: ForwardingMarketData {
    let base: any MarketDataSource
    private let prices = Mutex<[Symbol: Price]>([:])

    init(base: any MarketDataSource) { self.base = base }

    func set(_ symbol: String, _ price: String) { prices.withLock { $0[Symbol(symbol)!] = Price(parsing: price)! } }

    /// Whether the exchange is in session (a pack's never is; working orders fill only in session).
    private let session = Mutex(false)
    func setMarketOpen(_ open: Bool) { session.withLock { $0 = open } }
    /// When set, a moved price is a trade of that moment (a live tick), not the last close.
    private let stamp = Mutex<Date?>(nil)
    func stampTrades(_ at: Date?) { stamp.withLock { $0 = at } }
    func isMarketOpen(at instant: Date) async -> Bool { session.withLock { $0 } }

    private func moved(_ quote: Quote?, _ symbol: Symbol, _ clock: PortfolioClock) -> Quote? {
        guard case .live = clock, var quote, let price = prices.withLock({ $0[symbol] }) else { return quote }
        quote.price = price
        if let at = stamp.withLock({ $0 }) { quote.asOf = at }
        return quote
    }

    func quote(_ symbol: Symbol, asOf clock: PortfolioClock) async throws -> Quote? {
        moved(try await base.quote(symbol, asOf: clock), symbol, clock)
    }
    func quotes(_ symbols: [Symbol], asOf clock: PortfolioClock) async throws -> [Symbol: Quote] {
        var result = try await base.quotes(symbols, asOf: clock)
        for symbol in result.keys { result[symbol] = moved(result[symbol], symbol, clock) }
        return result
    }
    static func tiny() async throws -> MovableMarketData {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bullpen-movable-\(UUID().uuidString)")
        return MovableMarketData(base: try await PackMarketData.load(directory: try TinyPack.write(in: directory)).source)
    }
}

extension TestServer {
    func notifications(_ player: Player, query: String = "") async throws -> NotificationPage {
        let reply = try await send(.GET, "/api/v1/notifications\(query)", token: player.accessToken)
        try #require(reply.status == 200, "notifications: \(reply.text)")
        return try reply.decode(NotificationPage.self)
    }

    /// Waits (up to 10 s) until `player`'s profile lists `achievement` as earned.
    func waitForAchievement(_ player: Player, _ achievement: String) async throws -> AchievementDTO {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            let profile = try await profile(player, player.username).decode(ProfileDTO.self)
            if let found = profile.achievements.first(where: { $0.id == achievement && $0.earnedAt != nil }) { return found }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("\(player.username) did not earn \(achievement)")
        throw CancellationError()
    }
}

@Suite("Achievements, notifications, alerts, top-ups and pushes over HTTP")
struct NotificationAPITests {
    static func quiet(_ config: inout ServerConfiguration) {
        config.alertInterval = .zero   // the tests run the alert rounds themselves
        config.closingEquityJob = false
        config.leagueScheduleJob = false
    }

    @Test func tradesEarnAchievementsOnceEachWithANotificationAndAFeedLine() async throws {
        try await withServer(configure: Self.quiet) { server in
            let alice = try await server.register(), bob = try await server.register()
            #expect(try await server.send(.PUT, "/api/v1/users/\(alice.username)/follow", token: bob.accessToken).status == 204)
            // Alice's profile lists every achievement; none earned yet, except a sign-in day's.
            let fresh = try await server.profile(alice, alice.username).decode(ProfileDTO.self)
            #expect(fresh.achievements.count == Achievement.catalog.count)
            #expect(fresh.achievements.filter { $0.earnedAt != nil }.isEmpty)
            #expect(try await server.order(alice, "buy", 1, "MSFT").status == 201)
            let first = try await server.waitForAchievement(alice, "first-trade")
            #expect(first.name == "First trade")
            for _ in 0..<10 { #expect(try await server.order(alice, "buy", 1, "ACME").status == 201) }
            _ = try await server.waitForAchievement(alice, "ten-trades")
            // A sale above cost: ACME was bought at 19.50 (the last close)... sold at the same price is no profit.
            #expect(try await server.order(alice, "sell", 1, "ACME").status == 201)
            try await Task.sleep(for: .milliseconds(300))
            let grants = try await server.store.achievements(of: try #require(UserID(alice.id)))
            #expect(grants.map(\.achievement).sorted() == ["first-trade", "ten-trades"], "each once; no profit from a sale at cost")
            // Notifications say so, newest first.
            let page = try await server.notifications(alice)
            #expect(page.notifications.filter { $0.kind == "achievement" }.map(\.title) == ["Achievement: Ten trades", "Achievement: First trade"])
            #expect(page.notifications.last?.title == "\(bob.username) follows you")
            #expect(page.unread == 3 && page.notifications.allSatisfy { !$0.read })
            // Bob sees them in his feed (achievements are public, like the profile).
            let feed = try await server.feed(bob, achievements: true)
            #expect(feed.items.filter { $0.kind == "achievement" }.map { $0.achievement?.id } == ["ten-trades", "first-trade"])
            // Another player's profile shows only what was earned.
            let seen = try await server.profile(bob, alice.username).decode(ProfileDTO.self)
            #expect(seen.achievements.map(\.id) == ["first-trade", "ten-trades"])
        }
    }

    @Test func notificationsArePagedReadAndDeliveredOnTheStream() async throws {
        try await withServer(configure: Self.quiet) { server in
            let carol = try await server.register()
            let client = try await StreamClient.connect(server, token: carol.accessToken)
            try await client.wait { $0.type == "ready" }
            var followers: [TestServer.Player] = []
            for _ in 0..<3 {
                let fan = try await server.register()
                #expect(try await server.send(.PUT, "/api/v1/users/\(carol.username)/follow", token: fan.accessToken).status == 204)
                followers.append(fan)
            }
            // Following again does not notify again.
            #expect(try await server.send(.PUT, "/api/v1/users/\(carol.username)/follow", token: followers[0].accessToken).status == 204)
            let live = try await client.wait { $0.type == "notification" && $0.unread == 3 }
            #expect(live.notification?.kind == "follower" && live.notification?.title == "\(followers[2].username) follows you")
            #expect(live.notification?.link == "#/people/\(followers[2].username)")

            let first = try await server.notifications(carol, query: "?limit=2")
            #expect(first.notifications.count == 2 && first.unread == 3)
            let second = try await server.notifications(carol, query: "?limit=2&cursor=\(try #require(first.nextCursor))")
            #expect(second.notifications.count == 1 && second.nextCursor == nil, "\(first) \(second)")
            #expect(Set((first.notifications + second.notifications).map(\.title)) == Set(followers.map { "\($0.username) follows you" }))
            let bad = try await server.send(.GET, "/api/v1/notifications?cursor=nonsense", token: carol.accessToken)
            #expect(bad.status == 400 && bad.errorCode == "invalid_cursor")

            // Read one (another player cannot mark Carol's), then all.
            let one = first.notifications[0].id
            let foreign = try await server.send(.POST, "/api/v1/notifications/read", token: followers[0].accessToken, json: MarkReadRequest(ids: [one]))
            #expect(try foreign.decode(UnreadCount.self).unread == 0)
            #expect(try await server.send(.GET, "/api/v1/notifications/unread", token: carol.accessToken).decode(UnreadCount.self).unread == 3)
            let read = try await server.send(.POST, "/api/v1/notifications/read", token: carol.accessToken, json: MarkReadRequest(ids: [one]))
            #expect(try read.decode(UnreadCount.self).unread == 2)
            #expect(try await server.notifications(carol).notifications.first { $0.id == one }?.read == true)
            let all = try await server.send(.POST, "/api/v1/notifications/read", token: carol.accessToken, json: MarkReadRequest(all: true))
            #expect(try all.decode(UnreadCount.self).unread == 0)
            let neither = try await server.send(.POST, "/api/v1/notifications/read", token: carol.accessToken, body: "{}")
            #expect(neither.status == 400 && neither.errorCode == "validation_failed")
            let unknown = try await server.send(.POST, "/api/v1/notifications/read", token: carol.accessToken, body: #"{"all":true,"x":1}"#)
            #expect(unknown.status == 400)
            await client.close()
        }
    }

    @Test func alertsFireOnceInOneRoundForEveryPlayerAndCanBeRearmed() async throws {
        let market = try await MovableMarketData.tiny()
        try await withServer(source: market, configure: Self.quiet) { server in
            let dana = try await server.register(), eve = try await server.register()
            func create(_ player: TestServer.Player, _ symbol: String, _ condition: String, _ value: String) async throws -> TestServer.Reply {
                try await server.send(.POST, "/api/v1/alerts", token: player.accessToken,
                                      json: CreateAlertRequest(symbol: symbol, condition: condition, value: value))
            }
            let above = try await create(dana, "msft", "above", "410")
            #expect(above.status == 201, "\(above.text)")
            let alert = try above.decode(AlertDTO.self)
            #expect(alert.symbol == "MSFT" && alert.armed && alert.description == "MSFT rises to $410.00 or above")
            #expect(try await create(eve, "MSFT", "above", "405.5").status == 201)
            #expect(try await create(eve, "ACME", "move", "2.5").status == 201)
            // Bad alerts are refused with their reason.
            for (symbol, condition, value, code) in [("ZZZZ", "above", "1", "unknown_symbol"), ("MSFT", "sideways", "1", "validation_failed"),
                                                     ("MSFT", "above", "-1", "validation_failed"), ("MSFT", "above", "1e3", "validation_failed"),
                                                     ("MSFT", "move", "0.01", "validation_failed"), ("MSFT", "move", "abc", "validation_failed")] {
                let refused = try await create(dana, symbol, condition, value)
                #expect(refused.errorCode == code, "\(symbol) \(condition) \(value): \(refused.text)")
            }
            let monitor = try #require(server.app.bullpen.alertMonitor)
            // ACME's 19.50 against 20.00 is a move of 2.50%: Eve's move alert fires; MSFT at 400 fires nothing.
            #expect(try await monitor.runOnce() == 1)
            #expect(try await server.notifications(eve).notifications.map(\.title) == ["ACME at $19.50"])
            market.set("MSFT", "410")
            #expect(try await monitor.runOnce() == 2, "both MSFT alerts fire in one round")
            #expect(try await monitor.runOnce() == 0, "each once")
            let fired = try await server.send(.GET, "/api/v1/alerts", token: dana.accessToken).decode(AlertList.self)
            #expect(fired.limit == 50 && fired.alerts.count == 1)
            #expect(fired.alerts[0].armed == false && fired.alerts[0].triggeredPrice == "410.00")
            let note = try #require(try await server.notifications(dana).notifications.first)
            #expect(note.kind == "alert" && note.title == "MSFT at $410.00" && note.link == "#/stock/MSFT")
            #expect(note.body == "Your alert fired: MSFT rises to $410.00 or above.")
            // Re-armed, it fires again while the price holds.
            let rearmed = try await server.send(.POST, "/api/v1/alerts/\(alert.id)/rearm", token: dana.accessToken)
            #expect(try rearmed.decode(AlertDTO.self).armed)
            #expect(try await monitor.runOnce() == 1)
            // Only the owner deletes; then it is gone.
            #expect(try await server.send(.DELETE, "/api/v1/alerts/\(alert.id)", token: eve.accessToken).status == 404)
            #expect(try await server.send(.DELETE, "/api/v1/alerts/\(alert.id)", token: dana.accessToken).status == 204)
            #expect(try await server.send(.DELETE, "/api/v1/alerts/\(alert.id)", token: dana.accessToken).status == 404)
            #expect(try await server.send(.POST, "/api/v1/alerts/not-an-id/rearm", token: dana.accessToken).status == 404)
            // At most 50 per player.
            for n in 0..<50 { #expect(try await create(dana, "ACME", "below", "\(n + 1)").status == 201) }
            let full = try await create(dana, "ACME", "below", "0.5")
            #expect(full.status == 409 && full.errorCode == "too_many_alerts", "\(full.text)")
        }
    }

    /// The served application boots its background jobs: alerts are checked without anyone asking.
    @Test func alertsAreCheckedByThemselves() async throws {
        try await withServer(configure: { $0.alertInterval = .milliseconds(100) }) { server in
            let player = try await server.register()
            let client = try await StreamClient.connect(server, token: player.accessToken)
            try await client.wait { $0.type == "ready" }
            let made = try await server.send(.POST, "/api/v1/alerts", token: player.accessToken,
                                             json: CreateAlertRequest(symbol: "MSFT", condition: "below", value: "500"))
            #expect(made.status == 201)
            let live = try await client.wait(seconds: 15) { $0.type == "notification" }
            #expect(live.notification?.kind == "alert" && live.unread == 1)
            await client.close()
        }
    }

    @Test func aTopUpIsForAMainPortfolioBelowATenthOnceAWeek() async throws {
        let market = try await MovableMarketData.tiny()
        let clock = FixedTimeSource(Date(timeIntervalSince1970: 1_704_300_000))
        try await withServer(time: clock, source: market, configure: Self.quiet) { server in
            var frank = try await server.register()
            let main = frank.mainPortfolio
            func status() async throws -> TopUpStatus {
                let reply = try await server.send(.GET, "/api/v1/portfolios/\(main)/top-up", token: frank.accessToken)
                try #require(reply.status == 200, "top-up status: \(reply.text)")
                return try reply.decode(TopUpStatus.self)
            }
            var now = try await status()
            #expect(!now.available && now.threshold == "10000.00" && now.equity == "100000.00")
            #expect(now.reason.contains("not below a tenth"))
            let early = try await server.send(.POST, "/api/v1/portfolios/\(main)/top-up", token: frank.accessToken)
            #expect(early.status == 409 && early.errorCode == "top_up_not_available")
            // On the global leaderboard until a top-up.
            _ = try await server.send(.PATCH, "/api/v1/me", token: frank.accessToken, body: #"{"publicLeaderboard":true}"#)
            func ranked() async throws -> Bool {
                try await server.send(.GET, "/api/v1/leaderboard", token: frank.accessToken).decode(LeaderboardDTO.self)
                    .standings.contains { $0.userId == frank.id }
            }
            #expect(try await ranked())
            // All in on ACME at 19.50, then it crashes to 1.00: 5,128 shares worth $5,128 and $4.00 cash.
            #expect(try await server.order(frank, "buy", 5_128, "ACME").status == 201)
            market.set("ACME", "1.00")
            now = try await status()
            #expect(now.available && now.equity == "5132.00" && now.amount == "94868.00", "\(now)")
            let claimed = try await server.send(.POST, "/api/v1/portfolios/\(main)/top-up", token: frank.accessToken)
            #expect(claimed.status == 200, "\(claimed.text)")
            #expect(try claimed.decode(TopUpStatus.self).nextAt == clock.now().addingTimeInterval(7 * 24 * 3600))
            // Equity is back to the starting cash; the loss is still a loss.
            let portfolio = try await server.send(.GET, "/api/v1/portfolios/\(main)", token: frank.accessToken).decode(PortfolioDTO.self)
            #expect(portfolio.cash == "94872.00" && portfolio.equity == "100000.00")
            #expect(portfolio.totalReturn == "-94868.00" && portfolio.totalReturnPercent == "-48.68", "\(portfolio.totalReturn)")
            let history = try await server.send(.GET, "/api/v1/portfolios/\(main)/activities", token: frank.accessToken)
            #expect(history.text.contains(#""type":"top_up""#) && history.text.contains(#""amount":"94868.00""#), "\(history.text)")
            try await server.expectBalanced(frank, main)
            #expect(try await ranked() == false, "a topped-up portfolio leaves the global leaderboard until it is reset")
            // Once a week: refused until seven days have passed, whatever happens meanwhile.
            market.set("ACME", "10.00")
            #expect(try await server.order(frank, "buy", 9_487, "ACME").status == 201)
            market.set("ACME", "0.01")
            let again = try await server.send(.POST, "/api/v1/portfolios/\(main)/top-up", token: frank.accessToken)
            #expect(again.status == 409 && again.errorCode == "top_up_not_available" && again.text.contains("7 days"))
            clock.advance(by: 7 * 24 * 3600 - 1)
            // (A week later the access token has long expired: sign in again.)
            frank.accessToken = try await server.send(.POST, "/api/v1/auth/login", json: Credentials(username: frank.username, password: frank.password))
                .decode(AuthResponse.self).tokens.accessToken
            #expect(try await status().available == false)
            clock.advance(by: 1)
            #expect(try await status().available == true)
            // Not for other portfolios.
            let other = try await server.send(.POST, "/api/v1/portfolios", token: frank.accessToken, body: #"{"name":"Second"}"#)
            let second = try other.decode(PortfolioDTO.self).id
            let refused = try await server.send(.POST, "/api/v1/portfolios/\(second)/top-up", token: frank.accessToken)
            #expect(refused.status == 409 && refused.text.contains("Main portfolio"))
            try await server.expectBalanced(frank, main)
        }
    }

    @Test func aLeagueThatEndsTellsEachPlayerTheirRankOnce() async throws {
        let clock = FixedTimeSource(LeagueAPITests.sunday)
        try await withServer(time: clock, configure: Self.quiet) { server in
            let owner = try await server.register()
            let ends = ISO8601DateFormatter().string(from: LeagueAPITests.sunday.addingTimeInterval(120))
            let league = try await server.createLeague(owner, #"{"name":"Short","visibility":"private","endsAt":"\#(ends)"}"#)
            var players = [owner]
            for _ in 0..<4 { let player = try await server.register(); _ = try await server.joinLeague(player, code: try #require(league.code)); players.append(player) }
            let joined = try await server.notifications(owner)
            #expect(joined.notifications.filter { $0.kind == "league_joined" }.count == 4)
            let service = server.app.bullpen.leagues, notifier = server.app.bullpen.notifier
            #expect(try await service.announceEndings(notifier: notifier) == 0, "not over yet")
            clock.advance(by: 121)
            #expect(try await service.announceEndings(notifier: notifier) == 1)
            #expect(try await service.announceEndings(notifier: notifier) == 0, "once")
            for player in players {
                let ended = try await server.notifications(player).notifications.filter { $0.kind == "league_ended" }
                #expect(ended.count == 1 && ended[0].body.hasPrefix("Final standings: you finished ") && ended[0].body.hasSuffix(" of 5."))
            }
            // Five players with the same equity tie for first: each is a champion of a league of five.
            for player in players { _ = try await server.waitForAchievement(player, "league-winner") }
        }
    }

    /// The server posts only where browsers' push services are: a subscription cannot point it elsewhere.
    @Test func pushEndpointsAreOnlyThePushServices() {
        let hosts = PushSender.defaultHosts
        for good in ["https://fcm.googleapis.com/fcm/send/abc", "https://updates.push.services.mozilla.com/wpush/v2/x",
                     "https://web.push.apple.com/QGu", "https://db5p.notify.windows.com/w/?token=x", "https://fcm.googleapis.com:443/x"] {
            #expect(PushSender.accepts(good, hosts: hosts, insecure: false), "\(good)")
        }
        for bad in ["http://fcm.googleapis.com/x", "https://fcm.googleapis.com.evil.example/x", "https://evilfcm.googleapis.com.example/x",
                    "https://user:pw@fcm.googleapis.com/x", "https://fcm.googleapis.com:6379/x", "https://127.0.0.1/x", "https://[::1]/x",
                    "https://evil%2Efcm.googleapis.com/x", "ftp://fcm.googleapis.com/x", "https://example.com/fcm.googleapis.com", "not a url"] {
            #expect(!PushSender.accepts(bad, hosts: hosts, insecure: false), "\(bad)")
        }
    }

    @Test func pushesAreEncryptedForEachDeviceAndSentToItsPushService() async throws {
        let pushService = try await PushStandIn.start()
        defer { Task { await pushService.stop() } }
        try await withServer(configure: { config in
            Self.quiet(&config)
            config.pushHosts = ["127.0.0.1"]
            config.pushAllowHTTP = true
        }) { server in
            let gina = try await server.register(), fan = try await server.register()
            let settings = try await server.send(.GET, "/api/v1/push", token: gina.accessToken).decode(PushSettingsDTO.self)
            let serverKey = try WebPushCrypto.base64URLDecode(settings.publicKey)
            #expect(serverKey.count == 65 && settings.devices == 0 && settings.kinds.allSatisfy(\.enabled))
            // The browser's side: its own key pair and secret.
            let device = P256.KeyAgreement.PrivateKey(), secret = Data((0..<16).map { _ in UInt8.random(in: 0...255) })
            let endpoint = "\(pushService.baseURL)/push/gina-laptop"
            func subscribe(_ endpoint: String, key: Data = device.publicKey.x963Representation) async throws -> TestServer.Reply {
                try await server.send(.POST, "/api/v1/push/subscriptions", token: gina.accessToken, json: PushSubscriptionRequest(
                    endpoint: endpoint, keys: .init(p256dh: WebPushCrypto.base64URLEncode(key), auth: WebPushCrypto.base64URLEncode(secret))))
            }
            #expect(try await subscribe(endpoint).status == 201)
            // Elsewhere than a known push service, over plain HTTP elsewhere, or with a key off the curve: refused.
            #expect(try await subscribe("http://example.com/push/x").status == 400)
            #expect(try await subscribe(endpoint, key: Data([4] + [UInt8](repeating: 7, count: 64))).status == 400)

            #expect(try await server.send(.PUT, "/api/v1/users/\(gina.username)/follow", token: fan.accessToken).status == 204)
            let received = try await pushService.wait(count: 1)
            #expect(received[0].path == "/push/gina-laptop" && received[0].encoding == "aes128gcm" && received[0].ttl == "86400")
            // The stand-in checks the VAPID signature against the server's key, as a push service does.
            let vapid = try WebPushCrypto.verifyVAPID(received[0].authorization, audience: pushService.baseURL, now: Date())
            #expect(vapid.publicKey == serverKey)
            let plain = try WebPushCrypto.decrypt(received[0].body, userAgentPrivateKey: device, authSecret: secret)
            let payload = try JSONDecoder().decode(PushSender.Payload.self, from: plain)
            #expect(payload.title == "\(fan.username) follows you" && payload.kind == "follower" && payload.link == "#/people/\(fan.username)")

            // Kinds turned off are not pushed (the notification is still stored).
            let kinds = try await server.send(.PUT, "/api/v1/push/kinds", token: gina.accessToken, json: PushKindsRequest(kinds: ["alert"]))
            #expect(try kinds.decode(PushSettingsDTO.self).kinds.filter(\.enabled).map(\.kind) == ["alert"])
            let other = try await server.register()
            #expect(try await server.send(.PUT, "/api/v1/users/\(gina.username)/follow", token: other.accessToken).status == 204)
            try await Task.sleep(for: .milliseconds(300))
            #expect(pushService.received.withLock { $0.count } == 1)
            #expect(try await server.notifications(gina).notifications.count == 2)
            let badKind = try await server.send(.PUT, "/api/v1/push/kinds", token: gina.accessToken, json: PushKindsRequest(kinds: ["everything"]))
            #expect(badKind.status == 400)

            // A push service that says the device is gone (410): the subscription is forgotten.
            _ = try await server.send(.PUT, "/api/v1/push/kinds", token: gina.accessToken, json: PushKindsRequest(kinds: ["follower"]))
            #expect(try await subscribe("\(pushService.baseURL)/gone/old-phone").status == 201)
            let third = try await server.register()
            #expect(try await server.send(.PUT, "/api/v1/users/\(gina.username)/follow", token: third.accessToken).status == 204)
            _ = try await pushService.wait(count: 3)
            try await Task.sleep(for: .milliseconds(200))
            let after = try await server.send(.GET, "/api/v1/push", token: gina.accessToken).decode(PushSettingsDTO.self)
            #expect(after.devices == 1)
            // Unsubscribing forgets the device.
            let gone = try await server.send(.POST, "/api/v1/push/unsubscribe", token: gina.accessToken, json: PushUnsubscribeRequest(endpoint: endpoint))
            #expect(try gone.decode(PushSettingsDTO.self).devices == 0)
        }
    }
}

/// A local stand-in for a browser's push service (RFC 8030): takes every message posted to it,
/// answering 201, or 410 under `/gone/` (a device that unsubscribed).
final class PushStandIn: Sendable {
    struct Message: Sendable {
        var path: String
        var authorization: String
        var encoding: String
        var ttl: String
        var body: Data
    }

    let app: Vapor.Application
    let baseURL: String
    let received = Mutex<[Message]>([])

    private init(app: Vapor.Application, baseURL: String) { self.app = app; self.baseURL = baseURL }

    static func start() async throws -> PushStandIn {
        let app = try await Vapor.Application.make(.testing)
        app.logger.logLevel = .critical
        app.http.server.configuration.hostname = "127.0.0.1"
        app.http.server.configuration.port = 0
        let holder = Mutex<PushStandIn?>(nil)
        app.on(.POST, "**", body: .collect(maxSize: "8kb")) { req -> Response in
            let message = Message(path: req.url.path, authorization: req.headers.first(name: "Authorization") ?? "",
                                  encoding: req.headers.first(name: "Content-Encoding") ?? "", ttl: req.headers.first(name: "TTL") ?? "",
                                  body: req.body.data.map { Data($0.readableBytesView) } ?? Data())
            holder.withLock { $0 }?.received.withLock { $0.append(message) }
            return Response(status: req.url.path.hasPrefix("/gone/") ? .gone : .created)
        }
        try await app.server.start(address: .hostname("127.0.0.1", port: 0))
        let port = try #require(app.http.server.shared.localAddress?.port)
        let standIn = PushStandIn(app: app, baseURL: "http://127.0.0.1:\(port)")
        holder.withLock { $0 = standIn }
        return standIn
    }

    /// Waits (up to 10 s) for `count` messages.
    func wait(count: Int) async throws -> [Message] {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            let messages = received.withLock { $0 }
            if messages.count >= count { return messages }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("the push service got \(received.withLock { $0.count }) of \(count) messages")
        throw CancellationError()
    }

    func stop() async {
        await app.server.shutdown()
        try? await app.asyncShutdown()
    }
}
