import BullpenCore
import BullpenTestSupport
import Foundation
import Testing
@testable import BullpenMarketData

@Suite("Stooq importer")
struct StooqImporterTests {
    func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("stooq-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func malformedLinesAreReportedAndSkippedWithoutStoppingTheImport() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in/nasdaq stocks/1")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        try """
        <TICKER>,<PER>,<DATE>,<TIME>,<OPEN>,<HIGH>,<LOW>,<CLOSE>,<VOL>,<OPENINT>
        ZYXW.US,D,20240102,000000,10.5,11.25,10.1,11.0,120000.7,0
        ZYXW.US,D,2024013,000000,10.5,11.25,10.1,11.0,120000,0
        ZYXW.US,D,20240104,000000,ten,11.25,10.1,11.0,120000,0
        ZYXW.US,D,20240105,000000,10.5,9.0,10.1,11.0,120000,0
        ZYXW.US,D,20240102,000000,10.5,11.25,10.1,11.0,120000,0
        ZYXW.US,W,20240108,000000,10.5,11.25,10.1,11.0,120000,0
        ZYXW.US,D,20240109
        ZYXW.US,D,20240110,000000,11.0,12.0,10.9,11.99995,130000,0

        """.write(to: input.appendingPathComponent("zyxw.us.txt"), atomically: true, encoding: .utf8)
        try "this is not stooq data\n".write(to: input.appendingPathComponent("junk.us.txt"), atomically: true, encoding: .utf8)

