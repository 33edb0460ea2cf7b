import ArgumentParser
import BullpenCore
import BullpenMarketData
import Foundation

/// `bullpen-bench options`: an option chain (the model's inputs as of the clock, then a call and
/// a put at each strike of one expiration) for every company of the pack, live and at a replay
/// date; the target is under 5 ms a chain. A plain quote of the same symbols is timed in the same
/// run as the reference.
struct Options: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Generate an option chain for every symbol of the pack; print the time per chain against a quote.")

    @ArgumentParser.Option(name: .customLong("market-data"), help: "Data pack directory (default BULLPEN_MARKET_DATA or ../shared/market-data).")
    var marketData: String?
    @ArgumentParser.Option(help: "Rounds over the whole universe.") var rounds = 5

    func run() async throws {
        let pack = try await PackMarketData.load(directory: try Orders.packDirectory(marketData)).source
        let options = OptionMarketData(base: pack)
        let symbols = try await pack.listing().map(\.symbol)
        print("Bullpen options bench: \(symbols.count) symbols × \(rounds) rounds, one chain (all strikes, calls and puts) each")
        for clock in [PortfolioClock.live, .replay(SessionDate(iso: "2009-03-02")!.date)] {
            var chains: [Double] = [], quotes: [Double] = [], contracts = 0
            for _ in 0..<rounds {
                for symbol in symbols {
                    var start = ContinuousClock.now
                    _ = try await pack.quote(symbol, asOf: clock)
                    quotes.append((ContinuousClock.now - start).seconds * 1000)
                    start = ContinuousClock.now
                    guard let market = try await options.inputs(symbol, asOf: clock)?.market,
                          let expiration = TradingCalendar().optionExpirations(on: market.date).first(where: { $0 > market.date })
                    else { continue }
                    let chain = market.chain(expiration: expiration)
                    chains.append((ContinuousClock.now - start).seconds * 1000)
                    contracts += chain.count * 2
                }
            }
            chains.sort(); quotes.sort()
            func percentile(_ values: [Double], _ p: Double) -> Double { values.isEmpty ? 0 : values[min(values.count - 1, Int(Double(values.count) * p))] }
            let name = clock == .live ? "live" : "replay 2009-03-02"
            print(String(format: "%@: %d chains (%d contracts): p50 %.3f ms, p99 %.3f ms, max %.3f ms a chain; quote p50 %.4f ms; chain/quote %.0f×",
                         name, chains.count, contracts / max(1, rounds), percentile(chains, 0.5), percentile(chains, 0.99), chains.last ?? 0,
                         percentile(quotes, 0.5), percentile(chains, 0.5) / max(percentile(quotes, 0.5), 1e-9)))
        }
    }
}
