import ArgumentParser
import BullpenMarketData
import Foundation
import Synchronization

/// `bullpen data ...`: bring market data in.
struct DataCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "data", abstract: "Import market data.", subcommands: [Import.self])

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Import market data into a data pack.", subcommands: [Stooq.self])
    }

    struct Stooq: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Convert Stooq's bulk download (*.txt, in folders) into a data pack.",
            discussion: """
            Download the daily US data from stooq.com (Historical data, "U.S." daily, ASCII), unzip it and run
              bullpen data import stooq data/daily/us --output ./data/market
            then start the server with --market-data ./data/market. Bad lines are listed and skipped.
            """)

        @Argument(help: "Stooq files or directories holding them.") var paths: [String]
        @Option(help: "The data pack to write (default BULLPEN_MARKET_DATA or ./data/market).") var output: String?
        @Option(help: "How many problems to list (all are counted).") var showProblems = 50

        func run() async throws {
            let target = output ?? ProcessInfo.processInfo.environment["BULLPEN_MARKET_DATA"].flatMap { $0.isEmpty ? nil : $0 } ?? "./data/market"
            let files = try StooqImporter.inputFiles(paths.map { URL(fileURLWithPath: $0) })
            guard !files.isEmpty else { throw ValidationError("no .txt files under \(paths.joined(separator: ", "))") }
            let bar = ProgressBar(total: files.count)
            let started = ContinuousClock.now
            let actions = StooqImporter.actionFiles(paths.map { URL(fileURLWithPath: $0) })
            let summary = try await StooqImporter(output: URL(fileURLWithPath: target)).run(files, actions: actions) { done, total, file in
                bar.update(done, file)
            }
            bar.finish()
            let elapsed = ContinuousClock.now - started
            print("Imported \(summary.filesRead) of \(files.count) files into \(target): \(summary.symbols.count) symbols, \(summary.bars) daily bars"
                  + (summary.firstDate.map { " from \($0)" } ?? "") + (summary.lastDate.map { " to \($0)" } ?? "")
                  + " in \(elapsed.formatted(.units(allowed: [.seconds], fractionalPart: .show(length: 1)))).")
            if summary.filesSkipped > 0 { print("Skipped \(summary.filesSkipped) file(s) with nothing usable.") }
            if summary.corporateActions > 0 { print("Kept \(summary.corporateActions) splits and dividends in corporate_actions.csv.") }
            if !summary.problems.isEmpty {
                print("\(summary.problems.count) line(s) skipped:")
                for problem in summary.problems.prefix(showProblems) { print("  \(problem)") }
                if summary.problems.count > showProblems { print("  ... and \(summary.problems.count - showProblems) more") }
            }
            if summary.filesRead == 0 { throw ExitCode(1) }
        }
    }
}

/// A progress bar on standard error: redrawn in place on a terminal, a line every 10 % otherwise.
final class ProgressBar: Sendable {
    private let total: Int
    private let unit: String
    private let interactive = isatty(STDERR_FILENO) == 1
    private let lastDecile = Mutex(-1)

    init(total: Int, unit: String = "files") {
        self.total = total
        self.unit = unit
    }

    func update(_ done: Int, _ item: String) {
        lastDecile.withLock { lastDecile in draw(done, item, lastDecile: &lastDecile) }
    }

    private func draw(_ done: Int, _ item: String, lastDecile: inout Int) {
        let fraction = total == 0 ? 1 : Double(done) / Double(total)
        if interactive {
            let width = 30, filled = Int(fraction * Double(width))
            let line = "\r[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
                + "] \(done)/\(total) " + item.prefix(40).padding(toLength: 40, withPad: " ", startingAt: 0)
            FileHandle.standardError.write(Data(line.utf8))
        } else if Int(fraction * 10) > lastDecile {
            lastDecile = Int(fraction * 10)
            FileHandle.standardError.write(Data("\(lastDecile * 10)% (\(done)/\(total) \(unit))\n".utf8))
        }
    }

    func finish() {
        if interactive { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}
