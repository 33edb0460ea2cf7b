import AsyncKit
import FluentKit
import Foundation
import FluentPostgresDriver

/// Errors of the persistence layer that a client can cause; the server maps them to HTTP.
public enum StoreError: Error, Sendable, Hashable {
    case usernameTaken
    case portfolioNameTaken
    case tooManyPortfolios(limit: Int)
    case notFound(String)
    case duplicateClientOrderID(String)
    case idempotencyKeyReused
    case invalidRefreshToken
    case refreshTokenReused
    case invalidCursor
    case watchlistNameTaken
    case tooManyWatchlists(limit: Int)
    case watchlistFull(limit: Int)
    case tooManyAlerts(limit: Int)
    case tooManyKeys(limit: Int)
    /// The portfolio changed between reading it and changing it (another request got there
    /// first); the caller may start over on the new state.
    case portfolioChanged
    /// A stored row does not decode: the database holds something this version cannot read.
    case corruptRow(table: String, id: String)
    /// The store is shut down or the database cannot be reached.
    case unavailable
    /// The database stayed too busy for a change to get through; safe to retry.
    case contention
    /// The replay was ended by its player: nothing more can be traded or advanced.
    case replayEnded
    /// Only a replay portfolio's clock can move.
    case notReplay
    /// The portfolio was closed (its player left a league, was removed, or the league was deleted): read-only.
    case portfolioClosed
    case leagueStarted
    case alreadyMember
    case kickedFromLeague
    case lateJoinClosed
    case ownerMustStay
    case notLeagueOwner
    case invalidJoinCode
    case leagueClock
    case leaguePortfolio
    case leagueOver
    case notMember
    /// Text with a NUL character (U+0000), which PostgreSQL's text cannot hold.
    case nulInText
    /// Cancelling or replacing an order that is no longer working (filled, cancelled, expired).
    case orderNotOpen(status: String)

    public var code: String {
        switch self {
        case .usernameTaken: "username_taken"
        case .portfolioNameTaken: "portfolio_name_taken"
        case .tooManyPortfolios: "too_many_portfolios"
        case .notFound: "not_found"
        case .duplicateClientOrderID: "duplicate_client_order_id"
        case .idempotencyKeyReused: "idempotency_key_reused"
        case .invalidRefreshToken: "invalid_refresh_token"
        case .refreshTokenReused: "refresh_token_reused"
        case .invalidCursor: "invalid_cursor"
        case .watchlistNameTaken: "watchlist_name_taken"
        case .tooManyWatchlists: "too_many_watchlists"
        case .watchlistFull: "watchlist_full"
        case .tooManyAlerts: "too_many_alerts"
        case .tooManyKeys: "too_many_keys"
        case .portfolioChanged: "portfolio_changed"
        case .corruptRow: "corrupt_data"
        case .contention: "busy"
        case .unavailable: "database_unavailable"
        case .replayEnded: "replay_ended"
        case .notReplay: "not_replay"
        case .portfolioClosed: "portfolio_closed"
        case .leagueStarted: "league_started"
        case .alreadyMember: "already_member"
        case .kickedFromLeague: "kicked_from_league"
        case .lateJoinClosed: "late_join_closed"
        case .ownerMustStay: "owner_must_stay"
        case .notLeagueOwner: "not_league_owner"
        case .invalidJoinCode: "invalid_join_code"
        case .leagueClock: "league_clock"
        case .leaguePortfolio: "league_portfolio"
        case .leagueOver: "league_ended"
        case .notMember: "not_member"
        case .nulInText: "validation_failed"
        case .orderNotOpen: "order_not_open"
        }
    }

