import BullpenCore
import FluentKit
import FluentSQL
import Foundation

extension BullpenStore {
    /// The portfolio every new account starts with.
    public static let firstPortfolio = (name: "Main", startingCash: Money(dollars: 100_000))

    /// Creates an account and its first portfolio, "Main" with $100,000.00, in one transaction.
    /// - Throws: ``StoreError/usernameTaken`` when the name is taken in any letter case.
    public func createUser(username: String, usernameKey: String, passwordHash: String) async throws -> UserRecord {
        let now = time.now()
        let row = UserRow(id: ids.makeUUID(), username: username, usernameKey: usernameKey,
                          passwordHash: passwordHash, createdAt: now)
        let portfolio = try newPortfolioRow(owner: row.id, name: Self.firstPortfolio.name,
                                            startingCash: Self.firstPortfolio.startingCash, rules: .default, now: now)
        do {
            try await transaction { db in
                try await self.sql(db).insert(into: "users").model(row, with: Self.rowEncoder).run()
                try await self.sql(db).insert(into: "portfolios").model(portfolio, with: Self.rowEncoder).run()
                // A new player's guided first run starts with the account.
                try await self.sql(db).insert(into: "first_runs")
                    .model(FirstRunRow(id: self.ids.makeUUID(), userId: row.id, run: .started(at: now)), with: Self.rowEncoder).run()
            }
        } catch where Self.isConstraintFailure(error) {
            throw StoreError.usernameTaken
        }
        return row.record
    }

    /// Locks the player's row until the transaction ends, so that read-then-write changes of their
    /// things do not run side by side. On PostgreSQL only: SQLite's writes are one at a time already.
    func lockPlayer(_ user: UserID, on db: any Database) async throws {
        guard !backend.isSQLite else { return }
        try await sql(db).raw(#"SELECT "id" FROM "users" WHERE "id" = \#(bind: user.uuid) FOR UPDATE"#).run()
    }

    /// The account named `usernameKey` (lower-cased), if any.
    public func user(usernameKey: String) async throws -> UserRecord? {
        try await sql(db).select().column("*").from("users").where("username_key", .equal, usernameKey)
            .first(decoding: UserRow.self, with: Self.rowDecoder)?.record
    }

    public func user(id: UserID) async throws -> UserRecord? {
        try await sql(db).select().column("*").from("users").where("id", .equal, id.uuid)
            .first(decoding: UserRow.self, with: Self.rowDecoder)?.record
    }

    /// Replaces the password hash and ends every session of the account but `keeping`.
    public func updatePassword(of user: UserID, hash: String, keeping session: SessionID?) async throws {
        let now = time.now()
        try await transaction { db in
            try await self.sql(db).update("users").set("password_hash", to: hash).where("id", .equal, user.uuid).run()
            let revoke = self.sql(db).update("sessions").set("revoked_at", to: now).set("revoke_reason", to: "password_changed")
                .where("user_id", .equal, user.uuid).where("revoked_at", .is, SQLLiteral.null)
            if let session { revoke.where("id", .notEqual, session.uuid) }
            try await revoke.run()
            try await self.announce(.user(user, keeping: session), on: db)
        }
        sessions.forget(user: user, keeping: session)
    }

    /// Deletes the account and everything it owns.
    public func deleteUser(_ user: UserID) async throws {
        sessions.forget(user: user)
        defer { sessions.forget(user: user) }
        let owned = try await portfolioIDs(owner: user)
        try await transaction { db in
            let sql = self.sql(db)
            let portfolios = try await sql.select().column("id").from("portfolios").where("user_id", .equal, user.uuid)
                .all().map { try $0.decode(column: "id", as: UUID.self) }
            try await self.retireStandings(portfolios, on: db)
            try await self.deleteChildren(ofPortfolios: portfolios, on: db)
            let lists = try await sql.select().column("id").from("watchlists").where("user_id", .equal, user.uuid)
                .all().map { try $0.decode(column: "id", as: UUID.self) }
            if !lists.isEmpty { try await sql.delete(from: "watchlist_items").where("watchlist_id", .in, lists).run() }
            let sessions = try await sql.select().column("id").from("sessions").where("user_id", .equal, user.uuid)
                .all().map { try $0.decode(column: "id", as: UUID.self) }
            if !sessions.isEmpty { try await sql.delete(from: "refresh_tokens").where("session_id", .in, sessions).run() }
            try await self.handOverLeagues(of: user, on: db)
            for table in ["portfolios", "watchlists", "sessions", "idempotency_keys", "learn_progress", "first_runs"] {
                try await sql.delete(from: table).where("user_id", .equal, user.uuid).run()
            }
            try await sql.delete(from: "users").where("id", .equal, user.uuid).run()
            try await self.announce(.user(user, keeping: nil), on: db)
        }
        for id in owned { await ledger.drop(id) }
        await ledger.dropOwner(user)
    }
}
