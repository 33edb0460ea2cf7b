import ArgumentParser
import BullpenClient
import Foundation

struct Replay: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play the past: start a replay, list them, advance one day by day.",
        subcommands: [New.self, List.self, Forward.self, Scenarios.self])

    /// The replay named, or the newest one.
    static func choose(_ client: BullpenClient, _ name: String?) async throws -> Portfolio {
        if let name { return try await choosePortfolio(client, name) }
        guard let newest = try await client.portfolios().last(where: \.isReplay) else {
            throw BullpenError.api(status: 404, code: .notFound, message: "You have no replay: `bullpen replay new --start 2008-09`.",
                                   retryAfter: nil)
        }
        return newest
    }

    struct New: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Start a replay portfolio in the past.")
        @OptionGroup var options: ClientOptions
        @OptionGroup var output: OutputOptions
        @Option(help: "YYYY-MM, YYYY-MM-DD or random (the data's first day when left out).") var start: String?
        @Option(help: "A scenario's id instead (see `bullpen replay scenarios`).") var scenario: String?
        @Option(help: "Its name.") var name: String?
        @Option(help: "Starting cash, e.g. 10000 (100000 when left out).") var cash: String?

        func validate() throws {
            if start != nil && scenario != nil { throw ValidationError("give --start or --scenario, not both") }
            if let cash, TradeOptions.price(cash) == nil { throw ValidationError("--cash must be an amount such as 10000, not '\(cash)'") }
        }

        func run() async throws {
            try await runClient {
                let (client, _, _) = try await options.client()
                let replay = try await client.createReplay(name: name, start: start, scenario: scenario,
                                                           startingCash: cash.flatMap(TradeOptions.price))
                if output.json { return try printJSON(replay) }
                print("\(Terminal.bold(replay.name)) starts on \(replay.date ?? "?") with \(Format.money(replay.cash)).")
                print("Buy with `bullpen buy SYMBOL N --portfolio \"\(replay.name)\"`, then `bullpen replay advance 5`.")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Your replay portfolios.")
        @OptionGroup var options: ClientOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            try await runClient {
                let (client, _, _) = try await options.client()
                let replays = try await client.portfolios().filter(\.isReplay)
                if output.json { return try printJSON(replays) }
                guard !replays.isEmpty else { return print("No replays yet: `bullpen replay new --start 2008-09`.") }
                var table = Table([.init(title: "Name"), .init(title: "Date"), .init(title: "Equity", right: true),
                                   .init(title: "Return", right: true)])
                for replay in replays {
                    table.add([.init(replay.name), .init(replay.date ?? ""), .init(Format.money(replay.equity)),
                               .signed(Format.percent(replay.totalReturnPercent), replay.totalReturnPercent)])
                }
                print(table.render())
            }
        }
    }

    struct Forward: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "advance", abstract: "Move a replay forward by trading days, or calendar days while it holds coins (your newest replay unless --portfolio).")
        @OptionGroup var options: ClientOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "Trading days, or calendar days for a replay holding coins (1 to 2520).") var days: Int
        @Option(help: "The replay's name or id.") var portfolio: String?

        static let step = 21   // a month of sessions a request, so that long advances show progress

        func validate() throws {
            if !(1...2_520).contains(days) { throw ValidationError("days must be from 1 to 2520 (ten years)") }
        }

        func run() async throws {
            try await runClient {
                let (client, _, _) = try await options.client()
                let replay = try await Replay.choose(client, portfolio)
                let bar = days > Self.step && !output.json ? ProgressBar(total: days, unit: "days") : nil
                var moved = 0
                var steps: [Advance] = []
                while moved < days {
                    let step = try await client.advance(replay.id, days: min(Self.step, days - moved))
                    steps.append(step)
                    moved += step.days
                    bar?.update(moved, step.to)
                    if step.endOfData || step.days == 0 { break }
                }
                bar?.finish()
                guard let first = steps.first, let last = steps.last else { return }
                if output.json { return try printJSON(steps.count == 1 ? [last] : steps) }
                let change = last.equityAfter - first.equityBefore
                // A replay holding coins counts every calendar day (the server says which, step by step).
                let plural = moved == 1 ? "" : "s"
                let unit = steps.allSatisfy(\.countsEveryDay) ? "day\(plural)"
                    : steps.contains(where: \.countsEveryDay) ? "day\(plural) (trading and calendar)" : "trading day\(plural)"
                print("\(replay.name): \(first.from) → \(last.to), \(moved) \(unit). Equity "
                    + "\(Format.money(first.equityBefore)) → \(Format.money(last.equityAfter)) "
                    + Terminal.signed("(\(Format.signedMoney(change)))", change))
                if last.endOfData { print("The data ends here: `bullpen portfolio \"\(replay.name)\"` for the result.") }
            }
        }
    }

    struct Scenarios: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Stretches of history worth playing.")
        @OptionGroup var options: ClientOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            try await runClient {
                let (client, _, _) = try await options.client()
                let scenarios = try await client.scenarios()
                if output.json { return try printJSON(scenarios) }
                var table = Table([.init(title: "Id"), .init(title: "Name"), .init(title: "Kind"), .init(title: "From"), .init(title: "To")])
                for scenario in scenarios {
                    table.add([.init(scenario.id), .init(scenario.name), .init(scenario.kind), .init(scenario.start), .init(scenario.end)])
                }
                print(table.render())
            }
        }
    }
}

