import ArgumentParser
import AsyncHTTPClient
import BullpenAPI
import BullpenCore
import BullpenStore
import Foundation
import NIOHTTP1

/// `bullpen-bench feed`: a player following 1,000 players, each with a public portfolio and a
/// history of trades (and a private one with as many, which the feed must pass over); the first
/// page of the feed and a page deep in it, over HTTP against the real server. The target is
/// under 50 ms a page. The players are written straight into the server's database through the
/// store, then the server answers as it would for them.
struct Feed: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "feed",
        abstract: "The feed of a player following 1,000 traders; prints p50/p99 of a page against /health.")

    @ArgumentParser.Option(help: "Players followed.") var followed = 1_000
    @ArgumentParser.Option(help: "Trades of each followed player, in their public and, as many, in their private portfolio.") var trades = 20
    @ArgumentParser.Option(help: "Timed requests per page.") var requests = 60
    @OptionGroup var options: ServerOptions

    func run() async throws {
        let pack = try Orders.packDirectory(options.marketData)
        let (directory, _) = try BenchSetup.scratch("feed")
        defer { try? FileManager.default.removeItem(at: directory) }
        let process = try options.start(in: directory, pack: pack)
        defer { process.stop() }
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            try await measure(client, base: process.url, data: directory.appendingPathComponent("data"))
            try await client.shutdown()
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    private func measure(_ client: HTTPClient, base: String, data: URL) async throws {
        let database = options.postgres == nil ? "SQLite" : "PostgreSQL"
        print("Bullpen feed bench: following \(followed) players × \(trades) public trades (and \(trades) private), \(database)")
        let auth: AuthResponse = try await Orders.call(client, .POST, base + "/api/v1/auth/register", token: nil,
                                                       body: Credentials(username: "feedbench", password: "bench passphrase 11x"),
                                                       expect: 201)
        let token = auth.tokens.accessToken
        let backend: BullpenStore.Backend = options.postgres.map { .postgres(url: $0) }
            ?? .sqlite(path: data.appendingPathComponent("bullpen.sqlite").path)
        let store = try BullpenStore(backend: backend)
        let viewer = try UserID(auth.user.id).orThrow()
        let symbols = ["AAPL", "MSFT", "KO", "XOM", "JPM", "JNJ", "PG", "DIS", "HD", "BAC"].compactMap(Symbol.init)
        let started = ContinuousClock.now
        for n in 0..<followed {
            let user = try await store.createUser(username: "trader\(n)", usernameKey: "trader\(n)", passwordHash: "bench")
            let main = try await store.portfolios(owner: user.id)[0]
            try await store.setVisibility(main.id, owner: user.id, to: .public)
            let hidden = try await store.createPortfolio(owner: user.id, name: "Hidden", startingCash: Money(dollars: 100_000))
            for portfolio in [main, hidden] {
                for t in 0..<trades {
                    let pricing = FillPricing(source: .close, asOf: Date(), marketOpen: false)
                    _ = try await store.placeOrders([PricedOrder(request: OrderRequest(symbol: symbols[(n + t) % symbols.count], side: .buy, quantity: 1),
                                                                 price: Price(cents: 10_000), pricing: pricing, trading: true)],
                                                    in: portfolio.id, owner: user.id)[0].get()
                }
            }
            try await store.follow(user.id, by: viewer)
            if (n + 1) % 250 == 0 { print("  \(n + 1) players written (\(Int((ContinuousClock.now - started).seconds)) s)") }
        }
        await store.shutdown()

        var health: [Double] = []
        for _ in 0..<200 {
            let start = ContinuousClock.now
            try await OrdersBench.health(client, base: base)
            health.append((ContinuousClock.now - start).seconds * 1000)
        }
        let floor = health.sorted()[health.count / 2]
        // A cursor ten pages in.
        var cursor: String?
        for _ in 0..<10 {
            let page: FeedPage = try await Orders.call(client, .GET, base + "/api/v1/feed?limit=50" + (cursor.map { "&cursor=\($0)" } ?? ""),
                                                      token: token, body: nil as String?, expect: 200)
            cursor = page.nextCursor
        }
        var verdicts: [String] = []
        for (name, path) in [("first page", "/api/v1/feed?limit=50"), ("eleventh page", "/api/v1/feed?limit=50&cursor=\(cursor ?? "")")] {
            var latencies: [Double] = []
            for _ in 0..<requests {
                let start = ContinuousClock.now
                let page: FeedPage = try await Orders.call(client, .GET, base + path, token: token, body: nil as String?, expect: 200)
                latencies.append((ContinuousClock.now - start).seconds * 1000)
                guard page.items.count == 50 else { throw ValidationError("short page: \(page.items.count)") }
            }
            latencies.sort()
            let p50 = latencies[latencies.count / 2], p99 = latencies[min(latencies.count - 1, Int(Double(latencies.count) * 0.99))]
            print(String(format: "feed, %@ of 50: p50 %.1f ms, p99 %.1f ms (%.1f × /health p50 %.2f ms)", name, p50, p99, p50 / floor, floor))
            verdicts.append(String(format: "%@ %@", name, p50 < 50 ? "PASS" : "FAIL"))
        }
        print("target: a page under 50 ms (p50): " + verdicts.joined(separator: "; "))
    }
}
