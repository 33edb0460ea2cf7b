import Foundation

/// Everything the server is configured with. Command-line flags override the environment, which
/// overrides `./.env` (see ``DotEnvFile``), which overrides the defaults; `.env.example` lists
/// every variable.
public struct ServerConfiguration: Sendable {
    public enum Mode: String, Sendable { case development, production }
    public enum LogFormat: String, Sendable { case text, json }

    public var host = "127.0.0.1"
    public var port = 8080
    /// Holds the SQLite file and, in development, the generated signing secret.
    public var dataDirectory = URL(fileURLWithPath: "./data")
    /// A data pack directory (`universe.csv`, `daily/`); nil runs without market data.
    public var marketDataDirectory: URL?
    /// An online provider for live quotes: `stooq` or `finnhub` (needs ``finnhubKey``); the data
    /// pack stays the source of the listing and of history.
    public var quotesProvider: String?
    /// `FINNHUB_API_KEY`.
    public var finnhubKey: String?
    /// The provider's base URL, for proxies and tests (`BULLPEN_PROVIDER_URL`).
    public var providerURL: String?
    /// `postgres://...` to use PostgreSQL instead of the embedded SQLite file.
    public var databaseURL: String?
    /// The HS256 signing secret of access tokens (`BULLPEN_JWT_SECRET`).
    public var jwtSecret: String?
    public var mode: Mode = .development
    /// `LOG_FORMAT`: lines of text, or one JSON object a line.
    public var logFormat: LogFormat = .text
    /// bcrypt cost; 12 unless lowered for tests (`BULLPEN_BCRYPT_COST`, at least 4).
    public var bcryptCost = 12
    /// Run migrations at start on PostgreSQL too (they always run on SQLite).
    public var migrateOnStart = false
    /// Failed logins within ``loginWindow`` allowed per account from one address (then it waits
    /// for the window), per account from every address and per address over every account (then
    /// each try waits a growing delay, except an account's from an address it logged in from).
    public var loginFailuresPerPair = 5
    public var loginFailuresPerAccount = 10
    public var loginFailuresPerAddress = 50
    public var loginWindow: TimeInterval = 15 * 60
    /// How long an access token lives (`BULLPEN_ACCESS_TOKEN_SECONDS`, 5 to 86400; 15 minutes).
    public var accessTokenLifetime: TimeInterval = 15 * 60
    /// Accounts one client address may create within ``registrationWindow``
    /// (`BULLPEN_REGISTRATIONS_PER_ADDRESS`; test harnesses that create hundreds raise it).
    public var registrationsPerAddress = 30
    public var registrationWindow: TimeInterval = 10 * 60
    /// Addresses of reverse proxies whose `X-Forwarded-For` names the client
    /// (`BULLPEN_TRUSTED_PROXIES`, comma-separated); from any other peer the header is ignored.
    public var trustedProxies: Set<String> = []
    /// How often the quote stream asks the market data for changes.
    public var streamInterval: Duration = .seconds(1)
    /// Whether the server stores live portfolios' closing equity after each session (tests that
    /// call the job themselves turn it off).
    public var closingEquityJob = true
    /// Whether scheduled replay leagues' clocks move by themselves (tests that move them turn it off).
    public var leagueScheduleJob = true
    /// How often price alerts are checked against the market (`BULLPEN_ALERT_INTERVAL`, seconds);
    /// zero turns the check off (tests that run rounds themselves).
    public var alertInterval: Duration = .seconds(5)
    /// How often working orders are evaluated against the live quotes (`BULLPEN_ORDER_INTERVAL`,
    /// seconds); zero turns the evaluation off (tests that run rounds themselves).
    public var orderInterval: Duration = .seconds(2)
    /// Who runs this server, told to browsers' push services with each push (`BULLPEN_PUSH_SUBJECT`:
    /// a `mailto:` address or an https URL).
    public var pushSubject = "mailto:admin@bullpen.invalid"
    /// The push services the server posts to (`BULLPEN_PUSH_HOSTS`, comma-separated host names,
    /// each with its subdomains): the major browsers' by default. The server posts only to them,
    /// so that a subscription cannot make it post anywhere else.
    public var pushHosts: [String] = PushSender.defaultHosts
    /// Whether pushes may go over plain HTTP (`BULLPEN_PUSH_ALLOW_HTTP`; a local stand-in in tests).
    public var pushAllowHTTP = false
    /// Messages a stream client may leave unsent (its socket full) before it is dropped: ten
    /// polls' worth for a client watching the 100 symbols it may.
    public var streamMaxBacklog = 1_000
    /// Browser origins besides the server's own that may call the API (CORS) and open the stream
    /// (`BULLPEN_ALLOWED_ORIGINS`, comma-separated).
    public var allowedOrigins: Set<String> = []

