import BullpenCore
import Foundation

/// Converts Stooq's free bulk download (`<TICKER>,<PER>,<DATE>,<TIME>,<OPEN>,<HIGH>,<LOW>,<CLOSE>,<VOL>,<OPENINT>`,
/// one `ticker.us.txt` per symbol, in nested folders) into a data pack. Malformed lines are reported
/// with file, line and reason and skipped; one bad file never stops the import.
public struct StooqImporter: Sendable {
    /// What an import did.
    public struct Summary: Sendable {
        public var filesRead = 0
        public var filesSkipped = 0
        public var symbols: [Symbol] = []
        public var bars = 0
        public var problems: [LineProblem] = []
        public var firstDate: SessionDate?
        public var lastDate: SessionDate?
        /// Splits and dividends kept from `corporate_actions.csv` files found among the inputs.
        public var corporateActions = 0
    }

    /// Progress: files done, files in all, the file just done.
    public typealias Progress = @Sendable (_ done: Int, _ total: Int, _ file: String) -> Void

    public let output: URL

    public init(output: URL) { self.output = output }

    /// Every `.txt` file under the given files and directories, sorted.
    public static func inputFiles(_ paths: [URL]) throws -> [URL] {
        var files: [URL] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path.path, isDirectory: &isDirectory) else {
                throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: path.path])
            }
            if isDirectory.boolValue {
                let walker = FileManager.default.enumerator(at: path, includingPropertiesForKeys: nil)
                while let url = walker?.nextObject() as? URL {
                    if url.pathExtension.lowercased() == "txt" { files.append(url) }
                }
            } else {
                files.append(path)
            }
        }
        return files.sorted { $0.path < $1.path }
    }

    /// Every `corporate_actions.csv` under the given files and directories (unadjusted data's
    /// splits and dividends), sorted.
    public static func actionFiles(_ paths: [URL]) -> [URL] {
        var files: [URL] = []
        for path in paths {
            if path.lastPathComponent == CorporateActionsFile.name { files.append(path); continue }
            let walker = FileManager.default.enumerator(at: path, includingPropertiesForKeys: nil)
            while let url = walker?.nextObject() as? URL {
                if url.lastPathComponent == CorporateActionsFile.name { files.append(url) }
            }
        }
        return files.sorted { $0.path < $1.path }
    }

    /// Imports `files` into the pack at ``output`` (created if needed; an existing `universe.csv`
    /// keeps its names and sectors, and a symbol imported again is replaced).
    public func run(_ files: [URL], actions actionFiles: [URL] = [], progress: Progress? = nil) async throws -> Summary {
        let daily = output.appendingPathComponent("daily")
        try FileManager.default.createDirectory(at: daily, withIntermediateDirectories: true)
        var summary = Summary()
        var imported: [(Symbol, ClosedRange<SessionDate>, Int, AssetClass)] = []
        for (number, file) in files.enumerated() {
            let name = file.lastPathComponent
            defer { progress?(number + 1, files.count, name) }
            guard let data = try? Data(contentsOf: file) else {
                summary.filesSkipped += 1
                summary.problems.append(LineProblem(file: name, line: 0, reason: "cannot be read"))
                continue
            }
            let parsed = Self.parse(data, file: name)
            summary.problems += parsed.problems
            guard let symbol = parsed.symbol, parsed.bars.count > 0 else {
                summary.filesSkipped += 1
                if parsed.problems.isEmpty {
                    summary.problems.append(LineProblem(file: name, line: 0, reason: "no daily bars"))
                }
                continue
            }
            try PackFormat.formatDaily(parsed.bars).write(to: daily.appendingPathComponent("\(symbol.rawValue).csv"),
                                                          atomically: true, encoding: .utf8)
            summary.filesRead += 1
            summary.bars += parsed.bars.count
            let span = parsed.bars.first!.date...parsed.bars.last!.date
            imported.append((symbol, span, parsed.bars.count, parsed.assetClass))
            summary.firstDate = min(summary.firstDate ?? span.lowerBound, span.lowerBound)
            summary.lastDate = max(summary.lastDate ?? span.upperBound, span.upperBound)
        }
        summary.symbols = imported.map(\.0)
        try writeUniverse(imported)
        summary.corporateActions = try keepActions(actionFiles, problems: &summary.problems)
        return summary
    }

    /// Merges the splits and dividends of `files` into the pack's `corporate_actions.csv` (an
    /// existing one keeps its lines; the same action twice is kept once). Answers how many it holds.
    private func keepActions(_ files: [URL], problems: inout [LineProblem]) throws -> Int {
        guard !files.isEmpty else { return 0 }
        let url = output.appendingPathComponent(CorporateActionsFile.name)
        var kept: [CorporateAction] = []
        if let text = try? String(contentsOf: url, encoding: .utf8) { kept += CorporateActionsFile.parse(text, problems: &problems) }
        for file in files {
            guard let text = try? String(contentsOf: file, encoding: .utf8) else {
                problems.append(LineProblem(file: file.lastPathComponent, line: 0, reason: "cannot be read"))
                continue
            }
            kept += CorporateActionsFile.parse(text, problems: &problems)
        }
        // The same action twice (a pay date given once and not the other time) is kept once.
        let sorted = CorporateActionsFile.unique(kept)
        try CorporateActionsFile.format(sorted).write(to: url, atomically: true, encoding: .utf8)
        return sorted.count
    }

    /// One Stooq file: its symbol and bars. A US stock's ticker loses its `.US` market suffix
    /// (`AAPL.US` is AAPL); a cryptocurrency's (`BTC.V`, priced in dollars) becomes `BTC-USD`, a coin.
    static func parse(_ data: Data, file: String) -> (symbol: Symbol?, bars: [DailyBar], problems: [LineProblem], assetClass: AssetClass) {
        var bars: [DailyBar] = []
        var problems: [LineProblem] = []
        var symbol: Symbol?
        var assetClass = AssetClass.usEquity
        var tickerText: String?
        data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            ByteParsing.forEachLine(bytes, skipHeader: false) { line, fields in
                func problem(_ reason: String) { problems.append(LineProblem(file: file, line: line, reason: reason)) }
                func text(_ i: Int) -> String { String(decoding: UnsafeBufferPointer(rebasing: bytes[fields[i]]), as: UTF8.self) }
                if line == 1 && text(0).hasPrefix("<") { return }   // the header
                guard fields.count >= 9 else { return problem("expected 10 fields, found \(fields.count)") }
                let ticker = text(0)
                if tickerText == nil {
                    tickerText = ticker
                    let upper = ticker.uppercased()
                    if upper.hasSuffix(".V") { assetClass = .crypto }
                    symbol = StooqProvider.symbol(upper)
                    if symbol == nil { problem("'\(ticker)' is not a ticker symbol") }
                } else if ticker != tickerText {
                    return problem("ticker \(ticker) differs from the file's \(tickerText!)")
                }
                guard text(1) == "D" else { return problem("period '\(text(1))' is not daily (D)") }
                guard let date = ByteParsing.date(bytes, fields[2]) else { return problem("bad date '\(text(2))'") }
                let bar: DailyBar
                switch ByteParsing.prices(bytes, fields, from: 4, on: date) {
                case .success(let parsed): bar = parsed
                case .failure(let reason): return problem(reason.text)
                }
                guard bar.open.ticks > 0, bar.close.ticks > 0, bar.low.ticks > 0 else { return problem("a price is zero") }
                guard bar.high >= bar.low, bar.high >= max(bar.open, bar.close), bar.low <= min(bar.open, bar.close) else {
                    return problem("high and low do not bound open and close")
                }
                if let last = bars.last, last.date >= date { return problem("date \(date) is not after \(last.date)") }
                bars.append(bar)
            }
        }
        return (symbol, bars, problems, assetClass)
    }

    /// Writes `universe.csv`, keeping what an existing one says about each symbol.
    private func writeUniverse(_ imported: [(Symbol, ClosedRange<SessionDate>, Int, AssetClass)]) throws {
        let url = output.appendingPathComponent("universe.csv")
        var rows: [Symbol: [String]] = [:]
        if let text = try? String(contentsOf: url, encoding: .utf8) {
            for line in text.split(whereSeparator: \.isNewline).dropFirst() {
                let fields = CSVLine.fields(line)
                if let symbol = fields.first.flatMap(Symbol.init) { rows[symbol] = fields }
            }
        }
        for (symbol, span, count, assetClass) in imported {
            var fields = rows[symbol] ?? [symbol.rawValue, symbol.rawValue, "", assetClass == .crypto ? "Cryptocurrency" : "", "", ""]
            while fields.count < 10 { fields.append("") }
            fields[6] = span.lowerBound.description
            fields[7] = span.upperBound.description
            fields[8] = String(count)
            fields[9] = assetClass.rawValue
            rows[symbol] = fields
        }
        for symbol in rows.keys where rows[symbol]!.count < 10 {   // kept from a pack written before the column
            rows[symbol]! += Array(repeating: "", count: 9 - rows[symbol]!.count) + [AssetClass.usEquity.rawValue]
        }
        var text = "symbol,name,sector,industry,headquarters,founded,first_date,last_date,rows,asset_class\n"
        for symbol in rows.keys.sorted() {
            text += rows[symbol]!.map(CSVLine.quote).joined(separator: ",") + "\n"
        }
        try text.write(to: url, atomically: true, encoding: .utf8)
    }
}

extension CSVLine {
    /// A field quoted when it holds a comma or a quote.
    static func quote(_ field: String) -> String {
        guard field.contains(",") || field.contains("\"") else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
