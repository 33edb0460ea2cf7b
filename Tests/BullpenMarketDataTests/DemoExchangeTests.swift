import BullpenCore
import BullpenTestSupport
import Foundation
import Testing
@testable import BullpenMarketData

@Suite("Demo exchange")
struct DemoExchangeTests {
    func d(_ y: Int, _ m: Int, _ day: Int) -> SessionDate { SessionDate(year: y, month: m, day: day) }
    /// A pinned "now": Wednesday 15 October 2025, 11:00 in New York.
    let now = TradingCalendar.instant(SessionDate(year: 2025, month: 10, day: 15), 11, 0)

    @Test func theSameSeedGivesTheSamePrices() async throws {
        let a = DemoExchange(time: FixedTimeSource(now)), b = DemoExchange(time: FixedTimeSource(now))
        let c = DemoExchange(time: FixedTimeSource(now), seed: 7)
        let symbol = Symbol("VTSW")!
        let barsA = try await a.dailyBars(symbol, from: nil, through: nil, asOf: .live)
        #expect(barsA == (try await b.dailyBars(symbol, from: nil, through: nil, asOf: .live)))
        #expect(barsA != (try await c.dailyBars(symbol, from: nil, through: nil, asOf: .live)))
        #expect(barsA.first?.date == d(1990, 1, 2))
    }

    @Test func aboutFortyInventedCompaniesCoverEverySector() async throws {
        let listing = try await DemoExchange(time: FixedTimeSource(now)).listing()
        #expect((38...45).contains(listing.count))
        #expect(Set(listing.compactMap(\.sector)) == Set(DemoSector.allCases.map(\.rawValue)))
        #expect(listing.allSatisfy { ($0.description?.count ?? 0) > 20 && $0.exchange == "Bullpen Demo Exchange" })
        if let pack = RealPack.directory {
            // None of them is a real company of the data pack, by ticker or by name.
            let universe = try String(contentsOf: pack.appendingPathComponent("universe.csv"), encoding: .utf8)
            let real = Set(universe.split(whereSeparator: \.isNewline).dropFirst().map { String($0.split(separator: ",")[0]) })
            let realNames = universe.uppercased()
            for asset in listing {
                #expect(!real.contains(asset.symbol.rawValue), "\(asset.symbol) is a real ticker")
                #expect(!realNames.contains(asset.name.uppercased()), "\(asset.name) is a real name")
            }
        }
    }

    @Test func companiesListedLaterStartOnTheirListingDay() async throws {
        let demo = DemoExchange(time: FixedTimeSource(now))
        let bars = try await demo.dailyBars(Symbol("GLWI")!, from: nil, through: nil, asOf: .live)
        #expect(bars.first?.date == d(2005, 3, 15))
    }

    @Test func theIndexFollowsTheShapeOfHistory() async throws {
        let demo = DemoExchange(time: FixedTimeSource(now))
        let index = try #require(try await demo.benchmarkBars("SPX", from: nil, through: nil, asOf: .live))
        func close(_ date: SessionDate) -> Double {
            Double(index.last { $0.date <= date }!.close.ticks)
        }
        func change(_ a: SessionDate, _ b: SessionDate) -> Double { close(b) / close(a) - 1 }
        #expect(abs(change(d(1994, 12, 30), d(2000, 3, 24)) - 2.33) < 0.01)   // the 1990s boom
        #expect(abs(change(d(2000, 3, 24), d(2002, 10, 9)) + 0.49) < 0.01)    // the dot-com bust
        #expect(abs(change(d(2007, 10, 9), d(2009, 3, 9)) + 0.57) < 0.01)     // 2008
        #expect(abs(change(d(2020, 2, 19), d(2020, 3, 23)) + 0.34) < 0.01)    // the 2020 crash
        #expect(change(d(2020, 3, 23), d(2022, 1, 3)) > 1.0)                   // and rebound
    }

