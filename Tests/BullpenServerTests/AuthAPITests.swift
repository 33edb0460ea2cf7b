import BullpenAPI
import BullpenCore
import BullpenTestSupport
import Foundation
import NIOHTTP1
import NIOPosix
import Testing
@testable import BullpenServer

@Suite("Accounts and sessions over HTTP")
struct AuthAPITests {
    @Test func registeringReturnsTokensAndAMainPortfolio() async throws {
        try await withServer { server in
            let reply = try await server.send(.POST, "/api/v1/auth/register",
                                              json: Credentials(username: "Alice", password: "a long enough passphrase"))
            #expect(reply.status == 201)
            let auth = try reply.decode(AuthResponse.self)
            #expect(auth.user.username == "Alice")
            #expect(auth.tokens.tokenType == "Bearer" && auth.tokens.expiresIn == 900)
            let me = try await server.send(.GET, "/api/v1/me", token: auth.tokens.accessToken).decode(UserDTO.self)
            #expect(me.id == auth.user.id)
            let portfolios = try await server.send(.GET, "/api/v1/portfolios", token: auth.tokens.accessToken).decode(PortfolioList.self)
            #expect(portfolios.portfolios.map(\.name) == ["Main"])
            #expect(portfolios.portfolios[0].cash == "100000.00")
        }
    }

