import BullpenAPI
import BullpenCore
import BullpenMarketData
import BullpenStore
@testable import BullpenServer
import BullpenTestSupport
import Foundation
import Logging
import NIOHTTP1
import Synchronization
import Testing

/// The markets replay runs on in these tests: the real pack (when present) and the demo exchange
/// at a fixed time.
enum ReplayMarket: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case pack, demo

    var testDescription: String { rawValue }

    static var available: [ReplayMarket] { RealPack.available ? [.pack, .demo] : [.demo] }

    private static let loadedPack = Task { try await PackMarketData.load(directory: try RealPack.require()).source }
    /// Monday 2026-11-23, 20:00 UTC: the demo's last completed session is Friday 2026-11-20.
    static let demoTime = FixedTimeSource(Date(timeIntervalSince1970: 1_795_464_000))
    private static let demoExchange = DemoExchange(time: demoTime)

    func source() async throws -> any MarketDataSource {
        switch self {
        case .pack: try await Self.loadedPack.value
        case .demo: Self.demoExchange
        }
    }

    /// A company that was not listed yet in 1995, and one that was.
    var lateListing: String { self == .pack ? "GOOGL" : "OKHP" }
}

/// Daily closes read straight from the pack's files, to check the server against.
enum PackFile {
    static func closes(_ name: String, benchmark: Bool = false) throws -> [(date: String, close: String)] {
        let folder = try RealPack.require().appendingPathComponent(benchmark ? "benchmarks" : "daily")
        let text = try String(contentsOf: folder.appendingPathComponent("\(name).csv"), encoding: .utf8)
        return text.split(whereSeparator: \.isNewline).dropFirst().map { line in
            let fields = line.split(separator: ",")
            return (String(fields[0]), String(fields[benchmark ? 1 : 4]))
        }
    }
}

extension TestServer {
    func createReplay(_ player: Player, _ body: String) async throws -> PortfolioDTO {
        let reply = try await send(.POST, "/api/v1/portfolios", token: player.accessToken, body: body)
        try #require(reply.status == 201, "create replay: \(reply.text)")
        return try reply.decode(PortfolioDTO.self)
    }

    func advance(_ player: Player, _ portfolio: String, _ body: String) async throws -> Reply {
        try await send(.POST, "/api/v1/portfolios/\(portfolio)/advance", token: player.accessToken, body: body)
    }

    func portfolio(_ player: Player, _ id: String) async throws -> PortfolioDTO {
        try await send(.GET, "/api/v1/portfolios/\(id)", token: player.accessToken).decode(PortfolioDTO.self)
    }

    /// The books balance: cash is the starting cash plus the journal, positions are the fills.
    func expectBalanced(_ player: Player, _ portfolio: String) async throws {
        let audit = try await store.auditSnapshot(of: try #require(PortfolioID(portfolio)), owner: try #require(UserID(player.id)),
                                                  prices: [:])
        #expect(Invariants.check(audit).isEmpty, "\(Invariants.check(audit))")
    }
}

/// Cents of `quantity` × `price` (a decimal string), rounded half up as a fill rounds.
func notionalCents(_ price: String, _ quantity: Int) -> Int64 {
    var value = Decimal(string: price)! * Decimal(quantity) * 100, rounded = Decimal()
    NSDecimalRound(&rounded, &value, 0, .plain)
    return NSDecimalNumber(decimal: rounded).int64Value
}

