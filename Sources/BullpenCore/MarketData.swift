import Foundation

/// The time a portfolio lives at. Prices, valuations and executions always ask the market data
/// "as of" this clock, never "now" directly.
public enum PortfolioClock: Sendable, Hashable {
    /// Prices as of the latest data the source has.
    case live
    /// A historical replay standing on a past session date (later issue).
    case replay(Date)

    /// A replay's date; nil for the live clock.
    public var date: Date? { if case .replay(let date) = self { date } else { nil } }
}

/// What kind of asset a symbol is: a US stock (or fund), or a cryptocurrency priced in dollars.
/// Crypto trades every day around the clock (a session is a UTC day) in fractions of a coin, to 10⁻⁸.
public enum AssetClass: String, Sendable, Hashable, Codable, CaseIterable {
    case usEquity = "us_equity"
    case crypto
}

/// What the market data knows about one listed company (or coin).
public struct AssetInfo: Sendable, Hashable {
    public var symbol: Symbol
    /// A stock unless the source says it is a coin.
    public var assetClass: AssetClass = .usEquity
    public var name: String
    public var sector: String?
    public var industry: String?
    public var exchange: String?
    public var headquarters: String?
    public var founded: String?
    /// A short neutral description, where the source has one.
    public var description: String?
    /// A logo image, where the source has one.
    public var logoURL: String?

    public init(symbol: Symbol, name: String, sector: String? = nil, industry: String? = nil, exchange: String? = nil,
                headquarters: String? = nil, founded: String? = nil, description: String? = nil, logoURL: String? = nil,
                assetClass: AssetClass = .usEquity) {
        self.assetClass = assetClass
        self.symbol = symbol
        self.name = name
        self.sector = sector
        self.industry = industry
        self.exchange = exchange
        self.headquarters = headquarters
        self.founded = founded
        self.description = description
        self.logoURL = logoURL
    }
}

/// The market data the trading core needs. Implementations: the real data pack, the demo
/// exchange and live providers (later), all behind this one protocol.
public protocol MarketData: Sendable {
    /// A short name for logs and status: `"pack"`, `"demo"`, ...
    var sourceName: String { get }
    /// Whether prices are simulated (the demo exchange) rather than real.
    var isSimulated: Bool { get }
    /// The company listed as `symbol`, or nil when the source does not know it.
    func asset(_ symbol: Symbol) async throws -> AssetInfo?
    /// The latest price of `symbol` as of `clock`, or nil when there is none at that time.
    func quote(_ symbol: Symbol, asOf clock: PortfolioClock) async throws -> Quote?
    /// Whether the exchange is in a trading session at `instant`.
    func isMarketOpen(at instant: Date) async -> Bool
    /// Quotes for several symbols at once (sources that batch requests override this); the ones
    /// without a price are left out.
    func quotes(_ symbols: [Symbol], asOf clock: PortfolioClock) async throws -> [Symbol: Quote]
}

extension MarketData {
    public func quotes(_ symbols: [Symbol], asOf clock: PortfolioClock) async throws -> [Symbol: Quote] {
        var result: [Symbol: Quote] = [:]
        for symbol in symbols {
            if let quote = try await quote(symbol, asOf: clock) { result[symbol] = quote }
        }
        return result
    }
}

/// One day of one symbol: prices in ticks (1/10,000 $), volume in shares.
public struct DailyBar: Sendable, Hashable {
    public var date: SessionDate
    public var open: Price
    public var high: Price
    public var low: Price
    public var close: Price
    public var volume: Int64

    public init(date: SessionDate, open: Price, high: Price, low: Price, close: Price, volume: Int64) {
        self.date = date
        self.open = open
        self.high = high
        self.low = low
        self.close = close
        self.volume = volume
    }
}
