import ArgumentParser
import BullpenClient
import Foundation

struct QuoteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "quote", abstract: "Prices now (no login needed).")

    @OptionGroup var options: ClientOptions
    @OptionGroup var output: OutputOptions
    @Argument(help: "Symbols, e.g. AAPL MSFT.") var symbols: [String]

    func validate() throws {
        if symbols.isEmpty { throw ValidationError("name at least one symbol, e.g. `bullpen quote AAPL`") }
        if symbols.count > 100 { throw ValidationError("at most 100 symbols at once") }
    }

    func run() async throws {
        try await runClient {
            let (client, _, _) = try await options.client(renew: false)
            let list = try await client.quotes(symbols.map { $0.uppercased() })
            if output.json { try printJSON(list) } else if !list.quotes.isEmpty {
                var table = Table([.init(title: "Symbol"), .init(title: "Price", right: true), .init(title: "Change", right: true),
                                   .init(title: "Change %", right: true), .init(title: "As of")])
                for quote in list.quotes {
                    table.add([.init(quote.symbol + (quote.trading ? "" : " (ended)")), .init(Format.money(quote.price)),
                               .signed(quote.change.map(Format.signedMoney) ?? "", quote.change ?? 0),
                               .signed(Format.percent(quote.changePercent), quote.changePercent ?? 0),
                               .init(quote.asOf.map(Format.time) ?? "")])
                }
                print(table.render())
                if list.simulated { print(Terminal.dim("demo market, simulated prices")) }
            }
            if !list.unknown.isEmpty {
                Terminal.warn("bullpen: no company trades as \(list.unknown.joined(separator: ", ")) (unknown_symbol)")
                throw ClientExit.refused
            }
        }
    }
}

struct Search: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Find companies by symbol or name (no login needed).")

    @OptionGroup var options: ClientOptions
    @OptionGroup var output: OutputOptions
    @Argument(help: "A symbol or part of a name, e.g. micro.") var text: String
    @Option(help: "How many (1 to 100).") var limit = 10

    func run() async throws {
        try await runClient {
            let (client, _, _) = try await options.client(renew: false)
            let found = try await client.search(text, limit: limit)
            if output.json { return try printJSON(found) }
            guard !found.isEmpty else { return print("Nothing matches '\(text)'.") }
            var table = Table([.init(title: "Symbol"), .init(title: "Name"), .init(title: "Sector"),
                               .init(title: "Price", right: true), .init(title: "Change %", right: true)])
            for asset in found {
                table.add([.init(asset.symbol), .init(asset.name + (asset.trading ? "" : " (ended)")), .init(asset.sector ?? ""),
                           .init(asset.price.map(Format.money) ?? ""),
                           .signed(Format.percent(asset.changePercent), asset.changePercent ?? 0)])
            }
            print(table.render())
        }
    }
}

extension ChartRange: ExpressibleByArgument {}

struct Chart: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "A price chart that fits the terminal (no login needed).")

    @OptionGroup var options: ClientOptions
    @OptionGroup var output: OutputOptions
    @Argument(help: "A symbol, e.g. AAPL.") var symbol: String
    @Option(help: "5D, 1M, 3M, 6M, 1Y, 5Y or MAX.") var range: ChartRange = .oneYear
    @Option(help: "Columns to use (the terminal's width when left out).") var width: Int?
    @Option(help: "Rows of the chart.") var height = 12

    func validate() throws {
        if let width, width < 30 { throw ValidationError("--width must be at least 30") }
        if !(4...60).contains(height) { throw ValidationError("--height must be from 4 to 60") }
    }

    func run() async throws {
        try await runClient {
            let (client, _, _) = try await options.client(renew: false)
            let series = try await client.bars(symbol.uppercased(), range: range)
            if output.json { return try printJSON(series) }
            guard let first = series.bars.first, let last = series.bars.last else { return print("No prices for \(series.symbol).") }
            let change = last.close - first.close
            let percent = first.close == 0 ? Decimal(0) : change / first.close * 100
            print("\(Terminal.bold(series.symbol)) \(range.rawValue)  \(Format.money(Format.rounded(first.close, 2))) → \(Format.money(Format.rounded(last.close, 2)))  "
                + Terminal.signed("\(Format.signedMoney(Format.rounded(change, 2))) \(Format.percent(Format.rounded(percent, 2)))", change)
                + (series.simulated ? Terminal.dim("  demo market, simulated prices") : ""))
            print(LineChart.render(series.bars.map(\.close), labels: (first.date, last.date), width: width ?? Terminal.width, height: height))
        }
    }
}

struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Live quotes from the stream until Ctrl-C.")

    @OptionGroup var options: ClientOptions
    @OptionGroup var output: OutputOptions
    @Argument(help: "Symbols, e.g. AAPL MSFT.") var symbols: [String]
    @Option(help: "Stop after this many quotes (for scripts).") var count: Int?

    func validate() throws {
        if symbols.isEmpty { throw ValidationError("name at least one symbol, e.g. `bullpen watch AAPL`") }
    }

    func run() async throws {
        try await runClient {
            let (client, _, _) = try await options.client()
            var seen = 0
            for try await event in client.quoteStream(symbols: symbols.map { $0.uppercased() }) {
                switch event {
                case .subscribed(let streamed, let unknown):
                    if !unknown.isEmpty { Terminal.warn("bullpen: no company trades as \(unknown.joined(separator: ", ")) (unknown_symbol)") }
                    if streamed.isEmpty { throw ClientExit.refused }
                    if !output.json { Terminal.warn("Watching \(streamed.joined(separator: ", ")); Ctrl-C to stop.") }
                case .quote(let quote):
                    if output.json {
                        let encoder = JSONEncoder()
                        encoder.outputFormatting = [.sortedKeys]
                        encoder.dateEncodingStrategy = .iso8601
                        print(String(decoding: try encoder.encode(quote), as: UTF8.self))
                    } else {
                        print("\(quote.asOf.map(Format.time) ?? "")  \(Terminal.bold(quote.symbol.padding(toLength: 6, withPad: " ", startingAt: 0)))"
                            + " \(Format.money(quote.price))  "
                            + Terminal.signed("\(quote.change.map(Format.signedMoney) ?? "") \(Format.percent(quote.changePercent))", quote.change ?? 0))
                    }
                    fflush(nil)
                    seen += 1
                    if let count, seen >= count { return }
                }
            }
        }
    }
}
