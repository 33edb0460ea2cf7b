import BullpenAPI
import BullpenCore
import BullpenTestSupport
import Foundation
import NIOHTTP1
import Testing

@Suite("Market data and research over HTTP")
struct MarketAPITests {
    @Test func statusNamesTheSourceAndItsLatestSession() async throws {
        try await withServer { server in
            let status = try await server.send(.GET, "/api/v1/market/status").decode(MarketStatusDTO.self)
            #expect(status.source == "pack" && !status.simulated && status.label == nil)
            #expect(status.sessionDate == "2024-01-03")
            #expect(try await server.send(.GET, "/health").headers.first(name: "X-Market-Data") == nil)
        }
    }

    @Test func theClockKnowsSessionsInNewYorkTime() async throws {
        // Wednesday 10 July 2024, 10:00 in New York.
        let clock = FixedTimeSource(TradingCalendar.instant(SessionDate(year: 2024, month: 7, day: 10), 10, 0))
        try await withServer(time: clock) { server in
            let open = try await server.send(.GET, "/api/v1/market/clock").decode(MarketClockDTO.self)
            #expect(open.isOpen && open.date == "2024-07-10" && open.timezone == "America/New_York")
            #expect(open.nextCloseLocal == "2024-07-10T16:00:00-04:00")
            #expect(open.nextOpenLocal == "2024-07-11T09:30:00-04:00")
            clock.advance(by: 7 * 3600)   // 17:00
            let closed = try await server.send(.GET, "/api/v1/market/clock").decode(MarketClockDTO.self)
            #expect(!closed.isOpen)
        }
    }

    @Test func theCalendarListsDaysAndClosures() async throws {
        try await withServer { server in
            let reply = try await server.send(.GET, "/api/v1/market/calendar?start=2024-12-20&end=2024-12-31")
            let calendar = try reply.decode(MarketCalendarDTO.self)
            #expect(calendar.days.map(\.date) == ["2024-12-20", "2024-12-23", "2024-12-24", "2024-12-26", "2024-12-27", "2024-12-30", "2024-12-31"])
            #expect(calendar.days.first { $0.date == "2024-12-24" }?.earlyClose == true)
            #expect(calendar.closures == [ClosureDTO(date: "2024-12-25", reason: "Christmas Day")])
            let backwards = try await server.send(.GET, "/api/v1/market/calendar?start=2024-12-31&end=2024-12-01")
            #expect(backwards.status == 400 && backwards.errorCode == "invalid_dates")
            let garbage = try await server.send(.GET, "/api/v1/market/calendar?start=yesterday")
            #expect(garbage.status == 400)
        }
    }

    @Test func searchRanksSymbolsThenNamesAndPages() async throws {
        try await withServer { server in
            let micro = try await server.send(.GET, "/api/v1/assets?search=micro").decode(AssetPageDTO.self)
            #expect(micro.assets.map(\.symbol) == ["MSFT"])
            let a = try await server.send(.GET, "/api/v1/assets?search=a").decode(AssetPageDTO.self)
            #expect(a.assets.first?.symbol == "ACME")            // symbol prefix before name matches
            let all = try await server.send(.GET, "/api/v1/assets?sort=-price").decode(AssetPageDTO.self)
            // Those that trade first, the ended one after them, no price last.
            #expect(all.assets.map(\.symbol) == ["MSFT", "ACME", "OLDCO", "NOPX"])
            #expect(all.total == 4 && all.nextCursor == nil && all.previousCursor == nil)
            let byChange = try await server.send(.GET, "/api/v1/assets?sort=change").decode(AssetPageDTO.self)
            #expect(byChange.assets.map(\.symbol) == ["ACME", "MSFT", "OLDCO", "NOPX"])
            let sector = try await server.send(.GET, "/api/v1/assets?sector=industrials").decode(AssetPageDTO.self)
            #expect(sector.assets.map(\.symbol) == ["ACME"])

            let first = try await server.send(.GET, "/api/v1/assets?sort=symbol&limit=2").decode(AssetPageDTO.self)
            #expect(first.assets.map(\.symbol) == ["ACME", "MSFT"] && first.previousCursor == nil)
            let next = try #require(first.nextCursor)
            let second = try await server.send(.GET, "/api/v1/assets?sort=symbol&limit=2&cursor=\(next)").decode(AssetPageDTO.self)
            #expect(second.assets.map(\.symbol) == ["NOPX", "OLDCO"] && second.nextCursor == nil && second.previousCursor != nil)

            let msft = try #require(all.assets.first)
            #expect(msft.price == "400.00" && msft.change == "4.50" && msft.changePercent == "1.14" && msft.volume == 1_200)
            #expect(msft.logoUrl == "/api/v1/assets/MSFT/logo.svg")

            let badSort = try await server.send(.GET, "/api/v1/assets?sort=popularity")
            #expect(badSort.status == 400 && badSort.errorCode == "invalid_sort")
            let badCursor = try await server.send(.GET, "/api/v1/assets?cursor=%21%21")
            #expect(badCursor.status == 400)
        }
    }

