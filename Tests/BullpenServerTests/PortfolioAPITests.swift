import BullpenAPI
import BullpenCore
import BullpenStore
import Foundation
import NIOHTTP1
import Testing
@testable import BullpenServer

@Suite("Portfolios, orders and activities over HTTP")
struct PortfolioAPITests {
    @Test func buyingAndSellingShowsInPositionsSummaryAndHistory() async throws {
        try await withServer { server in
            let player = try await server.register()
            let buy = try await server.order(player, "buy", 5, "msft")
            #expect(buy.status == 201)
            let bought = try buy.decode(OrderDTO.self)
            #expect(bought.symbol == "MSFT" && bought.fillPrice == "400.00" && bought.notional == "2000.00")
            #expect(bought.cashDelta == "-2000.00" && bought.status == "filled")
            #expect(buy.headers.first(name: "Location") == "/api/v1/portfolios/\(player.mainPortfolio)/orders/\(bought.id)")

            let positions = try await server.send(.GET, "/api/v1/portfolios/\(player.mainPortfolio)/positions",
                                                  token: player.accessToken).decode(PositionList.self)
            let msft = try #require(positions.positions.first)
            #expect(msft.quantity == 5 && msft.averageCost == "400.00" && msft.costBasis == "2000.00")
            #expect(msft.lastPrice == "400.00" && msft.marketValue == "2000.00" && msft.unrealizedPnl == "0.00")
            #expect(msft.dayChange == "0.00")   // bought today at today's close: no change today
            #expect(msft.trading)
            #expect(msft.name == "Microsoft")

            let sell = try await server.order(player, "sell", 2, "MSFT")
            #expect(sell.status == 201)
            #expect(try sell.decode(OrderDTO.self).realizedPnl == "0.00")

            let summary = try await server.send(.GET, "/api/v1/portfolios/\(player.mainPortfolio)",
                                                token: player.accessToken).decode(PortfolioDTO.self)
            #expect(summary.cash == "98800.00" && summary.marketValue == "1200.00" && summary.equity == "100000.00")
            #expect(summary.holdingsCount == 1 && summary.totalReturnPercent == "0.00")
            #expect(summary.dayChange == "0.00" && summary.totalReturn == "0.00")

            let history = try await server.send(.GET, "/api/v1/portfolios/\(player.mainPortfolio)/activities",
                                                token: player.accessToken).decode(ActivityPage.self)
            #expect(history.activities.map(\.type) == ["sell", "buy"])
            #expect(history.activities[0].amount == "800.00" && history.activities[0].realizedPnl == "0.00")
            #expect(history.activities[1].amount == "-2000.00" && history.activities[1].realizedPnl == nil)

            let one = try await server.send(.GET, "/api/v1/portfolios/\(player.mainPortfolio)/orders/\(bought.id)",
                                            token: player.accessToken).decode(OrderDTO.self)
            var plain = one
            plain.history = nil
            #expect(plain == bought)
            let list = try await server.send(.GET, "/api/v1/portfolios/\(player.mainPortfolio)/orders?limit=1",
                                             token: player.accessToken).decode(OrderList.self)
            #expect(list.orders.count == 1 && list.orders[0].side == "sell" && list.nextCursor != nil)
        }
    }

