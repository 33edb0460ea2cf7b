import BullpenCore
import FluentKit
import FluentSQL
import Foundation

extension BullpenStore {
    /// Starts a session (a refresh-token family) whose first refresh token hashes to `refreshTokenHash`.
    public func createSession(for user: UserID, refreshTokenHash: String) async throws -> SessionID {
        let now = time.now()
        let session = SessionRow(id: ids.makeUUID(), userId: user.uuid, createdAt: now, lastUsedAt: now)
        let token = RefreshTokenRow(id: ids.makeUUID(), sessionId: session.id, tokenHash: refreshTokenHash, createdAt: now)
        try await transaction { db in
            try await self.sql(db).insert(into: "sessions").model(session, with: Self.rowEncoder).run()
            try await self.sql(db).insert(into: "refresh_tokens").model(token, with: Self.rowEncoder).run()
        }
        return SessionID(session.id)
    }

    /// Exchanges a refresh token for the next one of its family.
    ///
    /// A token can be exchanged once. Presenting one that was already exchanged means it leaked
    /// (or a client raced itself): the whole family is revoked and ``StoreError/refreshTokenReused``
    /// thrown, so neither holder can go on.
    public func rotateRefreshToken(presentedHash: String, newHash: String) async throws -> (user: UserID, session: SessionID) {
        enum Outcome: Sendable { case rotated(UserID, SessionID), reused(SessionID), invalid }
        let now = time.now()
        let outcome: Outcome = try await transaction { db in
            let sql = self.sql(db)
            guard let token = try await sql.select().column("*").from("refresh_tokens")
                .where("token_hash", .equal, presentedHash)
                .first(decoding: RefreshTokenRow.self, with: Self.rowDecoder),
                let session = try await sql.select().column("*").from("sessions").where("id", .equal, token.sessionId)
                .first(decoding: SessionRow.self, with: Self.rowDecoder),
                session.revokedAt == nil
            else { return .invalid }
            guard token.replacedAt == nil else {
                try await sql.update("sessions").set("revoked_at", to: now).set("revoke_reason", to: "refresh_token_reused")
                    .where("id", .equal, session.id).run()
                try await self.announce(.session(SessionID(session.id)), on: db)
                return .reused(SessionID(session.id))
            }
            // The guard on replaced_at makes two concurrent exchanges of one token yield one winner.
            let claimed = try await sql.update("refresh_tokens").set("replaced_at", to: now)
                .where("id", .equal, token.id).where("replaced_at", .is, SQLLiteral.null)
                .returning("id").all()
            guard !claimed.isEmpty else { throw VersionConflict() }
            let next = RefreshTokenRow(id: self.ids.makeUUID(), sessionId: session.id, tokenHash: newHash, createdAt: now)
            try await sql.insert(into: "refresh_tokens").model(next, with: Self.rowEncoder).run()
            try await sql.update("sessions").set("last_used_at", to: now).where("id", .equal, session.id).run()
            return .rotated(UserID(session.userId), SessionID(session.id))
        }
        switch outcome {
        case .rotated(let user, let session): return (user, session)
        case .reused(let session):
            sessions.forget(session)
            throw StoreError.refreshTokenReused
        case .invalid: throw StoreError.invalidRefreshToken
        }
    }

    /// The owner of `session` if it is still active (not revoked).
    /// Answered from memory when the session was seen active lately (see ``SessionCache``).
    public func activeSessionOwner(_ session: SessionID) async throws -> UserID? {
        if let user = sessions.owner(of: session) { return user }
        revocations?.start()
        let user = try await sql(db).select().column("*").from("sessions").where("id", .equal, session.uuid)
            .where("revoked_at", .is, SQLLiteral.null)
            .first(decoding: SessionRow.self, with: Self.rowDecoder).map { UserID($0.userId) }
        if let user { sessions.remember(session, user: user) }
        return user
    }

    /// Ends a session: its refresh tokens and access tokens stop working.
    public func revokeSession(_ session: SessionID, reason: String) async throws {
        sessions.forget(session)
        defer { sessions.forget(session) }
        let now = time.now()
        try await transaction { db in
            try await self.sql(db).update("sessions").set("revoked_at", to: now).set("revoke_reason", to: reason)
                .where("id", .equal, session.uuid).where("revoked_at", .is, SQLLiteral.null).run()
            try await self.announce(.session(session), on: db)
        }
    }
}
