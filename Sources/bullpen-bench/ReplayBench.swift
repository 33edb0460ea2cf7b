import ArgumentParser
import AsyncHTTPClient
import BullpenAPI
import Foundation
import NIOHTTP1

/// `bullpen-bench replay`: advancing replay portfolios that hold ten stocks by a year (252
/// trading days) at a time, over HTTP against the real server on the real pack; the target is
/// under 20 ms an advance in the server. `/health` is timed in the same run as the floor of a
/// request on this machine.
struct Replay: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Advance replay portfolios with 10 holdings by 252 trading days; print p50/p99 against /health.")

    @ArgumentParser.Option(help: "Replay portfolios (each advanced until the data ends or `advances` times).") var portfolios = 10
    @ArgumentParser.Option(help: "Advances of 252 days per portfolio.") var advances = 10
    @OptionGroup var options: ServerOptions

    /// Ten companies with prices from 1990 to the pack's end.
    static let symbols = ["AAPL", "MSFT", "KO", "XOM", "JPM", "JNJ", "PG", "DIS", "HD", "BAC"]

    func run() async throws {
        let pack = try Orders.packDirectory(options.marketData)
        let (directory, _) = try BenchSetup.scratch("replay")
        defer { try? FileManager.default.removeItem(at: directory) }
        let process = try options.start(in: directory, pack: pack)
        defer { process.stop() }
        let base = process.url
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            try await measure(client, base: base)
            try await client.shutdown()
        } catch {
            try? await client.shutdown()
            throw error
        }
        print(String(format: "server resident memory after the run: %.0f MB", process.residentMB))
    }

    private func measure(_ client: HTTPClient, base: String) async throws {
        print("Bullpen replay bench: \(portfolios) portfolios × up to \(advances) advances of 252 trading days, 10 holdings each, \(options.postgres == nil ? "SQLite" : "PostgreSQL")")
        let auth: AuthResponse = try await Orders.call(client, .POST, base + "/api/v1/auth/register", token: nil,
                                                       body: Credentials(username: "replaybench", password: "bench passphrase 11x"),
                                                       expect: 201)
        let token = auth.tokens.accessToken
        var ids: [String] = []
        for n in 0..<portfolios {
            let portfolio: PortfolioDTO = try await Orders.call(
                client, .POST, base + "/api/v1/portfolios", token: token,
                body: CreatePortfolioRequest(name: "Replay \(n)", startingCash: "1000000.00", replay: ReplayRequest(start: "1990-01-02")),
                expect: 201)
            for symbol in Self.symbols {
                let _: OrderDTO = try await Orders.call(client, .POST, base + "/api/v1/portfolios/\(portfolio.id)/orders", token: token,
                                                        body: PlaceOrderRequest(symbol: symbol, side: "buy", quantity: 100), expect: 201)
            }
            ids.append(portfolio.id)
        }
        // Warm up: one advance of one day each.
        for id in ids {
            let _: AdvanceDTO = try await Orders.call(client, .POST, base + "/api/v1/portfolios/\(id)/advance", token: token,
                                                      body: AdvanceRequest(days: 1), expect: 200)
        }
        var latencies: [Double] = [], days = 0
        for _ in 0..<advances {
            for id in ids {
                let start = ContinuousClock.now
                let advance: AdvanceDTO = try await Orders.call(client, .POST, base + "/api/v1/portfolios/\(id)/advance", token: token,
                                                                body: AdvanceRequest(days: 252), expect: 200)
                latencies.append((ContinuousClock.now - start).seconds * 1000)
                days += advance.days
                guard advance.portfolio.holdingsCount == 10 else { throw ValidationError("a portfolio lost holdings") }
            }
        }
        var health: [Double] = []
        for _ in 0..<200 {
            let start = ContinuousClock.now
            try await OrdersBench.health(client, base: base)
            health.append((ContinuousClock.now - start).seconds * 1000)
        }
        func percentile(_ values: [Double], _ p: Double) -> Double {
            let sorted = values.sorted()
            return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
        }
        let p50 = percentile(latencies, 0.5), p99 = percentile(latencies, 0.99)
        print(String(format: "advance of 252 days (%d advances, %.0f days each on average, one snapshot a day written): p50 %.1f ms, p99 %.1f ms, max %.1f ms",
                     latencies.count, Double(days) / Double(latencies.count), p50, p99, latencies.max() ?? 0))
        print(String(format: "/health (the floor of one request here): p50 %.2f ms; advance p50 less /health p50: %.1f ms",
                     percentile(health, 0.5), p50 - percentile(health, 0.5)))
        print(String(format: "target: an advance of a portfolio with 10 holdings by 252 days under 20 ms in the server: p50 %.1f ms, p99 %.1f ms %@",
                     p50, p99, p99 < 20 ? "PASS" : "FAIL"))
    }
}