    @Test func dayChangeNetsOutTodaysTradesAndCountsHoldingsFromThePreviousClose() async throws {
        try await withServer { server in
            let player = try await server.register()
            let created = try await server.send(.POST, "/api/v1/portfolios", token: player.accessToken,
                                                json: CreatePortfolioRequest(name: "Small", startingCash: "1000"))
            let small = try created.decode(PortfolioDTO.self)
            // Bought at today's close (19.50, the close before was 20.00): nothing changed today.
            _ = try await server.order(player, "buy", 10, "ACME", portfolio: small.id)
            var portfolio = try await server.send(.GET, "/api/v1/portfolios/\(small.id)", token: player.accessToken)
                .decode(PortfolioDTO.self)
            #expect(portfolio.equity == "1000.00" && portfolio.totalReturn == "0.00")
            #expect(portfolio.dayChange == "0.00" && portfolio.dayChangePercent == "0.00")

            // Ten more bought the session before (at its close, 20.00) were held overnight: they count
            // from that close, 10 × (19.50 − 20.00).
            let owner = try #require(UserID(player.id)), id = try #require(PortfolioID(small.id))
            let overnight = PricedOrder(request: OrderRequest(symbol: Symbol("ACME")!, side: .buy, quantity: 10),
                                        price: Price(parsing: "20")!,
                                        pricing: FillPricing(source: .close, asOf: SessionDate(year: 2024, month: 1, day: 2).date,
                                                             marketOpen: false),
                                        trading: true)
            _ = try await server.store.placeOrder(overnight, in: id, owner: owner, idempotency: nil)
            portfolio = try await server.send(.GET, "/api/v1/portfolios/\(small.id)", token: player.accessToken)
                .decode(PortfolioDTO.self)
            #expect(portfolio.equity == "995.00" && portfolio.totalReturn == "-5.00")
            #expect(portfolio.dayChange == "-5.00")
            #expect(portfolio.dayChangePercent == "-0.50")             // of the 1000.00 it was worth at the previous close

            // Five sold today at today's price: today's change stays the overnight shares' loss
            // (the day's totals kept in memory take the sale in; without it, -2.50).
            _ = try await server.order(player, "sell", 5, "ACME", portfolio: small.id)
            portfolio = try await server.send(.GET, "/api/v1/portfolios/\(small.id)", token: player.accessToken)
                .decode(PortfolioDTO.self)
            #expect(portfolio.equity == "995.00" && portfolio.dayChange == "-5.00")
        }
    }

    @Test func activitiesExportAsCSV() async throws {
        try await withServer { server in
            let player = try await server.register()
            _ = try await server.order(player, "buy", 3, "ACME")
            _ = try await server.order(player, "sell", 1, "ACME")
            let csv = try await server.send(.GET, "/api/v1/portfolios/\(player.mainPortfolio)/activities?format=csv",
                                            token: player.accessToken)
            #expect(csv.status == 200)
            #expect(csv.headers.first(name: "Content-Type")?.hasPrefix("text/csv") == true)
            let lines = csv.text.split(separator: "\n")
            #expect(lines.count == 3)
            #expect(lines[0] == "sequence,period,created_at,type,symbol,quantity,price,amount,commission,realized_pnl,order_id")
            #expect(lines[1].hasPrefix("2,1,") && lines[1].contains(",sell,ACME,1,19.50,19.50,0.00,0.00,"))
            #expect(lines[2].contains(",buy,ACME,3,19.50,-58.50,0.00,,"))
            let bad = try await server.send(.GET, "/api/v1/portfolios/\(player.mainPortfolio)/activities?format=xml",
                                            token: player.accessToken)
            #expect(bad.status == 400)
        }
    }

