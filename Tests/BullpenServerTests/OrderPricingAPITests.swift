import BullpenAPI
import BullpenCore
import BullpenStore
import BullpenTestSupport
import Foundation
import NIOHTTP1
import Testing
@testable import BullpenServer

/// The order answer explains how it was priced; previews and realized totals come from the server;
/// a symbol whose data has ended is marked, cannot be bought, and sells at its final close.
@Suite("Pricing, previews, totals and ended symbols over HTTP")
struct OrderPricingAPITests {
    @Test func theOrderAnswerSaysHowItWasPriced() async throws {
        try await withServer { server in
            let player = try await server.register()
            let order = try await server.order(player, "buy", 2, "MSFT").decode(OrderDTO.self)
            #expect(order.fillPrice == "400.00" && order.priceSource == "close" && order.marketOpen == false)
            #expect(order.priceAsOf == SessionDate(year: 2024, month: 1, day: 3).date)
            let again = try await server.send(.GET, "/api/v1/portfolios/\(player.mainPortfolio)/orders/\(order.id)",
                                              token: player.accessToken).decode(OrderDTO.self)
            var plain = again
            plain.history = nil
            #expect(plain == order)
            #expect(again.history?.map(\.status) == ["new", "filled"])
        }
    }

    @Test func aDemoOrderInSessionFillsAtTheTick() async throws {
        let inSession = FixedTimeSource(TradingCalendar.instant(SessionDate(year: 2025, month: 10, day: 15), 11, 0))
        try await withServer(demo: true, time: inSession) { server in
            let player = try await server.register()
            let reply = try await server.order(player, "buy", 1, "HMCR")
            let order = try reply.decode(OrderDTO.self)
            #expect(order.priceSource == "demo_tick" && order.marketOpen == true && order.priceAsOf == inSession.now(), "\(reply.text)")
            let price = try #require(order.fillPrice.flatMap { Price(parsing: $0) })
            #expect(price.ticks % Price.ticksPerCent == 0, "a tick in whole cents: \(price)")
        }
    }