    /// How long a stopping server goes on answering requests that arrive (`BULLPEN_SHUTDOWN_GRACE`,
    /// seconds): it stops sooner once none has arrived for half a second. Keep it below the
    /// process manager's own grace (Kubernetes' is 30 s).
    public var shutdownGrace: Duration = .seconds(20)
    /// The least time a stopping server drains (`BULLPEN_SHUTDOWN_DELAY`, seconds; default 0): behind
    /// a load balancer, its health check interval times its failure threshold, so that it has
    /// stopped sending before the listener closes.
    public var shutdownDelay: Duration = .zero
    /// Orders (and exercises) one player may send a minute, over all their portfolios
    /// (`BULLPEN_ORDERS_PER_MINUTE`); past it, 429 with `Retry-After`. 0: no limit.
    public var ordersPerMinute = 120
    /// A connection with nothing read or written for this long is closed (`BULLPEN_IDLE_TIMEOUT`,
    /// seconds; streams are pinged within it).
    public var idleTimeout: Duration = .seconds(75)
    /// Whether connections come in through the ``ConnectionGuard`` (`BULLPEN_CONNECTION_GUARD`,
    /// `on` or `off`): header and body timeouts and the cap per address. Off, Vapor listens
    /// itself, for a reverse proxy in front that does the same (README, "Running in production").
    public var connectionGuard = true
    /// A request's head must arrive whole within this of its first byte (`BULLPEN_HEADER_TIMEOUT`, seconds).
    public var headerTimeout: Duration = .seconds(10)
    /// A request's body may pause this long between two reads (`BULLPEN_BODY_TIMEOUT`, seconds).
    public var bodyTimeout: Duration = .seconds(10)
    /// Connections one address may hold open (`BULLPEN_CONNECTIONS_PER_ADDRESS`; 0: no cap). Trusted
    /// proxies are not capped. 500 leaves room for some seventy players behind one school address
    /// (an open app holds its stream, for quotes and notifications, and a browser up to six more).
    public var connectionsPerAddress = 500
    /// OpenTelemetry traces, when `OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`
    /// names a collector (see ``Traces``).
    public var traces = false

    public init() {}

    /// Every variable ``fromEnvironment(_:)`` reads (`.env.example` lists each; a test checks).
    public static let variables = [
        "BULLPEN_HOST", "BULLPEN_PORT", "BULLPEN_DATA_DIR", "BULLPEN_MARKET_DATA", "DATABASE_URL", "FINNHUB_API_KEY",
        "BULLPEN_PROVIDER_URL", "BULLPEN_QUOTES", "BULLPEN_JWT_SECRET", "BULLPEN_ENV", "BULLPEN_BCRYPT_COST",
        "BULLPEN_ALLOWED_ORIGINS", "BULLPEN_TRUSTED_PROXIES", "BULLPEN_REGISTRATIONS_PER_ADDRESS", "BULLPEN_MIGRATE_ON_START",
        "BULLPEN_SHUTDOWN_GRACE", "BULLPEN_SHUTDOWN_DELAY", "BULLPEN_ORDERS_PER_MINUTE", "BULLPEN_IDLE_TIMEOUT",
        "BULLPEN_CONNECTION_GUARD", "BULLPEN_HEADER_TIMEOUT", "BULLPEN_BODY_TIMEOUT", "BULLPEN_CONNECTIONS_PER_ADDRESS",
        "BULLPEN_ALERT_INTERVAL", "BULLPEN_ORDER_INTERVAL", "BULLPEN_ACCESS_TOKEN_SECONDS", "BULLPEN_PUSH_SUBJECT", "BULLPEN_PUSH_HOSTS", "BULLPEN_PUSH_ALLOW_HTTP",
        "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "LOG_LEVEL", "LOG_FORMAT",
    ]

