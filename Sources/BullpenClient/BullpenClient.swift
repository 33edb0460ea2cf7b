import Foundation
import OpenAPIRuntime
import OpenAPIURLSession
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A Bullpen server, for an app or a script: log in, read portfolios and prices, trade, replay the past,
/// follow leagues, stream quotes.
///
/// The client keeps the session: it sends the access token, renews it with the refresh token once it
/// expires (calls that need a new token at the same time share one renewal), and reports each new
/// refresh token to `onRefreshTokenChange` so that it can be saved (in the keychain, say) and given back
/// to the next launch as `refreshToken`.
///
/// ```swift
/// let client = BullpenClient(server: URL(string: "http://127.0.0.1:8080")!)
/// try await client.login(username: "alice", password: "correct horse battery")
/// let main = try await client.portfolios()[0]
/// let preview = try await client.preview(.buy("AAPL", 10), in: main.id)
/// let order = try await client.placeOrder(.buy("AAPL", 10), in: main.id)
/// ```
///
/// Every method throws ``BullpenError``.
public final class BullpenClient: Sendable {
    /// The server's base URL.
    public let server: URL
    let api: Client
    let anonymous: Client
    let session: TokenSession
    let urlSession: URLSession

    /// A client of the server at `server`.
    ///
    /// - Parameters:
    ///   - server: The server's base URL, e.g. `http://127.0.0.1:8080`.
    ///   - refreshToken: A refresh token saved from an earlier session, to go on without logging in.
    ///   - urlSession: The session requests go through.
    ///   - onRefreshTokenChange: Called with each new refresh token, and with nil when the session ends.
    public convenience init(server: URL, refreshToken: String? = nil, urlSession: URLSession = .shared,
                            onRefreshTokenChange: (@Sendable (String?) -> Void)? = nil) {
        var onTokensChange: (@Sendable (SessionTokens?) -> Void)?
        if let onRefreshTokenChange {
            onTokensChange = { tokens in onRefreshTokenChange(tokens?.refreshToken) }
        }
        self.init(server: server, tokens: refreshToken.map { SessionTokens(refreshToken: $0) }, urlSession: urlSession,
                  onTokensChange: onTokensChange)
    }

    /// A client that goes on with saved tokens, access token included (several processes of one user
    /// can then share a session without each renewing it).
    ///
    /// - Parameters:
    ///   - server: The server's base URL.
    ///   - tokens: The tokens saved from `onTokensChange`, or nil to log in.
    ///   - urlSession: The session requests go through.
    ///   - onTokensChange: Called with the tokens after each login and renewal, and with nil when the session ends.
    public convenience init(server: URL, tokens: SessionTokens?, urlSession: URLSession = .shared,
                            onTokensChange: (@Sendable (SessionTokens?) -> Void)?) {
        self.init(server: server, tokens: tokens, urlSession: urlSession,
                  transport: URLSessionTransport(configuration: .init(session: urlSession)), onTokensChange: onTokensChange)
    }

    /// A client over any transport (tests put one that loses answers between the client and the server).
    init(server: URL, tokens: SessionTokens?, urlSession: URLSession, transport: any ClientTransport,
         onTokensChange: (@Sendable (SessionTokens?) -> Void)?) {
        self.server = server
        self.urlSession = urlSession
        let configuration = Configuration(dateTranscoder: .iso8601)
        let anonymous = Client(serverURL: server, configuration: configuration, transport: transport,
                               middlewares: [ErrorMiddleware(), RetryMiddleware()])
        let session = TokenSession(tokens: tokens, onChange: onTokensChange) { token in
            try await anonymous.refresh(body: .json(.init(refreshToken: token))).ok.body.json.tokens
        }
        self.anonymous = anonymous
        self.session = session
        api = Client(serverURL: server, configuration: configuration, transport: transport,
                     middlewares: [ErrorMiddleware(), RetryMiddleware(), AuthMiddleware(session: session)])
    }

