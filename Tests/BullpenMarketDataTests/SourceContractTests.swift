import BullpenCore
import BullpenTestSupport
import Foundation
import Testing
@testable import BullpenMarketData

/// One contract for every `MarketDataSource`: the data pack, the demo exchange, the providers.
enum SourceContract {
    static func check(_ source: any MarketDataSource, known: Symbol, replayDate: SessionDate,
                      sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let listing = try await source.listing()
        #expect(!listing.isEmpty, sourceLocation: sourceLocation)
        #expect(listing.map(\.symbol) == listing.map(\.symbol).sorted(), "listing is sorted by symbol", sourceLocation: sourceLocation)
        #expect(try await source.asset(known)?.symbol == known, sourceLocation: sourceLocation)

        let live = try #require(try await source.quote(known, asOf: .live), sourceLocation: sourceLocation)
        #expect(live.price.ticks > 0, sourceLocation: sourceLocation)
        let session = try #require(await source.sessionDate(asOf: .live), sourceLocation: sourceLocation)
        let bars = try await source.dailyBars(known, from: nil, through: nil, asOf: .live)
        #expect(!bars.isEmpty, sourceLocation: sourceLocation)
        #expect(zip(bars, bars.dropFirst()).allSatisfy { $0.date < $1.date }, "bars ascend", sourceLocation: sourceLocation)
        #expect(bars.allSatisfy { $0.low <= $0.open && $0.low <= $0.close && $0.high >= $0.open && $0.high >= $0.close },
                "every bar's high and low bound its open and close", sourceLocation: sourceLocation)
        #expect(bars.last!.date <= session, "no bar after the live session", sourceLocation: sourceLocation)

        let replayed = try #require(try await source.quote(known, asOf: .replay(replayDate.date)), sourceLocation: sourceLocation)
        #expect(SessionDate(try #require(replayed.asOf)) <= replayDate, "a replay never sees later prices", sourceLocation: sourceLocation)
        let replayBars = try await source.dailyBars(known, from: nil, through: nil, asOf: .replay(replayDate.date))
        #expect(replayBars.last.map { $0.date <= replayDate } ?? true, sourceLocation: sourceLocation)
        let window = try await source.dailyBars(known, from: replayDate.adding(days: -30), through: replayDate, asOf: .live)
        #expect(window.allSatisfy { $0.date >= replayDate.adding(days: -30) && $0.date <= replayDate }, sourceLocation: sourceLocation)

        let benchmark = try await source.benchmarkBars("SPX", from: nil, through: nil, asOf: .live)
        #expect(benchmark?.isEmpty == false, sourceLocation: sourceLocation)
        #expect(try await source.benchmarkBars("NOPE", from: nil, through: nil, asOf: .live) == nil, sourceLocation: sourceLocation)

        let unknown = Symbol("ZZZZZZ")!
        #expect(try await source.asset(unknown) == nil, sourceLocation: sourceLocation)
        #expect(try await source.quote(unknown, asOf: .live) == nil, sourceLocation: sourceLocation)
        #expect(try await source.dailyBars(unknown, from: nil, through: nil, asOf: .live).isEmpty, sourceLocation: sourceLocation)
    }
}

@Suite("Market data source contract")
struct SourceContractTests {
    @Test func theDemoExchangeKeepsTheContract() async throws {
        try await SourceContract.check(DemoExchange(), known: Symbol("HMCR")!, replayDate: SessionDate(year: 2008, month: 10, day: 10))
    }

    @Test(.enabled(if: RealPack.available))
    func theDataPackKeepsTheContract() async throws {
        let pack = try await PackMarketData.load(directory: try #require(RealPack.directory)).source
        try await SourceContract.check(pack, known: Symbol("AAPL")!, replayDate: SessionDate(year: 2008, month: 10, day: 10))
    }
}