struct Leagues: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "The leagues you play in.")
    @OptionGroup var options: ClientOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await runClient {
            let (client, _, _) = try await options.client()
            let leagues = try await client.leagues()
            if output.json { return try printJSON(leagues) }
            guard !leagues.isEmpty else { return print("You are in no league yet (join one in the web app).") }
            var table = Table([.init(title: "Name"), .init(title: "Status"), .init(title: "Clock"), .init(title: "Members", right: true),
                               .init(title: "My rank", right: true)])
            for league in leagues {
                table.add([.init(league.name), .init(league.status), .init(league.clockMode == "replay" ? "replay \(league.date ?? "")" : "live"),
                           .init("\(league.memberCount)"), .init(league.myRank.map { "\($0)" } ?? "")])
            }
            print(table.render())
        }
    }
}

extension LeaderboardMetric: ExpressibleByArgument {}

struct LeaderboardCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "leaderboard", abstract: "A league's standings.")
    @OptionGroup var options: ClientOptions
    @OptionGroup var output: OutputOptions
    @Argument(help: "The league's name or id.") var league: String
    @Option(help: "return, sharpe, drawdown or vs_benchmark (the league's own when left out).") var metric: LeaderboardMetric?

    func run() async throws {
        try await runClient {
            let (client, _, _) = try await options.client()
            let mine = try await client.leagues()
            let known = mine + (try await client.publicLeagues()).filter { league in !mine.contains { $0.id == league.id } }
            guard let chosen = known.first(where: { $0.id == league || $0.name.lowercased() == league.lowercased() }) else {
                throw BullpenError.api(status: 404, code: .notFound, message: "No league named '\(league)' among yours and the public ones.",
                                       retryAfter: nil)
            }
            let board = try await client.leaderboard(league: chosen.id, metric: metric)
            if output.json { return try printJSON(board) }
            print("\(Terminal.bold(chosen.name)), by \(board.metric.replacingOccurrences(of: "_", with: " "))"
                + (board.asOf.map { " as of \($0)" } ?? "") + (board.final ? " (final)" : ""))
            var table = Table([.init(title: "Rank", right: true), .init(title: "Player"), .init(title: "Equity", right: true),
                               .init(title: "Return", right: true), .init(title: "Today", right: true), .init(title: "Sharpe", right: true),
                               .init(title: "Drawdown", right: true), .init(title: "Trades", right: true)])
            for line in board.standings {
                let name: Table.Cell = line.isMe ? .init(text: line.username + " (you)") { Terminal.bold($0) } : .init(line.username)
                table.add([.init("\(line.rank)"), name, .init(Format.money(line.equity)),
                           .signed(Format.percent(line.totalReturnPercent), line.totalReturnPercent),
                           .signed(Format.signedMoney(line.todayChange), line.todayChange),
                           .init(line.sharpe.map { Format.number($0) } ?? ""), .init(Format.percent(-line.maxDrawdownPercent)),
                           .init("\(line.trades)")])
            }
            print(table.render())
        }
    }
}