    // MARK: Session

    /// Creates an account (with its "Main" portfolio) and logs in.
    @discardableResult
    public func register(username: String, password: String) async throws -> User {
        let answer = try await bullpenCall { try await anonymous.register(body: .json(.init(username: username, password: password))).created.body.json }
        await session.start(answer.tokens)
        return User(answer.user)
    }

    /// Logs in.
    @discardableResult
    public func login(username: String, password: String) async throws -> User {
        let answer = try await bullpenCall { try await anonymous.login(body: .json(.init(username: username, password: password))).ok.body.json }
        await session.start(answer.tokens)
        return User(answer.user)
    }

    /// Ends the session: its tokens stop working on the server, and the client forgets them.
    public func logout() async throws {
        do {
            _ = try await bullpenCall { try await api.logout().noContent }
        } catch let error as BullpenError where error.needsLogin {
            // Already over.
        }
        await session.clear()
    }

    /// The logged-in user.
    public func me() async throws -> User {
        try await requireSession()
        return User(try await bullpenCall { try await api.me().ok.body.json })
    }

    /// Whether the client holds a session (it may still have ended on the server).
    public var isLoggedIn: Bool { get async { await session.isLoggedIn } }

    /// The current refresh token, to save for the next launch.
    public var refreshToken: String? { get async { await session.refreshToken } }

    /// The session's tokens as they stand, to save.
    public var tokens: SessionTokens? { get async { await session.saved } }

    /// Renews the access token now if it expired (or is about to), so that the calls that follow do
    /// not: a program that shares saved tokens between processes calls it while it holds its lock.
    public func renewIfNeeded() async throws {
        try await requireSession()
        _ = try await bullpenCall { try await session.currentToken() }
    }

    func requireSession() async throws {
        if await !session.isLoggedIn { throw BullpenError.notLoggedIn }
    }

    // MARK: Portfolios

    /// The player's portfolios, oldest first.
    public func portfolios() async throws -> [Portfolio] {
        try await requireSession()
        return try await bullpenCall { try await api.listPortfolios().ok.body.json.portfolios.map(Portfolio.init) }
    }

    /// One portfolio.
    public func portfolio(_ id: String) async throws -> Portfolio {
        try await requireSession()
        return try await bullpenCall { try Portfolio(try await api.getPortfolio(path: .init(id: id)).ok.body.json) }
    }

    /// A portfolio's holdings, by symbol.
    public func positions(in portfolioID: String) async throws -> [Position] {
        try await requireSession()
        return try await bullpenCall { try await api.listPositions(path: .init(id: portfolioID)).ok.body.json.positions.map(Position.init) }
    }

    /// Creates a live portfolio.
    public func createPortfolio(name: String, startingCash: Decimal? = nil) async throws -> Portfolio {
        try await requireSession()
        let body = Components.Schemas.CreatePortfolioRequest(name: name, startingCash: startingCash.map(Money.request))
        return try await bullpenCall { try Portfolio(try await api.createPortfolio(body: .json(body)).created.body.json) }
    }

    /// Creates a replay portfolio that starts in the past.
    ///
    /// - Parameters:
    ///   - name: Its name ("Profile N" when nil).
    ///   - start: `YYYY-MM`, `YYYY-MM-DD` or `random`; the data's first day when nil.
    ///   - scenario: A scenario's id from ``scenarios()`` (instead of `start`).
    ///   - startingCash: $100,000.00 when nil.
    public func createReplay(name: String? = nil, start: String? = nil, scenario: String? = nil,
                             startingCash: Decimal? = nil) async throws -> Portfolio {
        try await requireSession()
        let body = Components.Schemas.CreatePortfolioRequest(
            name: name, startingCash: startingCash.map(Money.request), replay: .init(start: start, scenario: scenario))
        return try await bullpenCall { try Portfolio(try await api.createPortfolio(body: .json(body)).created.body.json) }
    }