    public var message: String {
        switch self {
        case .usernameTaken: "That username is taken."
        case .portfolioNameTaken: "You already have a portfolio with that name."
        case .tooManyPortfolios(let limit): "You can have at most \(limit) portfolios."
        case .notFound(let what): "\(what) was not found."
        case .duplicateClientOrderID(let id): "An order with clientOrderId '\(id)' already exists in this portfolio."
        case .idempotencyKeyReused: "This Idempotency-Key was already used with a different request."
        case .invalidRefreshToken: "The refresh token is not valid; log in again."
        case .refreshTokenReused: "This refresh token was already used; the session has been ended for safety. Log in again."
        case .invalidCursor: "The page cursor is not valid; start from the first page."
        case .watchlistNameTaken: "You already have a watchlist with that name."
        case .tooManyWatchlists(let limit): "You can have at most \(limit) watchlists."
        case .watchlistFull(let limit): "A watchlist holds at most \(limit) symbols."
        case .tooManyAlerts(let limit): "You have \(limit) price alerts, the most one player may keep: delete one first."
        case .tooManyKeys(let limit): "You have \(limit) API keys, the most one player may keep: revoke one first."
        case .portfolioChanged: "The portfolio changed while this request ran; try again."
        case .corruptRow(let table, let id): "A stored record (\(table) \(id)) could not be read. It has been logged."
        case .contention: "The server is busy; try again."
        case .unavailable: "The database is not reachable right now."
        case .replayEnded: "This replay has ended: see its report, or reset the portfolio to play it again from the start."
        case .notReplay: "This portfolio follows the live market; only replay portfolios can move through time."
        case .portfolioClosed: "This portfolio is closed (its league is over for you): it is kept read-only in your history."
        case .leagueStarted: "The league has started: its rules, cash, clock and dates are fixed now. Name and description can still change."
        case .alreadyMember: "You are already a member of this league."
        case .kickedFromLeague: "The owner removed you from this league; you can rejoin only once they allow it."
        case .lateJoinClosed: "This league has started and does not take late joiners."
        case .ownerMustStay: "The owner cannot leave the league: hand it over to another member first, or delete the league."
        case .notLeagueOwner: "Only the league's owner can do this."
        case .invalidJoinCode: "No league has this code. Codes are 8 letters and digits; ask the owner for a new one if it was regenerated."
        case .leagueClock: "This portfolio plays on its league's clock: only the league's owner (or its schedule) moves it."
        case .leaguePortfolio: "A league portfolio belongs to its league: it cannot be reset, deleted or shared; leave the league instead, and it is kept read-only."
        case .leagueOver: "The league has ended: its standings are final."
        case .notMember: "That player is not a member of this league."
        case .nulInText: "Text may not contain the NUL character (U+0000)."
        case .orderNotOpen(let status): "This order is no longer working (it is \(status.replacingOccurrences(of: "_", with: " "))): only open orders can be cancelled or changed."
        }
    }
}

extension StoreError {
    /// `value()`, or ``StoreError/corruptRow(table:id:)`` naming the row when it is nil or throws:
    /// a row that does not decode is an error, never a guess.
    static func decoding<T>(_ table: String, _ id: UUID, _ value: () throws -> T?) throws -> T {
        guard let decoded = try? value() else {
            throw StoreError.corruptRow(table: table, id: id.uuidString.lowercased())
        }
        return decoded
    }
}

extension StoreError {
    /// `error` as the store's own when it says the database cannot take the request now (its
    /// connection pool had no connection free in time, or the connection closed): 503 with a
    /// retry, never a 500. Nil for any other error.
    public static func overloaded(_ error: any Error) -> StoreError? {
        if error is ConnectionPoolTimeoutError { return .unavailable }
        if let error = error as? ConnectionPoolError, case .shutdown = error { return .unavailable }
        if let error = error as? any DatabaseError, error.isConnectionClosed { return .unavailable }
        return nil
    }

    /// `error` as ``nulInText`` when PostgreSQL refused a NUL character in text (SQLSTATE 22021,
    /// character not in repertoire): a client's input, 400, never a 500. Nil for any other error.
    public static func refusedText(_ error: any Error) -> StoreError? {
        if let error = error as? PSQLError, error.serverInfo?[.sqlState] == "22021" { return .nulInText }
        return nil
    }
}