    @Test func rejectedOrdersComeBackWithClearCodes() async throws {
        try await withServer { server in
            let player = try await server.register()
            let cases: [(String, Int64, String, Int, String)] = [
                ("buy", 1, "ZZZZ", 404, "unknown_symbol"),
                ("buy", 1, "OLDCO", 422, "not_trading"),
                ("buy", 1, "NOPX", 422, "no_price"),
                ("buy", 300, "MSFT", 422, "insufficient_funds"),
                ("sell", 1, "MSFT", 422, "insufficient_shares"),
                ("buy", 0, "MSFT", 422, "quantity_out_of_range"),
                ("buy", -3, "MSFT", 422, "quantity_out_of_range"),
                ("buy", 1, "not a symbol", 400, "validation_failed"),
                ("hold", 1, "MSFT", 400, "validation_failed"),
            ]
            for (side, quantity, symbol, status, code) in cases {
                let reply = try await server.order(player, side, ExactNumber(String(quantity)), symbol)
                #expect(reply.status == status && reply.errorCode == code, "\(side) \(quantity) \(symbol): \(reply.text)")
            }
            let fractional = try await server.send(.POST, "/api/v1/portfolios/\(player.mainPortfolio)/orders", token: player.accessToken,
                                                   body: #"{"symbol":"MSFT","side":"buy","quantity":1.5}"#)
            // A whole-share portfolio refuses a fraction, saying why; more than eight places is not a quantity at all.
            #expect(fractional.status == 422 && fractional.errorCode == "quantity_out_of_range" && fractional.text.contains("whole number of shares"),
                    "\(fractional.text)")
            let tooFine = try await server.send(.POST, "/api/v1/portfolios/\(player.mainPortfolio)/orders", token: player.accessToken,
                                                body: #"{"symbol":"MSFT","side":"buy","quantity":0.000000001}"#)
            #expect(tooFine.status == 400 && tooFine.errorCode == "validation_failed", "\(tooFine.text)")
            for (body, code) in [(#"{"symbol":"MSFT","side":"buy","quantity":1"#, "invalid_json"), ("[1]", "validation_failed"),
                                 ("null", "validation_failed"), (#"{"symbol":"MSFT","side":"buy","quantity":1,"cash":5}"#, "validation_failed")] {
                let reply = try await server.send(.POST, "/api/v1/portfolios/\(player.mainPortfolio)/orders", token: player.accessToken,
                                                  body: body)
                #expect(reply.status == 400 && reply.errorCode == code, "\(body): \(reply.text)")
            }
            let limit = try await server.send(.POST, "/api/v1/portfolios/\(player.mainPortfolio)/orders", token: player.accessToken,
                                              body: #"{"symbol":"MSFT","side":"buy","quantity":1,"type":"limit"}"#)
            #expect(limit.status == 400)
            let summary = try await server.send(.GET, "/api/v1/portfolios/\(player.mainPortfolio)", token: player.accessToken)
                .decode(PortfolioDTO.self)
            #expect(summary.cash == "100000.00")
        }
    }

    @Test func idempotencyKeysExecuteOnceAndRefuseAChangedBody() async throws {
        try await withServer { server in
            let player = try await server.register()
            let first = try await server.order(player, "buy", 2, "MSFT", idempotencyKey: "abc-123")
            let again = try await server.order(player, "buy", 2, "MSFT", idempotencyKey: "abc-123")
            #expect(first.status == 201 && again.status == 201)
            #expect(first.body == again.body)
            let changed = try await server.order(player, "buy", 3, "MSFT", idempotencyKey: "abc-123")
            #expect(changed.status == 409 && changed.errorCode == "idempotency_key_reused")
            let positions = try await server.send(.GET, "/api/v1/portfolios/\(player.mainPortfolio)/positions",
                                                  token: player.accessToken).decode(PositionList.self)
            #expect(positions.positions.first?.quantity == 2)
            // Keys belong to their user: someone else may use the same key.
            let other = try await server.register()
            #expect(try await server.order(other, "buy", 2, "MSFT", idempotencyKey: "abc-123").status == 201)
        }
    }

    @Test func clientOrderIDsAreUniquePerPortfolio() async throws {
        try await withServer { server in
            let player = try await server.register()
            let first = try await server.order(player, "buy", 1, "MSFT", clientOrderId: "my-1")
            #expect(try first.decode(OrderDTO.self).clientOrderId == "my-1")
            let second = try await server.order(player, "buy", 1, "MSFT", clientOrderId: "my-1")
            #expect(second.status == 409 && second.errorCode == "duplicate_client_order_id")
        }
    }

    @Test func portfoliosCanBeCreatedRenamedResetAndDeleted() async throws {
        try await withServer { server in
            let player = try await server.register()
            let created = try await server.send(.POST, "/api/v1/portfolios", token: player.accessToken,
                                                json: CreatePortfolioRequest(name: "  Growth  ", startingCash: "25000"))
            #expect(created.status == 201)
            let growth = try created.decode(PortfolioDTO.self)
            #expect(growth.name == "Growth" && growth.startingCash == "25000.00" && growth.cash == "25000.00")

            for (cash, status) in [("99.99", 422), ("10000000.01", 422), ("lots", 422), ("100", 201), ("10000000", 201)] {
                let reply = try await server.send(.POST, "/api/v1/portfolios", token: player.accessToken,
                                                  json: CreatePortfolioRequest(name: "Cash \(cash)", startingCash: cash))
                #expect(reply.status == status, "\(cash): \(reply.text)")
            }
            let duplicate = try await server.send(.POST, "/api/v1/portfolios", token: player.accessToken,
                                                  json: CreatePortfolioRequest(name: "growth"))
            #expect(duplicate.status == 409 && duplicate.errorCode == "portfolio_name_taken")
            let blank = try await server.send(.POST, "/api/v1/portfolios", token: player.accessToken, json: CreatePortfolioRequest(name: "   "))
            #expect(blank.status == 422 && blank.errorCode == "invalid_name")

            let renamed = try await server.send(.PATCH, "/api/v1/portfolios/\(growth.id)", token: player.accessToken,
                                                json: UpdatePortfolioRequest(name: "Value"))
            #expect(try renamed.decode(PortfolioDTO.self).name == "Value")
            let sneaky = try await server.send(.PATCH, "/api/v1/portfolios/\(growth.id)", token: player.accessToken,
                                               body: #"{"name":"Rich","cash":"99999999.00"}"#)
            #expect(sneaky.status == 400 && sneaky.errorCode == "validation_failed")

            _ = try await server.order(player, "buy", 10, "ACME", portfolio: growth.id)
            let reset = try await server.send(.POST, "/api/v1/portfolios/\(growth.id)/reset", token: player.accessToken)
                .decode(PortfolioDTO.self)
            #expect(reset.period == 2 && reset.cash == "25000.00" && reset.holdingsCount == 0)
            let old = try await server.send(.GET, "/api/v1/portfolios/\(growth.id)/activities?period=1", token: player.accessToken)
                .decode(ActivityPage.self)
            #expect(old.activities.count == 1)
            let current = try await server.send(.GET, "/api/v1/portfolios/\(growth.id)/activities", token: player.accessToken)
                .decode(ActivityPage.self)
            #expect(current.activities.isEmpty)

            #expect(try await server.send(.DELETE, "/api/v1/portfolios/\(growth.id)", token: player.accessToken).status == 204)
            #expect(try await server.send(.GET, "/api/v1/portfolios/\(growth.id)", token: player.accessToken).status == 404)
        }
    }

    @Test func withoutMarketDataOrdersAreRefusedWith503() async throws {
        try await withServer(marketData: false) { server in
            let player = try await server.register()
            let reply = try await server.order(player, "buy", 1, "MSFT")
            #expect(reply.status == 503 && reply.errorCode == "market_data_unavailable")
            let summary = try await server.send(.GET, "/api/v1/portfolios/\(player.mainPortfolio)", token: player.accessToken)
                .decode(PortfolioDTO.self)
            #expect(summary.marketData == MarketDataDTO(source: "none", simulated: false, available: false))
        }
    }

    @Test func fiftySimultaneousHTTPBuysNeverOverdraw() async throws {
        try await withServer { server in
            let player = try await server.register()
            let created = try await server.send(.POST, "/api/v1/portfolios", token: player.accessToken,
                                                json: CreatePortfolioRequest(name: "Small", startingCash: "1000"))
            let small = try created.decode(PortfolioDTO.self).id
            // Each buy costs 3 × 19.50 = 58.50; 1000 / 58.50 → 17 fit.
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<50 {
                    group.addTask { try await server.order(player, "buy", 3, "ACME", portfolio: small).status }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 201 }.count == 17)
            #expect(statuses.filter { $0 == 422 }.count == 33)
            let summary = try await server.send(.GET, "/api/v1/portfolios/\(small)", token: player.accessToken).decode(PortfolioDTO.self)
            #expect(summary.cash == "5.50")
        }
    }
}
