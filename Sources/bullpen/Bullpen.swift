import ArgumentParser
import BullpenServer
import BullpenStore
import Foundation
import Logging

/// `bullpen`: the server and its administration, and a client of a server for the terminal.
@main
struct Bullpen: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bullpen",
        abstract: "Bullpen, the stock-market simulator.",
        discussion: """
        The client commands talk to a server (--server or BULLPEN_SERVER, default http://127.0.0.1:8080).
        Exit codes: 0 ok, 1 the API refused, 2 usage, 3 cannot reach the server, 4 not logged in.
        """,
        groupedSubcommands: [
            CommandGroup(name: "Server", subcommands: [Serve.self, Migrate.self, DataCommand.self]),
            CommandGroup(name: "Account", subcommands: [Login.self, Logout.self, WhoAmI.self]),
            CommandGroup(name: "Portfolios", subcommands: [Portfolios.self, ShowPortfolio.self, Orders.self, History.self,
                                                           Buy.self, Sell.self, Replay.self]),
            CommandGroup(name: "Market", subcommands: [QuoteCommand.self, Search.self, Chart.self, Watch.self]),
            CommandGroup(name: "Leagues", subcommands: [Leagues.self, LeaderboardCommand.self]),
            CommandGroup(name: "Bots", subcommands: [Keys.self]),
        ])

    /// Parses and runs a command; a usage error exits with 2 (ArgumentParser's own is 64).
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            if exitCode(for: error) == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                exit(withError: ClientExit.usage)
            }
            exit(withError: error)
        }
    }
}

/// Options shared by the commands that touch the data directory or the database.
struct StorageOptions: ParsableArguments {
    @Option(name: .customLong("data-dir"), help: "Directory of the SQLite file and generated secrets (BULLPEN_DATA_DIR, default ./data).")
    var dataDirectory: String?

    /// The configuration: these options over the environment, over `./.env`, over the defaults.
    func configuration() throws -> ServerConfiguration {
        if let file = try DotEnvFile.load(path: ".env") {
            for problem in file.problems { FileHandle.standardError.write(Data("warning: \(problem)\n".utf8)) }
            file.applyToProcessEnvironment()
        }
        var config = try ServerConfiguration.fromEnvironment()
        if let dataDirectory { config.dataDirectory = URL(fileURLWithPath: dataDirectory) }
        return config
    }
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the HTTP server until SIGINT or SIGTERM.")

    @Option(help: "Address to listen on (BULLPEN_HOST, default 127.0.0.1).") var host: String?
    @Option(help: "Port to listen on; 0 picks a free one (BULLPEN_PORT, default 8080).") var port: Int?
    @OptionGroup var storage: StorageOptions
    @Option(name: .customLong("market-data"), help: "A data pack directory (BULLPEN_MARKET_DATA).")
    var marketData: String?

    func run() async throws {
        var config = try storage.configuration()
        if let host { config.host = host }
        if let port { config.port = port }
        if let marketData { config.marketDataDirectory = URL(fileURLWithPath: marketData) }
        ServerRunner.bootstrapLogging(config)
        try await ServerRunner.serve(config)
    }
}

struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Apply pending database migrations (SQLite or DATABASE_URL).")

    @OptionGroup var storage: StorageOptions

    func run() async throws {
        let config = try storage.configuration()
        ServerRunner.bootstrapLogging(config)
        let store = try ServerRunner.openStore(config, logger: Logger(label: "bullpen.migrate"))
        do {
            let pending = try await store.pendingMigrations()
            try await store.migrate()
            print(pending.isEmpty ? "Schema is up to date (\(store.backend))."
                                  : "Applied \(pending.count) migration(s) to \(store.backend): \(pending.joined(separator: ", "))")
        } catch {
            await store.shutdown()
            throw error
        }
        await store.shutdown()
    }
}