    /// The replay scenarios the server's data supports.
    public func scenarios() async throws -> [Scenario] {
        try await bullpenCall {
            try await anonymous.listScenarios().ok.body.json.scenarios.map {
                Scenario(id: $0.id, name: $0.name, kind: $0.kind.rawValue, description: $0.description, start: $0.start,
                         end: $0.end, symbols: $0.symbols)
            }
        }
    }

    /// Moves a replay's clock forward by trading days (1 to 252), or by calendar days (1 to 366)
    /// while it holds coins (``Advance/countsEveryDay``).
    public func advance(_ portfolioID: String, days: Int) async throws -> Advance {
        try await requireSession()
        return try await bullpenCall { try Advance(try await api.advanceReplay(path: .init(id: portfolioID), body: .json(.init(days: days))).ok.body.json) }
    }

    /// Moves a replay's clock forward to a date (YYYY-MM-DD, at most 252 trading days ahead, or 366
    /// calendar days while it holds coins).
    public func advance(_ portfolioID: String, to date: String) async throws -> Advance {
        try await requireSession()
        return try await bullpenCall { try Advance(try await api.advanceReplay(path: .init(id: portfolioID), body: .json(.init(to: date))).ok.body.json) }
    }

    // MARK: Orders

    /// What an order would do, computed by the engine that executes orders, without placing it.
    public func preview(_ order: OrderRequest, in portfolioID: String) async throws -> OrderPreview {
        try await requireSession()
        // The preview takes the same body as the order (the contract's two schemas have the same fields).
        let body = try await bullpenCall {
            try JSONDecoder().decode(Components.Schemas.OrderPreviewRequest.self, from: JSONEncoder().encode(order.wire))
        }
        return try await bullpenCall { try OrderPreview(try await api.previewOrder(path: .init(id: portfolioID), body: .json(body)).ok.body.json) }
    }

    /// Places an order.
    ///
    /// The call carries an idempotency key (a new UUID unless one is given): when the connection fails and
    /// the call is sent again, or the session is renewed in between, the server still executes it once.
    public func placeOrder(_ order: OrderRequest, in portfolioID: String, idempotencyKey: String? = nil) async throws -> Order {
        try await requireSession()
        let body = order.wire
        let key = idempotencyKey ?? UUID().uuidString
        return try await bullpenCall {
            try Order(try await api.placeOrder(path: .init(id: portfolioID), headers: .init(idempotencyKey: key), body: .json(body)).created.body.json)
        }
    }

    /// A portfolio's orders, newest first.
    public func orders(in portfolioID: String, filter: OrderFilter = .all, limit: Int? = nil) async throws -> [Order] {
        try await requireSession()
        return try await bullpenCall {
            try await api.listOrders(path: .init(id: portfolioID), query: .init(limit: limit, status: .init(rawValue: filter.rawValue)))
                .ok.body.json.orders.map(Order.init)
        }
    }

    /// One order.
    public func order(_ orderID: String, in portfolioID: String) async throws -> Order {
        try await requireSession()
        return try await bullpenCall { try Order(try await api.getOrder(path: .init(id: portfolioID, orderId: orderID)).ok.body.json) }
    }

    /// Cancels a working order (``BullpenError/Code/orderNotOpen`` when it already filled or ended).
    public func cancelOrder(_ orderID: String, in portfolioID: String) async throws -> Order {
        try await requireSession()
        return try await bullpenCall { try Order(try await api.cancelOrder(path: .init(id: portfolioID, orderId: orderID)).ok.body.json) }
    }

    /// A page of a portfolio's journal, newest first.
    public func activities(in portfolioID: String, limit: Int? = nil, cursor: String? = nil) async throws -> ActivityPage {
        try await requireSession()
        return try await bullpenCall {
            let page = try await api.listActivities(path: .init(id: portfolioID), query: .init(limit: limit, cursor: cursor)).ok.body.json
            return ActivityPage(activities: try page.activities.map(Activity.init), nextCursor: page.nextCursor)
        }
    }

