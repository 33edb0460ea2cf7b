import BullpenAPI
import BullpenCore
import BullpenStore
import Foundation
import NIOHTTP1
import Testing
@testable import BullpenServer

/// API keys and the Alpaca-compatible API: keys are shown once and stored hashed, speak for one
/// portfolio, are read-only or trading, and stop working when revoked; every Alpaca route needs a
/// key, answers errors in Alpaca's format, and trades through the same ledger as the native API.
/// (alpaca-py itself runs against the real binary in tests/alpaca.)
@Suite("Alpaca API")
struct AlpacaAPITests {
    /// Every route of the Alpaca-compatible API: `{O}` is an order of the key's portfolio, `{W}`
    /// a watchlist of its owner; `trading` marks the ones a read-only key may not call.
    static let routes: [(method: HTTPMethod, path: String, body: String?, trading: Bool)] = [
        (.GET, "/alpaca/v2/account", nil, false),
        (.GET, "/alpaca/v2/account/activities", nil, false),
        (.GET, "/alpaca/v2/account/activities/{T}", nil, false),
        (.GET, "/alpaca/v2/account/portfolio/history", nil, false),
        (.GET, "/alpaca/v2/account/configurations", nil, false),
        (.PATCH, "/alpaca/v2/account/configurations", "{}", false),
        (.GET, "/alpaca/v2/orders", nil, false),
        (.GET, "/alpaca/v2/orders:by_client_order_id?client_order_id=x", nil, false),
        (.GET, "/alpaca/v2/orders/{O}", nil, false),
        (.GET, "/alpaca/v2/positions", nil, false),
        (.GET, "/alpaca/v2/positions/MSFT", nil, false),
        (.GET, "/alpaca/v2/assets", nil, false),
        (.GET, "/alpaca/v2/assets/MSFT", nil, false),
        (.GET, "/alpaca/v2/clock", nil, false),
        (.GET, "/alpaca/v2/calendar", nil, false),
        (.GET, "/alpaca/v2/watchlists", nil, false),
        (.GET, "/alpaca/v2/watchlists/{W}", nil, false),
        (.GET, "/alpaca/v2/options/contracts", nil, false),
        (.GET, "/alpaca/v2/options/contracts/MSFT", nil, false),
        (.GET, "/alpaca/data/v2/stocks/bars?symbols=MSFT&timeframe=1Day", nil, false),
        (.GET, "/alpaca/data/v2/stocks/bars/latest?symbols=MSFT", nil, false),
        (.GET, "/alpaca/data/v2/stocks/quotes/latest?symbols=MSFT", nil, false),
        (.GET, "/alpaca/data/v2/stocks/trades/latest?symbols=MSFT", nil, false),
        (.GET, "/alpaca/data/v2/stocks/snapshots?symbols=MSFT", nil, false),
        (.GET, "/alpaca/data/v2/stocks/MSFT/bars?timeframe=1Day", nil, false),
        (.GET, "/alpaca/data/v2/stocks/MSFT/bars/latest", nil, false),
        (.GET, "/alpaca/data/v2/stocks/MSFT/quotes/latest", nil, false),
        (.GET, "/alpaca/data/v2/stocks/MSFT/trades/latest", nil, false),
        (.GET, "/alpaca/data/v2/stocks/MSFT/snapshot", nil, false),
        (.GET, "/alpaca/data/v2/stocks/quotes", nil, false),
        (.GET, "/alpaca/data/v2/stocks/trades", nil, false),
        (.GET, "/alpaca/data/v2/stocks/MSFT/quotes", nil, false),
        (.GET, "/alpaca/data/v2/stocks/MSFT/trades", nil, false),
        (.GET, "/alpaca/data/v1beta3/crypto/{X}", nil, false),
        (.GET, "/alpaca/data/v1beta3/crypto/{L}/bars?symbols=BTC/USD&timeframe=1Day", nil, false),
        (.GET, "/alpaca/data/v1beta3/crypto/{L}/latest/bars?symbols=BTC/USD", nil, false),
        (.GET, "/alpaca/data/v1beta3/crypto/{L}/latest/quotes?symbols=BTC/USD", nil, false),
        (.GET, "/alpaca/data/v1beta3/crypto/{L}/latest/trades?symbols=BTC/USD", nil, false),
        (.GET, "/alpaca/data/v1beta3/crypto/{L}/snapshots?symbols=BTC/USD", nil, false),
        (.GET, "/alpaca/v2/positions/{B}/{Q}", nil, false),
        (.GET, "/alpaca/v2/assets/{B}/{Q}", nil, false),
        (.GET, "/alpaca/data/v1beta1/options/{X}", nil, false),
        // Changes: a trading key only.
        (.POST, "/alpaca/v2/orders", #"{"symbol":"MSFT","qty":1,"side":"buy","type":"market","time_in_force":"day"}"#, true),
        (.PATCH, "/alpaca/v2/orders/{O}", #"{"limit_price":"1.00"}"#, true),
        (.DELETE, "/alpaca/v2/orders/{O}", nil, true),
        (.DELETE, "/alpaca/v2/orders", nil, true),
        (.DELETE, "/alpaca/v2/positions/MSFT", nil, true),
        (.DELETE, "/alpaca/v2/positions/{B}/{Q}", nil, true),
        (.DELETE, "/alpaca/v2/positions", nil, true),
        (.POST, "/alpaca/v2/watchlists", #"{"name":"Bots","symbols":["MSFT"]}"#, true),
        (.PUT, "/alpaca/v2/watchlists/{W}", #"{"name":"Renamed"}"#, true),
        (.POST, "/alpaca/v2/watchlists/{W}", #"{"symbol":"ACME"}"#, true),
        (.DELETE, "/alpaca/v2/watchlists/{W}/MSFT", nil, true),
        (.DELETE, "/alpaca/v2/watchlists/{W}", nil, true),
        (.POST, "/alpaca/bullpen/advance", #"{"days":1}"#, true),
    ]

    struct Key {
        var id: String
        var keyID: String
        var secret: String
        var headers: [(String, String)] { [("APCA-API-KEY-ID", keyID), ("APCA-API-SECRET-KEY", secret)] }
    }

    static func makeKey(_ server: TestServer, _ player: TestServer.Player, portfolio: String? = nil,
                        scope: String = "trading") async throws -> Key {
        let reply = try await server.send(.POST, "/api/v1/keys", token: player.accessToken,
                                          json: CreateAPIKeyRequest(portfolioId: portfolio ?? player.mainPortfolio, name: "bot", scope: scope))
        try #require(reply.status == 201, "make a key: \(reply.text)")
        let key = try reply.decode(APIKeyDTO.self)
        return Key(id: key.id, keyID: key.keyId, secret: try #require(key.secret))
    }

    /// Alpaca's error body.
    static func alpacaError(_ reply: TestServer.Reply) -> (code: Int, bullpen: String)? {
        guard let object = try? reply.json(), let code = object["code"] as? Int, object["message"] is String,
              let bullpen = object["bullpen_code"] as? String else { return nil }
        return (code, bullpen)
    }

    @Test func aKeyIsShownOnceStoredHashedAndStopsWhenRevoked() async throws {
        try await withServer { server in
            let alice = try await server.register()
            let key = try await Self.makeKey(server, alice)
            #expect(key.keyID.count == 20 && key.keyID.hasPrefix("BK") && key.secret.count == 40)
            let listed = try await server.send(.GET, "/api/v1/keys", token: alice.accessToken).decode(APIKeyList.self).keys
            #expect(listed.count == 1 && listed[0].secret == nil && listed[0].lastUsedAt == nil && listed[0].scope == "trading")
            #expect(listed[0].portfolioName == "Main" && listed[0].portfolioId == alice.mainPortfolio)
            // Stored as a hash: the secret itself is nowhere in the store.
            let stored = try #require(try await server.store.useAPIKey(key.keyID))
            #expect(stored.secretHash != key.secret && stored.secretHash == APIKeySecrets.hash(key.secret))

            let account = try await server.send(.GET, "/alpaca/v2/account", headers: key.headers)
            #expect(account.status == 200, "\(account.text)")
            let body = try account.json()
            #expect(body["cash"] as? String == "100000.00" && body["id"] as? String == alice.mainPortfolio && body["status"] as? String == "ACTIVE")
            let used = try await server.send(.GET, "/api/v1/keys", token: alice.accessToken).decode(APIKeyList.self).keys
            #expect(used[0].lastUsedAt != nil)

            // A wrong secret, a missing header, an unknown key: 401 in Alpaca's format.
            for headers in [[("APCA-API-KEY-ID", key.keyID), ("APCA-API-SECRET-KEY", key.secret + "x")], [("APCA-API-KEY-ID", key.keyID)],
                            [("APCA-API-KEY-ID", "BKNOSUCHKEY000000000"), ("APCA-API-SECRET-KEY", key.secret)]] {
                let refused = try await server.send(.GET, "/alpaca/v2/account", headers: headers)
                #expect(refused.status == 401 && Self.alpacaError(refused)?.code == 40110000, "\(refused.text)")
            }
            // A login's token is not a key.
            #expect(try await server.send(.GET, "/alpaca/v2/account", token: alice.accessToken).status == 401)

            #expect(try await server.send(.DELETE, "/api/v1/keys/\(key.id)", token: alice.accessToken).status == 204)
            let revoked = try await server.send(.GET, "/alpaca/v2/account", headers: key.headers)
            #expect(revoked.status == 401 && Self.alpacaError(revoked)?.bullpen == "unauthorized")
            #expect(try await server.send(.DELETE, "/api/v1/keys/\(key.id)", token: alice.accessToken).status == 404)
            #expect(try await server.send(.GET, "/api/v1/keys", token: alice.accessToken).decode(APIKeyList.self).keys.isEmpty)
        }
    }

    @Test func keysAreRefusedForOthersPortfoliosBadScopesAndPastTheLimit() async throws {
        try await withServer { server in
            let alice = try await server.register(), bob = try await server.register()
            let theirs = try await server.send(.POST, "/api/v1/keys", token: bob.accessToken, json: CreateAPIKeyRequest(portfolioId: alice.mainPortfolio))
            #expect(theirs.status == 404 && theirs.errorCode == "not_found")
            let malformed = try await server.send(.POST, "/api/v1/keys", token: alice.accessToken, json: CreateAPIKeyRequest(portfolioId: "nope"))
            #expect(malformed.status == 404)
            let scope = try await server.send(.POST, "/api/v1/keys", token: alice.accessToken,
                                              json: CreateAPIKeyRequest(portfolioId: alice.mainPortfolio, scope: "admin"))
            #expect(scope.status == 400 && scope.errorCode == "validation_failed")
            let unknown = try await server.send(.POST, "/api/v1/keys", token: alice.accessToken,
                                                body: #"{"portfolioId":"\#(alice.mainPortfolio)","secret":"mine"}"#)
            #expect(unknown.status == 400)
            let name = try await server.send(.POST, "/api/v1/keys", token: alice.accessToken,
                                             json: CreateAPIKeyRequest(portfolioId: alice.mainPortfolio, name: String(repeating: "k", count: 51)))
            #expect(name.errorCode == "invalid_name")
            // A read-only key by default.
            let plain = try await server.send(.POST, "/api/v1/keys", token: alice.accessToken, json: CreateAPIKeyRequest(portfolioId: alice.mainPortfolio))
            #expect(try plain.decode(APIKeyDTO.self).scope == "read_only")
            // Bob cannot revoke Alice's key.
            #expect(try await server.send(.DELETE, "/api/v1/keys/\(try plain.decode(APIKeyDTO.self).id)", token: bob.accessToken).status == 404)
            // The public key id names a key too (what a bot knows it by); only its owner's.
            let publicID = try plain.decode(APIKeyDTO.self).keyId
            #expect(try await server.send(.DELETE, "/api/v1/keys/\(publicID)", token: bob.accessToken).status == 404)
            #expect(try await server.send(.DELETE, "/api/v1/keys/\(publicID)", token: alice.accessToken).status == 204)
            #expect(try await server.send(.DELETE, "/api/v1/keys/\(publicID)", token: alice.accessToken).status == 404)
            for _ in 0..<25 { _ = try await Self.makeKey(server, alice) }
            let tooMany = try await server.send(.POST, "/api/v1/keys", token: alice.accessToken, json: CreateAPIKeyRequest(portfolioId: alice.mainPortfolio))
            #expect(tooMany.status == 409 && tooMany.errorCode == "too_many_keys")
        }
    }

    /// The authorization table: without a key every route is 401; with a read-only key every
    /// trading route is 403 (and changes nothing) while the others answer; a key of one portfolio
    /// sees nothing of another portfolio, even its owner's.
    @Test func keysAreScopedToTheirPortfolioAndTheirScope() async throws {
        try await withServer { server in
            let alice = try await server.register(), bob = try await server.register()
            let second = try await server.send(.POST, "/api/v1/portfolios", token: alice.accessToken, json: CreatePortfolioRequest(name: "Second"))
                .decode(PortfolioDTO.self)
            let reader = try await Self.makeKey(server, alice, scope: "read_only")
            let trader = try await Self.makeKey(server, alice)
            let secondKey = try await Self.makeKey(server, alice, portfolio: second.id)
            let bobsKey = try await Self.makeKey(server, bob)
            // A working order and a position in Main, a watchlist of Alice's.
            let buy = try await server.send(.POST, "/alpaca/v2/orders", body: #"{"symbol":"MSFT","qty":3,"side":"buy","type":"market","time_in_force":"day"}"#,
                                            headers: trader.headers)
            #expect(buy.status == 200, "\(buy.text)")
            let limit = try await server.send(.POST, "/alpaca/v2/orders",
                                              body: #"{"symbol":"MSFT","qty":1,"side":"buy","type":"limit","limit_price":1.5,"time_in_force":"gtc"}"#,
                                              headers: trader.headers)
            let order = try #require(try limit.json()["id"] as? String, "\(limit.text)")
            let working = try limit.json()
            #expect(working["status"] as? String == "new" && (working["limit_price"] as? String).flatMap { Decimal(string: $0) } == Decimal(string: "1.5"))
            let list = try await server.send(.POST, "/api/v1/watchlists", token: alice.accessToken, json: CreateWatchlistRequest(name: "Mine"))
                .decode(WatchlistDTO.self)
            func concrete(_ path: String) -> String {
                path.replacingOccurrences(of: "{O}", with: order).replacingOccurrences(of: "{W}", with: list.id)
                    .replacingOccurrences(of: "{X}", with: "us/latest/orderbooks").replacingOccurrences(of: "{T}", with: "FILL")
                    .replacingOccurrences(of: "{L}", with: "us").replacingOccurrences(of: "{B}", with: "BTC").replacingOccurrences(of: "{Q}", with: "USD")
            }
            for route in Self.routes {
                let anonymous = try await server.send(route.method, concrete(route.path), body: route.body)
                #expect(anonymous.status == 401 && Self.alpacaError(anonymous)?.code == 40110000,
                        "\(route.method) \(route.path) without a key: \(anonymous.status) \(anonymous.text)")
                guard route.trading else {
                    let read = try await server.send(route.method, concrete(route.path), body: route.body, headers: reader.headers)
                    #expect(read.status < 500 && read.status != 401 && read.status != 403 && read.status != 405,
                            "\(route.method) \(route.path) with a read-only key: \(read.status) \(read.text)")
                    continue
                }
                let refused = try await server.send(route.method, concrete(route.path), body: route.body, headers: reader.headers)
                #expect(refused.status == 403 && Self.alpacaError(refused)?.code == 40310000 && Self.alpacaError(refused)?.bullpen == "key_read_only",
                        "\(route.method) \(route.path) with a read-only key: \(refused.status) \(refused.text)")
            }
            // Nothing the read-only key was refused changed anything.
            let orders = try await server.send(.GET, "/alpaca/v2/orders?status=all", headers: reader.headers)
            #expect((try JSONSerialization.jsonObject(with: orders.body) as? [[String: Any]])?.count == 2)

            // Another portfolio's key, even the owner's, and another player's key: the order is not there.
            for other in [secondKey, bobsKey] {
                for (method, body) in [(HTTPMethod.GET, nil), (.DELETE, nil), (.PATCH, #"{"limit_price":2}"#)] as [(HTTPMethod, String?)] {
                    let reply = try await server.send(method, "/alpaca/v2/orders/\(order)", body: body, headers: other.headers)
                    #expect(reply.status == 404 && Self.alpacaError(reply)?.code == 40410000, "\(method): \(reply.status) \(reply.text)")
                }
                let positions = try await server.send(.GET, "/alpaca/v2/positions", headers: other.headers)
                #expect(positions.text == "[]")
                #expect(try await server.send(.DELETE, "/alpaca/v2/positions/MSFT", headers: other.headers).status == 404)
                #expect(try await server.send(.GET, "/alpaca/v2/orders?status=all", headers: other.headers).text == "[]")
            }
            #expect(try await server.send(.GET, "/alpaca/v2/watchlists/\(list.id)", headers: bobsKey.headers).status == 404)
            // The order still works, the position is whole.
            let still = try await server.send(.GET, "/alpaca/v2/orders/\(order)", headers: reader.headers)
            #expect(try still.json()["status"] as? String == "new")
            let position = try await server.send(.GET, "/alpaca/v2/positions/MSFT", headers: reader.headers)
            #expect(try position.json()["qty"] as? String == "3")
            try await server.expectBalanced(alice, alice.mainPortfolio)
        }
    }

    /// A portfolio that trades fractions of a share takes Alpaca's fractional `qty`, `notional`, and
    /// a close by percentage to the millionth; positions and fills carry the exact quantities.
    @Test func fractionalOrdersAndNotionalThroughAlpaca() async throws {
        try await withServer { server in
            let alice = try await server.register()
            let created = try await server.send(.POST, "/api/v1/portfolios", token: alice.accessToken,
                                                body: #"{"name":"Slices","fractionalShares":true}"#).decode(PortfolioDTO.self)
            let key = try await Self.makeKey(server, alice, portfolio: created.id)
            let half = try await server.send(.POST, "/alpaca/v2/orders", body: #"{"symbol":"MSFT","qty":"0.5","side":"buy","type":"market","time_in_force":"day"}"#,
                                             headers: key.headers)
            #expect(half.status == 200 && (try? half.json()["filled_qty"] as? String) == "0.5", "\(half.text)")
            let amount = try await server.send(.POST, "/alpaca/v2/orders", body: #"{"symbol":"MSFT","notional":100,"side":"buy","type":"market","time_in_force":"day"}"#,
                                               headers: key.headers)
            #expect(amount.status == 200 && (try? amount.json()["filled_qty"] as? String) == "0.25", "\(amount.text)")
            let position = try await server.send(.GET, "/alpaca/v2/positions/MSFT", headers: key.headers)
            #expect((try? position.json()["qty"] as? String) == "0.75" && (try? position.json()["market_value"] as? String) == "300.00", "\(position.text)")
            let closed = try await server.send(.DELETE, "/alpaca/v2/positions/MSFT?percentage=33.3333", headers: key.headers)
            #expect(closed.status == 200 && (try? closed.json()["qty"] as? String) == "0.249999", "\(closed.text)")
            let rest = try await server.send(.DELETE, "/alpaca/v2/positions", headers: key.headers)
            #expect(rest.status == 207, "\(rest.text)")
            let summary = try await server.portfolio(alice, created.id)
            #expect(summary.cash == "100000.00" && summary.holdingsCount == 0, "\(summary)")
            try await server.expectBalanced(alice, created.id)
        }
    }

    /// Orders through the Alpaca API move the same ledger as the native API, with the same rules;
    /// refusals come in Alpaca's format with the native code beside.
    @Test func ordersGoThroughTheSameLedgerAndRules() async throws {
        try await withServer { server in
            let alice = try await server.register()
            let key = try await Self.makeKey(server, alice)
            func order(_ body: String) async throws -> TestServer.Reply {
                try await server.send(.POST, "/alpaca/v2/orders", body: body, headers: key.headers)
            }
            // JSON numbers with a point are read exactly (alpaca-py sends "qty": 2.0).
            let bought = try await order(#"{"symbol":"MSFT","qty":2.0,"side":"buy","type":"market","time_in_force":"day","client_order_id":"first"}"#)
            let filled = try bought.json()
            #expect(filled["status"] as? String == "filled" && filled["filled_qty"] as? String == "2" && filled["qty"] as? String == "2")
            #expect((filled["filled_avg_price"] as? String).flatMap { Decimal(string: $0) } == 400 && filled["client_order_id"] as? String == "first")
            #expect(filled["asset_class"] as? String == "us_equity" && filled["order_class"] as? String == "simple")
            let portfolio = try await server.send(.GET, "/api/v1/portfolios/\(alice.mainPortfolio)", token: alice.accessToken).decode(PortfolioDTO.self)
            #expect(portfolio.cash == "99200.00")
            let account = try await server.send(.GET, "/alpaca/v2/account", headers: key.headers).json()
            #expect(account["cash"] as? String == "99200.00" && account["equity"] as? String == portfolio.equity)
            let native = try await server.send(.GET, "/api/v1/portfolios/\(alice.mainPortfolio)/orders", token: alice.accessToken).decode(OrderList.self)
            #expect(native.orders.map(\.id) == [filled["id"] as? String])
            let byClient = try await server.send(.GET, "/alpaca/v2/orders:by_client_order_id?client_order_id=first", headers: key.headers)
            #expect(try byClient.json()["id"] as? String == filled["id"] as? String)

            let cases: [(String, Int, Int, String)] = [
                (#"{"symbol":"MSFT","qty":1000,"side":"buy","type":"market","time_in_force":"day"}"#, 403, 40310000, "insufficient_funds"),
                (#"{"symbol":"MSFT","qty":5,"side":"sell","type":"market","time_in_force":"day"}"#, 403, 40310000, "insufficient_shares"),
                // A whole-share portfolio: a fraction is refused, and $250 buys less than one $400 share.
                (#"{"symbol":"MSFT","qty":1.5,"side":"buy","type":"market","time_in_force":"day"}"#, 422, 42210000, "quantity_out_of_range"),
                (#"{"symbol":"MSFT","notional":250,"side":"buy","type":"market","time_in_force":"day"}"#, 422, 42210000, "quantity_out_of_range"),
                (#"{"symbol":"MSFT","qty":1,"notional":250,"side":"buy","type":"market","time_in_force":"day"}"#, 422, 40010001, "validation_failed"),
                (#"{"symbol":"MSFT","qty":0.000000001,"side":"buy","type":"market","time_in_force":"day"}"#, 422, 40010001, "validation_failed"),
                (#"{"symbol":"MSFT","qty":1,"side":"buy","type":"limit","limit_price":100,"time_in_force":"gtc","order_class":"bracket","take_profit":{"limit_price":110},"stop_loss":{"stop_price":90}}"#, 422, 42210000, "not_supported"),
                // The pack has no coins: a pair it does not list is an unknown symbol.
                (#"{"symbol":"BTC/USD","qty":1,"side":"buy","type":"market","time_in_force":"gtc"}"#, 422, 40010001, "unknown_symbol"),
                (#"{"symbol":"MSFT","qty":1,"side":"buy","type":"market","time_in_force":"day","extended_hours":true}"#, 422, 42210000, "not_supported"),
                (#"{"symbol":"ZZZZ","qty":1,"side":"buy","type":"market","time_in_force":"day"}"#, 422, 40010001, "unknown_symbol"),
                (#"{"symbol":"MSFT","qty":1,"side":"buy","type":"market","time_in_force":"day","client_order_id":"first"}"#, 422, 42210000, "duplicate_client_order_id"),
                (#"{"symbol":"MSFT","qty":0,"side":"buy","type":"market","time_in_force":"day"}"#, 422, 42210000, "quantity_out_of_range"),
                (#"{"symbol":"MSFT","qty":1e30,"side":"buy","type":"market","time_in_force":"day"}"#, 422, 42210000, "quantity_out_of_range"),
                (#"{"symbol":"MSFT","qty":"5abc","side":"buy","type":"market","time_in_force":"day"}"#, 422, 40010001, "validation_failed"),
                (#"{"symbol":"MSFT","qty":-1,"side":"buy","type":"market","time_in_force":"day"}"#, 422, 40010001, "validation_failed"),
                (#"{"symbol":"MSFT","qty":1,"side":"hold","type":"market","time_in_force":"day"}"#, 422, 40010001, "validation_failed"),
                (#"{"symbol":"MSFT","qty":1,"side":"buy","type":"market","time_in_force":"day","leverage":10}"#, 422, 40010001, "validation_failed"),
                (#"{"symbol":"MSFT","qty":1,"#, 400, 40010000, "invalid_json"),
            ]
            for (body, status, code, bullpen) in cases {
                let reply = try await order(body)
                let error = Self.alpacaError(reply)
                #expect(reply.status == status && error?.code == code && error?.bullpen == bullpen, "\(body): \(reply.status) \(reply.text)")
            }
            // An unknown query parameter is refused too, in Alpaca's format.
            let parameter = try await server.send(.GET, "/alpaca/v2/orders?colour=red", headers: key.headers)
            #expect(parameter.status == 422 && Self.alpacaError(parameter)?.bullpen == "unknown_parameter")
            // Closing the position sells it at the same price: cash is back where it started.
            let closed = try await server.send(.DELETE, "/alpaca/v2/positions/MSFT", headers: key.headers)
            let closing = try closed.json()
            #expect(closing["side"] as? String == "sell" && closing["status"] as? String == "filled")
            #expect(try await server.send(.GET, "/alpaca/v2/positions", headers: key.headers).text == "[]")
            let after = try await server.send(.GET, "/api/v1/portfolios/\(alice.mainPortfolio)", token: alice.accessToken).decode(PortfolioDTO.self)
            #expect(after.cash == "100000.00")
            // Two fills in the activities, newest first, in Alpaca's shape.
            let activities = try #require(try JSONSerialization.jsonObject(with: try await server.send(
                .GET, "/alpaca/v2/account/activities", headers: key.headers).body) as? [[String: Any]])
            #expect(activities.map { $0["side"] as? String } == ["sell", "buy"] && activities.allSatisfy { $0["activity_type"] as? String == "FILL" })
            #expect(activities.allSatisfy { $0["account_id"] as? String == alice.mainPortfolio && ($0["id"] as? String)?.contains("::") == true })
            try await server.expectBalanced(alice, alice.mainPortfolio)
        }
    }

    /// Closing is reduce-only in the ledger: on a portfolio that may sell short, two closes sent
    /// at once sell the position once; the second never opens a short.
    @Test func twoClosesAtOnceNeverOpenTheOtherSide() async throws {
        try await withServer { server in
            let alice = try await server.register()
            let margin = try await server.send(.POST, "/api/v1/portfolios", token: alice.accessToken,
                                               body: #"{"name":"Margin","shortSelling":true}"#).decode(PortfolioDTO.self)
            let key = try await Self.makeKey(server, alice, portfolio: margin.id)
            let bought = try await server.send(.POST, "/alpaca/v2/orders", body: #"{"symbol":"MSFT","qty":5,"side":"buy","type":"market","time_in_force":"day"}"#,
                                               headers: key.headers)
            #expect(bought.status == 200, "\(bought.text)")
            for _ in 0..<3 {
                async let first = server.send(.DELETE, "/alpaca/v2/positions/MSFT", headers: key.headers)
                async let second = server.send(.DELETE, "/alpaca/v2/positions/MSFT", headers: key.headers)
                let statuses = [try await first.status, try await second.status].sorted()
                #expect(statuses.first == 200 && statuses.filter { $0 == 200 }.count == 1, "\(statuses)")
                #expect(try await server.send(.GET, "/alpaca/v2/positions", headers: key.headers).text == "[]")
                let again = try await server.send(.POST, "/alpaca/v2/orders", body: #"{"symbol":"MSFT","qty":5,"side":"buy","type":"market","time_in_force":"day"}"#,
                                                  headers: key.headers)
                #expect(again.status == 200)
            }
            // buy_to_close with nothing short is refused too, not turned into a long.
            let cover = try await server.send(.POST, "/alpaca/v2/orders",
                                              body: #"{"symbol":"MSFT","qty":1,"side":"buy","type":"market","time_in_force":"day","position_intent":"buy_to_close"}"#,
                                              headers: key.headers)
            #expect(cover.status == 403 && Self.alpacaError(cover)?.bullpen == "insufficient_shares", "\(cover.text)")
            try await server.expectBalanced(alice, margin.id)
        }
    }

    @Test func barsPageByTokenAndNeverPastTheClock() async throws {
        try await withServer { server in
            let alice = try await server.register()
            let key = try await Self.makeKey(server, alice, scope: "read_only")
            func bars(_ query: String) async throws -> [String: Any] {
                let reply = try await server.send(.GET, "/alpaca/data/v2/stocks/bars?" + query, headers: key.headers)
                #expect(reply.status == 200, "\(query): \(reply.text)")
                return try reply.json()
            }
            let all = try await bars("symbols=MSFT,ACME&timeframe=1Day&start=2020-01-01")
            let whole = try #require(all["bars"] as? [String: [[String: Any]]])
            #expect(all.keys.contains("next_page_token") && all["next_page_token"] is NSNull)
            // One bar a page, following the tokens, gives the same bars in the same order.
            var paged: [String: [[String: Any]]] = [:], token: String?, pages = 0
            repeat {
                let page = try await bars("symbols=MSFT,ACME&timeframe=1Day&start=2020-01-01&limit=1" + (token.map { "&page_token=\($0)" } ?? ""))
                for (symbol, list) in try #require(page["bars"] as? [String: [[String: Any]]]) { paged[symbol, default: []] += list }
                token = page["next_page_token"] as? String
                pages += 1
            } while token != nil && pages < 20
            let count = whole.values.map(\.count).reduce(0, +)
            #expect(pages == count && count >= 4)
            #expect(paged.mapValues { $0.map { $0["t"] as? String } } == whole.mapValues { $0.map { $0["t"] as? String } })
            #expect(whole["MSFT"]?.last?["c"] as? Double == 400 && whole["MSFT"]?.last?.keys.contains("vw") == true)
            let bad = try await server.send(.GET, "/alpaca/data/v2/stocks/bars?symbols=MSFT&timeframe=1Day&page_token=nonsense", headers: key.headers)
            #expect(bad.status == 422 && Self.alpacaError(bad)?.bullpen == "invalid_cursor")
            let minutes = try await server.send(.GET, "/alpaca/data/v2/stocks/bars?symbols=MSFT&timeframe=5Min", headers: key.headers)
            #expect(minutes.status == 422 && Self.alpacaError(minutes)?.bullpen == "not_supported")
            // Coins' bars: none for a pair the pack does not list; order books are not offered.
            let crypto = try await server.send(.GET, "/alpaca/data/v1beta3/crypto/us/bars?symbols=BTC/USD&timeframe=1Day", headers: key.headers)
            #expect(crypto.status == 200 && crypto.text == #"{"bars":{},"next_page_token":null}"#, "\(crypto.text)")
            let books = try await server.send(.GET, "/alpaca/data/v1beta3/crypto/us/latest/orderbooks?symbols=BTC/USD", headers: key.headers)
            #expect(books.status == 422 && Self.alpacaError(books)?.bullpen == "not_supported")
        }
    }
}