        let output = dir.appendingPathComponent("pack")
        let files = try StooqImporter.inputFiles([dir.appendingPathComponent("in")])
        #expect(files.map(\.lastPathComponent) == ["junk.us.txt", "zyxw.us.txt"])
        let summary = try await StooqImporter(output: output).run(files)
        #expect(summary.filesRead == 1 && summary.filesSkipped == 1 && summary.bars == 2)
        let reasons = summary.problems.filter { $0.file == "zyxw.us.txt" }.map { "\($0.line): \($0.reason)" }
        #expect(reasons == [
            "3: bad date '2024013'",
            "4: bad price",
            "5: high and low do not bound open and close",
            "6: date 2024-01-02 is not after 2024-01-02",
            "7: period 'W' is not daily (D)",
            "8: expected 10 fields, found 3",
        ])
        #expect(summary.problems.contains { $0.file == "junk.us.txt" })

        let pack = try await PackMarketData.load(directory: output).source
        let bars = try await pack.dailyBars(Symbol("ZYXW")!, from: nil, through: nil, asOf: .live)
        #expect(bars.map(\.date.description) == ["2024-01-02", "2024-01-10"])
        #expect(bars[0].volume == 120_001)                       // fractional volumes round
        #expect(bars[1].close == Price(parsing: "12")!)           // five places round to four
    }

    @Test func reimportingKeepsNamesAndReplacesBars() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let output = dir.appendingPathComponent("pack")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        try "symbol,name,sector,industry,headquarters,founded,first_date,last_date,rows\nZYXW,\"Zyx, Inc.\",Utilities,Water,,,,,\n"
            .write(to: output.appendingPathComponent("universe.csv"), atomically: true, encoding: .utf8)
        let file = dir.appendingPathComponent("zyxw.us.txt")
        try "<TICKER>,<PER>,<DATE>,<TIME>,<OPEN>,<HIGH>,<LOW>,<CLOSE>,<VOL>,<OPENINT>\nZYXW.US,D,20240102,000000,1,2,0.5,1.5,10,0\n"
            .write(to: file, atomically: true, encoding: .utf8)
        _ = try await StooqImporter(output: output).run([file])
        let pack = try await PackMarketData.load(directory: output).source
        let asset = try #require(try await pack.asset(Symbol("ZYXW")!))
        #expect(asset.name == "Zyx, Inc." && asset.sector == "Utilities")
        let universe = try String(contentsOf: output.appendingPathComponent("universe.csv"), encoding: .utf8)
        #expect(universe.contains("ZYXW,\"Zyx, Inc.\",Utilities,Water,,,2024-01-02,2024-01-02,1"))
    }

    @Test(.enabled(if: RealPack.available))
    func theRealSampleImportsIntoALoadablePack() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let sample = try #require(RealPack.directory).appendingPathComponent("raw-stooq-sample")
        let summary = try await StooqImporter(output: dir).run(try StooqImporter.inputFiles([sample]))
        #expect(Set(summary.symbols.map(\.rawValue)) == ["AAPL", "KO", "MSFT", "NVDA", "XOM"])
        #expect(summary.problems.isEmpty && summary.bars > 50_000)
        let pack = try await PackMarketData.load(directory: dir).source
        let quote = try #require(try await pack.quote(Symbol("MSFT")!, asOf: .live))
        #expect(quote.asOf.map(SessionDate.init) == SessionDate(year: 2026, month: 2, day: 20))
    }

    /// An unadjusted download's `corporate_actions.csv` is kept in the pack (merged with the one
    /// there), and the pack applies its actions as of a clock, never later.
    @Test func theImporterKeepsSplitsAndDividends() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        try """
        <TICKER>,<PER>,<DATE>,<TIME>,<OPEN>,<HIGH>,<LOW>,<CLOSE>,<VOL>,<OPENINT>
        ZYXW.US,D,20240607,000000,100,101,99,100,1000,0
        ZYXW.US,D,20240610,000000,50,51,49,50.5,2000,0

        """.write(to: input.appendingPathComponent("zyxw.us.txt"), atomically: true, encoding: .utf8)
        try """
        symbol,ex_date,pay_date,split_ratio,cash_per_share
        ZYXW,2024-06-10,,2:1,
        ZYXW,2024-03-15,2024-03-29,,0.24

        """.write(to: input.appendingPathComponent("corporate_actions.csv"), atomically: true, encoding: .utf8)
        let output = dir.appendingPathComponent("pack")
        let summary = try await StooqImporter(output: output).run(try StooqImporter.inputFiles([input]),
                                                                  actions: StooqImporter.actionFiles([input]))
        #expect(summary.corporateActions == 2)
        let pack = try await PackMarketData.load(directory: output).source
        let all = try await pack.corporateActions(from: SessionDate(year: 2024, month: 1, day: 1), through: SessionDate(year: 2024, month: 12, day: 31), asOf: .live)
        #expect(all.map(\.exDate.description) == ["2024-03-15", "2024-06-10"])
        // A replay standing before the split does not see it.
        let early = try await pack.corporateActions(from: SessionDate(year: 2024, month: 1, day: 1), through: SessionDate(year: 2024, month: 12, day: 31),
                                                    asOf: .replay(SessionDate(year: 2024, month: 6, day: 7).date))
        #expect(early.count == 1)
        #expect(await pack.status().description.contains("unadjusted"))
    }

    @Test func theFileFormatReadsAndWritesAndNamesBadLines() {
        var problems: [LineProblem] = []
        let text = """
        symbol,ex_date,pay_date,split_ratio,cash_per_share
        ACME,2024-06-10,,2:1,
        ACME,2024-03-15,2024-03-29,,0.24
        BAD,2024-13-01,,2:1,
        ACME,2024-06-10,,2:2,
        ACME,2024-06-10,,,

        """
        let actions = CorporateActionsFile.parse(text, problems: &problems)
        #expect(actions.map(\.exDate.description) == ["2024-03-15", "2024-06-10"])
        #expect(actions.first?.kind == .dividend(cash: Price(parsing: "0.24")!) && actions.first?.payDate == SessionDate(year: 2024, month: 3, day: 29))
        #expect(problems.map(\.line) == [4, 5, 6])
        var again: [LineProblem] = []
        #expect(CorporateActionsFile.parse(CorporateActionsFile.format(actions), problems: &again) == actions && again.isEmpty)
    }
}
