import AsyncHTTPClient
import BullpenCore
import BullpenTestSupport
import Foundation
import Synchronization
import Testing
import Vapor
@testable import BullpenMarketData

/// A local HTTP server that answers like Stooq and Finnhub, with responses written from their
/// documented formats, and that can be told to fail, to rate-limit or to answer garbage.
final class ReplayProvider: Sendable {
    enum Mode: Sendable { case normal, serverError, rateLimited, garbage }

    let app: Application
    let baseURL: String
    let mode = Mutex(Mode.normal)
    let hits = Mutex<[String: Int]>([:])

    static let finnhubKey = "test-key"

    private init(app: Application, baseURL: String) { self.app = app; self.baseURL = baseURL }

    static func start() async throws -> ReplayProvider {
        let app = try await Application.make(.testing)
        var logger = Logger(label: "replay")
        logger.logLevel = .critical
        app.logger = logger
        let box = Mutex<ReplayProvider?>(nil)
        @Sendable func provider() -> ReplayProvider { box.withLock { $0! } }
        app.get("q", "l", "") { req in try provider().answer(req, "stooq-quote") { provider().stooqQuotes(req) } }
        app.get("q", "d", "l", "") { req in try provider().answer(req, "stooq-history") { provider().stooqHistory(req) } }
        app.get("api", "v1", "quote") { req in try provider().answer(req, "finnhub-quote", finnhub: true) { provider().finnhubQuote(req) } }
        app.get("api", "v1", "stock", "candle") { req in try provider().answer(req, "finnhub-candle", finnhub: true) { Self.finnhubCandles } }
        app.get("api", "v1", "crypto", "candle") { req in
            try provider().answer(req, "finnhub-crypto-candle", finnhub: true) {
                req.query[String.self, at: "symbol"] == "COINBASE:BTC-USD" ? Self.finnhubCryptoCandles : #"{"s":"no_data"}"#
            }
        }
        app.get("api", "v1", "stock", "profile2") { req in try provider().answer(req, "finnhub-profile", finnhub: true) { Self.finnhubProfile } }
        app.get("api", "v1", "search") { req in try provider().answer(req, "finnhub-search", finnhub: true) { Self.finnhubSearch } }
        try await app.server.start(address: .hostname("127.0.0.1", port: 0))
        let port = app.http.server.shared.localAddress!.port!
        let replay = ReplayProvider(app: app, baseURL: "http://127.0.0.1:\(port)")
        box.withLock { $0 = replay }
        return replay
    }

    func stop() async {
        await app.server.shutdown()
        try? await app.asyncShutdown()
    }

    func count(_ name: String) -> Int { hits.withLock { $0[name] ?? 0 } }

