import ArgumentParser
import BullpenCore
import BullpenMarketData
import Foundation

/// `bullpen-bench alerts`: 10,000 price alerts of all three kinds on 300 symbols of the data
/// pack, checked against batches of quotes that move each symbol a little, as the alert monitor
/// checks them after each poll. The target is under 10 ms a batch. The reference, timed in the
/// same run, checks every alert against its quote one by one (what the index spares).
struct Alerts: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "alerts",
        abstract: "Check 10,000 alerts on 300 symbols against quote batches; prints p50/p99 against a scan of every alert.")

    @ArgumentParser.Option(name: .customLong("market-data"), help: "Data pack directory (default BULLPEN_MARKET_DATA or ../shared/market-data).")
    var marketData: String?
    @ArgumentParser.Option(help: "Alerts.") var alerts = 10_000
    @ArgumentParser.Option(help: "Symbols they watch.") var symbols = 300
    @ArgumentParser.Option(help: "Quote batches timed.") var batches = 300

    func run() async throws {
        let source = try await PackMarketData.load(directory: try Orders.packDirectory(marketData)).source
        let listed = try await source.listing().map(\.symbol).sorted()
        let base = try await source.quotes(Array(listed.prefix(symbols * 2)), asOf: .live).filter { $0.value.price.ticks > 0 }
        let watched = Array(base.keys.sorted().prefix(symbols))
        guard watched.count == symbols else { throw ValidationError("the pack has \(watched.count) priced symbols, not \(symbols)") }
        var random = SystemRandomNumberGenerator()
        let user = UserID(UUID())
        // Thresholds 1% to 20% from the price (moves of 1% to 10%): a batch's moves of up to 3% fire a few.
        let made: [PriceAlert] = (0..<alerts).map { n in
            let symbol = watched[n % symbols], price = base[symbol]!.price.ticks
            let away = Int64.random(in: 100...2_000, using: &random)
            let condition: AlertCondition = switch n % 3 {
            case 0: .above(Price(ticks: price + price * away / 10_000))
            case 1: .below(Price(ticks: price - price * away / 10_000))
            default: .move(Percent(hundredths: away / 2))
            }
            return PriceAlert(id: UUID(), user: user, symbol: symbol, condition: condition, createdAt: Date())
        }
        let built = ContinuousClock.now
        let book = AlertBook(made)
        let buildTime = (ContinuousClock.now - built).seconds * 1000
        // Each batch: every symbol moved by up to ±3% from its previous close.
        let quoteBatches: [[Symbol: Quote]] = (0..<batches).map { _ in
            Dictionary(uniqueKeysWithValues: watched.map { symbol in
                let close = base[symbol]!.price.ticks
                let moved = close + close * Int64.random(in: -300...300, using: &random) / 10_000
                return (symbol, Quote(price: Price(ticks: max(1, moved)), previousClose: Price(ticks: close)))
            })
        }
        var indexed: [Double] = [], scanned: [Double] = [], fired = 0, matched = 0
        for quotes in quoteBatches {
            let start = ContinuousClock.now
            fired += book.fired(by: quotes).count
            indexed.append((ContinuousClock.now - start).seconds * 1000)
            let scanStart = ContinuousClock.now
            matched += made.reduce(0) { count, alert in count + (quotes[alert.symbol].map { alert.condition.isMet(by: $0) ? 1 : 0 } ?? 0) }
            scanned.append((ContinuousClock.now - scanStart).seconds * 1000)
        }
        guard fired == matched else { throw ValidationError("the index fired \(fired) alerts, the scan \(matched)") }
        indexed.sort(); scanned.sort()
        func at(_ values: [Double], _ q: Double) -> Double { values[min(values.count - 1, Int(Double(values.count) * q))] }
        print("Bullpen alerts bench: \(alerts) alerts on \(symbols) symbols, \(batches) quote batches (each symbol moves up to ±3%)")
        print(String(format: "index built in %.2f ms; %.1f alerts fire per batch on average", buildTime, Double(fired) / Double(batches)))
        print(String(format: "indexed check: p50 %.3f ms, p99 %.3f ms a batch (target < 10 ms)", at(indexed, 0.5), at(indexed, 0.99)))
        print(String(format: "scan of every alert (reference): p50 %.3f ms, p99 %.3f ms; the index takes %.2f× the scan's time",
                     at(scanned, 0.5), at(scanned, 0.99), at(indexed, 0.5) / max(at(scanned, 0.5), 1e-9)))
    }
}
