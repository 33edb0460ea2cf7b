import BullpenServer
import BullpenTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import OpenAPIRuntime
import OpenAPIURLSession
import Synchronization
import Testing
@testable import BullpenClient

@Suite("Swift SDK against the real server", .enabled(if: RealPack.available), .serialized)
struct BullpenClientTests {
    static let password = "a long enough passphrase"

    @Test func everyMethodWorksAgainstTheRealServer() async throws {
        try await withClientServer { server in
            let saved = Mutex<[String?]>([])
            let client = BullpenClient(server: server.url) { token in saved.withLock { $0.append(token) } }
            let name = uniqueName("sdk")
            let user = try await client.register(username: name, password: Self.password)
            #expect(user.username == name)
            #expect(try await client.me() == user)
            #expect(saved.withLock { $0.count } == 1)

            // Market: search, asset, bars, quotes, status.
            let status = try await client.marketStatus()
            #expect(status.source == "pack" && !status.simulated)
            let found = try await client.search("micro")
            #expect(found.first?.symbol == "MSFT")
            let apple = try await client.asset("AAPL")
            #expect(apple.name.contains("Apple") && apple.trading)
            let applePrice = try #require(apple.price)
            let year = try await client.bars("AAPL", range: .oneYear)
            #expect(year.bars.count > 200 && year.interval == "1d")
            #expect(year.bars.last?.close == applePrice)
            #expect(year.bars.allSatisfy { $0.low <= $0.open && $0.open <= $0.high && $0.low <= $0.close && $0.close <= $0.high })
            let past = try await client.bars("AAPL", range: .oneMonth, asOf: "2009-03-09")
            #expect(past.bars.last.map { $0.date <= "2009-03-09" } == true)
            let quotes = try await client.quotes(["AAPL", "MSFT", "NOPE"])
            #expect(quotes.quotes.map(\.symbol) == ["AAPL", "MSFT"])
            #expect(quotes.unknown == ["NOPE"])
            #expect(quotes.quotes[0].price == applePrice)

            // Portfolios and orders, money exact in Decimal.
            let main = try #require(try await client.portfolios().first)
            #expect(main.name == "Main" && main.cash == 100_000 && !main.isReplay)
            let preview = try await client.preview(.buy("AAPL", 10), in: main.id)
            #expect(preview.problems.isEmpty)
            #expect(preview.total == preview.price * 10 + preview.commission)
            let order = try await client.placeOrder(.buy("AAPL", 10), in: main.id)
            #expect(order.status == .filled && order.filledQuantity == 10)
            #expect(order.cashDelta == -preview.total)
            let after = try await client.portfolio(main.id)
            #expect(after.cash == 100_000 - preview.total)
            #expect(after.equity == after.cash + after.marketValue)
            let positions = try await client.positions(in: main.id)
            #expect(positions.map(\.symbol) == ["AAPL"] && positions[0].quantity == 10)
            #expect(positions[0].costBasis == preview.total && positions[0].averageCost * 10 == preview.total)

            // A working limit far below the price: listed open, then cancelled; a filled order cannot be.
            let limit = try await client.placeOrder(.buy("AAPL", 1, limit: 1), in: main.id)
            #expect(limit.status == .new && limit.type == .limit && limit.limitPrice == 1)
            #expect(try await client.orders(in: main.id, filter: .open).map(\.id) == [limit.id])
            let cancelled = try await client.cancelOrder(limit.id, in: main.id)
            #expect(cancelled.status == .canceled)
            #expect(try await client.order(limit.id, in: main.id).status == .canceled)
            await #expect(throws: BullpenError.self) { try await client.cancelOrder(order.id, in: main.id) }
            #expect(try await client.orders(in: main.id).count == 2)

            // History, as pages and as CSV.
            let page = try await client.activities(in: main.id)
            #expect(page.activities.contains { $0.type == "buy" && $0.symbol == "AAPL" && $0.quantity == 10 })
            let csv = try await client.activitiesCSV(in: main.id)
            #expect(csv.split(separator: "\n").count >= 2 && csv.contains("AAPL"))
            try await server.expectBalanced(portfolio: main.id, owner: user.id)

            // Replays: scenarios, a new replay, advancing it.
            let scenarios = try await client.scenarios()
            #expect(!scenarios.isEmpty)
            let replay = try await client.createReplay(name: "Crash", start: "2008-09")
            #expect(replay.isReplay && replay.date == "2008-09-02")
            let bought = try await client.placeOrder(.buy("MSFT", 20), in: replay.id)
            #expect(bought.status == .filled)
            let moved = try await client.advance(replay.id, days: 5)
            #expect(moved.days == 5 && moved.from == "2008-09-02" && moved.to == moved.portfolio.date)
            #expect(moved.equityAfter == moved.portfolio.equity && moved.change == moved.equityAfter - moved.equityBefore)
            let later = try await client.advance(replay.id, to: "2008-10-01")
            #expect(later.to == "2008-10-01")
            try await server.expectBalanced(portfolio: replay.id, owner: user.id)

            // Leagues and a leaderboard.
            #expect(try await client.leagues().isEmpty)
            let league = try await client.createLeague(name: uniqueName("League "), visibility: "public")
            #expect(league.isOwner && league.isMember)
            #expect(try await client.leagues().map(\.id) == [league.id])
            #expect(try await client.publicLeagues().contains { $0.id == league.id })
            let board = try await client.leaderboard(league: league.id)
            #expect(board.standings.map(\.username) == [name] && board.me?.isMe == true)
            #expect(board.standings[0].equity == 100_000)
            let rival = BullpenClient(server: server.url)
            let rivalName = uniqueName("rival")
            try await rival.register(username: rivalName, password: Self.password)
            let joined = try await rival.joinLeague(leagueID: league.id)
            #expect(joined.isMember && !joined.isOwner && joined.memberCount == 2 && joined.myPortfolioId != nil)
            #expect(Set(try await client.leaderboard(league: league.id, metric: .return).standings.map(\.username)) == [name, rivalName])

            // A second live portfolio, and a second device logging in to the same account.
            let growth = try await client.createPortfolio(name: "Growth", startingCash: Decimal(string: "5000.50")!)
            #expect(growth.name == "Growth" && growth.cash == Decimal(string: "5000.50")! && !growth.isReplay)
            #expect(try await client.portfolios().map(\.name).contains("Growth"))
            let laptop = BullpenClient(server: server.url)
            #expect(try await laptop.login(username: name, password: Self.password) == user)
            #expect(try await laptop.portfolio(growth.id).equity == Decimal(string: "5000.50")!)

            // Logging out ends the session here and on the server.
            let token = try #require(await client.refreshToken)
            try await client.logout()
            #expect(await !client.isLoggedIn)
            #expect(saved.withLock { $0.last } == .some(nil))
            await #expect(throws: BullpenError.notLoggedIn) { try await client.portfolios() }
            let stale = BullpenClient(server: server.url, refreshToken: token)
            let refused = await #expect(throws: BullpenError.self) { try await stale.portfolios() }
            #expect(refused?.needsLogin == true)
        }
    }