    private func answer(_ req: Request, _ name: String, finnhub: Bool = false, _ body: () -> String) throws -> Response {
        hits.withLock { $0[name, default: 0] += 1 }
        if finnhub && req.query[String.self, at: "token"] != Self.finnhubKey {
            return Response(status: .unauthorized, body: .init(string: #"{"error":"Invalid API key"}"#))
        }
        switch mode.withLock({ $0 }) {
        case .normal: return Response(status: .ok, body: .init(string: body()))
        case .serverError: return Response(status: .internalServerError, body: .init(string: "<html>oops</html>"))
        case .rateLimited:
            return Response(status: .tooManyRequests, headers: ["Retry-After": "30"],
                            body: .init(string: #"{"error":"API limit reached. Please try again later. Remaining Limit: 0"}"#))
        case .garbage: return Response(status: .ok, body: .init(string: "<!doctype html><p>maintenance</p>"))
        }
    }

    // Stooq: `s=aapl.us,msft.us,zzzz.us&f=sd2t2ohlcv&h&e=csv`
    private func stooqQuotes(_ req: Request) -> String {
        let symbols = (req.query[String.self, at: "s"] ?? "").split(separator: ",").map { $0.uppercased() }
        var lines = ["Symbol,Date,Time,Open,High,Low,Close,Volume"]
        for symbol in symbols {
            switch symbol {
            case "AAPL.US": lines.append("AAPL.US,2026-03-02,22:00:07,265.1,268.875,263.02,267.305,51234567")
            case "MSFT.US": lines.append("MSFT.US,2026-03-02,22:00:08,401.5,405,399.25,404.125,20123456")
            case "BTC.V": lines.append("BTC.V,2026-03-01,03:00:00,65001.5,65410,64800.25,65123.75,1234.56")
            default: lines.append("\(symbol),N/D,N/D,N/D,N/D,N/D,N/D,N/D")
            }
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    private func stooqHistory(_ req: Request) -> String {
        guard req.query[String.self, at: "s"] == "aapl.us" else { return "No data" }
        return "Date,Open,High,Low,Close,Volume\r\n2026-02-26,260.1,262,259.5,261.25,40000000\r\n2026-02-27,261.3,266,261,265,45000000.5\r\n"
    }

    private func finnhubQuote(_ req: Request) -> String {
        switch req.query[String.self, at: "symbol"] {
        case "AAPL": return #"{"c":267.305,"d":2.305,"dp":0.8698,"h":268.875,"l":263.02,"o":265.1,"pc":265,"t":1772488807}"#
        // Sunday 1 March 2026, 03:00:05 UTC: coins trade at any hour.
        case "COINBASE:BTC-USD": return #"{"c":65123.75,"d":-310.5,"dp":-0.4745,"h":65900.1,"l":64870,"o":65434.25,"pc":65434.25,"t":1772334005}"#
        default: return #"{"c":0,"d":null,"dp":null,"h":0,"l":0,"o":0,"pc":0,"t":0}"#
        }
    }

    static let finnhubCandles = #"{"c":[261.25,265],"h":[262,266],"l":[259.5,261],"o":[260.1,261.3],"s":"ok","t":[1772064000,1772150400],"v":[40000000,45000000]}"#
    /// A coin's daily candles: Friday 27 February to Sunday 1 March 2026, every day (UTC).
    static let finnhubCryptoCandles = #"{"c":[64010.5,65434.25,65123.75],"h":[64500,65800,65900.1],"l":[63000,63900,64870],"o":[63500,64010.5,65434.25],"s":"ok","t":[1772150400,1772236800,1772323200],"v":[1520.5,980.25,410.75]}"#
    static let finnhubProfile = #"{"country":"US","currency":"USD","exchange":"NASDAQ NMS - GLOBAL MARKET","finnhubIndustry":"Technology","ipo":"1980-12-12","logo":"https://static.finnhub.io/logo/87cb30d8-80df-11ea-8951-00000000092a.png","marketCapitalization":3900000,"name":"Apple Inc","phone":"14089961010","shareOutstanding":14840,"ticker":"AAPL","weburl":"https://www.apple.com/"}"#
    static let finnhubSearch = #"{"count":2,"result":[{"description":"APPLE INC","displaySymbol":"AAPL","symbol":"AAPL","type":"Common Stock"},{"description":"APPLE HOSPITALITY REIT INC","displaySymbol":"APLE","symbol":"APLE","type":"Common Stock"}]}"#
}

func withReplay(_ body: (ReplayProvider) async throws -> Void) async throws {
    let replay = try await ReplayProvider.start()
    do { try await body(replay) } catch { await replay.stop(); throw error }
    await replay.stop()
}

@Suite("Online providers against recorded responses")
struct ProviderTests {
    let aapl = Symbol("AAPL")!, msft = Symbol("MSFT")!, unknown = Symbol("ZZZZ")!

    @Test func stooqQuotesComeInOneBatchAndLeaveOutUnknownSymbols() async throws {
        try await withReplay { replay in
            let stooq = StooqProvider(baseURL: replay.baseURL)
            let quotes = try await stooq.quotes([aapl, msft, unknown])
            #expect(replay.count("stooq-quote") == 1)
            #expect(quotes.keys.sorted() == [aapl, msft])
            #expect(quotes[aapl]?.price == Price(parsing: "267.305")! && quotes[aapl]?.volume == 51_234_567)
            #expect(quotes[aapl]?.asOf.map(SessionDate.init) == SessionDate(year: 2026, month: 3, day: 2))
            // A coin: `BTC-USD` is asked as Stooq's `btc.v` and comes back as BTC-USD, at 3 a.m. on a Sunday.
            let btc = Symbol("BTC-USD")!
            let coin = try await stooq.quotes([btc, aapl])
            #expect(coin[btc]?.price == Price(parsing: "65123.75") && coin[btc]?.asOf == SessionDate(year: 2026, month: 3, day: 1).date.addingTimeInterval(3 * 3_600))
            #expect(StooqProvider.stooqSymbol(btc) == "btc.v" && StooqProvider.stooqSymbol(Symbol("BRK-B")!) == "brk-b.us")
        }
    }

    @Test func stooqHistoryParsesAndUnknownSymbolsAreEmpty() async throws {
        try await withReplay { replay in
            let stooq = StooqProvider(baseURL: replay.baseURL)
            let bars = try await stooq.dailyBars(aapl, from: SessionDate(year: 2026, month: 2, day: 1), through: SessionDate(year: 2026, month: 3, day: 1))
            #expect(bars.map(\.date.description) == ["2026-02-26", "2026-02-27"])
            #expect(bars[1].close == Price(parsing: "265")! && bars[1].volume == 45_000_001)
            #expect(try await stooq.dailyBars(unknown, from: SessionDate(year: 2026, month: 2, day: 1), through: SessionDate(year: 2026, month: 3, day: 1)).isEmpty)
        }
    }

    @Test func finnhubQuotesCandlesProfilesAndSearch() async throws {
        try await withReplay { replay in
            let finnhub = FinnhubProvider(key: ReplayProvider.finnhubKey, baseURL: replay.baseURL)
            let quotes = try await finnhub.quotes([aapl, unknown])
            #expect(quotes.keys.sorted() == [aapl])
            #expect(quotes[aapl]?.price == Price(parsing: "267.305")! && quotes[aapl]?.previousClose == Price(parsing: "265")!)
            let bars = try await finnhub.dailyBars(aapl, from: SessionDate(year: 2026, month: 2, day: 1), through: SessionDate(year: 2026, month: 3, day: 1))
            #expect(bars.map(\.date.description) == ["2026-02-26", "2026-02-27"] && bars[0].open == Price(parsing: "260.1")!)
            let profile = try #require(try await finnhub.profile(aapl))
            #expect(profile.name == "Apple Inc" && profile.logoURL?.hasPrefix("https://static.finnhub.io/logo/") == true)
            #expect(try await finnhub.search("apple").map(\.symbol.rawValue) == ["AAPL", "APLE"])
        }
    }

    /// Finnhub's coins: `BTC-USD` is asked as `COINBASE:BTC-USD`, its quote at three on a Sunday
    /// morning, its daily candles every calendar day from the crypto candles; no profile.
    @Test func finnhubCoinsAreAskedOnTheCryptoExchange() async throws {
        try await withReplay { replay in
            let finnhub = FinnhubProvider(key: ReplayProvider.finnhubKey, baseURL: replay.baseURL)
            let btc = Symbol("BTC-USD")!, eth = Symbol("ETH-USD")!
            #expect(finnhub.finnhubSymbol(btc) == "COINBASE:BTC-USD" && finnhub.finnhubSymbol(Symbol("BRK-B")!) == "BRK-B")
            let quotes = try await finnhub.quotes([btc, eth])
            #expect(quotes.keys.sorted() == [btc], "a coin Finnhub does not know is left out")
            #expect(quotes[btc]?.price == Price(parsing: "65123.75") && quotes[btc]?.previousClose == Price(parsing: "65434.25"))
            #expect(quotes[btc]?.asOf == SessionDate(year: 2026, month: 3, day: 1).date.addingTimeInterval(3 * 3_600 + 5))
            let bars = try await finnhub.dailyBars(btc, from: SessionDate(year: 2026, month: 2, day: 27), through: SessionDate(year: 2026, month: 3, day: 1))
            #expect(bars.map(\.date.description) == ["2026-02-27", "2026-02-28", "2026-03-01"], "a Saturday and a Sunday too")
            #expect(bars[2].close == Price(parsing: "65123.75") && bars[0].volume == 1_521 && replay.count("finnhub-crypto-candle") == 1)
            #expect(replay.count("finnhub-candle") == 0, "never the stock candles")
            #expect(try await finnhub.dailyBars(eth, from: SessionDate(year: 2026, month: 2, day: 27), through: SessionDate(year: 2026, month: 3, day: 1)).isEmpty)
            #expect(try await finnhub.profile(btc) == nil && replay.count("finnhub-profile") == 0)
        }
    }

    @Test func providerErrorsAreTyped() async throws {
        try await withReplay { replay in
            await #expect(throws: ProviderError.unauthorized) {
                try await FinnhubProvider(key: "wrong", baseURL: replay.baseURL).quotes([aapl])
            }
            let finnhub = FinnhubProvider(key: ReplayProvider.finnhubKey, baseURL: replay.baseURL)
            replay.mode.withLock { $0 = .rateLimited }
            await #expect(throws: ProviderError.rateLimited(retryAfter: 30)) { try await finnhub.quotes([aapl]) }
            replay.mode.withLock { $0 = .serverError }
            await #expect(throws: ProviderError.unavailable("HTTP 500")) { try await finnhub.quotes([aapl]) }
            replay.mode.withLock { $0 = .garbage }
            await #expect(throws: ProviderError.self) { try await finnhub.quotes([aapl]) }
            await #expect(throws: ProviderError.self) { try await StooqProvider(baseURL: replay.baseURL).quotes([aapl]) }
            let closed = StooqProvider(baseURL: "http://127.0.0.1:1")
            await #expect(throws: ProviderError.self) { try await closed.quotes([aapl]) }
        }
    }

    @Test func theCacheAnswersRepeatsWithinItsLifetimeAndSharesConcurrentRequests() async throws {
        try await withReplay { replay in
            let clock = FixedTimeSource(Date(timeIntervalSince1970: 1_772_500_000))
            let cache = ProviderCache(provider: StooqProvider(baseURL: replay.baseURL), time: clock)
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<20 { group.addTask { _ = await cache.quotes([aapl, msft]) } }
            }
            #expect(replay.count("stooq-quote") == 1)
            clock.advance(by: 3)
            _ = await cache.quotes([aapl])
            #expect(replay.count("stooq-quote") == 1)
            clock.advance(by: 3)
            _ = await cache.quotes([aapl])
            #expect(replay.count("stooq-quote") == 2)
        }
    }

    @Test func whenTheProviderFailsTheLastValueIsServedWithItsTimestamp() async throws {
        try await withReplay { replay in
            let clock = FixedTimeSource(Date(timeIntervalSince1970: 1_772_500_000))
            let cache = ProviderCache(provider: FinnhubProvider(key: ReplayProvider.finnhubKey, baseURL: replay.baseURL), time: clock)
            let first = try #require(await cache.quotes([aapl])[aapl])
            replay.mode.withLock { $0 = .serverError }
            clock.advance(by: 60)
            let stale = try #require(await cache.quotes([aapl])[aapl])
            #expect(stale == first && stale.asOf == Date(timeIntervalSince1970: 1_772_488_807))
            #expect(await cache.lastFailure?.error == .unavailable("HTTP 500"))

            // Rate limited: back off for Retry-After seconds, serving the cache meanwhile.
            replay.mode.withLock { $0 = .rateLimited }
            clock.advance(by: 60)
            #expect(await cache.quotes([aapl])[aapl] == first)
            let afterLimit = replay.count("finnhub-quote")
            clock.advance(by: 10)
            #expect(await cache.quotes([aapl])[aapl] == first)
            #expect(replay.count("finnhub-quote") == afterLimit, "no request while backing off")
            replay.mode.withLock { $0 = .normal }
            clock.advance(by: 25)
            #expect(await cache.quotes([aapl])[aapl] != nil)
            #expect(replay.count("finnhub-quote") == afterLimit + 1)
        }
    }

    @Test func theRateLimiterSpendsTheQuotaEvenly() async {
        let limiter = RateLimiter(perMinute: 60, burst: 2)
        #expect(await limiter.acquire(maxWait: 0))
        #expect(await limiter.acquire(maxWait: 0))
        #expect(!(await limiter.acquire(maxWait: 0.1)))     // the next token is a second away
        let started = ContinuousClock.now
        #expect(await limiter.acquire(maxWait: 2))
        #expect(ContinuousClock.now - started > .milliseconds(500))
    }

    @Test(.enabled(if: RealPack.available))
    func liveQuotesOnTopOfThePackKeepTheContract() async throws {
        try await withReplay { replay in
            let pack = try await PackMarketData.load(directory: try #require(RealPack.directory)).source
            let cache = ProviderCache(provider: StooqProvider(baseURL: replay.baseURL))
            let live = await LiveMarketData(base: pack, cache: cache)
            try await SourceContract.check(live, known: aapl, replayDate: SessionDate(year: 2008, month: 10, day: 10))
            let quote = try #require(try await live.quote(aapl, asOf: .live))
            #expect(quote.price == Price(parsing: "267.305")!)
            // The provider gave no previous close: the pack's last close before the quote's day stands in.
            let packQuote = try #require(try await pack.quote(aapl, asOf: .live))
            #expect(quote.previousClose == packQuote.price)
            // Symbols the provider does not know fall back to the pack.
            let ko = try #require(try await live.quote(Symbol("KO")!, asOf: .live))
            #expect(ko == (try await pack.quote(Symbol("KO")!, asOf: .live)))
            #expect(await live.status().source == "stooq+pack")
        }
    }
}
