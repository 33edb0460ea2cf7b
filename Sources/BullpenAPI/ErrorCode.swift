/// Every error code the API answers, each with the one HTTP status it always has. The wire form
/// is the raw value; `openapi.yaml` lists the same codes (the contract test checks both ways).
public enum ErrorCode: String, Sendable, CaseIterable, Codable {
    // 400: the request is malformed.
    case invalidJSON = "invalid_json"
    case validationFailed = "validation_failed"
    case unknownParameter = "unknown_parameter"
    case invalidCursor = "invalid_cursor"
    case invalidDates = "invalid_dates"
    case invalidRange = "invalid_range"
    case invalidInterval = "invalid_interval"
    case invalidList = "invalid_list"
    case invalidSort = "invalid_sort"
    case badRequest = "bad_request"
    case invalidAdvance = "invalid_advance"
    case invalidMetric = "invalid_metric"
    // 401, 403: who is asking.
    case unauthorized
    case invalidCredentials = "invalid_credentials"
    case invalidRefreshToken = "invalid_refresh_token"
    case refreshTokenReused = "refresh_token_reused"
    case wrongPassword = "wrong_password"
    case originNotAllowed = "origin_not_allowed"
    case notLeagueOwner = "not_league_owner"
    case kickedFromLeague = "kicked_from_league"
    case keyReadOnly = "key_read_only"
    // 404: nothing there.
    case notFound = "not_found"
    case unknownSymbol = "unknown_symbol"
    case unknownBenchmark = "unknown_benchmark"
    case unknownScenario = "unknown_scenario"
    case invalidJoinCode = "invalid_join_code"
    case notMember = "not_member"
    // 405, 408, 413, 415, 426.
    case methodNotAllowed = "method_not_allowed"
    case payloadTooLarge = "payload_too_large"
    case unsupportedMediaType = "unsupported_media_type"
    case upgradeRequired = "upgrade_required"
    case requestTimeout = "request_timeout"
    // 409: the state of things says no.
    case usernameTaken = "username_taken"
    case portfolioNameTaken = "portfolio_name_taken"
    case tooManyPortfolios = "too_many_portfolios"
    case duplicateClientOrderID = "duplicate_client_order_id"
    case idempotencyKeyReused = "idempotency_key_reused"
    case watchlistNameTaken = "watchlist_name_taken"
    case tooManyWatchlists = "too_many_watchlists"
    case watchlistFull = "watchlist_full"
    case tooManyAlerts = "too_many_alerts"
    case tooManyKeys = "too_many_keys"
    case topUpNotAvailable = "top_up_not_available"
    case portfolioChanged = "portfolio_changed"
    case notReplay = "not_replay"
    case replayEnded = "replay_ended"
    case endOfData = "end_of_data"
    case reportNotReady = "report_not_ready"
    case portfolioClosed = "portfolio_closed"
    case leagueStarted = "league_started"
    case leagueNotStarted = "league_not_started"
    case leagueEnded = "league_ended"
    case alreadyMember = "already_member"
    case lateJoinClosed = "late_join_closed"
    case ownerMustStay = "owner_must_stay"
    case leagueClock = "league_clock"
    case leaguePortfolio = "league_portfolio"
    case marketClosed = "market_closed"
    case orderNotOpen = "order_not_open"
    case firstRunNotActive = "first_run_not_active"
    case firstRunStepOutOfOrder = "first_run_step_out_of_order"
    // 422: well-formed, but the rules say no.
    case invalidUsername = "invalid_username"
    case weakPassword = "weak_password"
    case invalidName = "invalid_name"
    case invalidStartingCash = "invalid_starting_cash"
    case noPrice = "no_price"
    case notTrading = "not_trading"
    case insufficientFunds = "insufficient_funds"
    case insufficientShares = "insufficient_shares"
    case quantityOutOfRange = "quantity_out_of_range"
    case tooManyHoldings = "too_many_holdings"
    case instrumentNotAllowed = "instrument_not_allowed"
    case notListedYet = "not_listed_yet"
    case invalidReplayStart = "invalid_replay_start"
    case positionLimit = "position_limit"
    case belowMinimumPrice = "below_minimum_price"
    case insufficientContracts = "insufficient_contracts"
    case optionExpired = "option_expired"
    case outOfTheMoney = "out_of_the_money"
    case invalidExpiration = "invalid_expiration"
    case contractNotListed = "contract_not_listed"
    case optionWritingNotAllowed = "option_writing_not_allowed"
    case optionNotCovered = "option_not_covered"
    case sharesCommitted = "shares_committed"
    case newOwnerNotMember = "new_owner_not_member"
    case orderTypeNotAvailable = "order_type_not_available"
    case insufficientMargin = "insufficient_margin"
    case optionsWhileShort = "options_while_short"
    case notSupported = "not_supported"
    case invalidImage = "invalid_image"
    case notYourself = "not_yourself"
    // 429: slow down.
    case tooManyAttempts = "too_many_attempts"
    case rateLimited = "rate_limited"
    case tooManyConnections = "too_many_connections"
    // 5xx: our side.
    case internalError = "internal_error"
    case corruptData = "corrupt_data"
    case marketDataUnavailable = "market_data_unavailable"
    case databaseUnavailable = "database_unavailable"
    case replayUnavailable = "replay_unavailable"
    case busy
    case shuttingDown = "shutting_down"

