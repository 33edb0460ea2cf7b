import ArgumentParser
import BullpenClient
import Foundation

/// The CLI's exit codes (documented in the README and in `bullpen --help`).
enum ClientExit {
    static let refused = ExitCode(1)        // the API refused
    static let usage = ExitCode(2)          // the command line is wrong
    static let unreachable = ExitCode(3)    // cannot reach the server
    static let notLoggedIn = ExitCode(4)    // no session, or it ended
}

/// Where the CLI keeps its sessions: `$XDG_CONFIG_HOME/bullpen/session.json` (or `~/.config/bullpen`),
/// readable by its owner only (0600), one refresh token per server.
struct SessionFile: Sendable {
    struct Entry: Codable, Sendable {
        var username: String
        var refreshToken: String
    }

    let url: URL

    static var standard: SessionFile {
        let environment = ProcessInfo.processInfo.environment
        let base = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".config")
        return SessionFile(url: base.appendingPathComponent("bullpen").appendingPathComponent("session.json"))
    }

    func load() -> [String: Entry] {
        guard let data = try? Data(contentsOf: url) else { return [:] }
        return (try? JSONDecoder().decode([String: Entry].self, from: data)) ?? [:]
    }

    func entry(for server: String) -> Entry? { load()[server] }

    /// Saves (or with nil, forgets) the session of `server`; the file is written whole and renamed into place.
    func save(_ entry: Entry?, for server: String) throws {
        var all = load()
        all[server] = entry
        let directory = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let temporary = directory.appendingPathComponent(".session-\(UUID().uuidString).json")
        guard FileManager.default.createFile(atPath: temporary.path, contents: try encoder.encode(all),
                                             attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: temporary.path])
        }
        guard rename(temporary.path, url.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path, NSLocalizedDescriptionKey: "cannot save \(url.path): \(reason)"])
        }
    }
}

/// Options every client command takes.
struct ClientOptions: ParsableArguments {
    @Option(help: "The server (BULLPEN_SERVER, default http://127.0.0.1:8080).")
    var server: String?

    var serverURL: URL {
        get throws {
            let text = server ?? ProcessInfo.processInfo.environment["BULLPEN_SERVER"].flatMap { $0.isEmpty ? nil : $0 }
                ?? "http://127.0.0.1:8080"
            guard let url = URL(string: text.hasSuffix("/") ? String(text.dropLast()) : text),
                  let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil else {
                throw ValidationError("--server must be an http:// or https:// address, not '\(text)'")
            }
            return url
        }
    }

    /// A client with the saved session of this server; each new refresh token is saved as it comes.
    func client() throws -> (BullpenClient, SessionFile, String) {
        let url = try serverURL
        let key = url.absoluteString
        let file = SessionFile.standard
        let saved = file.entry(for: key)
        let name = saved?.username ?? ""
        let client = BullpenClient(server: url, refreshToken: saved?.refreshToken) { token in
            try? file.save(token.map { SessionFile.Entry(username: name, refreshToken: $0) }, for: key)
        }
        return (client, file, key)
    }
}

/// Output options of the commands that read.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print the answer as JSON (the API's field names), for scripts.")
    var json = false
}

/// Runs a client command's body, turning its errors into one line on standard error and an exit code.
func runClient(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as BullpenError {
        switch error {
        case .cannotConnect(let reason):
            Terminal.warn("bullpen: cannot reach the server: \(reason)")
            throw ClientExit.unreachable
        case .notLoggedIn:
            Terminal.warn("bullpen: not logged in: run `bullpen login` first")
            throw ClientExit.notLoggedIn
        case .api(_, let code, let message, let retryAfter) where error.needsLogin:
            Terminal.warn("bullpen: the session ended (\(code)): \(message) Run `bullpen login` again.")
            _ = retryAfter
            throw ClientExit.notLoggedIn
        case .api(_, let code, let message, let retryAfter):
            let wait = retryAfter.map { " Try again in \($0) s." } ?? ""
            Terminal.warn("bullpen: \(message)\(wait) (\(code))")
            throw ClientExit.refused
        case .invalidResponse(let reason):
            Terminal.warn("bullpen: the server's answer was not understood: \(reason)")
            throw ClientExit.refused
        }
    } catch let error as ExitCode {
        throw error
    } catch let error as ValidationError {
        throw error
    } catch is CancellationError {
        throw ExitCode(130)
    } catch {
        Terminal.warn("bullpen: \(error.localizedDescription)")
        throw ClientExit.refused
    }
}

/// JSON for `--json`: the API's field names, amounts as decimal strings, dates in RFC 3339.
func printJSON(_ value: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .iso8601
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
}

/// Finds a portfolio by name or id (case ignored); the first live one ("Main") when none is named.
func choosePortfolio(_ client: BullpenClient, _ name: String?) async throws -> Portfolio {
    let all = try await client.portfolios()
    if let name {
        if let found = all.first(where: { $0.id == name || $0.name.lowercased() == name.lowercased() }) { return found }
        throw BullpenError.api(status: 404, code: .notFound,
                               message: "No portfolio named '\(name)'. Yours: \(all.map(\.name).joined(separator: ", ")).",
                               retryAfter: nil)
    }
    guard let main = all.first(where: { !$0.isReplay && $0.leagueId == nil }) ?? all.first else {
        throw BullpenError.api(status: 404, code: .notFound, message: "You have no portfolio.", retryAfter: nil)
    }
    return main
}
