import ArgumentParser
import AsyncHTTPClient
import BullpenAPI
import BullpenCore
import BullpenStore
import Foundation
import NIOHTTP1

/// `bullpen-bench leaderboard`: a league of 10,000 members, each holding a stock and with a month
/// of stored closing equity, and as many public live portfolios; the first page of the league's
/// leaderboard and of the global one, over HTTP against the real server on the real pack. The
/// target is under 50 ms for the league's first page. The members are written straight into the
/// server's database through the store (registering 10,000 players over HTTP would time the
/// password hash), then the server answers as it would for them.
struct Leaderboards: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "leaderboard",
        abstract: "The first page of a 10,000-member league's leaderboard and of the global one; prints p50/p99 against /health.")

    @ArgumentParser.Option(help: "League members (each also has a public live portfolio).") var members = 10_000
    @ArgumentParser.Option(help: "Stored sessions of closing equity per portfolio.") var sessions = 21
    @ArgumentParser.Option(help: "Timed requests per leaderboard.") var requests = 40
    @OptionGroup var options: ServerOptions

    func run() async throws {
        let pack = try Orders.packDirectory(options.marketData)
        let (directory, _) = try BenchSetup.scratch("leaderboard")
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
        print(String(format: "server resident memory after the run: %.0f MB", process.residentMB))
    }

    private func measure(_ client: HTTPClient, base: String, data: URL) async throws {
        let database = options.postgres == nil ? "SQLite" : "PostgreSQL"
        print("Bullpen leaderboard bench: \(members) members × \(sessions) sessions of closing equity, \(database)")
        let auth: AuthResponse = try await Orders.call(client, .POST, base + "/api/v1/auth/register", token: nil,
                                                       body: Credentials(username: "leaguebench", password: "bench passphrase 11x"),
                                                       expect: 201)
        let token = auth.tokens.accessToken
        let league: LeagueDTO = try await Orders.call(client, .POST, base + "/api/v1/leagues", token: token,
                                                      body: CreateLeagueRequest(name: "Bench league", visibility: "public"), expect: 201)
        let _: SettingsDTO = try await Orders.call(client, .PATCH, base + "/api/v1/me", token: token,
                                                   body: UpdateMeRequest(publicLeaderboard: true), expect: 200)

        // The members, written through the store into the server's database.
        let backend: BullpenStore.Backend = options.postgres.map { .postgres(url: $0) }
            ?? .sqlite(path: data.appendingPathComponent("bullpen.sqlite").path)
        let store = try BullpenStore(backend: backend)
        let record = try await store.league(try LeagueID(league.id).orThrow())
        let symbols = ["AAPL", "MSFT", "KO", "XOM", "JPM", "JNJ", "PG", "DIS", "HD", "BAC"].compactMap(Symbol.init)
        let days = TradingCalendar().tradingDays(from: SessionDate(year: 2026, month: 1, day: 2), through: SessionDate(year: 2026, month: 3, day: 31))
            .prefix(sessions)
        let started = ContinuousClock.now
        var random = SystemRandomNumberGenerator()
        for n in 1..<members {
            let user = try await store.createUser(username: "member\(n)", usernameKey: "member\(n)", passwordHash: "bench")
            try await store.setPublicLeaderboard(user.id, true)
            let own = try await store.portfolios(owner: user.id)[0]   // "Main", made with the account
            let joined = try await store.join(user.id, league: record)
            for portfolio in [own, joined] {
                let symbol = symbols[n % symbols.count]
                let price = Price(cents: Int64.random(in: 5_000...30_000, using: &random))
                let pricing = FillPricing(source: .close, asOf: Date(), marketOpen: false)
                _ = try await store.placeOrders([PricedOrder(request: OrderRequest(symbol: symbol, side: .buy, quantity: 100), price: price,
                                                             pricing: pricing, trading: true)],
                                                in: portfolio.id, owner: user.id)[0].get()
                var equity = 100_000_00 as Int64
                let snapshots = days.map { day -> EquitySnapshot in
                    equity += Int64.random(in: -150_000...160_000, using: &random)
                    return EquitySnapshot(date: day, cash: Money(cents: equity), marketValue: .zero)
                }
                try await store.saveClosingEquity(of: portfolio.id, period: 1, snapshots)
            }
            if n % 1_000 == 0 { print("  \(n) members written (\(Int((ContinuousClock.now - started).seconds)) s)") }
        }
        await store.shutdown()

        func time(_ path: String) async throws -> (p50: Double, p99: Double, total: Int, first: Double) {
            var latencies: [Double] = [], total = 0, first = 0.0
            for n in 0...requests {
                let start = ContinuousClock.now
                let board: LeaderboardDTO = try await Orders.call(client, .GET, base + path, token: token, body: nil as String?, expect: 200)
                let elapsed = (ContinuousClock.now - start).seconds * 1000
                if n > 0 { latencies.append(elapsed) } else { first = elapsed }   // the first reads the database
                total = board.total
                guard board.standings.count == min(50, board.total) else { throw ValidationError("short page") }
            }
            let sorted = latencies.sorted()
            return (sorted[sorted.count / 2], sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))], total, first)
        }
        var health: [Double] = []
        for _ in 0..<200 {
            let start = ContinuousClock.now
            try await OrdersBench.health(client, base: base)
            health.append((ContinuousClock.now - start).seconds * 1000)
        }
        let floor = health.sorted()[health.count / 2]
        let mine: PortfolioList = try await Orders.call(client, .GET, base + "/api/v1/portfolios", token: token, body: nil as String?,
                                                           expect: 200)
        let main = try mine.portfolios.first { $0.leagueId == nil }.orThrow().id
        let inLeague = try league.myPortfolioId.orThrow()
        var verdicts: [String] = []
        for (name, path, portfolio) in [("league leaderboard, first page (return)", "/api/v1/leagues/\(league.id)/leaderboard?limit=50", inLeague),
                                        ("league leaderboard, first page (sharpe)", "/api/v1/leagues/\(league.id)/leaderboard?metric=sharpe&limit=50", inLeague),
                                        ("global leaderboard, all time", "/api/v1/leaderboard?limit=50", main),
                                        ("global leaderboard, month", "/api/v1/leaderboard?period=month&limit=50", main)] {
            let result = try await time(path)
            // After a change of one of its portfolios (an order), what changed is read again.
            var changed: [Double] = []
            for _ in 0..<25 {
                let _: OrderDTO = try await Orders.call(client, .POST, base + "/api/v1/portfolios/\(portfolio)/orders", token: token,
                                                        body: PlaceOrderRequest(symbol: "KO", side: "buy", quantity: 1), expect: 201)
                let start = ContinuousClock.now
                let _: LeaderboardDTO = try await Orders.call(client, .GET, base + path, token: token, body: nil as String?, expect: 200)
                changed.append((ContinuousClock.now - start).seconds * 1000)
            }
            changed.sort()
            let afterOrder = changed[changed.count / 2]
            print(String(format: "%@: %d ranked; first request %.1f ms; unchanged p50 %.1f ms, p99 %.1f ms (%.1f × /health p50 %.2f ms); "
                         + "after an order p50 %.1f ms, max %.1f ms", name, result.total, result.first, result.p50, result.p99,
                         result.p50 / floor, floor, afterOrder, changed.last ?? 0))
            verdicts.append(String(format: "%@ %@", name, max(result.p50, afterOrder) < 50 ? "PASS" : "FAIL"))
        }
        print("target: first page under 50 ms (p50, unchanged and after an order): " + verdicts.joined(separator: "; "))
    }
}

extension Optional {
    func orThrow() throws -> Wrapped {
        guard let value = self else { throw ValidationError("missing value") }
        return value
    }
}
