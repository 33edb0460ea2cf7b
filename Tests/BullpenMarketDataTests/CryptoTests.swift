import BullpenCore
import BullpenTestSupport
import Foundation
import Testing
@testable import BullpenMarketData

/// Coins: the demo exchange's invented ones trade every day around the clock; a pack and Stooq's
/// crypto files bring real ones, kept apart from the stocks' sessions.
@Suite("Crypto market data")
struct CryptoTests {
    /// Sunday 2 November 2025, 03:00 UTC: the stock exchange is long closed.
    let sunday = Date(timeIntervalSince1970: TimeInterval(SessionDate(year: 2025, month: 11, day: 2).day) * 86_400 + 3 * 3_600)
    let bpc = Symbol("BPC-USD")!

    func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("crypto-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func demoCoinsTickAtThreeOnASundayMorning() async throws {
        let demo = DemoExchange(time: FixedTimeSource(sunday))
        let coins = try await demo.listing().filter { $0.assetClass == .crypto }
        #expect(coins.map(\.symbol.rawValue) == ["BPC-USD", "EMBR-USD", "HOP-USD", "QRM-USD"])
        #expect(coins.allSatisfy { $0.exchange == "Bullpen Demo Exchange" && ($0.description?.count ?? 0) > 20 })
        #expect(await demo.isMarketOpen(at: sunday) == false, "the stock exchange is closed")
        let quote = try #require(try await demo.quote(bpc, asOf: .live))
        #expect(quote.asOf == sunday, "a live tick of Sunday's UTC day, not Friday's close")
        // Five minutes later the price has moved on its own path; the same instant gives the same price.
        let later = try await DemoExchange(time: FixedTimeSource(sunday.addingTimeInterval(300))).quote(bpc, asOf: .live)
        let again = try await DemoExchange(time: FixedTimeSource(sunday)).quote(bpc, asOf: .live)
        #expect(later?.price != quote.price && again?.price == quote.price)
        // A bar every calendar day, weekends included, through today's partial bar.
        let bars = try await demo.dailyBars(bpc, from: SessionDate(year: 2025, month: 10, day: 27), through: nil, asOf: .live)
        #expect(bars.map(\.date.description) == (27...31).map { "2025-10-\($0)" } + ["2025-11-01", "2025-11-02"])
        #expect(bars.last?.close == quote.price && bars.allSatisfy { $0.low <= min($0.open, $0.close) && $0.high >= max($0.open, $0.close) })
        // Crypto-like: daily moves far wider than a large stock's.
        let all = try await demo.dailyBars(bpc, from: nil, through: SessionDate(year: 2025, month: 10, day: 31), asOf: .live)
        let moves = zip(all, all.dropFirst()).map { abs(log(Double($1.close.ticks) / Double($0.close.ticks))) }
        let typical = moves.reduce(0, +) / Double(moves.count)
        #expect(typical > 0.02 && typical < 0.08, "mean absolute daily move \(typical)")
        #expect(all.first?.date == SessionDate(year: 2014, month: 1, day: 1))
    }

    @Test func aReplaySeesACoinsDayOnlyOnceItIsOver() async throws {
        let demo = DemoExchange(time: FixedTimeSource(sunday))
        // A replay standing on Monday 2020-03-16 (before the close in New York): Sunday's close.
        let monday = SessionDate(year: 2020, month: 3, day: 16)
        let quote = try #require(try await demo.quote(bpc, asOf: .replay(monday.date)))
        #expect(quote.session == monday.adding(days: -1))
        let bars = try await demo.dailyBars(bpc, from: monday.adding(days: -3), through: nil, asOf: .replay(monday.date))
        #expect(bars.map(\.date) == [monday.adding(days: -3), monday.adding(days: -2), monday.adding(days: -1)])
    }

