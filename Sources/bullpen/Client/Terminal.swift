import Foundation
import Rainbow
#if canImport(Glibc)
import Glibc
#endif

/// The terminal's settings while a password is asked, for the SIGINT handler to put back.
nonisolated(unsafe) private var terminalBeforePrompt = termios()

/// What the terminal can do, and the CLI's text styles: colour only on a terminal, never with `NO_COLOR`.
enum Terminal {
    static let environment = ProcessInfo.processInfo.environment
    static let isInteractive = isatty(STDOUT_FILENO) == 1
    static let colour = isInteractive && (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb"

    /// The width of the terminal (or `COLUMNS`, or 80).
    static var width: Int {
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return Int(environment["COLUMNS"] ?? "") ?? 80
    }

    static func green(_ text: String) -> String { colour ? text.green : text }
    static func red(_ text: String) -> String { colour ? text.red : text }
    static func bold(_ text: String) -> String { colour ? text.bold : text }
    static func dim(_ text: String) -> String { colour ? text.dim : text }
    static func yellow(_ text: String) -> String { colour ? text.yellow : text }

    /// Green when above zero, red when below (as shown, to the cent).
    static func signed(_ text: String, _ value: Decimal) -> String {
        let shown = Format.rounded(value, 2)
        return shown > 0 ? green(text) : shown < 0 ? red(text) : text
    }

    /// A line on standard error.
    static func warn(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// Reads a line from the terminal without echoing it (a password); a plain line when standard input
    /// is not a terminal (a script piping it in).
    static func readSecret(prompt: String) -> String? {
        guard isatty(STDIN_FILENO) == 1 else { return readLine(strippingNewline: true) }
        FileHandle.standardError.write(Data(prompt.utf8))
        tcgetattr(STDIN_FILENO, &terminalBeforePrompt)
        var quiet = terminalBeforePrompt
        quiet.c_lflag &= ~tcflag_t(ECHO)
        // Ctrl-C at the prompt gives the terminal its echo back before the process ends.
        let previous = signal(SIGINT) { _ in
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &terminalBeforePrompt)
            _exit(130)
        }
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet)
        defer {
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &terminalBeforePrompt)
            signal(SIGINT, previous)
            FileHandle.standardError.write(Data("\n".utf8))
        }
        return readLine(strippingNewline: true)
    }

    /// Asks a yes-or-no question on the terminal; no unless the answer starts with y.
    static func confirm(_ question: String) -> Bool {
        FileHandle.standardError.write(Data("\(question) [y/N] ".utf8))
        guard let answer = readLine(strippingNewline: true) else { return false }
        return answer.trimmingCharacters(in: .whitespaces).lowercased().hasPrefix("y")
    }
}

/// Money, prices and percents as people read them: "$1,234.50", "+$12.30", "-1.25%".
enum Format {
    static func rounded(_ value: Decimal, _ places: Int) -> Decimal {
        var value = value, result = Decimal()
        NSDecimalRound(&result, &value, places, .plain)
        return result
    }

    /// Digits with thousands separators and exactly `places` decimals.
    static func number(_ value: Decimal, places: Int = 2) -> String {
        let text = "\(rounded(value < 0 ? -value : value, places))"
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        var whole = String(parts[0])
        var fraction = parts.count > 1 ? String(parts[1]) : ""
        fraction += String(repeating: "0", count: max(0, places - fraction.count))
        var grouped = ""
        while whole.count > 3 {
            grouped = "," + whole.suffix(3) + grouped
            whole.removeLast(3)
        }
        grouped = whole + grouped
        return (value < 0 && rounded(value, places) != 0 ? "-" : "") + grouped + (places > 0 ? "." + fraction : "")
    }

    /// "$1,234.50" (a price with more than two decimals keeps them, up to four).
    static func money(_ value: Decimal) -> String {
        let value = rounded(value, 4)
        let places = rounded(value, 2) == value ? 2 : 4
        let text = number(value < 0 ? -value : value, places: places)
        return (value < 0 ? "-$" : "$") + text
    }

    /// "+$12.30" or "-$12.30" ("$0.00" for nothing).
    static func signedMoney(_ value: Decimal) -> String {
        rounded(value, 4) > 0 ? "+" + money(value) : money(value)
    }

    /// "+1.25%" (the sign of the rounded figure: "0.00%" for a tiny move).
    static func percent(_ value: Decimal?) -> String {
        guard let value else { return "" }
        let shown = rounded(value, 2)
        return (shown > 0 ? "+" : "") + number(shown, places: 2) + "%"
    }