    /// A portfolio's whole journal as CSV, as the server writes it.
    public func activitiesCSV(in portfolioID: String) async throws -> String {
        try await requireSession()
        return try await bullpenCall {
            let body = try await api.listActivities(path: .init(id: portfolioID), query: .init(format: .csv)).ok.body.csv
            return try await String(collecting: body, upTo: 64 << 20)
        }
    }

    // MARK: Market

    /// Where the prices come from, and whether they are simulated.
    public func marketStatus() async throws -> MarketStatus {
        try await bullpenCall {
            let status = try await anonymous.marketStatus().ok.body.json
            return MarketStatus(source: status.source, simulated: status.simulated, delayed: status.delayed,
                                description: status.description, label: status.label)
        }
    }

    /// Companies matching `text` (symbol first, then names), those that trade most first.
    public func search(_ text: String, limit: Int = 25) async throws -> [AssetSummary] {
        try await bullpenCall { try await anonymous.listAssets(query: .init(search: text, limit: limit)).ok.body.json.assets.map(AssetSummary.init) }
    }

    /// A company's details and price, now or as of a past date (YYYY-MM-DD).
    public func asset(_ symbol: String, asOf: String? = nil) async throws -> Asset {
        try await bullpenCall { try Asset(try await anonymous.getAsset(path: .init(symbol: symbol), query: .init(asOf: asOf)).ok.body.json) }
    }

    /// A symbol's daily, weekly or monthly bars over a range (at most about 500).
    public func bars(_ symbol: String, range: ChartRange = .oneYear, asOf: String? = nil) async throws -> BarSeries {
        try await bullpenCall {
            let series = try await anonymous.getAssetBars(path: .init(symbol: symbol),
                                                          query: .init(range: .init(rawValue: range.rawValue), asOf: asOf)).ok.body.json
            return BarSeries(symbol: series.symbol, range: series.range, interval: series.interval.rawValue,
                             bars: try series.bars.map(Bar.init), simulated: series.simulated)
        }
    }

    /// Quotes of up to 100 symbols; those without one are in ``QuoteList/unknown``.
    public func quotes(_ symbols: [String], asOf: String? = nil) async throws -> QuoteList {
        try await bullpenCall {
            let list = try await anonymous.getQuotes(query: .init(symbols: symbols.joined(separator: ","), asOf: asOf)).ok.body.json
            return QuoteList(quotes: try list.quotes.map(Quote.init), unknown: list.unknown, simulated: list.simulated)
        }
    }

    /// Live quotes of `symbols` over a WebSocket: each symbol's quote at once, then every change,
    /// until the task is cancelled or the loop ends. Needs a session.
    public func quoteStream(symbols: [String]) -> QuoteStream {
        QuoteStream(client: self, symbols: symbols)
    }

    // MARK: Leagues

    /// The leagues the player is in.
    public func leagues() async throws -> [League] {
        try await requireSession()
        return try await bullpenCall { try await api.listMyLeagues().ok.body.json.leagues.map(League.init) }
    }

    // MARK: API keys

    /// The caller's API keys that still work, newest first (their secrets are never listed).
    public func keys() async throws -> [APIKey] {
        try await requireSession()
        return try await bullpenCall { try await api.listKeys().ok.body.json.keys.map(APIKey.init) }
    }

    /// Makes an API key for one of the caller's portfolios: bots use it with Alpaca's clients at
    /// `/alpaca`. The answer carries the ``APIKey/secret``, once.
    ///
    /// - Parameters:
    ///   - portfolioID: The portfolio the key speaks for.
    ///   - name: What the key is for.
    ///   - trading: Whether it may trade (otherwise it only reads).
    public func createKey(portfolioID: String, name: String? = nil, trading: Bool = false) async throws -> APIKey {
        try await requireSession()
        let body = Operations.CreateKey.Input.Body.JsonPayload(portfolioId: portfolioID, name: name, scope: trading ? .trading : .readOnly)
        return try await bullpenCall { APIKey(try await api.createKey(body: .json(body)).created.body.json) }
    }

