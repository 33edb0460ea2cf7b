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
            try await db.transaction { db in
                try await self.sql(db).insert(into: "users").model(row, with: Self.rowEncoder).run()
                try await self.sql(db).insert(into: "portfolios").model(portfolio, with: Self.rowEncoder).run()
            }
        } catch where Self.isConstraintFailure(error) {
            throw StoreError.usernameTaken
        }
        return row.record
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
        try await db.transaction { db in
            try await self.sql(db).update("users").set("password_hash", to: hash).where("id", .equal, user.uuid).run()
            let revoke = self.sql(db).update("sessions").set("revoked_at", to: now).set("revoke_reason", to: "password_changed")
                .where("user_id", .equal, user.uuid).where("revoked_at", .is, SQLLiteral.null)
            if let session { revoke.where("id", .notEqual, session.uuid) }
            try await revoke.run()
        }
    }
}