    @Test func refusalsCarryTheAPIsCodes() async throws {
        try await withClientServer { server in
            let client = BullpenClient(server: server.url)
            let name = uniqueName("err")
            try await client.register(username: name, password: Self.password)
            let taken = await #expect(throws: BullpenError.self) { try await BullpenClient(server: server.url).register(username: name, password: Self.password) }
            #expect(taken?.code == .usernameTaken && taken?.status == 409)
            let wrong = await #expect(throws: BullpenError.self) { try await BullpenClient(server: server.url).login(username: name, password: "not the passphrase") }
            #expect(wrong?.code == .invalidCredentials && wrong?.status == 401 && wrong?.needsLogin == false)
            let main = try await client.portfolios()[0]
            let poor = await #expect(throws: BullpenError.self) { try await client.placeOrder(.buy("AAPL", 1_000_000), in: main.id) }
            #expect(poor?.code == .insufficientFunds && poor?.status == 422)
            #expect(poor?.message.isEmpty == false)
            let unknown = await #expect(throws: BullpenError.self) { try await client.asset("NOPE") }
            #expect(unknown?.code == .unknownSymbol && unknown?.status == 404)
            let none = await #expect(throws: BullpenError.self) { try await client.sellShares(in: main.id) }
            #expect(none?.code == .insufficientShares)
            let live = await #expect(throws: BullpenError.self) { try await client.advance(main.id, days: 1) }
            #expect(live?.code == .notReplay)
            // The preview says what placing would get, without refusing.
            let preview = try await client.preview(.buy("AAPL", 1_000_000), in: main.id)
            #expect(preview.problems.map(\.code) == ["insufficient_funds"])
            try await server.expectBalanced(portfolio: main.id, owner: try await client.me().id)
        }
        // A server that is not there.
        let nowhere = BullpenClient(server: URL(string: "http://127.0.0.1:9")!)
        let down = await #expect(throws: BullpenError.self) { try await nowhere.search("micro") }
        guard case .cannotConnect = down else { Issue.record("expected cannotConnect, got \(String(describing: down))"); return }
        await #expect(throws: BullpenError.notLoggedIn) { try await nowhere.portfolios() }
    }

