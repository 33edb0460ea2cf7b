import ArgumentParser
import BullpenCore
import BullpenStore
import Foundation
import Logging

/// `bullpen-bench memory`: the resident size of the ledger with N portfolios' state loaded.
struct Memory: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create N players, each with a portfolio holding three positions (through the ledger), then print the resident memory with every portfolio's state in memory (target: under 1 GB for 100,000).")

    @ArgumentParser.Option(help: "Portfolios to load.") var portfolios = 100_000
    @ArgumentParser.Option(help: "Where the scratch SQLite file goes (default /dev/shm: durability is not measured here).")
    var directory = "/dev/shm"

    func run() async throws {
        BenchSetup.quietLogging()
        let scratch = URL(fileURLWithPath: directory).appendingPathComponent("bullpen-memory-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        let store = try BullpenStore(backend: .sqlite(path: scratch.appendingPathComponent("memory.sqlite").path), logger: logger)
        try await store.migrate()
        let before = Pack.memory().resident
        let start = ContinuousClock.now
        let symbols = ["AAPL", "MSFT", "KO"].compactMap(Symbol.init)
        let chunk = 1_000
        for first in stride(from: 0, to: portfolios, by: chunk) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for i in first..<min(portfolios, first + chunk) {
                    group.addTask {
                        let user = try await store.createUser(username: "player\(i)", usernameKey: "player\(i)", passwordHash: "x")
                        guard let main = try await store.portfolios(owner: user.id).first else { return }
                        for symbol in symbols {
                            let request = OrderRequest(symbol: symbol, side: .buy, quantity: Quantity(whole: Int64(i % 7 + 1)))
                            let priced = PricedOrder(request: request, price: Price(parsing: "100")!,
                                                     pricing: FillPricing(source: .close, asOf: Date(), marketOpen: false), trading: true)
                            _ = try await store.placeOrder(priced, in: main.id, owner: user.id, idempotency: nil)
                        }
                        _ = try await store.state(of: main.id, owner: user.id)
                    }
                }
                try await group.waitForAll()
            }
            if (first + chunk) % 10_000 == 0 {
                print(String(format: "%7d portfolios loaded, resident %.0f MB, %.0f s", first + chunk, Pack.memory().resident,
                             (ContinuousClock.now - start).seconds))
            }
        }
        let after = Pack.memory()
        let perPortfolio = (after.resident - before) * 1_048_576 / Double(portfolios)
        print(String(format: "%d portfolios with 3 positions each in memory: resident %.0f MB (%.0f MB before; about %.1f KB each); peak %.0f MB",
                     portfolios, after.resident, before, perPortfolio / 1024, after.peak))
        print(after.resident < 1024 ? "target (under 1 GB): PASS" : "target (under 1 GB): MISS")
        await store.shutdown()
    }
}
