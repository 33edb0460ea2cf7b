import ArgumentParser
import BullpenClient
import Foundation

struct Login: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Log in (the password is asked without echo; the session is kept in $XDG_CONFIG_HOME/bullpen, mode 0600).")

    @OptionGroup var options: ClientOptions
    @Argument(help: "Your username (asked when left out).") var username: String?
    @Flag(help: "Read the password from standard input (for scripts), without a prompt.") var passwordStdin = false
    @Flag(help: "Create the account first.") var register = false

    func run() async throws {
        try await runClient {
            let (client, file, key) = try await options.client(renew: false)
            var name = username
            if name == nil {
                FileHandle.standardError.write(Data("Username: ".utf8))
                name = readLine(strippingNewline: true)
            }
            guard let name, !name.isEmpty else { throw ValidationError("a username is needed") }
            let secret = passwordStdin ? readLine(strippingNewline: true) : Terminal.readSecret(prompt: "Password for \(name): ")
            guard let password = secret, !password.isEmpty else { throw ValidationError("a password is needed") }
            let user = register ? try await client.register(username: name, password: password)
                                : try await client.login(username: name, password: password)
            guard let tokens = await client.tokens else { throw BullpenError.notLoggedIn }
            try file.save(.init(username: user.username, refreshToken: tokens.refreshToken, accessToken: tokens.accessToken,
                                accessTokenExpires: tokens.accessTokenExpires), for: key)
            print("Logged in to \(key) as \(Terminal.bold(user.username)).")
        }
    }
}

struct Logout: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "End the session on the server and forget it here.")

    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await runClient {
            let (client, file, key) = try await options.client(renew: false)
            guard file.entry(for: key) != nil else {
                print("Not logged in to \(key).")
                return
            }
            // The session is forgotten here whatever the server says.
            defer { try? file.save(nil, for: key) }
            do { try await client.logout() } catch BullpenError.cannotConnect(let reason) {
                Terminal.warn("bullpen: forgot the session here, but cannot reach the server to end it: \(reason)")
                throw ClientExit.unreachable
            }
            print("Logged out of \(key).")
        }
    }
}

struct WhoAmI: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "whoami", abstract: "Who is logged in, on which server.")

    @OptionGroup var options: ClientOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await runClient {
            let (client, _, key) = try await options.client()
            let user = try await client.me()
            if output.json { return try printJSON(user) }
            print("\(Terminal.bold(user.username)) on \(key)")
        }
    }
}
