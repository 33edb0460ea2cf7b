import BullpenCore
import Foundation

/// A line of an input file that could not be read, with where and why.
public struct LineProblem: Error, Sendable, Hashable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var reason: String

    public init(file: String, line: Int, reason: String) {
        self.file = file
        self.line = line
        self.reason = reason
    }

    public var description: String { "\(file):\(line): \(reason)" }
}

/// Why a line was skipped.
struct LineReason: Error {
    var text: String
    init(_ text: String) { self.text = text }
}

/// Byte-level parsing of the numbers and dates in market data files: no `String` per field, so the
/// real pack's 100 MB of CSV parse in a fraction of a second.
enum ByteParsing {
    /// The largest price a file may state: $10,000,000 a share. Above it a price is refused, so
    /// that a price times the largest order quantity always fits in `Int64`.
    static let maxPriceTicks: Int64 = 10_000_000 * 10_000

    /// A decimal like `264.58` or `0.0992653` as integer units of 10^-scale; extra places are
    /// rounded half away from zero. Nil for anything that is not a plain non-negative decimal, or
    /// whose units would not fit in `Int64`.
    static func decimal(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, scale: Int) -> Int64? {
        guard !range.isEmpty else { return nil }
        var value: Int64 = 0
        var places = -1          // -1 until the decimal point
        var roundUp = false
        var digits = 0
        for i in range {
            let byte = bytes[i]
            if byte == UInt8(ascii: ".") {
                guard places < 0 else { return nil }
                places = 0
                continue
            }
            guard byte >= 48 && byte <= 57 else { return nil }
            let digit = Int64(byte - 48)
            if places >= scale {
                if places == scale { roundUp = digit >= 5 }
                places += 1
                continue
            }
            digits += 1
            guard let next = FixedPoint.checked(value, times: 10, plus: digit) else { return nil }
            value = next
            if places >= 0 { places += 1 }
        }
        if places < 0 { places = 0 }
        guard digits > 0 else { return nil }
        for _ in min(places, scale)..<scale {
            guard let next = FixedPoint.checked(value, times: 10, plus: 0) else { return nil }
            value = next
        }
        guard roundUp else { return value }
        return FixedPoint.checked(value, times: 1, plus: 1)
    }

    /// `YYYY-MM-DD` (dashed) or `YYYYMMDD` (Stooq).
    static func date(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> SessionDate? {
        func number(_ r: Range<Int>) -> Int? {
            var n = 0
            for i in r {
                let b = bytes[i]
                guard b >= 48 && b <= 57 else { return nil }
                n = n * 10 + Int(b - 48)
            }
            return n
        }
        let s = range.lowerBound
        let (y, m, d): (Int?, Int?, Int?)
        switch range.count {
        case 10 where bytes[s + 4] == UInt8(ascii: "-") && bytes[s + 7] == UInt8(ascii: "-"):
            (y, m, d) = (number(s..<s + 4), number(s + 5..<s + 7), number(s + 8..<s + 10))
        case 8:
            (y, m, d) = (number(s..<s + 4), number(s + 4..<s + 6), number(s + 6..<s + 8))
        default:
            return nil
        }
        guard let y, let m, let d, (1...12).contains(m), (1...31).contains(d), (1800...2200).contains(y) else { return nil }
        let date = SessionDate(year: y, month: m, day: d)
        return date.components == (y, m, d) ? date : nil   // refuses 2023-02-30
    }

    /// Open, high, low, close (four places) and volume (rounded to whole shares) from five
    /// consecutive fields starting at `first`; the reason when one does not parse.
    static func prices(_ bytes: UnsafeBufferPointer<UInt8>, _ fields: [Range<Int>], from first: Int,
                       on date: SessionDate) -> Result<DailyBar, LineReason> {
        guard let open = decimal(bytes, fields[first], scale: 4),
              let high = decimal(bytes, fields[first + 1], scale: 4),
              let low = decimal(bytes, fields[first + 2], scale: 4),
              let close = decimal(bytes, fields[first + 3], scale: 4)
        else { return .failure(LineReason("bad price")) }
        guard max(open, high, low, close) <= maxPriceTicks else {
            return .failure(LineReason("price above $10,000,000"))
        }
        guard let volume = decimal(bytes, fields[first + 4], scale: 0) else {
            return .failure(LineReason("bad volume '\(String(decoding: UnsafeBufferPointer(rebasing: bytes[fields[first + 4]]), as: UTF8.self))'"))
        }
        return .success(DailyBar(date: date, open: Price(ticks: open), high: Price(ticks: high), low: Price(ticks: low),
                                 close: Price(ticks: close), volume: volume))
    }

    /// Calls `body` with the field ranges of each line (split on commas), skipping the first line
    /// and blank lines; `body` gets the 1-based line number.
    static func forEachLine(_ bytes: UnsafeBufferPointer<UInt8>, skipHeader: Bool = true,
                            _ body: (_ line: Int, _ fields: [Range<Int>]) -> Void) {
        var lineNumber = 0
        var start = 0
        var fields: [Range<Int>] = []
        fields.reserveCapacity(12)
        let count = bytes.count
        while start < count {
            var end = start
            while end < count && bytes[end] != UInt8(ascii: "\n") { end += 1 }
            lineNumber += 1
            var lineEnd = end
            if lineEnd > start && bytes[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }
            if !(skipHeader && lineNumber == 1) && lineEnd > start {
                fields.removeAll(keepingCapacity: true)
                var fieldStart = start
                for i in start..<lineEnd where bytes[i] == UInt8(ascii: ",") {
                    fields.append(fieldStart..<i)
                    fieldStart = i + 1
                }
                fields.append(fieldStart..<lineEnd)
                body(lineNumber, fields)
            }
            start = end + 1
        }
    }
}

/// The data pack's daily files: `date,open,high,low,close,volume`, ascending.
public enum PackFormat {
    public static let dailyHeader = "date,open,high,low,close,volume"