    /// One formatter for every row of a table (formatting from several threads is safe).
    private static let minutes: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter
    }()

    /// A date-time as the terminal's local time, to the minute.
    static func time(_ date: Date) -> String { minutes.string(from: date) }
}

/// A table for the terminal: columns padded to their widest cell, numbers to the right. Colour is put on
/// after padding, so escape codes never count as width (TextTable counts them, which is why it is not used).
struct Table {
    struct Column {
        var title: String
        var right = false
    }

    /// A cell: its text, and how to colour it once padded.
    struct Cell {
        var text: String
        var style: (String) -> String = { $0 }
    }

    var columns: [Column]
    var rows: [[Cell]] = []
    var footer: [Cell]?

    init(_ columns: [Column]) { self.columns = columns }

    mutating func add(_ cells: [Cell]) { rows.append(cells) }

    func render() -> String {
        let all = rows + (footer.map { [$0] } ?? [])
        let widths = columns.indices.map { index in
            max(columns[index].title.count, all.map { index < $0.count ? $0[index].text.count : 0 }.max() ?? 0)
        }
        func pad(_ text: String, _ index: Int) -> String {
            let gap = String(repeating: " ", count: max(0, widths[index] - text.count))
            return columns[index].right ? gap + text : text + gap
        }
        func line(_ cells: [Cell]) -> String {
            cells.enumerated().map { index, cell in cell.style(pad(cell.text, index)) }.joined(separator: "  ")
                .replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }
        var lines = [Terminal.bold(columns.indices.map { pad(columns[$0].title, $0) }.joined(separator: "  ")
            .replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression))]
        lines += rows.map(line)
        if let footer {
            lines.append(Terminal.dim(String(repeating: "-", count: widths.reduce(0, +) + 2 * (widths.count - 1))))
            lines.append(line(footer))
        }
        return lines.joined(separator: "\n")
    }
}

extension Table.Cell: ExpressibleByStringLiteral {
    init(stringLiteral value: String) { self.init(text: value) }
    init(_ text: String) { self.init(text: text) }
    /// Money or a percent coloured by its sign.
    static func signed(_ text: String, _ value: Decimal) -> Table.Cell {
        Table.Cell(text: text) { Terminal.signed($0, value) }
    }
}

/// A line chart of prices that fits the terminal: box-drawing strokes, the price axis on the left.
enum LineChart {
    static func render(_ values: [Decimal], labels: (first: String, last: String), width: Int, height: Int = 12) -> String {
        guard let top = values.max(), !values.isEmpty else { return "(no prices)" }
        // The axis's labels are as wide as the highest price's.
        let axisWidth = Format.money(Format.rounded(top, 2)).count
        let columns = max(10, width - axisWidth - 3)
        // One value a column: the last bar of each slice of the series.
        let count = min(columns, values.count)
        let points: [Decimal] = (0..<count).map { column in
            values[count == 1 ? values.count - 1 : column * (values.count - 1) / (count - 1)]
        }
        let low = points.min() ?? 0, high = points.max() ?? 0
        let axis = [high, (high + low) / 2, low].map { Format.money(Format.rounded($0, 2)) }
        let span = high - low
        func row(_ value: Decimal) -> Int {
            guard span > 0 else { return height / 2 }
            let scaled = (value - low) / span * Decimal(height - 1)
            return Int(truncating: Format.rounded(scaled, 0) as NSDecimalNumber)
        }
        var grid = Array(repeating: Array(repeating: " ", count: count), count: height)
        let rows = points.map(row)
        for x in 0..<count {
            let here = rows[x], next = x + 1 < count ? rows[x + 1] : rows[x]
            if here == next {
                grid[here][x] = "─"
            } else {
                grid[next][x] = next > here ? "╭" : "╰"
                grid[here][x] = next > here ? "╯" : "╮"
                for y in (min(here, next) + 1)..<max(here, next) { grid[y][x] = "│" }
            }
        }
        let rising = (values.last ?? 0) >= (values.first ?? 0)
        var lines: [String] = []
        for y in stride(from: height - 1, through: 0, by: -1) {
            let label = y == height - 1 ? axis[0] : y == 0 ? axis[2] : y == (height - 1) / 2 ? axis[1] : ""
            let stroke = grid[y].joined()
            lines.append(String(repeating: " ", count: axisWidth - label.count) + Terminal.dim(label) + " ┤"
                + (rising ? Terminal.green(stroke) : Terminal.red(stroke)))
        }
        let gap = max(1, count - labels.first.count - labels.last.count)
        lines.append(String(repeating: " ", count: axisWidth + 2) + labels.first + String(repeating: " ", count: gap) + labels.last)
        return lines.joined(separator: "\n")
    }
}
