import BullpenCore
import Foundation
import PropertyBased
import Testing
@testable import BullpenMarketData

/// The byte parsers of the pack and of Stooq's files take any line without crashing: what does
/// not parse (overflowing numbers included) is a listed problem, and what parses round-trips.
@Suite("Parsing market data files, properties")
struct ByteParsingPropertyTests {
    static let field = Gen.oneOf(Gen.character(in: "0"..."9").string(of: 0...25), Gen.always("."), Gen.always("-"),
                                 Gen.always("2024-01-02"), Gen.character(in: "0"..."9").string(of: 1...6)
                                     .map { $0 + "." + "5" }, Gen.character(in: "a"..."z").string(of: 0...3))
    static let line = field.array(of: 0...8).map { $0.joined(separator: ",") }

    func parse(_ lines: [String]) -> (ColumnBuilder, [LineProblem]) {
        var problems: [LineProblem] = []
        let text = ([PackFormat.dailyHeader] + lines).joined(separator: "\n")
        let builder = PackFormat.parseDaily(Data(text.utf8), file: "X.csv", problems: &problems)
        return (builder, problems)
    }

    @Test func anyLinesParseOrAreListedWithoutCrashing() async {
        await propertyCheck(count: 1_000, input: Self.line.array(of: 1...6)) { lines in
            let (builder, problems) = parse(lines)
            let nonBlank = lines.filter { !$0.isEmpty }.count
            #expect(builder.count + problems.count == nonBlank)
            #expect(problems.allSatisfy { $0.line >= 2 && $0.file == "X.csv" })
        }
    }

    @Test func overflowingNumbersAreAProblemNamedByLine() {
        let (builder, problems) = parse([
            "2024-01-02,99999999999999999.9999,1,1,1,100",          // the review's crash: 17 digits at 4 places
            "2024-01-03,1,1,1,1,99999999999999999999999",            // a volume past Int64
            "2024-01-04,10000001,10000001,10000001,10000001,1",     // over $10,000,000 a share
            "2024-01-05,10,11,9,10.5,1000",
        ])
        #expect(builder.count == 1)
        #expect(problems.map(\.line) == [2, 3, 4])
        #expect(problems.map(\.reason) == ["bad price", "bad volume '99999999999999999999999'", "price above $10,000,000"])
    }

    @Test func pricesRoundTripThroughThePackFormat() async {
        await propertyCheck(count: 500, input: Gen.int64(in: 1...ByteParsing.maxPriceTicks), Gen.int64(in: 0...1_000_000_000_000)) { ticks, volume in
            let price = Price(ticks: ticks)
            let bar = DailyBar(date: SessionDate(year: 2024, month: 1, day: 2), open: price, high: price, low: price, close: price,
                               volume: volume)
            var problems: [LineProblem] = []
            let builder = PackFormat.parseDaily(Data(PackFormat.formatDaily([bar]).utf8), file: "R.csv", problems: &problems)
            #expect(problems.isEmpty && builder.closes == [ticks] && builder.volumes == [volume])
        }
    }
}