    @Test func assetDetailsCarryTheYearFigures() async throws {
        try await withServer { server in
            let msft = try await server.send(.GET, "/api/v1/assets/msft").decode(AssetDetailDTO.self)
            #expect(msft.name == "Microsoft" && msft.sector == "Information Technology" && msft.headquarters == "Redmond, Washington")
            #expect(msft.price == "400.00" && msft.previousClose == "395.50" && msft.change == "4.50")
            #expect(msft.fiftyTwoWeekLow == "389.00" && msft.fiftyTwoWeekHigh == "401.00")
            #expect(msft.oneYearChangePercent == "1.14" && msft.averageVolume == 1_100)
            #expect(msft.firstDate == "2024-01-02" && msft.lastDate == "2024-01-03" && !msft.simulated)

            let none = try await server.send(.GET, "/api/v1/assets/NOPX").decode(AssetDetailDTO.self)
            #expect(none.price == nil && none.lastDate == nil)
            for path in ["/api/v1/assets/ZZZZ", "/api/v1/assets/ZZZZ/bars", "/api/v1/assets/ZZZZ/logo.svg", "/api/v1/assets/%20/bars"] {
                let reply = try await server.send(.GET, path)
                #expect(reply.status == 404 && reply.errorCode == "unknown_symbol", "\(path)")
            }
        }
    }

    @Test func barsAndBenchmarksComeInRangesWithClearErrors() async throws {
        try await withServer { server in
            let bars = try await server.send(.GET, "/api/v1/assets/ACME/bars?range=MAX").decode(BarSeriesDTO.self)
            #expect(bars.interval == "1d" && bars.bars.map(\.date) == ["2024-01-02", "2024-01-03"])
            #expect(bars.bars[1] == BarDTO(date: "2024-01-03", open: "20.00", high: "20.00", low: "19.40", close: "19.50", volume: 700))
            let weekly = try await server.send(.GET, "/api/v1/assets/ACME/bars?range=MAX&interval=1w").decode(BarSeriesDTO.self)
            #expect(weekly.bars == [BarDTO(date: "2024-01-03", open: "19.90", high: "20.10", low: "19.40", close: "19.50", volume: 1_200)])
            let badRange = try await server.send(.GET, "/api/v1/assets/ACME/bars?range=2W")
            #expect(badRange.status == 400 && badRange.errorCode == "invalid_range")
            #expect(try badRange.decode(ErrorEnvelope.self).error.message.contains("5D, 1M, 3M, 6M, 1Y, 5Y, MAX"))
            let badInterval = try await server.send(.GET, "/api/v1/assets/ACME/bars?interval=1h")
            #expect(badInterval.status == 400 && badInterval.errorCode == "invalid_interval")

            let spx = try await server.send(.GET, "/api/v1/benchmarks/spx/bars?range=5D").decode(BarSeriesDTO.self)
            #expect(spx.symbol == "SPX" && spx.bars.map(\.close) == ["4700.00", "4710.50", "4690.25"])
            let unknown = try await server.send(.GET, "/api/v1/benchmarks/DOW/bars")
            #expect(unknown.status == 404 && unknown.errorCode == "unknown_benchmark")
        }
    }