@Suite("Replay API")
struct ReplayAPITests {
    /// The seed's story 2.3.2.1 with real prices: $100 on 2009-03-02, 10 MSFT refused, 5 bought,
    /// two months of trading days later 5 sold; the cash is exact to the cent.
    @Test(.enabled(if: RealPack.available))
    func seedStoryWithRealPrices() async throws {
        try await withServer(source: try await ReplayMarket.pack.source()) { server in
            let jim = try await server.register()
            let profile = try await server.createReplay(jim, #"{"name":"Jim","startingCash":"100.00","replay":{"start":"2009-03-02"}}"#)
            #expect(profile.name == "Jim" && profile.clock.mode == "replay" && profile.clock.date == "2009-03-02")
            #expect(profile.cash == "100.00" && profile.rules.maxDistinctHoldings == 10)

            // "Micro" finds MSFT, as of the profile's date.
            let found = try await server.send(.GET, "/api/v1/assets?search=Micro&asOf=2009-03-02").decode(AssetPageDTO.self)
            #expect(found.assets.first?.symbol == "MSFT")

            let msft = try PackFile.closes("MSFT")
            let first = try #require(msft.first { $0.date == "2009-03-02" }).close
            let tooMany = try await server.order(jim, "buy", 10, "MSFT", portfolio: profile.id)
            #expect(tooMany.status == 422 && tooMany.errorCode == "insufficient_funds")
            let bought = try await server.order(jim, "buy", 5, "MSFT", portfolio: profile.id).decode(OrderDTO.self)
            #expect(bought.fillPrice.map { Price(parsing: $0) } == Price(parsing: first))
            #expect(bought.priceSource == "replay_close")
            #expect(bought.priceNote?.contains("close of 2009-03-02") == true)

            // Two months of trading days: 42 sessions of the S&P 500 after 2009-03-02.
            let spx = try PackFile.closes("SPX", benchmark: true).map(\.date)
            let target = spx[try #require(spx.firstIndex(of: "2009-03-02")) + 42]
            let moved = try await server.advance(jim, profile.id, #"{"days":42}"#)
            try #require(moved.status == 200, "\(moved.text)")
            let advance = try moved.decode(AdvanceDTO.self)
            #expect(advance.from == "2009-03-02" && advance.to == target && advance.days == 42 && !advance.endOfData)
            #expect(advance.portfolio.clock.date == target)
            let later = try #require(msft.first { $0.date == target }).close
            #expect(advance.holdings.first?.priceAfter.map { Price(parsing: $0) } == Price(parsing: later))
            try await server.expectBalanced(jim, profile.id)

            let sold = try await server.order(jim, "sell", 5, "MSFT", portfolio: profile.id)
            #expect(sold.status == 201, Comment(rawValue: sold.text))
            let after = try await server.portfolio(jim, profile.id)
            let expected = 10_000 - notionalCents(first, 5) + notionalCents(later, 5)
            #expect(Money(parsing: after.cash) == Money(cents: expected))
            #expect(after.holdingsCount == 0)
            try await server.expectBalanced(jim, profile.id)
        }
    }

    /// Advancing one day at a time across Christmas and New Year stands only on NYSE days.
    @Test(arguments: ReplayMarket.available)
    func oneDayAtATimeOverTheHolidays(market: ReplayMarket) async throws {
        try await withServer(source: try await market.source()) { server in
            let player = try await server.register()
            let profile = try await server.createReplay(player, #"{"startingCash":"10000.00","replay":{"start":"2008-12-22","holdings":"random"}}"#)
            #expect(profile.name == "Profile 1" && profile.holdingsCount == 5)
            var dates: [String] = []
            while dates.last ?? "" < "2009-01-06" {
                let advance = try await server.advance(player, profile.id, #"{"days":1}"#).decode(AdvanceDTO.self)
                #expect(advance.days == 1)
                dates.append(advance.to)
                try await server.expectBalanced(player, profile.id)
            }
            #expect(dates == ["2008-12-23", "2008-12-24", "2008-12-26", "2008-12-29", "2008-12-30", "2008-12-31",
                              "2009-01-02", "2009-01-05", "2009-01-06"])
            if market == .pack {
                let spx = try PackFile.closes("SPX", benchmark: true).map(\.date).filter { $0 > "2008-12-22" && $0 <= "2009-01-06" }
                #expect(dates == spx)
            }
            // One snapshot a day, the start included; the cash never moved.
            let history = try await server.send(.GET, "/api/v1/portfolios/\(profile.id)/history", token: player.accessToken)
                .decode(EquityHistoryDTO.self)
            #expect(history.points.map(\.date) == ["2008-12-22"] + dates)
        }
    }

    /// A company listed later can neither be found nor bought: GOOGL in 1995.
    @Test(arguments: ReplayMarket.available)
    func laterListingsDoNotExistYet(market: ReplayMarket) async throws {
        try await withServer(source: try await market.source()) { server in
            let player = try await server.register()
            let profile = try await server.createReplay(player, #"{"name":"Nineties","replay":{"start":"1995-06"}}"#)
            #expect(profile.clock.date == "1995-06-01")
            let order = try await server.order(player, "buy", 1, market.lateListing, portfolio: profile.id)
            #expect(order.status == 422 && order.errorCode == "not_listed_yet", "\(order.text)")
            let search = try await server.send(.GET, "/api/v1/assets?search=\(market.lateListing)&asOf=1995-06-01").decode(AssetPageDTO.self)
            #expect(!search.assets.contains { $0.symbol == market.lateListing })
            let detail = try await server.send(.GET, "/api/v1/assets/\(market.lateListing)?asOf=1995-06-01")
            #expect(detail.status == 404 && detail.errorCode == "unknown_symbol")
            // Today it is there.
            let now = try await server.send(.GET, "/api/v1/assets?search=\(market.lateListing)").decode(AssetPageDTO.self)
            #expect(now.assets.contains { $0.symbol == market.lateListing })
            let unknown = try await server.order(player, "buy", 1, "ZZZZZ", portfolio: profile.id)
            #expect(unknown.status == 404 && unknown.errorCode == "unknown_symbol")
        }
    }

    /// At most ten different stocks; selling all of one frees a slot.
    @Test(arguments: ReplayMarket.available)
    func tenStocksAtMost(market: ReplayMarket) async throws {
        try await withServer(source: try await market.source()) { server in
            let player = try await server.register()
            let profile = try await server.createReplay(player, #"{"startingCash":"1000000.00","replay":{"start":"2009-03-02"}}"#)
            let listed = try await server.send(.GET, "/api/v1/assets?asOf=2009-03-02&sort=symbol&limit=11&trading=trading")
                .decode(AssetPageDTO.self).assets.map(\.symbol)
            try #require(listed.count == 11)
            for symbol in listed.prefix(10) {
                let reply = try await server.order(player, "buy", 1, symbol, portfolio: profile.id)
                #expect(reply.status == 201, "\(symbol): \(reply.text)")
            }
            let eleventh = try await server.order(player, "buy", 1, listed[10], portfolio: profile.id)
            #expect(eleventh.status == 422 && eleventh.errorCode == "too_many_holdings")
            #expect(try await server.order(player, "sell", 1, listed[0], portfolio: profile.id).status == 201)
            #expect(try await server.order(player, "buy", 1, listed[10], portfolio: profile.id).status == 201)
            try await server.expectBalanced(player, profile.id)
        }
    }

    /// Every scenario is offered and starts on its date with its stocks.
    @Test(arguments: ReplayMarket.available)
    func everyScenarioStarts(market: ReplayMarket) async throws {
        try await withServer(source: try await market.source()) { server in
            let player = try await server.register()
            let list = try await server.send(.GET, "/api/v1/replay/scenarios").decode(ScenarioList.self)
            #expect(list.scenarios.map(\.id) == Scenario.all.map(\.id))
            #expect(list.firstDate == "1990-01-02")
            for scenario in list.scenarios {
                let profile = try await server.createReplay(player, #"{"startingCash":"100000.00","replay":{"scenario":"\#(scenario.id)"}}"#)
                #expect(profile.clock.date == scenario.start && profile.clock.scenario == scenario.id)
                let positions = try await server.send(.GET, "/api/v1/portfolios/\(profile.id)/positions", token: player.accessToken)
                    .decode(PositionList.self)
                #expect(positions.positions.map(\.symbol).sorted() == scenario.symbols.sorted(), "\(scenario.id)")
                // Half the cash went into the stocks, in equal parts.
                #expect(Money(parsing: profile.cash)! >= Money(dollars: 50_000))
                try await server.expectBalanced(player, profile.id)
            }
            let unknown = try await server.send(.POST, "/api/v1/portfolios", token: player.accessToken,
                                                body: #"{"replay":{"scenario":"tulip-mania"}}"#)
            #expect(unknown.status == 404 && unknown.errorCode == "unknown_scenario")
        }
    }

    /// The clock stops on the data's last day; then the report is ready and further advances are refused.
    @Test(arguments: ReplayMarket.available)
    func advancingPastTheEndOfTheData(market: ReplayMarket) async throws {
        try await withServer(source: try await market.source()) { server in
            let player = try await server.register()
            let list = try await server.send(.GET, "/api/v1/replay/scenarios").decode(ScenarioList.self)
            let last = try #require(list.lastDate.flatMap { SessionDate(iso: $0) })
            let profile = try await server.createReplay(player, #"{"replay":{"start":"\#(last.adding(days: -30))","holdings":"random"}}"#)
            let early = try await server.send(.GET, "/api/v1/portfolios/\(profile.id)/report", token: player.accessToken)
            #expect(early.status == 409 && early.errorCode == "report_not_ready")
            let advance = try await server.advance(player, profile.id, #"{"days":252}"#).decode(AdvanceDTO.self)
            #expect(advance.endOfData && advance.to == last.description && advance.days < 252)
            #expect(advance.message.contains("last day of the data"))
            let again = try await server.advance(player, profile.id, #"{"days":1}"#)
            #expect(again.status == 409 && again.errorCode == "end_of_data")
            let report = try await server.send(.GET, "/api/v1/portfolios/\(profile.id)/report", token: player.accessToken)
                .decode(ReplayReportDTO.self)
            #expect(report.endOfData && !report.ended && report.end == last.description)
            #expect(report.buyAndHoldStocks == report.endingEquity)   // nothing was traded after the start
            try await server.expectBalanced(player, profile.id)
        }
    }

    /// Bad requests get clear errors and change nothing.
    @Test func badRequestsAreRefused() async throws {
        try await withServer(source: try await ReplayMarket.demo.source()) { server in
            let player = try await server.register()
            let profile = try await server.createReplay(player, #"{"replay":{"start":"2009-03"}}"#)
            #expect(profile.clock.date == "2009-03-02" && profile.clock.start == "2009-03-02")
            for days in [0, 253, -1] {
                let reply = try await server.advance(player, profile.id, #"{"days":\#(days)}"#)
                #expect(reply.status == 400 && reply.errorCode == "invalid_advance" && reply.text.contains("1 to 252"))
            }
            for body in [#"{}"#, #"{"days":1,"to":"2009-04-01"}"#, #"{"to":"2009-02-01"}"#, #"{"to":"2011-01-01"}"#, #"{"to":"soon"}"#] {
                let reply = try await server.advance(player, profile.id, body)
                #expect(reply.status == 400 && reply.errorCode == "invalid_advance", "\(body): \(reply.text)")
            }
            let unknownField = try await server.advance(player, profile.id, #"{"days":1,"hours":2}"#)
            #expect(unknownField.status == 400 && unknownField.errorCode == "validation_failed")
            let live = try await server.advance(player, player.mainPortfolio, #"{"days":1}"#)
            #expect(live.status == 409 && live.errorCode == "not_replay")
            for (body, code) in [(#"{"replay":{"start":"2009-13"}}"#, "invalid_replay_start"),
                                 (#"{"replay":{"start":"1950-01"}}"#, "invalid_replay_start"),
                                 (#"{"replay":{"start":"2300-01-01"}}"#, "invalid_replay_start"),
                                 (#"{"replay":{"start":"2009-03","when":"now"}}"#, "validation_failed"),
                                 (#"{"replay":{"holdings":"all"}}"#, "validation_failed"),
                                 (#"{"replay":{"start":"2009-03","scenario":"covid-crash"}}"#, "validation_failed"),
                                 (#"{"startingCash":"99.99","replay":{}}"#, "invalid_starting_cash")] {
                let reply = try await server.send(.POST, "/api/v1/portfolios", token: player.accessToken, body: body)
                #expect(reply.errorCode == code, "\(body): \(reply.text)")
            }
            let unknownNested = try await server.send(.POST, "/api/v1/portfolios", token: player.accessToken,
                                                      body: #"{"replay":{"start":"2009-03","when":"now"}}"#)
            #expect(unknownNested.text.contains("replay.when"))
            // Nothing moved.
            #expect(try await server.portfolio(player, profile.id).clock.date == "2009-03-02")
            let list = try await server.send(.GET, "/api/v1/portfolios", token: player.accessToken).decode(PortfolioList.self)
            #expect(list.portfolios.count == 2)
        }
    }

    /// Advancing `to` a date lands on it or the trading day before; a random start leaves a year of data.
    @Test func toADateAndRandomStarts() async throws {
        try await withServer(source: try await ReplayMarket.demo.source()) { server in
            let player = try await server.register()
            let profile = try await server.createReplay(player, #"{"replay":{"start":"2009-03-02"}}"#)
            let moved = try await server.advance(player, profile.id, #"{"to":"2009-04-12"}"#).decode(AdvanceDTO.self)
            #expect(moved.to == "2009-04-09" && moved.days == 28)   // Good Friday 2009-04-10 and a weekend
            let list = try await server.send(.GET, "/api/v1/replay/scenarios").decode(ScenarioList.self)
            let last = try #require(list.lastDate.flatMap { SessionDate(iso: $0) })
            for _ in 0..<5 {
                let random = try await server.createReplay(player, #"{"replay":{"start":"random"}}"#)
                let date = try #require(random.clock.date.flatMap { SessionDate(iso: $0) })
                #expect(date >= SessionDate(year: 1990, month: 1, day: 2) && date.adding(days: 365) <= last)
                #expect(TradingCalendar().isTradingDay(date))
            }
        }
    }

    /// Ending a replay freezes it; its report is final; a reset plays it again from the start.
    @Test(arguments: ReplayMarket.available)
    func endReportAndReset(market: ReplayMarket) async throws {
        try await withServer(source: try await market.source()) { server in
            let player = try await server.register()
            let profile = try await server.createReplay(player, #"{"startingCash":"10000.00","replay":{"start":"2009-03-02","holdings":"random"}}"#)
            let positions = try await server.send(.GET, "/api/v1/portfolios/\(profile.id)/positions", token: player.accessToken)
                .decode(PositionList.self).positions
            let first = try #require(positions.first)
            _ = try await server.advance(player, profile.id, #"{"days":21}"#)
            #expect(try await server.order(player, "sell", first.quantity, first.symbol, portfolio: profile.id).status == 201)
            _ = try await server.advance(player, profile.id, #"{"days":21}"#)
            let ended = try await server.send(.POST, "/api/v1/portfolios/\(profile.id)/end", token: player.accessToken)
                .decode(PortfolioDTO.self)
            #expect(ended.clock.ended == true)
            let order = try await server.order(player, "buy", 1, first.symbol, portfolio: profile.id)
            #expect(order.status == 409 && order.errorCode == "replay_ended")
            let advance = try await server.advance(player, profile.id, #"{"days":1}"#)
            #expect(advance.status == 409 && advance.errorCode == "replay_ended")
            let endAgain = try await server.send(.POST, "/api/v1/portfolios/\(profile.id)/end", token: player.accessToken)
            #expect(endAgain.status == 409 && endAgain.errorCode == "replay_ended")

            let report = try await server.send(.GET, "/api/v1/portfolios/\(profile.id)/report", token: player.accessToken)
                .decode(ReplayReportDTO.self)
            #expect(report.ended && report.start == "2009-03-02" && report.end == ended.clock.date)
            #expect(report.endingEquity == ended.equity && report.days == 43 && report.points.count == 43)
            #expect(report.bestTrade?.symbol == first.symbol && report.worstTrade?.symbol == first.symbol)
            // Figures computed here from the curve, independently of the server's report.
            let equities = report.points.map { Money(parsing: $0.equity)! }
            var peak = equities[0], deepest = Money.zero
            for equity in equities { peak = max(peak, equity); deepest = max(deepest, peak - equity) }
            #expect(Money(parsing: report.maxDrawdown) == deepest)
            #expect(Money(parsing: report.totalReturn) == Money(parsing: ended.equity)! - Money(dollars: 10_000))
            #expect(report.daysInvested == 43)   // four stocks were held throughout
            if market == .pack {
                let spx = Dictionary(try PackFile.closes("SPX", benchmark: true).map { ($0.date, $0.close) }, uniquingKeysWith: { a, _ in a })
                let start = Decimal(string: spx["2009-03-02"]!)!, end = Decimal(string: spx[report.end]!)!
                var value = Decimal(10_000) * end / start, rounded = Decimal()
                NSDecimalRound(&rounded, &value, 2, .plain)
                #expect(report.buyAndHoldBenchmark == "\(rounded)")
            }

            let reset = try await server.send(.POST, "/api/v1/portfolios/\(profile.id)/reset", token: player.accessToken)
                .decode(PortfolioDTO.self)
            #expect(reset.clock.date == "2009-03-02" && reset.clock.ended == false && reset.cash == "10000.00" && reset.period == 2)
            let history = try await server.send(.GET, "/api/v1/portfolios/\(profile.id)/history", token: player.accessToken)
                .decode(EquityHistoryDTO.self)
            #expect(history.points.map(\.date) == ["2009-03-02"])
            try await server.expectBalanced(player, profile.id)
        }
    }

    /// Someone else's replay is "not found" on every route, and stays as it was.
    @Test func anotherUserGets404OnEveryReplayRoute() async throws {
        try await withServer(source: try await ReplayMarket.demo.source()) { server in
            let alice = try await server.register()
            let bob = try await server.register()
            let profile = try await server.createReplay(alice, #"{"replay":{"start":"2009-03-02","holdings":"random"}}"#)
            for (method, path, body) in AuthorizationTests.portfolioRoutes(profile.id, order: UUID().uuidString) {
                let reply = try await server.send(method, path, token: bob.accessToken, body: body)
                #expect(reply.status == 404 && reply.errorCode == "not_found", "\(method) \(path): \(reply.status)")
            }
            let after = try await server.portfolio(alice, profile.id)
            #expect(after.clock.date == "2009-03-02" && after.clock.ended == false && after.holdingsCount == 5)
        }
    }

    /// No request made on a replay portfolio asks the market data past the portfolio's date.
    @Test(arguments: ReplayMarket.available)
    func noLookAhead(market: ReplayMarket) async throws {
        let recording = RecordingMarketData(try await market.source())
        try await withServer(source: recording) { server in
            let player = try await server.register()
            _ = recording.take()   // registering read the live Main portfolio
            let profile = try await server.createReplay(player, #"{"startingCash":"10000.00","replay":{"start":"2008-09-02","holdings":"random"}}"#)
            var today = "2008-09-02"
            func checkAndClear(_ step: String) {
                let late = recording.take().filter { $0.date > today }
                #expect(late.isEmpty, "\(step) asked as of \(late) on \(today)")
            }
            checkAndClear("creating")
            let positions = try await server.send(.GET, "/api/v1/portfolios/\(profile.id)/positions", token: player.accessToken)
                .decode(PositionList.self).positions
            for step in 1...3 {
                let advance = try await server.advance(player, profile.id, #"{"days":\#(step * 5)}"#).decode(AdvanceDTO.self)
                today = advance.to
                checkAndClear("advancing")
                _ = try await server.order(player, "sell", 1, positions[step].symbol, portfolio: profile.id)
                _ = try await server.send(.POST, "/api/v1/portfolios/\(profile.id)/orders/preview", token: player.accessToken,
                                          body: #"{"symbol":"\#(positions[0].symbol)","side":"buy","quantity":1}"#)
                for path in ["", "/positions", "/history", "/orders", "/activities", "/activities/summary"] {
                    let reply = try await server.send(.GET, "/api/v1/portfolios/\(profile.id)\(path)", token: player.accessToken)
                    #expect(reply.status == 200, "\(path): \(reply.text)")
                }
                // What the web app asks for the replay's screens.
                for path in ["/api/v1/assets?search=a&asOf=\(today)", "/api/v1/assets/\(positions[0].symbol)?asOf=\(today)",
                             "/api/v1/assets/\(positions[0].symbol)/bars?range=3M&asOf=\(today)",
                             "/api/v1/market/movers?asOf=\(today)", "/api/v1/benchmarks/SPX/bars?range=1Y&asOf=\(today)",
                             "/api/v1/quotes?symbols=\(positions[0].symbol)&asOf=\(today)"] {
                    let reply = try await server.send(.GET, path, token: player.accessToken)
                    #expect(reply.status == 200, "\(path): \(reply.text)")
                }
                checkAndClear("reading")
            }
            _ = try await server.send(.POST, "/api/v1/portfolios/\(profile.id)/end", token: player.accessToken)
            #expect(try await server.send(.GET, "/api/v1/portfolios/\(profile.id)/report", token: player.accessToken).status == 200)
            checkAndClear("the report")
            #expect(recording.asked > 20)
        }
    }
}

/// A market data source that records the date of every price, bar and listing question asked
/// of it (`live` as the far future), and answers from another source.
final class RecordingMarketData: MarketDataSource {
    let base: any MarketDataSource
    private let dates = Mutex<[(date: String, call: String)]>([])
    private let count = Mutex(0)

    init(_ base: any MarketDataSource) { self.base = base }

    private func note(_ clock: PortfolioClock, _ end: SessionDate? = nil, call: String = #function) {
        var date: String
        switch clock {
        case .live: date = "9999-12-31"
        case .replay(let day): date = SessionDate(day).description
        }
        if let end, end.description < date { date = end.description }
        dates.withLock { $0.append((date, call)) }
        count.withLock { $0 += 1 }
    }

    /// The dates asked since the last call, with the question.
    func take() -> [(date: String, call: String)] { dates.withLock { taken in defer { taken = [] }; return taken } }
    var asked: Int { count.withLock { $0 } }

    var sourceName: String { base.sourceName }
    var isSimulated: Bool { base.isSimulated }
    func status() async -> SourceStatus { await base.status() }
    func listing() async throws -> [AssetInfo] { try await base.listing() }
    func asset(_ symbol: Symbol) async throws -> AssetInfo? { try await base.asset(symbol) }
    func isMarketOpen(at instant: Date) async -> Bool { await base.isMarketOpen(at: instant) }
    func replayRange() async -> ClosedRange<SessionDate>? { await base.replayRange() }

    func quote(_ symbol: Symbol, asOf clock: PortfolioClock) async throws -> Quote? {
        note(clock)
        return try await base.quote(symbol, asOf: clock)
    }

    func quotes(_ symbols: [Symbol], asOf clock: PortfolioClock) async throws -> [Symbol: Quote] {
        note(clock)
        return try await base.quotes(symbols, asOf: clock)
    }

    func dailyBars(_ symbol: Symbol, from start: SessionDate?, through end: SessionDate?,
                   asOf clock: PortfolioClock) async throws -> [DailyBar] {
        note(clock, end)
        return try await base.dailyBars(symbol, from: start, through: end, asOf: clock)
    }

    func benchmarkBars(_ name: String, from start: SessionDate?, through end: SessionDate?,
                       asOf clock: PortfolioClock) async throws -> [DailyBar]? {
        note(clock, end)
        return try await base.benchmarkBars(name, from: start, through: end, asOf: clock)
    }

    /// Only which session a clock stands on: for `live`, the portfolio reads ask it to learn
    /// whether the portfolio follows the live market (no price is read with it).
    func sessionDate(asOf clock: PortfolioClock) async -> SessionDate? { await base.sessionDate(asOf: clock) }

    func averageDollarVolume(_ symbols: [Symbol], asOf clock: PortfolioClock) async throws -> [Symbol: Int64] {
        note(clock)
        return try await base.averageDollarVolume(symbols, asOf: clock)
    }
}

@Suite("Closing equity")
struct ClosingEquityTests {
    /// Live portfolios get their equity stored at each session's close, caught up from their
    /// creation to the last closed session, once.
    @Test(.enabled(if: RealPack.available))
    func liveClosingEquityIsStoredOncePerSession() async throws {
        // 2026-02-02 15:00 UTC is 10:00 in New York; the pack's last session is 2026-02-20.
        let time = FixedTimeSource(Date(timeIntervalSince1970: 1_770_044_400))
        let source = try await ReplayMarket.pack.source()
        try await withServer(time: time, source: source, configure: { $0.closingEquityJob = false }) { server in
            let player = try await server.register()
            #expect(try await server.order(player, "buy", 10, "MSFT").status == 201)
            let job = ClosingEquityJob(store: server.store, source: source, logger: Logger(label: "test"))
            let stored = try await job.runOnce()
            let owner = try #require(UserID(player.id)), id = try #require(PortfolioID(player.mainPortfolio))
            let snapshots = try await server.store.equitySnapshots(of: id, owner: owner)
            let msft = Dictionary(try PackFile.closes("MSFT").map { ($0.date, $0.close) }, uniquingKeysWith: { a, _ in a })
            let days = try PackFile.closes("SPX", benchmark: true).map(\.date).filter { $0 >= "2026-02-02" && $0 <= "2026-02-20" }
            #expect(stored == days.count && snapshots.map(\.date.description) == days)
            let portfolio = try await server.portfolio(player, player.mainPortfolio)
            for snapshot in snapshots {
                #expect(snapshot.cash == Money(parsing: portfolio.cash))
                #expect(snapshot.marketValue == Money(cents: notionalCents(msft[snapshot.date.description]!, 10)), "\(snapshot.date)")
            }
            #expect(try await job.runOnce() == 0, "each session once")
        }
    }
}