    @Test func sectorsAreCalibratedOnTheRealPack() async throws {
        let measured = try await DemoExchange(time: FixedTimeSource(now)).calibration()
        for (sector, target) in DemoExchange.calibrationTargets {
            let stats = try #require(measured[sector])
            #expect(abs(stats.volatility / target.volatility - 1) < 0.3, "\(sector): volatility \(stats.volatility) vs \(target.volatility)")
            #expect(abs(stats.correlation - target.correlation) < 0.2, "\(sector): correlation \(stats.correlation) vs \(target.correlation)")
            #expect(stats.kurtosis > 5, "\(sector): fat tails, kurtosis \(stats.kurtosis)")   // a normal distribution has 3
            #expect(stats.clustering > 0.03, "\(sector): volatility clusters, \(stats.clustering)")
        }
    }

    @Test(.enabled(if: RealPack.available))
    func theCalibrationTargetsAreWhatTheRealPackShows() async throws {
        // Re-measures the real pack the way the demo is measured; the targets in the code must match.
        let pack = try await PackMarketData.load(directory: try #require(RealPack.directory)).source
        let end = SessionDate(year: 2017, month: 11, day: 10)
        let index = try #require(try await pack.benchmarkBars("SPX", from: nil, through: end, asOf: .live))
        var items: [(String, ReturnStatistics)] = []
        for asset in try await pack.listing() {
            let bars = try await pack.dailyBars(asset.symbol, from: nil, through: end, asOf: .live)
            if let stats = ReturnStatistics(bars, index: index), let sector = asset.sector { items.append((sector, stats)) }
        }
        let real = ReturnStatistics.averages(items)
        for (sector, target) in DemoExchange.calibrationTargets {
            let stats = try #require(real[sector])
            // The targets are medians, these means: close, not equal.
            #expect(abs(stats.volatility / target.volatility - 1) < 0.25, "\(sector): \(stats.volatility) vs \(target.volatility)")
            #expect(abs(stats.correlation - target.correlation) < 0.1, "\(sector): \(stats.correlation) vs \(target.correlation)")
        }
    }

    @Test func theLiveClockSeesOnlyWhatHasHappened() async throws {
        let clock = FixedTimeSource(TradingCalendar.instant(d(2025, 10, 15), 9, 0))   // before the open
        let demo = DemoExchange(time: clock)
        let symbol = Symbol("HMCR")!
        let beforeOpen = try #require(try await demo.quote(symbol, asOf: .live))
        #expect(SessionDate(try #require(beforeOpen.asOf)) == d(2025, 10, 14))
        #expect(!(await demo.isMarketOpen(at: clock.now())))
        #expect(try await demo.dailyBars(symbol, from: nil, through: nil, asOf: .live).last?.date == d(2025, 10, 14))

        clock.advance(by: 3600)   // 10:00, in session
        #expect(await demo.isMarketOpen(at: clock.now()))
        let first = try #require(try await demo.quote(symbol, asOf: .live))
        #expect(first.asOf == clock.now() && first.previousClose == beforeOpen.price)
        var seen: Set<Int64> = [first.price.ticks]
        for _ in 0..<20 {
            clock.advance(by: 12 * DemoExchange.tickSeconds)   // a minute
            let price = try #require(try await demo.quote(symbol, asOf: .live)).price
            #expect(price.ticks % Price.ticksPerCent == 0, "ticks are whole cents: \(price)")
            seen.insert(price.ticks)
        }
        #expect(seen.count > 5, "the price ticks during the session")
        let partial = try #require(try await demo.dailyBars(symbol, from: nil, through: nil, asOf: .live).last)
        #expect(partial.date == d(2025, 10, 15) && partial.low <= partial.close && partial.close <= partial.high)

        // At the close the live price is exactly the day's close in the history.
        clock.advance(by: TradingCalendar.instant(d(2025, 10, 15), 16, 0).timeIntervalSince(clock.now()) - 1)
        let lastTick = try #require(try await demo.quote(symbol, asOf: .live))
        clock.advance(by: 2)
        let closed = try #require(try await demo.quote(symbol, asOf: .live))
        #expect(SessionDate(try #require(closed.asOf)) == d(2025, 10, 15))
        let fullDay = try #require(demo.history.quote(symbol, onOrBefore: d(2025, 10, 15)))
        #expect(closed.price == fullDay.price)
        #expect(abs(Double(lastTick.price.ticks - closed.price.ticks)) / Double(closed.price.ticks) < 0.01)
    }

    @Test func intradayPathsRunFromOpenToCloseThroughHighAndLow() {
        let bar = DailyBar(date: d(2025, 10, 15), open: Price(parsing: "100")!, high: Price(parsing: "104")!,
                           low: Price(parsing: "97.5")!, close: Price(parsing: "101")!, volume: 1_000)
        let path = DemoMarket.intradayPath(bar: bar, steps: 4_680, dailyVolatility: 0.02, seed: 42)
        func price(_ x: Double) -> Double { exp(x) / 10_000 }
        #expect(abs(price(path.first!) - 100) < 1e-6 && abs(price(path.last!) - 101) < 1e-6)
        #expect(abs(price(path.max()!) - 104) < 1e-6 && abs(price(path.min()!) - 97.5) < 1e-6)
    }

    @Test func replaysNeverSeeTheFuture() async throws {
        let demo = DemoExchange(time: FixedTimeSource(now))
        let symbol = Symbol("BSRP")!
        let future = try #require(try await demo.quote(symbol, asOf: .replay(d(2030, 1, 1).date)))
        #expect(SessionDate(try #require(future.asOf)) <= d(2025, 10, 14))
        #expect(await demo.sessionDate(asOf: .replay(d(2008, 9, 14).date)) == d(2008, 9, 12))
    }

    /// Stocks at $1 or more trade in whole cents: every simulated bar and tick is on that grid.
    @Test func demoPricesAreWholeCentsFromADollar() async throws {
        let demo = DemoExchange(time: FixedTimeSource(TradingCalendar.instant(d(2025, 10, 15), 11, 0)))
        var checked = 0
        for asset in try await demo.listing() {
            for bar in try await demo.dailyBars(asset.symbol, from: d(2024, 1, 1), through: nil, asOf: .live) {
                for price in [bar.open, bar.high, bar.low, bar.close] where price.ticks >= 10_000 {
                    #expect(price.ticks % Price.ticksPerCent == 0, "\(asset.symbol) \(bar.date): \(price)")
                    checked += 1
                }
            }
            let quote = try #require(try await demo.quote(asset.symbol, asOf: .live))
            #expect(quote.price.ticks < 10_000 || quote.price.ticks % Price.ticksPerCent == 0)
        }
        #expect(checked > 10_000)
    }

    /// The demo's data is unadjusted from 2027: Quillfeather's price halves at its 2-for-1 split,
    /// and Brightlattice's dividends come off its price; both are listed as corporate actions, and
    /// the history before 2027 (what players already hold) is as it was.
    @Test func theDemoSplitsAndPaysDividends() async throws {
        let demo = DemoExchange(time: FixedTimeSource(TradingCalendar.instant(SessionDate(year: 2027, month: 2, day: 1), 20, 0)))
        let split = SessionDate(year: 2027, month: 1, day: 11)
        let january = (SessionDate(year: 2027, month: 1, day: 1), SessionDate(year: 2027, month: 1, day: 31))
        let actions = try await demo.corporateActions(from: january.0, through: january.1, asOf: .live)
        #expect(actions.contains(CorporateAction(symbol: Symbol("QFSC")!, exDate: split, kind: .split(to: 2, from: 1))))
        #expect(actions.contains { $0.symbol == Symbol("BLTN")! && $0.kind == .dividend(cash: Price(cents: 30)) && $0.exDate == SessionDate(year: 2027, month: 1, day: 15) })
        let bars = try await demo.dailyBars(Symbol("QFSC")!, from: SessionDate(year: 2027, month: 1, day: 8), through: split, asOf: .live)
        let ratio = Double(bars[1].open.ticks) / Double(bars[0].close.ticks)
        #expect(ratio > 0.4 && ratio < 0.6, "the open after the split is about half the close before: \(ratio)")
        // A replay before the split does not see it.
        let before = try await demo.corporateActions(from: january.0, through: january.1, asOf: .replay(SessionDate(year: 2027, month: 1, day: 8).date))
        #expect(!before.contains { $0.symbol == Symbol("QFSC")! })
        // Nothing before 2027: the prices players hold are the ones they bought at.
        let earlier = try await demo.corporateActions(from: SessionDate(year: 1990, month: 1, day: 1), through: SessionDate(year: 2026, month: 12, day: 31), asOf: .live)
        #expect(earlier.isEmpty)
    }
}