    /// Revokes an API key (by its ``APIKey/id``): it authenticates nothing from now on.
    public func revokeKey(_ id: String) async throws {
        try await requireSession()
        _ = try await bullpenCall { try await api.revokeKey(path: .init(keyId: id)).noContent }
    }

    /// Public leagues anyone may join.
    public func publicLeagues() async throws -> [League] {
        try await requireSession()
        return try await bullpenCall { try await api.listPublicLeagues().ok.body.json.leagues.map(League.init) }
    }

    /// Creates a league and joins it; the caller owns it.
    ///
    /// - Parameters:
    ///   - name: Its name.
    ///   - visibility: `public` (anyone may join) or `private` (by its code).
    ///   - replayStart: For a league on one shared historical clock: `YYYY-MM`, `YYYY-MM-DD` or `random`;
    ///     nil for a live league.
    ///   - startingCash: $100,000.00 when nil.
    public func createLeague(name: String, visibility: String = "private", replayStart: String? = nil,
                             startingCash: Decimal? = nil) async throws -> League {
        try await requireSession()
        guard let visibility = Components.Schemas.CreateLeagueRequest.VisibilityPayload(rawValue: visibility) else {
            throw BullpenError.api(status: 400, code: .validationFailed, message: "visibility must be public or private",
                                   retryAfter: nil)
        }
        let clock = replayStart.map { Components.Schemas.LeagueClockRequest(mode: .replay, start: $0) }
        let body = Components.Schemas.CreateLeagueRequest(name: name, visibility: visibility,
                                                          startingCash: startingCash.map(Money.request), clock: clock)
        return try await bullpenCall { try League(try await api.createLeague(body: .json(body)).created.body.json) }
    }

    /// Joins a private league by its code, or a public one by its id.
    public func joinLeague(code: String? = nil, leagueID: String? = nil) async throws -> League {
        try await requireSession()
        return try await bullpenCall { try League(try await api.joinLeague(body: .json(.init(code: code, leagueId: leagueID))).created.body.json) }
    }

    /// A league's standings, ranked by `metric` (the league's own when nil).
    public func leaderboard(league leagueID: String, metric: LeaderboardMetric? = nil) async throws -> Leaderboard {
        try await requireSession()
        return try await bullpenCall {
            try Leaderboard(try await api.leagueLeaderboard(path: .init(leagueId: leagueID),
                                                            query: .init(metric: metric.flatMap { .init(rawValue: $0.rawValue) })).ok.body.json)
        }
    }
}

extension OrderRequest {
    /// The order as the contract's request body.
    var wire: Components.Schemas.PlaceOrderRequest {
        Components.Schemas.PlaceOrderRequest(
            symbol: symbol, side: side == .buy ? .buy : .sell, quantity: notional == nil ? quantity : nil,
            notional: notional.map(Money.request), _type: .init(rawValue: type.rawValue), clientOrderId: clientOrderId,
            timeInForce: timeInForce.flatMap { .init(rawValue: $0.rawValue) },
            limitPrice: limitPrice.map(Money.request), stopPrice: stopPrice.map(Money.request),
            trailPrice: trailPrice.map(Money.request), trailPercent: trailPercent.map(Money.request))
    }
}

/// Quotes asked for at once.
public struct QuoteList: Sendable, Hashable, Encodable {
    /// The quotes, in the order asked.
    public var quotes: [Quote]
    /// Symbols without a quote.
    public var unknown: [String]
    /// True on the demo exchange.
    public var simulated: Bool
}