    @Test func stooqCryptoFilesBecomeCoinsOfThePack() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in/world/cryptocurrencies")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        // Stooq's crypto format: the `.V` ticker, every calendar day, fractional volumes.
        try """
        <TICKER>,<PER>,<DATE>,<TIME>,<OPEN>,<HIGH>,<LOW>,<CLOSE>,<VOL>,<OPENINT>
        BTC.V,D,20240105,000000,44151.1,44357.46,42450.46,44145.11,1525.39,0
        BTC.V,D,20240106,000000,44145.11,44214.42,43397.05,43968.32,611.74,0
        BTC.V,D,20240107,000000,43968.32,44480.59,43627.6,43929.02,727.17,0
        BTC.V,D,20240108,000000,43929.02,47218,43229.57,46951.04,2906.51,0

        """.write(to: input.appendingPathComponent("btc.v.txt"), atomically: true, encoding: .utf8)
        let stocks = dir.appendingPathComponent("in/nasdaq stocks")
        try FileManager.default.createDirectory(at: stocks, withIntermediateDirectories: true)
        try """
        <TICKER>,<PER>,<DATE>,<TIME>,<OPEN>,<HIGH>,<LOW>,<CLOSE>,<VOL>,<OPENINT>
        ZYXW.US,D,20240105,000000,10.5,11.25,10.1,11.0,120000,0
        ZYXW.US,D,20240108,000000,11.0,12.0,10.9,11.5,130000,0

        """.write(to: stocks.appendingPathComponent("zyxw.us.txt"), atomically: true, encoding: .utf8)
        let output = dir.appendingPathComponent("pack")
        let summary = try await StooqImporter(output: output).run(try StooqImporter.inputFiles([dir.appendingPathComponent("in")]))
        #expect(summary.problems.isEmpty && summary.symbols.map(\.rawValue).sorted() == ["BTC-USD", "ZYXW"])
        let universe = try String(contentsOf: output.appendingPathComponent("universe.csv"), encoding: .utf8)
        #expect(universe.hasPrefix("symbol,name,sector,industry,headquarters,founded,first_date,last_date,rows,asset_class\n"))
        #expect(universe.contains("BTC-USD,BTC-USD,,Cryptocurrency,,,2024-01-05,2024-01-08,4,crypto\n"), "\(universe)")
        #expect(universe.contains("ZYXW,ZYXW,,,,,2024-01-05,2024-01-08,2,us_equity\n"))

        let pack = try await PackMarketData.load(directory: output).source
        #expect(try await pack.asset(Symbol("BTC-USD")!)?.assetClass == .crypto)
        // The coin's weekend does not become a stock session: the pack's last session is the stocks'.
        #expect(await pack.sessionDate(asOf: .live) == SessionDate(year: 2024, month: 1, day: 8))
        #expect(try await pack.quote(Symbol("ZYXW")!, asOf: .live)?.trading == true)
        let btc = try #require(try await pack.quote(Symbol("BTC-USD")!, asOf: .live))
        #expect(btc.price == Price(parsing: "46951.04") && btc.previousClose == Price(parsing: "43929.02"))
        // A replay on Monday the 8th sees Sunday's close, never Monday's (not over at the New York close).
        let replay = try await pack.quote(Symbol("BTC-USD")!, asOf: .replay(SessionDate(year: 2024, month: 1, day: 8).date))
        #expect(replay?.price == Price(parsing: "43929.02"))
        #expect(try await pack.dailyBars(Symbol("BTC-USD")!, from: nil, through: nil, asOf: .live).count == 4)
        // Live, the coin trades at its last day; a replay past its data's end sees it no longer trading.
        #expect(btc.trading)
        let later = try await pack.quote(Symbol("BTC-USD")!, asOf: .replay(SessionDate(year: 2024, month: 1, day: 20).date))
        #expect(later?.price == Price(parsing: "46951.04") && later?.trading == false)
    }

    @Test func aPackWithoutTheColumnIsAllStocksAndABadClassIsAnError() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("daily"), withIntermediateDirectories: true)
        try "symbol,name,sector,industry\nZYXW,Zyxw,,\n".write(to: dir.appendingPathComponent("universe.csv"), atomically: true, encoding: .utf8)
        #expect(try PackMarketData.readUniverse(dir).map(\.assetClass) == [.usEquity])
        try "symbol,name,sector,industry,asset_class\nZYXW,Zyxw,,,bonds\n".write(to: dir.appendingPathComponent("universe.csv"), atomically: true, encoding: .utf8)
        #expect(throws: PackMarketData.LoadError.self) { try PackMarketData.readUniverse(dir) }
    }
}
