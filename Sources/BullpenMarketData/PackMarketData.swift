import BullpenCore
import Foundation
import Synchronization

/// Real daily history from a data pack directory (the format of `shared/market-data`):
/// `universe.csv` lists the companies, `daily/SYMBOL.csv` holds `date,open,high,low,close,volume`.
///
/// The universe is read at start; a symbol's history is read the first time it is asked for and
/// kept. The data is end-of-day, so "live" means the last close in the pack, and the market is
/// never open for it.
public final class PackMarketData: MarketData {
    public enum LoadError: Error, CustomStringConvertible {
        case missingUniverse(URL)
        case malformedUniverse(line: Int)

        public var description: String {
            switch self {
            case .missingUniverse(let url): "no universe.csv in \(url.path)"
            case .malformedUniverse(let line): "universe.csv line \(line) is malformed"
            }
        }
    }

    public let directory: URL
    public let sourceName = "pack"
    public let isSimulated = false
    private let universe: [Symbol: AssetInfo]
    private let cache = Mutex<[Symbol: DailySeries]>([:])

    /// Opens the pack at `directory`; throws if `universe.csv` is missing or malformed.
    public init(directory: URL) throws {
        self.directory = directory
        let universeURL = directory.appendingPathComponent("universe.csv")
        guard let text = try? String(contentsOf: universeURL, encoding: .utf8) else {
            throw LoadError.missingUniverse(directory)
        }
        var universe: [Symbol: AssetInfo] = [:]
        for (number, line) in text.split(whereSeparator: \.isNewline).enumerated() where number > 0 {
            let fields = CSVLine.fields(line)
            guard fields.count >= 4, let symbol = Symbol(fields[0]) else {
                throw LoadError.malformedUniverse(line: number + 1)
            }
            universe[symbol] = AssetInfo(symbol: symbol, name: fields[1],
                                         sector: fields[2].isEmpty ? nil : fields[2],
                                         industry: fields[3].isEmpty ? nil : fields[3])
        }
        self.universe = universe
    }

    /// Every symbol in the pack.
    public var symbols: [Symbol] { universe.keys.sorted() }

    public func asset(_ symbol: Symbol) async throws -> AssetInfo? { universe[symbol] }

    public func quote(_ symbol: Symbol, asOf clock: PortfolioClock) async throws -> Quote? {
        guard universe[symbol] != nil, let series = try series(symbol), !series.dates.isEmpty else { return nil }
        switch clock {
        case .live:
            return series.quote(at: series.dates.count - 1)
        case .replay(let date):
            return series.lastIndex(onOrBefore: SessionDate(date)).map(series.quote(at:))
        }
    }

    public func isMarketOpen(at instant: Date) async -> Bool { false }

    /// The daily series of `symbol`, read from its file on first use.
    public func series(_ symbol: Symbol) throws -> DailySeries? {
        if let cached = cache.withLock({ $0[symbol] }) { return cached }
        let url = directory.appendingPathComponent("daily").appendingPathComponent("\(symbol.rawValue).csv")
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let series = try PackMarketData.parseDaily(Data(contentsOf: url))
        cache.withLock { $0[symbol] = series }
        return series
    }

    /// Parses `date,open,high,low,close,volume` rows; rows that do not parse are skipped.
    static func parseDaily(_ data: Data) -> DailySeries {
        var series = DailySeries()
        series.dates.reserveCapacity(data.count / 40)
        series.closes.reserveCapacity(data.count / 40)
        let text = String(decoding: data, as: UTF8.self)
        for line in text.split(whereSeparator: \.isNewline).dropFirst() {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count >= 5, let date = SessionDate(iso: fields[0]),
                  let close = Price(parsing: String(fields[4])) else { continue }
            series.dates.append(date)
            series.closes.append(close.ticks)
        }
        return series
    }
}
