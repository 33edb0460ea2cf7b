import ArgumentParser
import BullpenCore
import BullpenMarketData
import Foundation

/// `bullpen-bench working-orders`: 10,000 working orders of every type (limits, stops,
/// stop-limits, trailing stops; buys and sells) on 300 symbols of the data pack, evaluated against
/// quote updates as the order monitor evaluates them: one symbol's new price at a time, and a
/// whole poll (every symbol moved). The target is under 2 ms a quote update. The reference, timed
/// in the same run, evaluates every order of the symbol (what the index spares).
struct WorkingOrders: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "working-orders",
        abstract: "Evaluate 10,000 working orders on 300 symbols against quote updates; prints p50/p99 against a scan of every order.")

    @ArgumentParser.Option(name: .customLong("market-data"), help: "Data pack directory (default BULLPEN_MARKET_DATA or ../shared/market-data).")
    var marketData: String?
    @ArgumentParser.Option(help: "Working orders.") var orders = 10_000
    @ArgumentParser.Option(help: "Symbols they are for.") var symbols = 300
    @ArgumentParser.Option(help: "Quote updates timed.") var updates = 3_000

    func run() async throws {
        let source = try await PackMarketData.load(directory: try Orders.packDirectory(marketData)).source
        let listed = try await source.listing().map(\.symbol).sorted()
        let base = try await source.quotes(Array(listed.prefix(symbols * 2)), asOf: .live).filter { $0.value.price.ticks > 0 }
        let traded = Array(base.keys.sorted().prefix(symbols))
        guard traded.count == symbols else { throw ValidationError("the pack has \(traded.count) priced symbols, not \(symbols)") }
        var random = SystemRandomNumberGenerator()
        let now = Date()
        let types: [OrderType] = [.limit, .stop, .stopLimit, .trailingStop]
        // Prices 1% to 15% away from the last close, on the side where each type waits.
        let made: [WorkingOrder] = (0..<orders).map { n in
            let symbol = traded[n % symbols], close = base[symbol]!.price.ticks
            let side: OrderSide = (n / symbols) % 2 == 0 ? .buy : .sell
            let type = types[(n / (2 * symbols)) % types.count]
            let away = close * Int64.random(in: 100...1_500, using: &random) / 10_000
            let below = Price(ticks: close - away), above = Price(ticks: close + away)
            let waits = (type == .limit) == (side == .buy) ? below : above
            let terms = OrderTerms(type: type, timeInForce: .gtc, limit: type == .limit ? waits : type == .stopLimit ? waits : nil,
                                   stop: type == .stop || type == .stopLimit ? waits : nil,
                                   trail: type == .trailingStop ? .percent(basisPoints: Int64.random(in: 200...1_000, using: &random)) : nil)
            return WorkingOrder(id: OrderID(UUID()), symbol: symbol, side: side, quantity: 10, terms: terms,
                                waterMark: type == .trailingStop ? Price(ticks: close) : nil,
                                placedOn: SessionDate(now), placedAt: now)
        }
        let built = ContinuousClock.now
        let index = TriggerIndex(made)
        let buildTime = (ContinuousClock.now - built).seconds * 1000
        let bySymbol = Dictionary(grouping: made, by: \.symbol)
        // One update: a symbol moved by up to ±3% from its last close.
        let moves: [(Symbol, Price)] = (0..<updates).map { _ in
            let symbol = traded.randomElement(using: &random)!, close = base[symbol]!.price.ticks
            return (symbol, Price(ticks: max(1, close + close * Int64.random(in: -300...300, using: &random) / 10_000)))
        }
        var indexed: [Double] = [], scanned: [Double] = [], filled = 0, matched = 0
        for (symbol, price) in moves {
            let start = ContinuousClock.now
            filled += index.evaluate([symbol: (price, now)]).fills.count
            indexed.append((ContinuousClock.now - start).seconds * 1000)
            let scanStart = ContinuousClock.now
            matched += (bySymbol[symbol] ?? []).reduce(0) { $0 + (OrderEvaluation.evaluate($1, quote: price, at: now).fill == nil ? 0 : 1) }
            scanned.append((ContinuousClock.now - scanStart).seconds * 1000)
        }
        guard filled == matched else { throw ValidationError("the index filled \(filled) orders, the scan \(matched)") }
        // A whole poll: every symbol moved at once.
        var polls: [Double] = []
        for _ in 0..<50 {
            let quotes = Dictionary(uniqueKeysWithValues: traded.map { symbol in
                let close = base[symbol]!.price.ticks
                return (symbol, (price: Price(ticks: max(1, close + close * Int64.random(in: -300...300, using: &random) / 10_000)), at: now))
            })
            let start = ContinuousClock.now
            _ = index.evaluate(quotes)
            polls.append((ContinuousClock.now - start).seconds * 1000)
        }
        indexed.sort(); scanned.sort(); polls.sort()
        func at(_ values: [Double], _ q: Double) -> Double { values[min(values.count - 1, Int(Double(values.count) * q))] }
        print("Bullpen working-orders bench: \(orders) working orders (limit, stop, stop-limit, trailing; buy and sell) on \(symbols) symbols, \(updates) quote updates (a symbol moves up to ±3%)")
        print(String(format: "index built in %.2f ms; %.2f orders fill per update on average", buildTime, Double(filled) / Double(updates)))
        print(String(format: "per quote update: p50 %.4f ms, p99 %.4f ms (target < 2 ms)", at(indexed, 0.5), at(indexed, 0.99)))
        print(String(format: "scan of the symbol's every order (reference): p50 %.4f ms, p99 %.4f ms; the index takes %.2f× the scan's time",
                     at(scanned, 0.5), at(scanned, 0.99), at(indexed, 0.5) / max(at(scanned, 0.5), 1e-9)))
        print(String(format: "a whole poll (all %d symbols moved): p50 %.3f ms, p99 %.3f ms", symbols, at(polls, 0.5), at(polls, 0.99)))
    }
}
