import BullpenAPI
import BullpenCore
import BullpenTestSupport
import Foundation
import NIOHTTP1
import NIOPosix
import Synchronization
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
            let after = try await server.send(.POST, "/api/v1/auth/refresh", json: RefreshRequest(refreshToken: try #require(rotated.refreshToken)))
            #expect(after.status == 401)
            #expect(try await server.send(.GET, "/api/v1/me", token: rotated.accessToken).status == 401)
        }
    }

    /// The web app's way: with `X-Refresh-Cookie: 1` the refresh token is never in a body a script
    /// could read, only in an HttpOnly, SameSite=Strict cookie scoped to the auth routes; refresh
    /// reads and rotates it (a replayed old cookie ends the session); logout clears it.
    @Test func theRefreshTokenCanLiveInAnHttpOnlyCookieOnly() async throws {
        try await withServer { server in
            let cookieHeader = [("X-Refresh-Cookie", "1")]
            let registered = try await server.send(.POST, "/api/v1/auth/register", json: Credentials(username: "cora", password: "a long enough passphrase"),
                                                   headers: cookieHeader)
            #expect(registered.status == 201)
            #expect(try registered.decode(AuthResponse.self).tokens.refreshToken == nil)
            #expect(!registered.text.contains("refreshToken"))
            func cookie(_ reply: TestServer.Reply) throws -> (value: String, attributes: String) {
                let header = try #require(reply.headers.first(name: "Set-Cookie"))
                let pair = try #require(header.split(separator: ";").first)
                #expect(pair.hasPrefix("bullpen_refresh="))
                return (String(pair.dropFirst("bullpen_refresh=".count)), header)
            }
            let first = try cookie(registered)
            for attribute in ["HttpOnly", "SameSite=Strict", "Path=/api/v1/auth", "Max-Age=2592000"] {
                #expect(first.attributes.contains(attribute), "\(first.attributes)")
            }
            #expect(!first.attributes.contains("Secure"), "not over TLS here")
            #expect(first.value.count >= 32)

            let login = try await server.send(.POST, "/api/v1/auth/login", json: Credentials(username: "cora", password: "a long enough passphrase"),
                                              headers: cookieHeader)
            #expect(login.status == 200)
            #expect(try login.decode(AuthResponse.self).tokens.refreshToken == nil)
            let session = try cookie(login)

            // Refresh with the cookie and no body: a new access token, a new cookie.
            let refreshed = try await server.send(.POST, "/api/v1/auth/refresh",
                                                  headers: cookieHeader + [("Cookie", "bullpen_refresh=\(session.value)")])
            #expect(refreshed.status == 200, "\(refreshed.text)")
            let tokens = try refreshed.decode(AuthResponse.self).tokens
            #expect(tokens.refreshToken == nil)
            let next = try cookie(refreshed)
            #expect(next.value != session.value)
            #expect(try await server.send(.GET, "/api/v1/me", token: tokens.accessToken).status == 200)
            // The old cookie again: reuse, the session ends.
            let replayed = try await server.send(.POST, "/api/v1/auth/refresh",
                                                 headers: cookieHeader + [("Cookie", "bullpen_refresh=\(session.value)")])
            #expect(replayed.status == 401 && replayed.errorCode == "refresh_token_reused")
            #expect(try await server.send(.GET, "/api/v1/me", token: tokens.accessToken).status == 401)

            // Without the cookie, or with another value of the header: refused, clearly.
            let none = try await server.send(.POST, "/api/v1/auth/refresh", headers: cookieHeader)
            #expect(none.status == 401 && none.errorCode == "invalid_refresh_token")
            let wrong = try await server.send(.POST, "/api/v1/auth/login", json: Credentials(username: "cora", password: "a long enough passphrase"),
                                              headers: [("X-Refresh-Cookie", "yes")])
            #expect(wrong.status == 400 && wrong.errorCode == "validation_failed")
            // Without the header, the token must come in the body (other clients' way); the cookie
            // alone is not enough.
            let bare = try await server.send(.POST, "/api/v1/auth/refresh", headers: [("Cookie", "bullpen_refresh=\(next.value)")])
            #expect(bare.status == 401 && bare.errorCode == "invalid_refresh_token")

            // Logout clears the cookie.
            let again = try await server.send(.POST, "/api/v1/auth/login", json: Credentials(username: "cora", password: "a long enough passphrase"),
                                              headers: cookieHeader)
            let access = try again.decode(AuthResponse.self).tokens.accessToken
            let out = try await server.send(.POST, "/api/v1/auth/logout", token: access)
            #expect(out.status == 204)
            #expect(out.headers.first(name: "Set-Cookie")?.hasPrefix("bullpen_refresh=; Path=/api/v1/auth; Max-Age=0") == true)
        }
    }

    /// Throttle checks on one key take turns in the process (so that a flood waits in memory, not
    /// in database connections); checks on other keys do not wait for them.
    @Test func throttleChecksOnOneKeyTakeTurns() async throws {
        actor Overlap {
            var now = 0, most = 0, done = 0
            func enter() { now += 1; most = max(most, now) }
            func leave() { now -= 1; done += 1 }
        }
        let turns = KeyTurns(), overlap = Overlap()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<8 {
                group.addTask {
                    try await turns.inTurn(for: ["address:10.0.0.1", "account:u\(i)"]) {
                        await overlap.enter()
                        try await Task.sleep(for: .milliseconds(20))
                        await overlap.leave()
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(await overlap.most == 1)
        #expect(await overlap.done == 8)
        // Disjoint keys: side by side (each waits until all four are inside, which would never
        // happen if they took turns; the wait is bounded so that a failure does not hang).
        let side = Overlap()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<4 {
                group.addTask {
                    try await turns.inTurn(for: ["address:10.0.1.\(i)"]) {
                        await side.enter()
                        let deadline = ContinuousClock.now + .seconds(20)
                        while await side.most < 4 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
                        await side.leave()
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(await side.most == 4)
    }

    /// Browsers may call the API cross-origin only from the listed origins.
    @Test func corsAnswersOnlyTheListedOrigins() async throws {
        try await withServer(configure: { $0.allowedOrigins = ["https://app.example.com"] }) { server in
            let preflight = [("Origin", "https://app.example.com"), ("Access-Control-Request-Method", "POST"),
                             ("Access-Control-Request-Headers", "authorization, content-type, idempotency-key")]
            let allowed = try await server.send(.OPTIONS, "/api/v1/portfolios/\(UUID())/orders", headers: preflight)
            #expect(allowed.status == 204)
            #expect(allowed.headers.first(name: "Access-Control-Allow-Origin") == "https://app.example.com")
            #expect(allowed.headers.first(name: "Access-Control-Allow-Headers")?.contains("Idempotency-Key") == true)
            #expect(allowed.headers.first(name: "Access-Control-Allow-Credentials") == nil)

            let elsewhere = [("Origin", "https://evil.example.net"), ("Access-Control-Request-Method", "POST")]
            let refused = try await server.send(.OPTIONS, "/api/v1/auth/login", headers: elsewhere)
            #expect(refused.status == 403 && refused.errorCode == "origin_not_allowed")
            #expect(refused.headers.first(name: "Access-Control-Allow-Origin") == nil)

            let player = try await server.register()
            let read = try await server.send(.GET, "/api/v1/me", token: player.accessToken, headers: [("Origin", "https://app.example.com")])
            #expect(read.status == 200 && read.headers.first(name: "Access-Control-Allow-Origin") == "https://app.example.com")
            #expect(read.headers.first(name: "Access-Control-Expose-Headers")?.contains("Retry-After") == true)
            let other = try await server.send(.GET, "/api/v1/me", token: player.accessToken, headers: [("Origin", "https://evil.example.net")])
            #expect(other.headers.first(name: "Access-Control-Allow-Origin") == nil)
            // An OPTIONS that is not a preflight is still the 405 it always was.
            #expect(try await server.send(.OPTIONS, "/api/v1/auth/login").status == 405)
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
