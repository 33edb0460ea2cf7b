import BullpenCore
import BullpenTestSupport
import Foundation
import Testing
@testable import BullpenMarketData

@Suite("Data pack market data")
struct PackMarketDataTests {
    func date(_ text: String) -> Date { SessionDate(iso: text)!.date }

    @Test func sessionDatesRoundTrip() {
        #expect(SessionDate(year: 2024, month: 3, day: 29).weekday == 5)
        for text in ["1990-01-02", "2000-02-29", "2026-02-20", "1970-01-01", "2100-12-31"] {
            #expect(SessionDate(iso: text)?.description == text)
        }
        #expect(SessionDate(iso: "2026-13-01") == nil)
        #expect(SessionDate(iso: "20260101") == nil)
    }

    @Test func csvFieldsHonourQuotes() {
        #expect(CSVLine.fields(#"GE,GE Aerospace,Industrials,"Evendale, Ohio",1892"#) ==
                ["GE", "GE Aerospace", "Industrials", "Evendale, Ohio", "1892"])
        #expect(CSVLine.fields(#"A,"say ""hi""",C"#) == ["A", #"say "hi""#, "C"])
        #expect(CSVLine.fields("a,,c\r") == ["a", "", "c"])
    }

    @Test func aMissingPackIsAClearError() async {
        await #expect(throws: PackMarketData.LoadError.self) {
            try await PackMarketData.load(directory: URL(fileURLWithPath: "/nonexistent/pack"))
        }
    }

    @Test(.enabled(if: RealPack.available))
    func theRealPackListsItsCompanies() async throws {
        let pack = try await PackMarketData.load(directory: try #require(RealPack.directory)).source
        #expect(pack.history.symbols.count == 303)
        #expect(try await pack.listing().count == 303)
        let apple = try #require(try await pack.asset(Symbol("AAPL")!))
        #expect(apple.sector == "Information Technology")
        #expect(try await pack.asset(Symbol("NOPE")!) == nil)
        #expect(try await pack.quote(Symbol("NOPE")!, asOf: .live) == nil)
    }

    @Test(.enabled(if: RealPack.available))
    func liveQuotesAreTheLastCloseWithThePreviousOne() async throws {
        let pack = try await PackMarketData.load(directory: try #require(RealPack.directory)).source
        let quote = try #require(try await pack.quote(Symbol("AAPL")!, asOf: .live))
        #expect(quote.asOf == date("2026-02-20"))           // the pack's last day for AAPL (see its README)
        #expect(quote.previousClose != nil && quote.price.ticks > 0)
        let ge = try #require(try await pack.quote(Symbol("GE")!, asOf: .live))
        #expect(ge.asOf == date("2017-11-10"))
    }

    @Test(.enabled(if: RealPack.available))
    func replayQuotesStandOnTheLastSessionOnOrBeforeTheDate() async throws {
        let pack = try await PackMarketData.load(directory: try #require(RealPack.directory)).source
        let ko = Symbol("KO")!
        // The close the file has for 2007-12-31, read here rather than copied into the repo.
        let file = try String(contentsOf: try #require(RealPack.directory).appendingPathComponent("daily/KO.csv"), encoding: .utf8)
        let row = try #require(file.split(whereSeparator: \.isNewline).first { $0.hasPrefix("2007-12-31,") })
        let close = try #require(Price(parsing: String(row.split(separator: ",")[4])))
        let newYearsEve = try #require(try await pack.quote(ko, asOf: .replay(date("2007-12-31"))))
        #expect(newYearsEve.price == close)
        // 2008-01-01 was a holiday: the quote is still the 31st's.
        let holiday = try #require(try await pack.quote(ko, asOf: .replay(date("2008-01-01"))))
        #expect(holiday.asOf == date("2007-12-31") && holiday.price == newYearsEve.price)
        #expect(try await pack.quote(ko, asOf: .replay(date("1980-01-01"))) == nil)
    }
}

@Suite("Trading calendar against the S&P 500's history")
struct CalendarAgainstHistoryTests {
    @Test(.enabled(if: RealPack.available))
    func fromNineteenNinetyTheCalendarYieldsExactlyTheIndexDays() throws {
        let text = try String(contentsOf: try #require(RealPack.directory).appendingPathComponent("benchmarks/SPX.csv"), encoding: .utf8)
        let indexDays = text.split(whereSeparator: \.isNewline).dropFirst()
            .compactMap { SessionDate(iso: $0.prefix(10)) }
            .filter { $0 >= SessionDate(year: 1990, month: 1, day: 1) }
        let last = try #require(indexDays.last)
        let computed = TradingCalendar().tradingDays(from: SessionDate(year: 1990, month: 1, day: 1), through: last)
        let missing = Set(indexDays).subtracting(computed).sorted()
        let extra = Set(computed).subtracting(indexDays).sorted()
        #expect(missing.isEmpty, "index traded but the calendar says closed: \(missing.prefix(20))")
        #expect(extra.isEmpty, "calendar says open but the index has no day: \(extra.prefix(20))")
        #expect(computed.count == indexDays.count)
    }
}
