import AsyncHTTPClient
import BullpenAPI
import BullpenCore
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// The scenarios of `bullpen-bench orders`, run over HTTP against a server in another process.
struct OrdersBench {
    let orders: Int
    let single: Int
    static let symbols = ["AAPL", "MSFT", "KO", "JPM", "XOM", "PG", "JNJ", "DIS"]

    struct Results {
        var orders1, orders16, orders64, shared64, portfolio64, health1, health64: Orders.Stats
        var sharedBooksExact: Bool
    }

    /// A player: its access token and its portfolio.
    struct Player: Sendable {
        var token: String
        var portfolio: String
    }

    func run(base: String) async throws -> Results {
        let client = HTTPClient(eventLoopGroupProvider: .singleton,
                                configuration: .init(connectionPool: .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 128)))
        do {
            let results = try await scenarios(client, base: base)
            try await client.shutdown()
            return results
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    private func scenarios(_ client: HTTPClient, base: String) async throws -> Results {
        let suffix = UUID().uuidString.prefix(6).lowercased()
        var players: [Player] = []
        for i in 0..<65 { players.append(try await Self.player(client, base: base, name: "bench\(suffix)\(i)")) }
        let own = Array(players.prefix(64)), shared = players[64]
        let buying = Self.orderCall(client, base: base)

        let orders1 = try await Orders.measure(total: single, clients: 1) { _, k in _ = try await buying(own[0], k) }
        orders1.print(title: "orders, 1 client")
        let orders16 = try await Orders.measure(total: orders, clients: 16) { c, k in _ = try await buying(own[c], k) }
        orders16.print(title: "orders, 16 clients, own portfolios")
        let orders64 = try await Orders.measure(total: orders, clients: 64) { c, k in _ = try await buying(own[c], k) }
        orders64.print(title: "orders, 64 clients, own portfolios")

        let ledger = Mutex<(cash: Int64, shares: [String: Quantity])>((0, [:]))
        let shared64 = try await Orders.measure(total: orders, clients: 64) { c, k in
            let order = try await buying(shared, k)
            let cash = Money(parsing: order.cashDelta)?.cents ?? .min
            ledger.withLock { books in
                books.cash += cash
                let filled = Quantity(parsing: order.filledQuantity.text) ?? .max
                books.shares[order.symbol, default: .zero] += order.side == "buy" ? filled : -filled
            }
        }
        shared64.print(title: "orders, 64 clients, one shared portfolio")
        let exact = try await Self.booksMatch(client, base: base, player: shared, moved: ledger.withLock { $0 })

        let portfolio64 = try await Orders.measure(total: orders, clients: 64) { c, _ in
            let _: PortfolioDTO = try await Orders.call(client, .GET, base + "/api/v1/portfolios/\(own[c].portfolio)",
                                                        token: own[c].token, body: Optional<Credentials>.none, expect: 200)
        }
        portfolio64.print(title: "GET /api/v1/portfolios/{id}, 64 clients")
        let health1 = try await Orders.measure(total: single, clients: 1) { _, _ in try await Self.health(client, base: base) }
        health1.print(title: "GET /health, 1 client")
        let health64 = try await Orders.measure(total: orders, clients: 64) { _, _ in try await Self.health(client, base: base) }
        health64.print(title: "GET /health, 64 clients")
        return Results(orders1: orders1, orders16: orders16, orders64: orders64, shared64: shared64,
                       portfolio64: portfolio64, health1: health1, health64: health64, sharedBooksExact: exact)
    }

    /// Registers a player with a $10,000,000 portfolio (so that no book runs out of cash).
    static func player(_ client: HTTPClient, base: String, name: String) async throws -> Player {
        let auth: AuthResponse = try await Orders.call(client, .POST, base + "/api/v1/auth/register", token: nil,
                                                       body: Credentials(username: name, password: "bench passphrase \(name.count)x"),
                                                       expect: 201)
        let portfolio: PortfolioDTO = try await Orders.call(client, .POST, base + "/api/v1/portfolios", token: auth.tokens.accessToken,
                                                            body: CreatePortfolioRequest(name: "Bench", startingCash: "10000000"),
                                                            expect: 201)
        return Player(token: auth.tokens.accessToken, portfolio: portfolio.id)
    }

    /// Buy two, sell one of the same symbol: every sell has shares behind it, even in a shared book.
    static func orderCall(_ client: HTTPClient, base: String) -> @Sendable (Player, Int) async throws -> OrderDTO {
        { player, k in
            let symbol = symbols[(k / 3) % symbols.count]
            return try await Orders.call(client, .POST, base + "/api/v1/portfolios/\(player.portfolio)/orders", token: player.token,
                                         body: PlaceOrderRequest(symbol: symbol, side: k % 3 == 2 ? "sell" : "buy", quantity: 1),
                                         expect: 201)
        }
    }

    static func health(_ client: HTTPClient, base: String) async throws {
        let response = try await client.execute(HTTPClientRequest(url: base + "/health"), timeout: .seconds(30))
        _ = try await response.body.collect(upTo: 1 << 16)
        guard response.status == .ok else { throw CancellationError() }
    }

    /// Whether the shared portfolio's cash and positions are exactly what its acknowledged orders moved.
    static func booksMatch(_ client: HTTPClient, base: String, player: Player,
                           moved: (cash: Int64, shares: [String: Quantity])) async throws -> Bool {
        let summary: PortfolioDTO = try await Orders.call(client, .GET, base + "/api/v1/portfolios/\(player.portfolio)",
                                                          token: player.token, body: Optional<Credentials>.none, expect: 200)
        let positions: PositionList = try await Orders.call(client, .GET, base + "/api/v1/portfolios/\(player.portfolio)/positions",
                                                            token: player.token, body: Optional<Credentials>.none, expect: 200)
        let cash = Money(parsing: summary.cash)?.cents
        let held = Dictionary(positions.positions.map { ($0.symbol, Quantity(parsing: $0.quantity.text) ?? .max) }, uniquingKeysWith: +)
        let exact = cash == Money(dollars: 10_000_000).cents + moved.cash && held == moved.shares.filter { $0.value != .zero }
        print(exact ? "  shared portfolio: cash \(summary.cash) and \(held.count) positions exactly what the acknowledged orders moved"
                    : "  SHARED PORTFOLIO MISMATCH: cash \(summary.cash), positions \(held), orders moved \(moved)")
        return exact
    }

    /// The targets, each a ratio of two figures of this run.
    func printTargets(_ r: Results, raw: RawSQLite.Rates, postgres: Bool) {
        print("\ntargets (measured in one run on this machine; ratios, not absolute rates, are the targets):")
        func line(_ what: String, _ value: Double, _ target: String, _ pass: Bool) {
            print("  " + what.padding(toLength: 58, withPad: " ", startingAt: 0)
                  + String(format: "%8.2f", value) + "  " + target.padding(toLength: 10, withPad: " ", startingAt: 0)
                  + (pass ? "PASS" : "MISS"))
        }
        let o64 = r.orders64.rate, health = r.health64.rate
        if postgres {
            line("orders 64 clients (PostgreSQL) / raw SQLite NORMAL", o64 / raw.normal, ">= 0.3", o64 / raw.normal >= 0.3)
        } else {
            line("orders 64 clients / raw SQLite NORMAL", o64 / raw.normal, ">= 0.5", o64 / raw.normal >= 0.5)
        }
        line("orders 64 clients / GET /health 64 clients", o64 / health, ">= 0.4", o64 / health >= 0.4)
        line("orders 64 p99 / GET /health 64 p99", r.orders64.p99 / r.health64.p99, "<= 10", r.orders64.p99 / r.health64.p99 <= 10)
        line("orders 1 client p50 (ms)", r.orders1.p50, "< 2", r.orders1.p50 < 2)
        line("orders 64 clients, one portfolio / raw SQLite NORMAL", r.shared64.rate / raw.normal, ">= 0.3",
             r.shared64.rate / raw.normal >= 0.3 && r.sharedBooksExact)
        line("GET /portfolios/{id} 64 clients / GET /health 64 clients", r.portfolio64.rate / health, ">= 0.5",
             r.portfolio64.rate / health >= 0.5)
    }
}

extension Orders.Stats {
    var rate: Double { Double(latencies.count) / seconds }
    var p50: Double { percentile(0.50) }
    var p99: Double { percentile(0.99) }

    func percentile(_ p: Double) -> Double {
        let sorted = latencies.sorted()
        return sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
    }
}