    @Test func anExpiredTokenIsRenewedOnceForCallsThatNeedItTogether() async throws {
        try await withClientServer { server in
            let saved = Mutex<[String?]>([])
            let client = BullpenClient(server: server.url) { token in saved.withLock { $0.append(token) } }
            try await client.register(username: uniqueName("ttl"), password: Self.password)
            await client.session.setLocalExpiry(.distantPast)
            // Eight calls at once find the token expired; a refresh token works once, so a second
            // renewal would end the session and fail them.
            let equities = try await withThrowingTaskGroup(of: Decimal.self) { group in
                for _ in 0..<8 { group.addTask { try await client.portfolios()[0].equity } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(equities == Array(repeating: 100_000, count: 8))
            #expect(await client.session.refreshCount == 1)
            let tokens = saved.withLock { $0 }
            #expect(tokens.count == 2 && Set(tokens).count == 2)
            // The saved token lets the next launch go on without logging in.
            let next = BullpenClient(server: server.url, refreshToken: try #require(tokens.last ?? nil))
            #expect(try await next.portfolios().count == 1)
            // The first client then presents the refresh token `next` used: the server ends the whole
            // session, and the client says to log in again.
            await client.session.setLocalExpiry(.distantPast)
            let reused = await #expect(throws: BullpenError.self) { try await client.portfolios() }
            #expect(reused?.code == .refreshTokenReused && reused?.needsLogin == true)
            #expect(await !client.isLoggedIn)
            #expect(saved.withLock { $0.last } == .some(nil))
        }
    }

    @Test func aTokenTheServerNoLongerTakesIsRenewedAndTheCallSentAgain() async throws {
        try await withClientServer(configure: { $0.accessTokenLifetime = 2 }) { server in
            let client = BullpenClient(server: server.url)
            try await client.register(username: uniqueName("late"), password: Self.password)
            // The client believes its token good for an hour; the server's clock says it expired.
            await client.session.setLocalExpiry(Date().addingTimeInterval(3_600))
            try await Task.sleep(for: .milliseconds(2_200))
            let main = try await client.portfolios()[0]
            #expect(await client.session.refreshCount == 1)
            // An order sent with the refused token goes again, once, with the new one.
            await client.session.setLocalExpiry(Date().addingTimeInterval(3_600))
            try await Task.sleep(for: .milliseconds(2_200))
            let order = try await client.placeOrder(.buy("AAPL", 2), in: main.id)
            let renewals = await client.session.refreshCount
            #expect(order.status == .filled && renewals == 2)
            #expect(try await client.positions(in: main.id).first?.quantity == 2)
            // Eight calls refused together share one renewal.
            await client.session.setLocalExpiry(Date().addingTimeInterval(3_600))
            try await Task.sleep(for: .milliseconds(2_200))
            let counts = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<8 { group.addTask { try await client.portfolios().count } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(counts == Array(repeating: 1, count: 8))
            #expect(await client.session.refreshCount == 3)
            // A refusal that is not about the token renews nothing.
            let wrong = await #expect(throws: BullpenError.self) { try await client.changePassword(from: "not the passphrase") }
            #expect(wrong?.code == "wrong_password" && wrong?.needsLogin == false)
            #expect(await client.session.refreshCount == 3)
        }
    }

    @Test func savedTokensGoOnWithoutARenewal() async throws {
        try await withClientServer { server in
            let first = BullpenClient(server: server.url, tokens: nil, onTokensChange: nil)
            let user = try await first.register(username: uniqueName("keep"), password: Self.password)
            let saved = try #require(await first.tokens)
            #expect(saved.accessToken != nil && saved.accessTokenExpires.map { $0 > Date() } == true)
            let next = BullpenClient(server: server.url, tokens: saved, onTokensChange: nil)
            #expect(try await next.me() == user)
            let kept = await next.tokens
            #expect(await next.session.refreshCount == 0)
            #expect(kept == saved)
        }
    }

    @Test func aRetriedOrderKeepsItsIdempotencyKeyAndExecutesOnce() async throws {
        try await withClientServer { server in
            let transport = LosingTransport(inner: URLSessionTransport(), lose: 1)
            let client = BullpenClient(server: server.url, tokens: nil, urlSession: .shared, transport: transport,
                                       onTokensChange: nil)
            let user = try await client.register(username: uniqueName("idem"), password: Self.password)
            let main = try await client.portfolios()[0]
            // The first answer is lost after the server executed the order; the client sends it again.
            let order = try await client.placeOrder(.buy("AAPL", 3), in: main.id)
            let keys = transport.keys.withLock { $0 }
            #expect(keys.count == 2 && keys[0] != nil && keys[0] == keys[1])
            #expect(try await client.positions(in: main.id).first?.quantity == 3)
            #expect(try await client.orders(in: main.id).map(\.id) == [order.id])
            // A second call is a second order, with a new key.
            _ = try await client.placeOrder(.buy("AAPL", 1), in: main.id)
            #expect(Set(transport.keys.withLock { $0 }).count == 2)
            #expect(try await client.positions(in: main.id).first?.quantity == 4)
            try await server.expectBalanced(portfolio: main.id, owner: user.id)
        }
    }

    @Test(.timeLimit(.minutes(1))) func quotesStreamOverTheWebSocket() async throws {
        try await withClientServer { server in
            let client = BullpenClient(server: server.url)
            await #expect(throws: BullpenError.notLoggedIn) {
                for try await _ in client.quoteStream(symbols: ["AAPL"]) {}
            }
            try await client.register(username: uniqueName("ws"), password: Self.password)
            let expected = try await client.quotes(["AAPL", "MSFT"]).quotes
            var subscribed: [String] = []
            var unknown: [String] = []
            var seen: [String: Quote] = [:]
            for try await event in client.quoteStream(symbols: ["AAPL", "MSFT", "NOPE"]) {
                switch event {
                case .subscribed(let symbols, let missing):
                    subscribed = symbols
                    unknown = missing
                case .quote(let quote):
                    seen[quote.symbol] = quote
                }
                if seen.count == 2 { break }
            }
            #expect(Set(subscribed) == ["AAPL", "MSFT"] && unknown == ["NOPE"])
            #expect(seen["AAPL"]?.price == expected[0].price && seen["MSFT"]?.price == expected[1].price)
        }
    }
}

extension BullpenClient {
    /// Sells a share the portfolio does not hold.
    func sellShares(in portfolio: String) async throws -> Order { try await placeOrder(.sell("AAPL", 1), in: portfolio) }

    /// Changes the password, through the generated client (the SDK's public API does not offer it).
    func changePassword(from current: String) async throws {
        _ = try await bullpenCall { try await api.changePassword(body: .json(.init(currentPassword: current, newPassword: "another long passphrase"))).noContent }
    }
}

/// A transport that loses the first `lose` answers to orders after the server executed them, as a
/// dropped connection would, and records each attempt's idempotency key.
final class LosingTransport: ClientTransport {
    let inner: URLSessionTransport
    let remaining: Mutex<Int>
    let keys = Mutex<[String?]>([])

    init(inner: URLSessionTransport, lose: Int) {
        self.inner = inner
        self.remaining = Mutex(lose)
    }

    func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        let answer = try await inner.send(request, body: body, baseURL: baseURL, operationID: operationID)
        guard operationID == "placeOrder" else { return answer }
        keys.withLock { $0.append(request.headerFields[HTTPField.Name("Idempotency-Key")!]) }
        let lose = remaining.withLock { count in
            defer { count = max(0, count - 1) }
            return count > 0
        }
        if lose { throw URLError(.networkConnectionLost) }
        return answer
    }
}
