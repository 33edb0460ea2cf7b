import BullpenCore
import Foundation

/// Loads a data pack directory (the format of `shared/market-data`) into memory:
/// `universe.csv` (`symbol,name,sector,industry,headquarters,founded,...`), `daily/SYMBOL.csv`
/// (`date,open,high,low,close,volume`) and `benchmarks/NAME.csv` (`date,close,volume`).
///
/// Files are parsed in parallel straight from bytes into columns (``MarketHistory``): the full
/// real pack (303 symbols, 2.1 million bars) loads in about half a second on two cores.
public enum PackMarketData {
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

    /// What a load found: the source, and the lines it had to skip.
    public struct Loaded: Sendable {
        public var source: HistoricalMarketData
        public var problems: [LineProblem]
    }

    /// Loads the pack; `progress` is called with (files done, files in all).
    public static func load(directory: URL, progress: (@Sendable (Int, Int) -> Void)? = nil) async throws -> Loaded {
        let assets = try readUniverse(directory)
        let daily = directory.appendingPathComponent("daily")
        let total = assets.count
        let results = try await withThrowingTaskGroup(of: (Symbol, ColumnBuilder, [LineProblem]).self) { group in
            for asset in assets {
                group.addTask {
                    let url = daily.appendingPathComponent("\(asset.symbol.rawValue).csv")
                    guard let data = try? Data(contentsOf: url) else { return (asset.symbol, ColumnBuilder(), []) }
                    var problems: [LineProblem] = []
                    let columns = PackFormat.parseDaily(data, file: "daily/\(asset.symbol.rawValue).csv", problems: &problems)
                    return (asset.symbol, columns, problems)
                }
            }
            var results: [(Symbol, ColumnBuilder, [LineProblem])] = []
            results.reserveCapacity(total)
            for try await result in group {
                results.append(result)
                progress?(results.count, total)
            }
            return results
        }
        // Coins trade every calendar day: their series are kept apart, so that the stocks' sessions stay the exchange's.
        let coins = Set(assets.filter { $0.assetClass == .crypto }.map(\.symbol))
        let history = MarketHistory(series: results.filter { !coins.contains($0.0) }.map { ($0.0, $0.1) })
        let crypto = MarketHistory(series: results.filter { coins.contains($0.0) }.map { ($0.0, $0.1) })
        var problems = results.flatMap(\.2)
        var benchmarks: [String: MarketHistory] = [:]
        let benchmarkDirectory = directory.appendingPathComponent("benchmarks")
        for file in (try? FileManager.default.contentsOfDirectory(atPath: benchmarkDirectory.path)) ?? [] where file.hasSuffix(".csv") {
            let name = String(file.dropLast(4)).uppercased()
            guard let symbol = Symbol(name), let data = try? Data(contentsOf: benchmarkDirectory.appendingPathComponent(file)) else { continue }
            benchmarks[name] = MarketHistory(series: [(symbol, parseBenchmark(data, file: "benchmarks/\(file)", problems: &problems))])
        }
        // Unadjusted packs bring their splits and dividends; the real pack's prices are adjusted and it has none.
        var actions: [CorporateAction] = []
        if let text = try? String(contentsOf: directory.appendingPathComponent(CorporateActionsFile.name), encoding: .utf8) {
            actions = CorporateActionsFile.parse(text, problems: &problems)
        }
        let source = HistoricalMarketData(
            sourceName: "pack", simulated: false,
            description: actions.isEmpty
                ? "Real end-of-day prices from the data pack at \(directory.path), adjusted for splits and dividends: adjusted prices keep up to four decimal places, so they are not on the whole-cent grid stocks trade on."
                : "End-of-day prices from the data pack at \(directory.path), unadjusted: its \(actions.count) splits and dividends are applied to positions on their ex-dates.",
            assets: assets, history: history, benchmarks: benchmarks, actions: actions, crypto: crypto)
        return Loaded(source: source, problems: problems)
    }

    /// `universe.csv`: one asset per line.
    static func readUniverse(_ directory: URL) throws -> [AssetInfo] {
        let url = directory.appendingPathComponent("universe.csv")
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { throw LoadError.missingUniverse(directory) }
        var assets: [AssetInfo] = []
        let lines = text.split(whereSeparator: \.isNewline)
        // An optional `asset_class` column (`us_equity` or `crypto`; a stock when left out or empty).
        let classColumn = lines.first.flatMap { CSVLine.fields($0).firstIndex(of: "asset_class") }
        for (number, line) in lines.enumerated() where number > 0 {
            let fields = CSVLine.fields(line)
            guard fields.count >= 4, let symbol = Symbol(fields[0]), !fields[1].isEmpty else {
                throw LoadError.malformedUniverse(line: number + 1)
            }
            func field(_ i: Int) -> String? { i < fields.count && !fields[i].isEmpty ? fields[i] : nil }
            var asset = AssetInfo(symbol: symbol, name: fields[1], sector: field(2), industry: field(3),
                                  headquarters: field(4), founded: field(5))
            if let column = classColumn, let text = field(column) {
                guard let assetClass = AssetClass(rawValue: text) else { throw LoadError.malformedUniverse(line: number + 1) }
                asset.assetClass = assetClass
            }
            assets.append(asset)
        }
        return assets
    }

    /// `date,close,volume` rows of a benchmark.
    static func parseBenchmark(_ data: Data, file: String, problems: inout [LineProblem]) -> ColumnBuilder {
        var builder = ColumnBuilder(capacity: data.count / 30)
        var found: [LineProblem] = []
        data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            ByteParsing.forEachLine(bytes) { line, fields in
                guard fields.count >= 2, let date = ByteParsing.date(bytes, fields[0]),
                      let close = ByteParsing.decimal(bytes, fields[1], scale: 4)
                else { return found.append(LineProblem(file: file, line: line, reason: "malformed")) }
                let volume = fields.count > 2 ? ByteParsing.decimal(bytes, fields[2], scale: 0) ?? 0 : 0
                let price = Price(ticks: close)
                builder.append(DailyBar(date: date, open: price, high: price, low: price, close: price, volume: volume))
            }
        }
        problems += found
        return builder
    }
}
