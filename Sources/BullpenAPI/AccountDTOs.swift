import Foundation

/// `POST /api/v1/me/password`.
public struct ChangePasswordRequest: Codable, Sendable, Hashable, RequestBody {
    public enum CodingKeys: String, CodingKey, CaseIterable { case currentPassword, newPassword }

    public var currentPassword: String
    public var newPassword: String
    public init(currentPassword: String, newPassword: String) {
        self.currentPassword = currentPassword; self.newPassword = newPassword
    }
}

/// `DELETE /api/v1/me`: the password confirms.
public struct DeleteAccountRequest: Codable, Sendable, Hashable, RequestBody {
    public enum CodingKeys: String, CodingKey, CaseIterable { case password }

    public var password: String
    public init(password: String) { self.password = password }
}

/// A named watchlist.
public struct WatchlistDTO: Codable, Sendable, Hashable {
    public var id: String
    public var name: String
    public var symbols: [String]
    public var createdAt: Date
    public init(id: String, name: String, symbols: [String], createdAt: Date) {
        self.id = id; self.name = name; self.symbols = symbols; self.createdAt = createdAt
    }
}

/// `GET /api/v1/watchlists`.
public struct WatchlistList: Codable, Sendable, Hashable {
    public var watchlists: [WatchlistDTO]
    public init(watchlists: [WatchlistDTO]) { self.watchlists = watchlists }
}

/// `POST /api/v1/watchlists`.
public struct CreateWatchlistRequest: Codable, Sendable, Hashable, RequestBody {
    public enum CodingKeys: String, CodingKey, CaseIterable { case name }

    public var name: String
    public init(name: String) { self.name = name }
}

/// One point of a portfolio's equity curve, with the benchmark scaled to the same start.
public struct EquityPointDTO: Codable, Sendable, Hashable {
    public var date: String
    public var equity: String
    public var benchmark: String?
    public init(date: String, equity: String, benchmark: String?) {
        self.date = date; self.equity = equity; self.benchmark = benchmark
    }
}

/// `GET /api/v1/portfolios/{id}/history`.
public struct EquityHistoryDTO: Codable, Sendable, Hashable {
    public var startingCash: String
    public var benchmark: String
    public var points: [EquityPointDTO]
    public init(startingCash: String, benchmark: String, points: [EquityPointDTO]) {
        self.startingCash = startingCash; self.benchmark = benchmark; self.points = points
    }
}