    @Test func aPreviewComputesWhatTheOrderWouldDoAndChangesNothing() async throws {
        try await withServer { server in
            let player = try await server.register()
            let path = "/api/v1/portfolios/\(player.mainPortfolio)/orders/preview"
            let fits = try await server.send(.POST, path, token: player.accessToken,
                                             json: PlaceOrderRequest(symbol: "MSFT", side: "buy", quantity: 5)).decode(OrderPreviewDTO.self)
            #expect(fits.price == "400.00" && fits.total == "2000.00" && fits.cashBefore == "100000.00" && fits.cashAfter == "98000.00")
            #expect(fits.maxQuantity == 250 && fits.problems.isEmpty && fits.trading && fits.priceSource == "close")
            let tooMuch = try await server.send(.POST, path, token: player.accessToken,
                                                json: PlaceOrderRequest(symbol: "MSFT", side: "buy", quantity: 300)).decode(OrderPreviewDTO.self)
            #expect(tooMuch.problems.map(\.code) == ["insufficient_funds"] && tooMuch.cashAfter == "-20000.00")
            let sell = try await server.send(.POST, path, token: player.accessToken,
                                             json: PlaceOrderRequest(symbol: "MSFT", side: "sell", quantity: 1)).decode(OrderPreviewDTO.self)
            #expect(sell.problems.map(\.code) == ["insufficient_shares"] && sell.maxQuantity == 0)
            let ended = try await server.send(.POST, path, token: player.accessToken,
                                              json: PlaceOrderRequest(symbol: "OLDCO", side: "buy", quantity: 1)).decode(OrderPreviewDTO.self)
            #expect(ended.problems.map(\.code) == ["not_trading"] && !ended.trading && ended.priceSource == "final_close")

            let unknown = try await server.send(.POST, path, token: player.accessToken,
                                                json: PlaceOrderRequest(symbol: "ZZZZ", side: "buy", quantity: 1))
            #expect(unknown.status == 404 && unknown.errorCode == "unknown_symbol")
            let extra = try await server.send(.POST, path, token: player.accessToken,
                                              body: #"{"symbol":"MSFT","side":"buy","quantity":1,"price":"1"}"#)
            #expect(extra.status == 400 && extra.errorCode == "validation_failed")

            let summary = try await server.send(.GET, "/api/v1/portfolios/\(player.mainPortfolio)", token: player.accessToken)
                .decode(PortfolioDTO.self)
            #expect(summary.cash == "100000.00" && summary.holdingsCount == 0)
        }
    }

    @Test func realizedTotalsComeFromTheServer() async throws {
        try await withServer { server in
            let player = try await server.register()
            let owner = try #require(UserID(player.id)), main = try #require(PortfolioID(player.mainPortfolio))
            // 10 ACME bought at 21.00 the session before, 10 MSFT at 390.00: one sells at a loss, one at a gain.
            for (symbol, price) in [("ACME", "21"), ("MSFT", "390")] {
                _ = try await server.store.placeOrder(
                    PricedOrder(request: OrderRequest(symbol: Symbol(symbol)!, side: .buy, quantity: 10), price: Price(parsing: price)!,
                                pricing: FillPricing(source: .close, asOf: SessionDate(year: 2024, month: 1, day: 2).date, marketOpen: false),
                                trading: true),
                    in: main, owner: owner, idempotency: nil)
            }
            _ = try await server.order(player, "sell", 4, "ACME")   // 4 × (19.50 − 21.00) = −6.00
            _ = try await server.order(player, "sell", 3, "MSFT")   // 3 × (400 − 390) = 30.00
            _ = try await server.order(player, "sell", 1, "MSFT")   // 10.00
            let totals = try await server.send(.GET, "/api/v1/portfolios/\(player.mainPortfolio)/activities/summary?period=all",
                                               token: player.accessToken).decode(RealizedSummaryDTO.self)
            #expect(totals == RealizedSummaryDTO(period: "all", realizedProfits: "40.00", realizedLosses: "-6.00",
                                                 realizedNet: "34.00", trades: 5, buys: 2, sells: 3))
            let portfolio = try await server.send(.GET, "/api/v1/portfolios/\(player.mainPortfolio)", token: player.accessToken)
                .decode(PortfolioDTO.self)
            #expect(portfolio.realizedPnl == "34.00")
            let bad = try await server.send(.GET, "/api/v1/portfolios/\(player.mainPortfolio)/activities/summary?period=zero",
                                            token: player.accessToken)
            #expect(bad.status == 400 && bad.errorCode == "validation_failed")
        }
    }

    @Test func aSymbolWhoseDataEndedIsMarkedSoldAtItsFinalCloseAndListedLast() async throws {
        try await withServer { server in
            let detail = try await server.send(.GET, "/api/v1/assets/OLDCO").decode(AssetDetailDTO.self)
            #expect(!detail.trading && detail.lastDate == "2024-01-02" && detail.price == "10.00")
            let msft = try await server.send(.GET, "/api/v1/assets/MSFT").decode(AssetDetailDTO.self)
            #expect(msft.trading)
            let quotes = try await server.send(.GET, "/api/v1/quotes?symbols=OLDCO,MSFT").decode(QuoteListDTO.self)
            #expect(quotes.quotes.map(\.trading) == [false, true])

            let browse = try await server.send(.GET, "/api/v1/assets?sort=symbol").decode(AssetPageDTO.self)
            #expect(browse.assets.map(\.symbol) == ["ACME", "MSFT", "NOPX", "OLDCO"])
            #expect(browse.assets.map(\.trading) == [true, true, false, false])
            // OLDCO matches "o" best (a symbol prefix) but comes after every match that trades.
            let search = try await server.send(.GET, "/api/v1/assets?search=o").decode(AssetPageDTO.self)
            #expect(search.assets.map(\.symbol) == ["ACME", "MSFT", "OLDCO", "NOPX"] || search.assets.map(\.symbol) == ["MSFT", "ACME", "OLDCO", "NOPX"])
            let trading = try await server.send(.GET, "/api/v1/assets?trading=trading").decode(AssetPageDTO.self)
            #expect(trading.assets.map(\.symbol) == ["MSFT", "ACME"] || trading.assets.map(\.symbol) == ["ACME", "MSFT"])
            let ended = try await server.send(.GET, "/api/v1/assets?trading=ended").decode(AssetPageDTO.self)
            #expect(ended.assets.map(\.symbol) == ["OLDCO", "NOPX"])

            let player = try await server.register()
            let buy = try await server.order(player, "buy", 1, "OLDCO")
            #expect(buy.status == 422 && buy.errorCode == "not_trading")
            // Shares bought while it still traded can be sold, at the final close, saying so.
            let owner = try #require(UserID(player.id)), main = try #require(PortfolioID(player.mainPortfolio))
            _ = try await server.store.placeOrder(
                PricedOrder(request: OrderRequest(symbol: Symbol("OLDCO")!, side: .buy, quantity: 5), price: Price(parsing: "9.80")!,
                            pricing: FillPricing(source: .close, asOf: SessionDate(year: 2023, month: 12, day: 29).date, marketOpen: false),
                            trading: true),
                in: main, owner: owner, idempotency: nil)
            let positions = try await server.send(.GET, "/api/v1/portfolios/\(player.mainPortfolio)/positions", token: player.accessToken)
                .decode(PositionList.self)
            #expect(positions.positions.map(\.trading) == [false] && positions.positions.first?.dayChange == "0.00")
            let sell = try await server.order(player, "sell", 5, "OLDCO").decode(OrderDTO.self)
            #expect(sell.fillPrice == "10.00" && sell.priceSource == "final_close" && sell.realizedPnl == "1.00")
            #expect(sell.priceAsOf == SessionDate(year: 2024, month: 1, day: 2).date)
        }
    }

    @Test func newOrdersBetweenPagesNeitherRepeatNorHideRows() async throws {
        try await withServer { server in
            let player = try await server.register()
            for quantity in 1...5 { _ = try await server.order(player, "buy", ExactNumber(String(quantity)), "ACME") }
            let path = "/api/v1/portfolios/\(player.mainPortfolio)/orders"
            let first = try await server.send(.GET, path + "?limit=2", token: player.accessToken).decode(OrderList.self)
            #expect(first.orders.map(\.quantity) == [5, 4])
            _ = try await server.order(player, "buy", 6, "ACME")   // arrives between the two requests
            let second = try await server.send(.GET, path + "?limit=2&cursor=\(try #require(first.nextCursor))",
                                               token: player.accessToken).decode(OrderList.self)
            #expect(second.orders.map(\.quantity) == [3, 2], "with offsets this would repeat 4")
            let third = try await server.send(.GET, path + "?limit=2&cursor=\(try #require(second.nextCursor))",
                                              token: player.accessToken).decode(OrderList.self)
            #expect(third.orders.map(\.quantity) == [1] && third.nextCursor == nil)
        }
    }
}