    /// The HTTP status this code always comes with.
    public var httpStatus: Int {
        switch self {
        case .invalidJSON, .validationFailed, .unknownParameter, .invalidCursor, .invalidDates, .invalidRange,
             .invalidInterval, .invalidList, .invalidSort, .badRequest, .invalidAdvance, .invalidMetric: 400
        case .unauthorized, .invalidCredentials, .invalidRefreshToken, .refreshTokenReused: 401
        case .wrongPassword, .originNotAllowed, .notLeagueOwner, .kickedFromLeague, .keyReadOnly: 403
        case .notFound, .unknownSymbol, .unknownBenchmark, .unknownScenario, .invalidJoinCode, .notMember: 404
        case .methodNotAllowed: 405
        case .requestTimeout: 408
        case .usernameTaken, .portfolioNameTaken, .tooManyPortfolios, .duplicateClientOrderID, .idempotencyKeyReused,
             .watchlistNameTaken, .tooManyWatchlists, .watchlistFull, .tooManyAlerts, .tooManyKeys, .topUpNotAvailable, .portfolioChanged, .notReplay, .replayEnded,
             .endOfData, .reportNotReady, .portfolioClosed, .leagueStarted, .leagueNotStarted, .leagueEnded, .alreadyMember,
             .lateJoinClosed, .ownerMustStay, .leagueClock, .leaguePortfolio, .marketClosed, .orderNotOpen,
             .firstRunNotActive, .firstRunStepOutOfOrder: 409
        case .payloadTooLarge: 413
        case .unsupportedMediaType: 415
        case .upgradeRequired: 426
        case .invalidUsername, .weakPassword, .invalidName, .invalidStartingCash, .noPrice, .notTrading,
             .insufficientFunds, .insufficientShares, .quantityOutOfRange, .tooManyHoldings, .instrumentNotAllowed,
             .notListedYet, .invalidReplayStart, .positionLimit, .belowMinimumPrice, .insufficientContracts, .optionExpired,
             .outOfTheMoney, .invalidExpiration, .contractNotListed, .optionWritingNotAllowed, .optionNotCovered,
             .sharesCommitted, .newOwnerNotMember, .invalidImage, .notYourself, .orderTypeNotAvailable, .insufficientMargin, .optionsWhileShort, .notSupported: 422
        case .tooManyAttempts, .rateLimited, .tooManyConnections: 429
        case .internalError, .corruptData: 500
        case .marketDataUnavailable, .databaseUnavailable, .busy, .replayUnavailable, .shuttingDown: 503
        }
    }
}

/// A JSON request body whose accepted fields are exactly its coding keys: the server refuses any
/// other field, so nobody can slip `cash` into a rename.
public protocol RequestBody: Decodable {
    associatedtype CodingKeys: CodingKey & CaseIterable
    /// Whether numbers with a fraction (`1.5`) are taken: only Alpaca's bodies, whose clients send
    /// prices and quantities as JSON numbers; Bullpen's own take money as decimal strings.
    static var acceptsFractionalNumbers: Bool { get }
}

extension RequestBody {
    public static var acceptsFractionalNumbers: Bool { false }

    /// The field names this body accepts.
    public static var fieldNames: Set<String> { Set(CodingKeys.allCases.map { $0.stringValue }) }
}
