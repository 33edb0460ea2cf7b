import BullpenCore
import FluentKit
import FluentSQL
import Foundation

struct WatchlistRow: Codable, Sendable {
    var id: UUID
    var userId: UUID
    var name: String
    var nameKey: String
    var createdAt: Date
}

struct WatchlistItemRow: Codable, Sendable {
    var id: UUID
    var watchlistId: UUID
    var symbol: String
    var addedAt: Date
}

extension BullpenStore {
    public static let maxWatchlistsPerUser = 20
    public static let maxSymbolsPerWatchlist = 200

    /// The user's watchlists, oldest first, each with its symbols in the order they were added.
    public func watchlists(owner: UserID) async throws -> [WatchlistRecord] {
        let sql = try sql(db)
        let lists = try await sql.select().column("*").from("watchlists").where("user_id", .equal, owner.uuid)
            .orderBy("created_at").orderBy("name_key").all(decoding: WatchlistRow.self, with: Self.rowDecoder)
        guard !lists.isEmpty else { return [] }
        let items = try await sql.select().column("*").from("watchlist_items")
            .where("watchlist_id", .in, lists.map(\.id)).orderBy("added_at").orderBy("symbol")
            .all(decoding: WatchlistItemRow.self, with: Self.rowDecoder)
        let grouped = Dictionary(grouping: items, by: \.watchlistId)
        return try lists.map { list in
            let symbols = try (grouped[list.id] ?? []).map { item in
                try StoreError.decoding("watchlist_items", item.id) { Symbol(item.symbol) }
            }
            return WatchlistRecord(id: list.id, name: list.name, symbols: symbols, createdAt: list.createdAt)
        }
    }

    public func watchlist(_ id: UUID, owner: UserID) async throws -> WatchlistRecord {
        guard let list = try await watchlists(owner: owner).first(where: { $0.id == id }) else {
            throw StoreError.notFound("Watchlist")
        }
        return list
    }

    /// Creates a watchlist; names are unique per user, ignoring case.
    public func createWatchlist(owner: UserID, name: String) async throws -> WatchlistRecord {
        let row = WatchlistRow(id: ids.makeUUID(), userId: owner.uuid, name: name, nameKey: name.lowercased(), createdAt: time.now())
        do {
            try await transaction { db in
                let count = try await self.sql(db).select().column(SQLFunction("COUNT", args: SQLLiteral.all), as: "n")
                    .from("watchlists").where("user_id", .equal, owner.uuid).first()?.decode(column: "n", as: Int.self) ?? 0
                guard count < Self.maxWatchlistsPerUser else { throw StoreError.tooManyWatchlists(limit: Self.maxWatchlistsPerUser) }
                try await self.sql(db).insert(into: "watchlists").model(row, with: Self.rowEncoder).run()
            }
        } catch where Self.isConstraintFailure(error) {
            throw StoreError.watchlistNameTaken
        }
        return WatchlistRecord(id: row.id, name: name, symbols: [], createdAt: row.createdAt)
    }

    /// Deletes a watchlist.
    public func deleteWatchlist(_ id: UUID, owner: UserID) async throws {
        _ = try await watchlist(id, owner: owner)
        try await transaction { db in
            try await self.sql(db).delete(from: "watchlist_items").where("watchlist_id", .equal, id).run()
            try await self.sql(db).delete(from: "watchlists").where("id", .equal, id).run()
        }
    }

    /// Adds a symbol (adding one already there changes nothing).
    public func addToWatchlist(_ id: UUID, symbol: Symbol, owner: UserID) async throws -> WatchlistRecord {
        let list = try await watchlist(id, owner: owner)
        if list.symbols.contains(symbol) { return list }
        guard list.symbols.count < Self.maxSymbolsPerWatchlist else {
            throw StoreError.watchlistFull(limit: Self.maxSymbolsPerWatchlist)
        }
        let item = WatchlistItemRow(id: ids.makeUUID(), watchlistId: id, symbol: symbol.rawValue, addedAt: time.now())
        do {
            try await sql(writer).insert(into: "watchlist_items").model(item, with: Self.rowEncoder).run()
        } catch where Self.isConstraintFailure(error) {}   // added meanwhile by another request
        return try await watchlist(id, owner: owner)
    }

    /// Removes a symbol (removing one that is not there changes nothing).
    public func removeFromWatchlist(_ id: UUID, symbol: Symbol, owner: UserID) async throws -> WatchlistRecord {
        _ = try await watchlist(id, owner: owner)
        try await sql(writer).delete(from: "watchlist_items").where("watchlist_id", .equal, id)
            .where("symbol", .equal, symbol.rawValue).run()
        return try await watchlist(id, owner: owner)
    }

    /// Renames a watchlist and/or sets its symbols (in the order given, duplicates once), in one
    /// transaction; nil leaves that part as it is.
    public func replaceWatchlist(_ id: UUID, name: String?, symbols: [Symbol]?, owner: UserID) async throws -> WatchlistRecord {
        var unique: [Symbol] = []
        for symbol in symbols ?? [] where !unique.contains(symbol) { unique.append(symbol) }
        guard unique.count <= Self.maxSymbolsPerWatchlist else { throw StoreError.watchlistFull(limit: Self.maxSymbolsPerWatchlist) }
        let start = time.now()
        let items = unique.enumerated().map { index, symbol in
            WatchlistItemRow(id: ids.makeUUID(), watchlistId: id, symbol: symbol.rawValue, addedAt: start.addingTimeInterval(Double(index) / 1000))
        }
        do {
            try await transaction { db in
                let sql = self.sql(db)
                // Theirs, and still there: checked in the transaction that changes it.
                guard try await sql.select().column("id").from("watchlists").where("id", .equal, id)
                    .where("user_id", .equal, owner.uuid).first() != nil else { throw StoreError.notFound("Watchlist") }
                if let name {
                    try await sql.update("watchlists").set("name", to: name).set("name_key", to: name.lowercased()).where("id", .equal, id).run()
                }
                if symbols != nil {
                    try await sql.delete(from: "watchlist_items").where("watchlist_id", .equal, id).run()
                    for item in items { try await sql.insert(into: "watchlist_items").model(item, with: Self.rowEncoder).run() }
                }
            }
        } catch where name != nil && Self.isConstraintFailure(error) {
            throw StoreError.watchlistNameTaken
        }
        return try await watchlist(id, owner: owner)
    }
}