    /// Parses one daily file. Malformed lines are reported in `problems` and skipped.
    public static func parseDaily(_ data: Data, file: String, problems: inout [LineProblem]) -> ColumnBuilder {
        var builder = ColumnBuilder(capacity: data.count / 42)
        var found: [LineProblem] = []
        var previous: Int32 = .min
        data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            ByteParsing.forEachLine(bytes) { line, fields in
                func problem(_ reason: String) { found.append(LineProblem(file: file, line: line, reason: reason)) }
                guard fields.count >= 6 else { return problem("expected 6 fields, found \(fields.count)") }
                guard let date = ByteParsing.date(bytes, fields[0]) else { return problem("bad date") }
                let bar: DailyBar
                switch ByteParsing.prices(bytes, fields, from: 1, on: date) {
                case .success(let parsed): bar = parsed
                case .failure(let reason): return problem(reason.text)
                }
                guard date.day > previous else { return problem("date \(date) is not after the line before") }
                previous = date.day
                builder.append(bar)
            }
        }
        problems += found
        return builder
    }

    /// Writes bars in the pack's daily format.
    public static func formatDaily(_ bars: [DailyBar]) -> String {
        var text = dailyHeader + "\n"
        text.reserveCapacity(bars.count * 48)
        for bar in bars {
            text += "\(bar.date),\(bar.open.plainString),\(bar.high.plainString),\(bar.low.plainString),\(bar.close.plainString),\(bar.volume)\n"
        }
        return text
    }
}

extension Price {
    /// The shortest exact decimal: `264.58`, `0.0993`, `12`.
    public var plainString: String {
        var text = decimalString
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}

/// `corporate_actions.csv`: the splits and cash dividends of unadjusted data, one per line:
/// `symbol,ex_date,pay_date,split_ratio,cash_per_share` (a split `2:1` with no cash, or a dividend
/// `0.24` with no ratio; the pay date may be empty).
public enum CorporateActionsFile {
    public static let name = "corporate_actions.csv"
    public static let header = "symbol,ex_date,pay_date,split_ratio,cash_per_share"

    public static func parse(_ text: String, problems: inout [LineProblem]) -> [CorporateAction] {
        var actions: [CorporateAction] = []
        for (number, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() where number > 0 {
            guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { continue }
            func problem(_ reason: String) { problems.append(LineProblem(file: name, line: number + 1, reason: reason)) }
            let fields = CSVLine.fields(line)
            guard fields.count >= 5 else { problem("expected 5 fields, found \(fields.count)"); continue }
            guard let symbol = Symbol(fields[0]) else { problem("bad symbol"); continue }
            guard let exDate = SessionDate(iso: fields[1]) else { problem("bad ex_date"); continue }
            let payDate = fields[2].isEmpty ? nil : SessionDate(iso: fields[2])
            if !fields[2].isEmpty, payDate == nil { problem("bad pay_date"); continue }
            switch (fields[3].isEmpty, fields[4].isEmpty) {
            case (false, true):
                let parts = fields[3].split(separator: ":")
                guard parts.count == 2, let to = Int64(parts[0]), let from = Int64(parts[1]), to > 0, from > 0, to != from,
                      to <= 1_000, from <= 1_000 else { problem("split_ratio must be like 2:1"); continue }
                actions.append(CorporateAction(symbol: symbol, exDate: exDate, payDate: payDate, kind: .split(to: to, from: from)))
            case (true, false):
                guard let cash = Price(parsing: fields[4]), cash.ticks > 0 else { problem("cash_per_share must be a positive amount"); continue }
                actions.append(CorporateAction(symbol: symbol, exDate: exDate, payDate: payDate, kind: .dividend(cash: cash)))
            default:
                problem("give either split_ratio or cash_per_share")
            }
        }
        return unique(actions)
    }

    /// One action per symbol, ex-date and kind (a split, or a dividend): the first given wins.
    public static func unique(_ actions: [CorporateAction]) -> [CorporateAction] {
        var seen = Set<String>()
        return actions.filter { seen.insert(key($0)).inserted }.sorted { ($0.exDate, $0.symbol) < ($1.exDate, $1.symbol) }
    }

    static func key(_ action: CorporateAction) -> String {
        let kind = if case .split = action.kind { "split" } else { "dividend" }
        return "\(action.symbol) \(action.exDate) \(kind)"
    }

    public static func format(_ actions: [CorporateAction]) -> String {
        var text = header + "\n"
        for action in actions {
            let pay = action.payDate?.description ?? ""
            switch action.kind {
            case .split(let to, let from): text += "\(action.symbol),\(action.exDate),\(pay),\(to):\(from),\n"
            case .dividend(let cash): text += "\(action.symbol),\(action.exDate),\(pay),,\(cash.plainString)\n"
            }
        }
        return text
    }
}
