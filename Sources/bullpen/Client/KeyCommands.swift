import ArgumentParser
import BullpenClient
import Foundation

/// API keys for bots (the Alpaca-compatible API at `/alpaca`).
struct Keys: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "API keys for bots: make, list and revoke them.",
        discussion: """
        A key speaks for one portfolio. Alpaca's clients use it unchanged: point them at SERVER/alpaca
        (trading) and SERVER/alpaca/data (market data), with the key's id and secret.
        """,
        subcommands: [Create.self, List.self, Revoke.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make a key for a portfolio (its secret is shown once).")
        @OptionGroup var options: ClientOptions
        @OptionGroup var output: OutputOptions
        @Option(help: "The portfolio's name or id (your main portfolio when left out).") var portfolio: String?
        @Option(help: "What the key is for.") var name: String?
        @Flag(help: "Let it trade (otherwise it only reads).") var trading = false

        func run() async throws {
            try await runClient {
                let (client, _, _) = try await options.client()
                let chosen = try await choosePortfolio(client, portfolio)
                let key = try await client.createKey(portfolioID: chosen.id, name: name, trading: trading)
                if output.json { return try printJSON(key) }
                print("\(Terminal.bold(key.name)) for \(chosen.name) (\(key.scope.replacingOccurrences(of: "_", with: "-"))):")
                print("  APCA-API-KEY-ID      \(key.keyId)")
                print("  APCA-API-SECRET-KEY  \(key.secret ?? "")")
                let base = try options.serverURL.absoluteString
                print("The secret is shown only now: keep it somewhere safe. Alpaca clients: \(base)/alpaca and \(base)/alpaca/data")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Your keys that still work, newest first.")
        @OptionGroup var options: ClientOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            try await runClient {
                let (client, _, _) = try await options.client()
                let keys = try await client.keys()
                if output.json { return try printJSON(keys) }
                guard !keys.isEmpty else { return print("No API keys: `bullpen keys create --portfolio NAME --trading`.") }
                var table = Table([.init(title: "Key id"), .init(title: "Name"), .init(title: "Portfolio"), .init(title: "Scope"),
                                   .init(title: "Last used")])
                for key in keys {
                    table.add([.init(key.keyId), .init(key.name), .init(key.portfolioName ?? key.portfolioId),
                               .init(key.scope.replacingOccurrences(of: "_", with: "-")),
                               .init(key.lastUsedAt.map(Format.time) ?? "never")])
                }
                print(table.render())
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a key: it stops working at once.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "The key's id (APCA-API-KEY-ID).") var keyID: String

        func run() async throws {
            try await runClient {
                let (client, _, _) = try await options.client()
                guard let key = try await client.keys().first(where: { $0.keyId == keyID || $0.id == keyID }) else {
                    throw BullpenError.api(status: 404, code: .notFound, message: "You have no key \(keyID) (see `bullpen keys list`).",
                                           retryAfter: nil)
                }
                try await client.revokeKey(key.id)
                print("Revoked \(key.keyId) (\(key.name)).")
            }
        }
    }
}
