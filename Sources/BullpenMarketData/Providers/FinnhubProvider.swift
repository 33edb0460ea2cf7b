import AsyncHTTPClient
import BullpenCore
import Foundation
import NIOCore

/// Finnhub's REST API (`FINNHUB_API_KEY`; free plan: 60 calls a minute):
/// `/api/v1/quote?symbol=` (`c`, `d`, `dp`, `h`, `l`, `o`, `pc`, `t`),
/// `/api/v1/stock/candle?symbol=&resolution=D&from=&to=` (`s`, `t`, `o`, `h`, `l`, `c`, `v`),
/// `/api/v1/search?q=`, `/api/v1/stock/profile2?symbol=` (`name`, `exchange`, `logo`, `finnhubIndustry`, ...).
/// Coins priced in dollars (`BTC-USD`) are asked on a crypto exchange in Finnhub's form
/// (`COINBASE:BTC-USD`): their quotes from `/api/v1/quote`, their daily candles (UTC days) from
/// `/api/v1/crypto/candle`; Finnhub has no profile for them (the pack lists them).
public struct FinnhubProvider: QuoteProvider {
    public let name = "finnhub"
    public let delayed = false
    public let quoteBatchSize = 1
    public let requestsPerMinute = 60
    let http: ProviderHTTP
    let key: String
    /// The crypto exchange coins are asked on, as Finnhub names it.
    let cryptoExchange: String

    public init(key: String, client: HTTPClient = .shared, baseURL: String = "https://finnhub.io", timeout: TimeAmount = .seconds(10),
                cryptoExchange: String = "COINBASE") {
        self.key = key
        self.cryptoExchange = cryptoExchange
        http = ProviderHTTP(client: client, baseURL: baseURL, timeout: timeout)
    }

    /// `symbol` as Finnhub asks it: a stock as it is, a coin on the crypto exchange (`COINBASE:BTC-USD`).
    func finnhubSymbol(_ symbol: Symbol) -> String {
        symbol.isDollarPair ? "\(cryptoExchange):\(symbol.rawValue)" : symbol.rawValue
    }

    struct QuoteBody: Decodable { var c: Double?; var pc: Double?; var t: Int64?; var h: Double?; var l: Double?; var o: Double? }
    struct CandleBody: Decodable {
        var s: String
        var t: [Int64]?; var o: [Double]?; var h: [Double]?; var l: [Double]?; var c: [Double]?; var v: [Double]?
    }
    struct ProfileBody: Decodable {
        var name: String?; var ticker: String?; var exchange: String?; var logo: String?
        var finnhubIndustry: String?; var ipo: String?; var country: String?; var weburl: String?
    }
    struct SearchBody: Decodable {
        struct Item: Decodable { var description: String; var symbol: String; var type: String? }
        var count: Int?
        var result: [Item]
    }

    private func decode<T: Decodable>(_ type: T.Type, _ data: Data) throws -> T {
        do { return try JSONDecoder().decode(T.self, from: data) } catch {
            throw ProviderError.malformed("unexpected \(T.self) from Finnhub: \(String(decoding: data.prefix(200), as: UTF8.self))")
        }
    }

    private func path(_ path: String, _ query: [(String, String)]) -> String {
        path + "?" + (query + [("token", key)]).map { "\($0)=\(ProviderHTTP.encode($1))" }.joined(separator: "&")
    }

    public func quotes(_ symbols: [Symbol]) async throws -> [Symbol: Quote] {
        var result: [Symbol: Quote] = [:]
        for symbol in symbols {
            let body = try decode(QuoteBody.self, try await http.get(path("/api/v1/quote", [("symbol", finnhubSymbol(symbol))])))
            // Unknown symbols come back as zeros.
            guard let c = body.c, c > 0, let price = Price(decimal: c) else { continue }
            result[symbol] = Quote(price: price, previousClose: body.pc.flatMap { $0 > 0 ? Price(decimal: $0) : nil },
                                   asOf: body.t.map { Date(timeIntervalSince1970: TimeInterval($0)) }, volume: nil)
        }
        return result
    }

    public func dailyBars(_ symbol: Symbol, from start: SessionDate, through end: SessionDate) async throws -> [DailyBar] {
        let from = Int64(start.date.timeIntervalSince1970), to = Int64(end.adding(days: 1).date.timeIntervalSince1970)
        let candles = symbol.isDollarPair ? "/api/v1/crypto/candle" : "/api/v1/stock/candle"
        let body = try decode(CandleBody.self, try await http.get(path(candles, [
            ("symbol", finnhubSymbol(symbol)), ("resolution", "D"), ("from", String(from)), ("to", String(to)),
        ])))
        guard body.s == "ok" else {
            if body.s == "no_data" { return [] }
            throw ProviderError.malformed("candle status \(body.s)")
        }
        guard let t = body.t, let o = body.o, let h = body.h, let l = body.l, let c = body.c,
              [o.count, h.count, l.count, c.count].allSatisfy({ $0 == t.count })
        else { throw ProviderError.malformed("candle arrays differ in length") }
        return t.indices.compactMap { i in
            guard let open = Price(decimal: o[i]), let high = Price(decimal: h[i]), let low = Price(decimal: l[i]),
                  let close = Price(decimal: c[i]) else { return nil }
            return DailyBar(date: SessionDate(Date(timeIntervalSince1970: TimeInterval(t[i]))), open: open, high: high,
                            low: low, close: close, volume: Int64((body.v?[safe: i] ?? 0).rounded()))
        }
    }

    public func profile(_ symbol: Symbol) async throws -> AssetInfo? {
        guard !symbol.isDollarPair else { return nil }
        let body = try decode(ProfileBody.self, try await http.get(path("/api/v1/stock/profile2", [("symbol", symbol.rawValue)])))
        guard let name = body.name, !name.isEmpty else { return nil }
        return AssetInfo(symbol: symbol, name: name, sector: nil, industry: body.finnhubIndustry, exchange: body.exchange,
                         headquarters: body.country, founded: body.ipo.map { "IPO \($0)" }, description: nil,
                         logoURL: body.logo?.isEmpty == false ? body.logo : nil)
    }

    /// Symbol search.
    public func search(_ query: String) async throws -> [AssetInfo] {
        let body = try decode(SearchBody.self, try await http.get(path("/api/v1/search", [("q", query)])))
        return body.result.compactMap { item in Symbol(item.symbol).map { AssetInfo(symbol: $0, name: item.description) } }
    }
}

extension Price {
    /// A price from a provider's floating-point JSON number, rounded to four places.
    public init?(decimal value: Double) {
        guard value.isFinite, value >= 0, value < 1e12 else { return nil }
        self.init(ticks: Int64((value * 10_000).rounded()))
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