    /// Reads `BULLPEN_*`, `DATABASE_URL` from `environment`.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ServerConfiguration {
        var config = ServerConfiguration()
        var problems: [String] = []
        if let host = environment["BULLPEN_HOST"], !host.isEmpty { config.host = host }
        if let port = environment["BULLPEN_PORT"], !port.isEmpty {
            if let value = Int(port), (0...65_535).contains(value) { config.port = value } else { problems.append("BULLPEN_PORT must be a port number, not '\(port)'") }
        }
        if let dir = environment["BULLPEN_DATA_DIR"], !dir.isEmpty { config.dataDirectory = URL(fileURLWithPath: dir) }
        if let dir = environment["BULLPEN_MARKET_DATA"], !dir.isEmpty { config.marketDataDirectory = URL(fileURLWithPath: dir) }
        if let url = environment["DATABASE_URL"], !url.isEmpty { config.databaseURL = url }
        if let key = environment["FINNHUB_API_KEY"], !key.isEmpty { config.finnhubKey = key }
        if let url = environment["BULLPEN_PROVIDER_URL"], !url.isEmpty { config.providerURL = url }
        if let provider = environment["BULLPEN_QUOTES"], !provider.isEmpty {
            if ["stooq", "finnhub"].contains(provider) { config.quotesProvider = provider } else { problems.append("BULLPEN_QUOTES must be stooq or finnhub, not '\(provider)'") }
        } else if config.finnhubKey != nil {
            config.quotesProvider = "finnhub"
        }
        if config.quotesProvider == "finnhub" && config.finnhubKey == nil { problems.append("BULLPEN_QUOTES=finnhub needs FINNHUB_API_KEY") }
        if let secret = environment["BULLPEN_JWT_SECRET"], !secret.isEmpty { config.jwtSecret = secret }
        if let mode = environment["BULLPEN_ENV"], !mode.isEmpty {
            if let value = Mode(rawValue: mode) { config.mode = value } else { problems.append("BULLPEN_ENV must be development or production, not '\(mode)'") }
        }
        if let cost = environment["BULLPEN_BCRYPT_COST"], !cost.isEmpty {
            if let value = Int(cost), (4...31).contains(value) { config.bcryptCost = value } else { problems.append("BULLPEN_BCRYPT_COST must be 4...31, not '\(cost)'") }
        }
        if let origins = environment["BULLPEN_ALLOWED_ORIGINS"], !origins.isEmpty {
            config.allowedOrigins = Set(origins.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        }
        if let limit = environment["BULLPEN_REGISTRATIONS_PER_ADDRESS"], !limit.isEmpty {
            if let value = Int(limit), value > 0 { config.registrationsPerAddress = value } else {
                problems.append("BULLPEN_REGISTRATIONS_PER_ADDRESS must be a whole number above 0, not '\(limit)'")
            }
        }
        if let grace = environment["BULLPEN_SHUTDOWN_GRACE"], !grace.isEmpty {
            if let value = Int(grace), (0...3_600).contains(value) { config.shutdownGrace = .seconds(value) } else {
                problems.append("BULLPEN_SHUTDOWN_GRACE must be seconds from 0 to 3600, not '\(grace)'")
            }
        }
        config.traces = ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"].contains { !(environment[$0] ?? "").isEmpty }
        if let idle = environment["BULLPEN_IDLE_TIMEOUT"], !idle.isEmpty {
            if let value = Int(idle), (1...3_600).contains(value) { config.idleTimeout = .seconds(value) } else {
                problems.append("BULLPEN_IDLE_TIMEOUT must be seconds from 1 to 3600, not '\(idle)'")
            }
        }
        if let flag = environment["BULLPEN_CONNECTION_GUARD"], !flag.isEmpty {
            switch flag.lowercased() {
            case "on", "1", "true", "yes": config.connectionGuard = true
            case "off", "0", "false", "no": config.connectionGuard = false
            default: problems.append("BULLPEN_CONNECTION_GUARD must be on or off, not '\(flag)'")
            }
        }
        for (name, keyPath) in [("BULLPEN_HEADER_TIMEOUT", \ServerConfiguration.headerTimeout), ("BULLPEN_BODY_TIMEOUT", \.bodyTimeout)] {
            guard let text = environment[name], !text.isEmpty else { continue }
            if let value = Int(text), (1...3_600).contains(value) { config[keyPath: keyPath] = .seconds(value) } else {
                problems.append("\(name) must be seconds from 1 to 3600, not '\(text)'")
            }
        }
        if let cap = environment["BULLPEN_CONNECTIONS_PER_ADDRESS"], !cap.isEmpty {
            if let value = Int(cap), value >= 0 { config.connectionsPerAddress = value } else {
                problems.append("BULLPEN_CONNECTIONS_PER_ADDRESS must be a whole number (0 for no cap), not '\(cap)'")
            }
        }
        if let delay = environment["BULLPEN_SHUTDOWN_DELAY"], !delay.isEmpty {
            if let value = Int(delay), (0...3_600).contains(value) { config.shutdownDelay = .seconds(value) } else {
                problems.append("BULLPEN_SHUTDOWN_DELAY must be seconds from 0 to 3600, not '\(delay)'")
            }
        }
        if let limit = environment["BULLPEN_ORDERS_PER_MINUTE"], !limit.isEmpty {
            if let value = Int(limit), value >= 0 { config.ordersPerMinute = value } else {
                problems.append("BULLPEN_ORDERS_PER_MINUTE must be a whole number (0 for no limit), not '\(limit)'")
            }
        }
        if let seconds = environment["BULLPEN_ALERT_INTERVAL"], !seconds.isEmpty {
            if let value = Int(seconds), value >= 0 { config.alertInterval = .seconds(value) } else {
                problems.append("BULLPEN_ALERT_INTERVAL must be a whole number of seconds (0 turns alerts off), not '\(seconds)'")
            }
        }
        if let seconds = environment["BULLPEN_ACCESS_TOKEN_SECONDS"], !seconds.isEmpty {
            if let value = Int(seconds), (5...86_400).contains(value) { config.accessTokenLifetime = TimeInterval(value) } else {
                problems.append("BULLPEN_ACCESS_TOKEN_SECONDS must be a whole number of seconds from 5 to 86400, not '\(seconds)'")
            }
        }
        if let seconds = environment["BULLPEN_ORDER_INTERVAL"], !seconds.isEmpty {
            if let value = Int(seconds), value >= 0 { config.orderInterval = .seconds(value) } else {
                problems.append("BULLPEN_ORDER_INTERVAL must be a whole number of seconds (0 turns working orders' evaluation off), not '\(seconds)'")
            }
        }
        if let subject = environment["BULLPEN_PUSH_SUBJECT"], !subject.isEmpty {
            if subject.hasPrefix("mailto:") || subject.hasPrefix("https://") { config.pushSubject = subject } else {
                problems.append("BULLPEN_PUSH_SUBJECT must be a mailto: address or an https:// URL, not '\(subject)'")
            }
        }
        if let hosts = environment["BULLPEN_PUSH_HOSTS"], !hosts.isEmpty {
            config.pushHosts = hosts.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
        }
        if let flag = environment["BULLPEN_PUSH_ALLOW_HTTP"], !flag.isEmpty {
            config.pushAllowHTTP = ["1", "true", "yes"].contains(flag.lowercased())
        }
        if let proxies = environment["BULLPEN_TRUSTED_PROXIES"], !proxies.isEmpty {
            config.trustedProxies = Set(proxies.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        }
        if let format = environment["LOG_FORMAT"], !format.isEmpty {
            if let value = LogFormat(rawValue: format) { config.logFormat = value } else { problems.append("LOG_FORMAT must be text or json, not '\(format)'") }
        }
        if let flag = environment["BULLPEN_MIGRATE_ON_START"], !flag.isEmpty {
            config.migrateOnStart = ["1", "true", "yes"].contains(flag.lowercased())
        }
        if config.mode == .production {
            if config.jwtSecret == nil { problems.append("BULLPEN_JWT_SECRET is required in production") }
            if config.bcryptCost < 12 { problems.append("BULLPEN_BCRYPT_COST must be at least 12 in production") }
        }
        if let secret = config.jwtSecret, secret.utf8.count < 32 {
            problems.append("BULLPEN_JWT_SECRET must be at least 32 bytes")
        }
        if !problems.isEmpty { throw ConfigurationError(problems: problems) }
        return config
    }

    /// The SQLite file used when no `DATABASE_URL` is set.
    public var sqlitePath: String { dataDirectory.appendingPathComponent("bullpen.sqlite").path }
}

/// Every configuration problem at once, so that one start shows them all.
public struct ConfigurationError: Error, CustomStringConvertible {
    public var problems: [String]
    public var description: String { "configuration problems:\n" + problems.map { "  - \($0)" }.joined(separator: "\n") }
}