    @Test func takenNamesWeakPasswordsAndBadNamesAreRefusedWithCodes() async throws {
        try await withServer { server in
            _ = try await server.register("alice")
            let taken = try await server.send(.POST, "/api/v1/auth/register", json: Credentials(username: "ALICE", password: "another fine passphrase"))
            #expect(taken.status == 409 && taken.errorCode == "username_taken")
            let weak = try await server.send(.POST, "/api/v1/auth/register", json: Credentials(username: "bob", password: "password1"))
            #expect(weak.status == 422 && weak.errorCode == "weak_password")
            let short = try await server.send(.POST, "/api/v1/auth/register", json: Credentials(username: "bob", password: "short"))
            #expect(short.status == 422 && short.errorCode == "weak_password")
            let badName = try await server.send(.POST, "/api/v1/auth/register", json: Credentials(username: "b", password: "a long enough passphrase"))
            #expect(badName.status == 422 && badName.errorCode == "invalid_username")
            let missing = try await server.send(.POST, "/api/v1/auth/register", body: #"{"username":"carol"}"#)
            #expect(missing.status == 400 && missing.errorCode == "validation_failed")
            #expect(try missing.decode(ErrorEnvelope.self).error.message.contains("password"))
        }
    }

    @Test func loginChecksThePasswordAndUsernamesIgnoreCase() async throws {
        try await withServer { server in
            let player = try await server.register("Dana")
            let wrong = try await server.send(.POST, "/api/v1/auth/login", json: Credentials(username: "dana", password: "not the passphrase"))
            #expect(wrong.status == 401 && wrong.errorCode == "invalid_credentials")
            let unknown = try await server.send(.POST, "/api/v1/auth/login", json: Credentials(username: "nobody", password: "whatever it is"))
            #expect(unknown.status == 401 && unknown.errorCode == "invalid_credentials")
            let right = try await server.send(.POST, "/api/v1/auth/login", json: Credentials(username: "DANA", password: player.password))
            #expect(right.status == 200)
            #expect(try right.decode(AuthResponse.self).user.id == player.id)
        }
    }

    @Test func passwordsLongerThanBcryptsLimitAreNotTruncated() async throws {
        try await withServer { server in
            let prefix = String(repeating: "x", count: 72)
            let player = try await server.register("erin", password: prefix + "-the-real-ending")
            let imposter = try await server.send(.POST, "/api/v1/auth/login", json: Credentials(username: "erin", password: prefix + "-another-ending"))
            #expect(imposter.status == 401)
            let real = try await server.send(.POST, "/api/v1/auth/login", json: Credentials(username: "erin", password: player.password))
            #expect(real.status == 200)
        }
    }

    @Test func repeatedFailedLoginsAreThrottledPerAccountAndAddress() async throws {
        try await withServer(configure: { $0.loginFailuresPerPair = 3 }) { server in
            let player = try await server.register("frank")
            for _ in 0..<3 {
                let reply = try await server.send(.POST, "/api/v1/auth/login", json: Credentials(username: "frank", password: "wrong password!"))
                #expect(reply.status == 401)
            }
            let blocked = try await server.send(.POST, "/api/v1/auth/login", json: Credentials(username: "frank", password: player.password))
            #expect(blocked.status == 429 && blocked.errorCode == "too_many_attempts")
            let retryAfter = try #require(blocked.headers.first(name: "Retry-After").flatMap(Int.init))
            #expect(retryAfter > 0 && retryAfter <= 900)
        }
    }

    @Test func repeatedFailedLoginsAreThrottledPerAddress() async throws {
        // Time stands still: the growing delay that starts at the limit is still running.
        try await withServer(time: FixedTimeSource(Date()), configure: { $0.loginFailuresPerAddress = 4 }) { server in
            let player = try await server.register("gina")
            for i in 0..<4 {
                _ = try await server.send(.POST, "/api/v1/auth/login", json: Credentials(username: "someone\(i)", password: "wrong password!"))
            }
            let blocked = try await server.send(.POST, "/api/v1/auth/login", json: Credentials(username: "gina", password: player.password))
            #expect(blocked.status == 429)
            #expect(blocked.headers.first(name: "Retry-After") != nil)
        }
    }

    @Test func refreshRotatesAndReuseEndsTheSession() async throws {
        try await withServer { server in
            let player = try await server.register()
            let first = try await server.send(.POST, "/api/v1/auth/refresh", json: RefreshRequest(refreshToken: player.refreshToken))
            #expect(first.status == 200)
            let rotated = try first.decode(AuthResponse.self).tokens
            #expect(rotated.refreshToken != player.refreshToken)
            #expect(try await server.send(.GET, "/api/v1/me", token: rotated.accessToken).status == 200)

            let replay = try await server.send(.POST, "/api/v1/auth/refresh", json: RefreshRequest(refreshToken: player.refreshToken))
            #expect(replay.status == 401 && replay.errorCode == "refresh_token_reused")
            // The whole family is gone: the rotated tokens no longer work either.
            let after = try await server.send(.POST, "/api/v1/auth/refresh", json: RefreshRequest(refreshToken: rotated.refreshToken))
            #expect(after.status == 401)
            #expect(try await server.send(.GET, "/api/v1/me", token: rotated.accessToken).status == 401)
        }
    }

    @Test func logoutEndsTheSessionForAccessAndRefreshTokens() async throws {
        try await withServer { server in
            let player = try await server.register()
            #expect(try await server.send(.POST, "/api/v1/auth/logout", token: player.accessToken).status == 204)
            let me = try await server.send(.GET, "/api/v1/me", token: player.accessToken)
            #expect(me.status == 401 && me.errorCode == "unauthorized")
            let refresh = try await server.send(.POST, "/api/v1/auth/refresh", json: RefreshRequest(refreshToken: player.refreshToken))
            #expect(refresh.status == 401)
        }
    }

    @Test func accessTokensExpireAfterFifteenMinutes() async throws {
        let clock = FixedTimeSource(Date())
        try await withServer(time: clock) { server in
            let player = try await server.register()
            clock.advance(by: 14 * 60)
            #expect(try await server.send(.GET, "/api/v1/me", token: player.accessToken).status == 200)
            clock.advance(by: 2 * 60)
            #expect(try await server.send(.GET, "/api/v1/me", token: player.accessToken).status == 401)
        }
    }

    @Test func forgedAndMalformedTokensAreRefused() async throws {
        try await withServer { server in
            let player = try await server.register()
            let parts = player.accessToken.split(separator: ".").map(String.init)
            let noneHeader = AccessTokens.base64URL(Data(#"{"alg":"none","typ":"JWT"}"#.utf8))
            let candidates = [
                noneHeader + "." + parts[1] + ".",                                  // alg none
                parts[0] + "." + parts[1] + "." + String(parts[2].reversed()),    // bad signature
                "not-a-token",
                "",
            ]
            for token in candidates {
                let reply = try await server.send(.GET, "/api/v1/me", token: token)
                #expect(reply.status == 401, "token \(token) was accepted")
            }
            let other = AccessTokens(secret: Data(repeating: 7, count: 48), time: SystemTimeSource())
            let forged = other.issue(user: UserID(player.id)!, session: SessionID(UUID()))
            #expect(try await server.send(.GET, "/api/v1/me", token: forged).status == 401)
            #expect(try await server.send(.GET, "/api/v1/me").status == 401)
        }
    }

    @Test func passwordsAreHashedWithBcryptAtCostTwelveByDefault() async throws {
        #expect(ServerConfiguration().bcryptCost == 12)
        let hasher = PasswordHasher(cost: 12, threadPool: .singleton)
        let hash = try await hasher.hash("a long enough passphrase")
        #expect(hash.hasPrefix("bcrypt-sha256$$2b$12$"))
        #expect(try await hasher.verify("a long enough passphrase", against: hash))
        #expect(try await !hasher.verify("a long enough passphrasE", against: hash))
    }
}