    @Test func quotesComeInBatchesAndNameWhatIsUnknown() async throws {
        try await withServer { server in
            let reply = try await server.send(.GET, "/api/v1/quotes?symbols=MSFT,acme,ZZZZ,NOPX,MSFT,not!a!symbol")
            let list = try reply.decode(QuoteListDTO.self)
            #expect(list.quotes.map(\.symbol) == ["MSFT", "ACME"])
            #expect(list.unknown == ["ZZZZ", "NOPX", "not!a!symbol"])
            #expect(try await server.send(.GET, "/api/v1/quotes").status == 400)
            let many = (0..<101).map { "S\($0)" }.joined(separator: ",")
            #expect(try await server.send(.GET, "/api/v1/quotes?symbols=\(many)").status == 400)
        }
    }

    @Test func moversListGainersLosersAndMostActive() async throws {
        try await withServer { server in
            let gainers = try await server.send(.GET, "/api/v1/market/movers?list=gainers").decode(MoversDTO.self)
            #expect(gainers.assets.map(\.symbol) == ["MSFT"] && gainers.session == "2024-01-03")
            let losers = try await server.send(.GET, "/api/v1/market/movers?list=losers").decode(MoversDTO.self)
            #expect(losers.assets.map(\.symbol) == ["ACME"])
            let active = try await server.send(.GET, "/api/v1/market/movers?list=most-active&limit=5").decode(MoversDTO.self)
            #expect(active.assets.map(\.symbol) == ["MSFT", "ACME"])
            let bad = try await server.send(.GET, "/api/v1/market/movers?list=popular")
            #expect(bad.status == 400 && bad.errorCode == "invalid_list")
        }
    }

    @Test func asOfShowsTheMarketOnAPastDate() async throws {
        try await withServer { server in
            let quotes = try await server.send(.GET, "/api/v1/quotes?symbols=MSFT&asOf=2024-01-02").decode(QuoteListDTO.self)
            #expect(quotes.quotes.first?.price == "395.50" && quotes.quotes.first?.previousClose == nil)
            let bars = try await server.send(.GET, "/api/v1/assets/MSFT/bars?range=MAX&asOf=2024-01-02").decode(BarSeriesDTO.self)
            #expect(bars.bars.count == 1)
        }
    }

    @Test func logosAreMonogramsWhenTheSourceHasNone() async throws {
        try await withServer { server in
            let logo = try await server.send(.GET, "/api/v1/assets/MSFT/logo.svg")
            #expect(logo.status == 200 && logo.headers.first(name: "Content-Type") == "image/svg+xml")
            #expect(logo.text.hasPrefix("<svg") && logo.text.contains(">MS</text>"))
        }
    }

    @Test func withoutMarketDataResearchAnswers503() async throws {
        try await withServer(marketData: false) { server in
            for path in ["/api/v1/assets", "/api/v1/assets/MSFT", "/api/v1/quotes?symbols=MSFT", "/api/v1/market/status"] {
                let reply = try await server.send(.GET, path)
                #expect(reply.status == 503 && reply.errorCode == "market_data_unavailable", "\(path)")
            }
            #expect(try await server.send(.GET, "/api/v1/market/clock").status == 200)
        }
    }
}

@Suite("Research on the real data pack")
struct RealPackResearchTests {
    static let available = RealPack.available

