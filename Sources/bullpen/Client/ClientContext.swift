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
/// readable by its owner only (0600, in a 0700 folder), one session per server: the refresh token, and
/// the access token while it lasts, so that commands run one after another (or at once) share it.
/// A refresh token works once: renewals happen under an exclusive lock on `session.lock`, after
/// reading the file again, so that two commands never present the same one.
struct SessionFile: Sendable {
    struct Entry: Codable, Sendable {
        var username: String
        var refreshToken: String
        var accessToken: String?
        var accessTokenExpires: Date?

        var tokens: SessionTokens {
            SessionTokens(refreshToken: refreshToken, accessToken: accessToken, accessTokenExpires: accessTokenExpires)
        }
    }

    let url: URL
    var directory: URL { url.deletingLastPathComponent() }

    static var standard: SessionFile {
        let environment = ProcessInfo.processInfo.environment
        let base = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".config")
        return SessionFile(url: base.appendingPathComponent("bullpen").appendingPathComponent("session.json"))
    }

    static var coder: (JSONEncoder, JSONDecoder) {
        let encoder = JSONEncoder(), decoder = JSONDecoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        decoder.dateDecodingStrategy = .iso8601
        return (encoder, decoder)
    }

    func load() -> [String: Entry] {
        guard let data = try? Data(contentsOf: url) else { return [:] }
        return (try? Self.coder.1.decode([String: Entry].self, from: data)) ?? [:]
    }

    func entry(for server: String) -> Entry? { load()[server] }

    private func makeDirectory() throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        chmod(directory.path, 0o700)
    }

    /// Saves (or with nil, forgets) the session of `server`. The file is written whole to a new file
    /// created 0600, synced, and renamed into place: a reader sees the old file or the new one.
    func save(_ entry: Entry?, for server: String) throws {
        var all = load()
        all[server] = entry
        try makeDirectory()
        let data = try Self.coder.0.encode(all)
        let temporary = directory.appendingPathComponent(".session-\(UUID().uuidString).json").path
        let fd = open(temporary, O_CREAT | O_EXCL | O_WRONLY, 0o600)
        guard fd >= 0 else { throw Self.failure("cannot create \(temporary)") }
        let written = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd) == 0
        close(fd)
        guard written == data.count, synced, rename(temporary, url.path) == 0 else {
            let error = Self.failure("cannot save \(url.path)")
            unlink(temporary)
            throw error
        }
    }

    /// Runs `body` holding the exclusive lock of the session file (waiting for another command's).
    func locked<T>(_ body: () async throws -> T) async throws -> T {
        try makeDirectory()
        let fd = open(directory.appendingPathComponent("session.lock").path, O_CREAT | O_RDWR, 0o600)
        guard fd >= 0 else { throw Self.failure("cannot open the session lock in \(directory.path)") }
        defer { close(fd) }
        guard flock(fd, LOCK_EX) == 0 else { throw Self.failure("cannot lock the session") }
        defer { flock(fd, LOCK_UN) }
        return try await body()
    }

    static func failure(_ what: String) -> any Error {
        CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "\(what): \(String(cString: strerror(errno)))"])
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

    /// A client with the saved session of this server; the tokens are saved again each time they change.
    /// With `renew`, an expired access token is renewed first, under the session file's lock.
    func client(renew: Bool = true) async throws -> (BullpenClient, SessionFile, String) {
        let url = try serverURL
        let key = url.absoluteString
        let file = SessionFile.standard
        let make = { (saved: SessionFile.Entry?) in
            BullpenClient(server: url, tokens: saved?.tokens) { tokens in
                do {
                    try file.save(tokens.map { SessionFile.Entry(username: saved?.username ?? "", refreshToken: $0.refreshToken,
                                                                accessToken: $0.accessToken, accessTokenExpires: $0.accessTokenExpires) },
                                  for: key)
                } catch {
                    Terminal.warn("bullpen: the session could not be saved: \(error.localizedDescription)")
                }
            }
        }
        let unlocked = file.entry(for: key)
        guard renew, unlocked != nil else { return (make(unlocked), file, key) }
        return try await file.locked {
            // Read again under the lock: another command may have renewed the session meanwhile.
            let client = make(file.entry(for: key))
            try await client.renewIfNeeded()
            return (client, file, key)
        }
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
        case .api(_, let code, let message, _) where error.needsLogin:
            Terminal.warn("bullpen: the session ended (\(code)): \(message) Run `bullpen login` again.")
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
