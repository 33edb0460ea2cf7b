import BullpenCore
import BullpenTestSupport
import Foundation
import Testing
@testable import BullpenMarketData

/// Search on the real pack ranks, within a match tier, by how much a stock trades as of the date
/// asked; and a symbol trades only while its data covers the date.
@Suite("Search ranking and trading status on the real pack")
struct RealPackRankingTests {
    func top(_ source: any MarketDataSource, _ query: String, asOf clock: PortfolioClock = .live) async throws -> [String] {
        let snapshots = try await Research.snapshots(source, asOf: clock, liquidity: true)
        return Research.search(snapshots, query: query, sector: nil, sort: .relevance).prefix(4).map(\.info.symbol.rawValue)
    }

    @Test(.enabled(if: RealPack.available))
    func playersFindTheCompanyTheyMean() async throws {
        let pack = try await PackMarketData.load(directory: try RealPack.require()).source
        #expect(try await top(pack, "micro").first == "MSFT")
        #expect(try await top(pack, "apple").first == "AAPL")
        #expect(try await top(pack, "coca").first == "KO")
        // As of a past date, by what traded then: every "micro" company still traded in 2005,
        // and Microsoft traded the most.
        let past = PortfolioClock.replay(SessionDate(year: 2005, month: 6, day: 1).date)
        let micro2005 = try await top(pack, "micro", asOf: past)
        #expect(micro2005.first == "MSFT" && micro2005.count == 4)
        let snapshots = try await Research.snapshots(pack, asOf: past, liquidity: true)
        let volumes = Dictionary(uniqueKeysWithValues: snapshots.map { ($0.info.symbol.rawValue, $0.dollarVolume ?? 0) })
        for other in micro2005.dropFirst() { #expect(volumes["MSFT"]! > volumes[other]!) }
    }

    @Test(.enabled(if: RealPack.available))
    func aSymbolTradesOnlyWhileItsDataCoversTheDate() async throws {
        let pack = try await PackMarketData.load(directory: try RealPack.require()).source
        let ge = try #require(try await pack.quote(Symbol("GE")!, asOf: .live))
        #expect(!ge.trading && ge.session == SessionDate(year: 2017, month: 11, day: 10))
        let aapl = try #require(try await pack.quote(Symbol("AAPL")!, asOf: .live))
        #expect(aapl.trading)
        let then = try #require(try await pack.quote(Symbol("GE")!, asOf: .replay(SessionDate(year: 2015, month: 3, day: 2).date)))
        #expect(then.trading)
        // In live mode, the 24 symbols whose data reaches the pack's last day trade; the others are marked.
        let snapshots = try await Research.snapshots(pack, asOf: .live)
        #expect(snapshots.filter(\.trading).count == 24)
        let browse = Research.search(snapshots, query: nil, sector: nil, sort: .symbol)
        #expect(browse.prefix(24).allSatisfy(\.trading) && browse.dropFirst(24).allSatisfy { !$0.trading })
    }
}