    @Test(.enabled(if: available))
    func searchingMicroFindsMicrosoftAndChartsStayUnderFiveHundredPoints() async throws {
        try await withServer(packDirectory: try RealPack.require()) { server in
            let micro = try await server.send(.GET, "/api/v1/assets?search=micro").decode(AssetPageDTO.self)
            #expect(micro.assets.contains { $0.symbol == "MSFT" })
            #expect(micro.assets.allSatisfy { $0.name.uppercased().contains("MICRO") })
            let all = try await server.send(.GET, "/api/v1/assets").decode(AssetPageDTO.self)
            #expect(all.total == 303 && all.assets.count == 25 && all.nextCursor != nil)

            for range in ["5D", "1M", "3M", "6M", "1Y", "5Y", "MAX"] {
                let bars = try await server.send(.GET, "/api/v1/assets/AAPL/bars?range=\(range)").decode(BarSeriesDTO.self)
                #expect(!bars.bars.isEmpty && bars.bars.count <= 500, "\(range): \(bars.bars.count)")
                #expect(bars.bars.last?.date == "2026-02-20")
            }
            let fiveDays = try await server.send(.GET, "/api/v1/assets/AAPL/bars?range=5D").decode(BarSeriesDTO.self)
            #expect(fiveDays.bars.count == 5 && fiveDays.interval == "1d")
            let max = try await server.send(.GET, "/api/v1/assets/AAPL/bars?range=MAX").decode(BarSeriesDTO.self)
            #expect(max.interval == "1mo" && max.bars.first?.date.hasPrefix("1990-01") == true)

            let apple = try await server.send(.GET, "/api/v1/assets/AAPL").decode(AssetDetailDTO.self)
            #expect(apple.fiftyTwoWeekLow != nil && apple.oneYearChangePercent != nil && apple.lastDate == "2026-02-20")

            let spx = try await server.send(.GET, "/api/v1/benchmarks/SPX/bars?range=1Y").decode(BarSeriesDTO.self)
            #expect((240...260).contains(spx.bars.count))

            let movers = try await server.send(.GET, "/api/v1/market/movers?list=most-active").decode(MoversDTO.self)
            #expect(movers.session == "2026-02-20" && movers.assets.count == 10)
        }
    }
}

@Suite("The demo exchange over HTTP")
struct DemoExchangeAPITests {
    /// Tuesday 14 October 2025, 14:00 in New York: the session is on.
    static let inSession = TradingCalendar.instant(SessionDate(year: 2025, month: 10, day: 14), 14, 0)

    @Test func everythingIsLabelledSimulated() async throws {
        try await withServer(demo: true, time: FixedTimeSource(Self.inSession)) { server in
            let status = try await server.send(.GET, "/api/v1/market/status").decode(MarketStatusDTO.self)
            #expect(status.source == "demo" && status.simulated && status.label == "demo market, simulated prices")
            #expect(status.sessionDate == "2025-10-14" && !status.delayed)
            for path in ["/health", "/api/v1/assets", "/nope"] {
                #expect(try await server.send(.GET, path).headers.first(name: "X-Market-Data") == "demo market, simulated prices")
            }
            let assets = try await server.send(.GET, "/api/v1/assets?limit=100").decode(AssetPageDTO.self)
            #expect(assets.simulated && (38...45).contains(assets.total))
        }
    }

    @Test func playersTradeDemoCompaniesAtTheCurrentTick() async throws {
        let clock = FixedTimeSource(Self.inSession)
        try await withServer(demo: true, time: clock) { server in
            let player = try await server.register()
            let quote = try await server.send(.GET, "/api/v1/quotes?symbols=HMCR").decode(QuoteListDTO.self).quotes[0]
            let order = try await server.order(player, "buy", 10, "HMCR").decode(OrderDTO.self)
            #expect(order.fillPrice == quote.price)
            let movers = try await server.send(.GET, "/api/v1/market/movers?list=most-active").decode(MoversDTO.self)
            #expect(movers.session == "2025-10-14" && movers.assets.count == 10)
            let bars = try await server.send(.GET, "/api/v1/assets/HMCR/bars?range=5D").decode(BarSeriesDTO.self)
            #expect(bars.bars.count == 5 && bars.bars.last?.date == "2025-10-14" && bars.bars.last?.close == quote.price)
            let detail = try await server.send(.GET, "/api/v1/assets/HMCR").decode(AssetDetailDTO.self)
            #expect(detail.exchange == "Bullpen Demo Exchange" && detail.description != nil && detail.simulated)
            let clockReply = try await server.send(.GET, "/api/v1/market/clock").decode(MarketClockDTO.self)
            #expect(clockReply.isOpen)
        }
    }
}
