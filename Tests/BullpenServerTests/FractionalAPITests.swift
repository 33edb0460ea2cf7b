import BullpenAPI
import BullpenCore
import BullpenMarketData
import BullpenTestSupport
import Foundation
import NIOHTTP1
import Testing
@testable import BullpenServer

/// Fractional shares (a portfolio's or a league's rule) and orders by amount, over HTTP: exact
/// quantities in and out, one rounding rule (down to the lot), the books balanced.
@Suite("Fractional shares and orders by amount over HTTP")
struct FractionalAPITests {
    func fractionalPortfolio(_ server: TestServer, _ player: TestServer.Player) async throws -> String {
        let created = try await server.send(.POST, "/api/v1/portfolios", token: player.accessToken,
                                            body: #"{"name":"Fractions","fractionalShares":true}"#)
        try #require(created.status == 201, "\(created.text)")
        let portfolio = try created.decode(PortfolioDTO.self)
        #expect(portfolio.rules.fractionalShares == true)
        return portfolio.id
    }

    @Test func buyingByAmountAndSellingTheRemainderKeepTheBooksExact() async throws {
        try await withServer { server in
            let player = try await server.register()
            let id = try await fractionalPortfolio(server, player)
            let orders = "/api/v1/portfolios/\(id)/orders"
            // $250 of MSFT at $400.00: 0.625 share, exactly $250.00.
            let preview = try await server.send(.POST, orders + "/preview", token: player.accessToken,
                                                body: #"{"symbol":"MSFT","side":"buy","notional":"250.00"}"#)
            try #require(preview.status == 200, "\(preview.text)")
            #expect(preview.text.contains(#""quantity":0.625"#), "\(preview.text)")
            let previewed = try preview.decode(OrderPreviewDTO.self)
            #expect(previewed.quantity == ExactNumber("0.625") && previewed.total == "250.00" && previewed.problems.isEmpty)
            #expect(previewed.maxQuantity == 250, "all the cash at $400 a share: \(previewed.maxQuantity)")
            // A limit order by amount buys what the amount buys at its limit, and its sentence says so.
            let limit = try await server.send(.POST, orders + "/preview", token: player.accessToken,
                                              body: #"{"symbol":"MSFT","side":"buy","notional":"250.00","type":"limit","limitPrice":"390.00"}"#)
                .decode(OrderPreviewDTO.self)
            #expect(limit.quantity == ExactNumber("0.641025") && limit.summary?.contains("0.641025") == true, "\(limit)")

            let bought = try await server.send(.POST, orders, token: player.accessToken, body: #"{"symbol":"MSFT","side":"buy","notional":"250.00"}"#)
            try #require(bought.status == 201, "\(bought.text)")
            let order = try bought.decode(OrderDTO.self)
            #expect(order.quantity == ExactNumber("0.625") && order.filledQuantity == ExactNumber("0.625") && order.notional == "250.00")
            // $10 of ACME at $19.50: 0.512820 share (to the millionth, rounded down), $10.00 once rounded to the cent.
            let acme = try await server.send(.POST, orders, token: player.accessToken, body: #"{"symbol":"ACME","side":"buy","notional":"10"}"#)
            let acmeOrder = try acme.decode(OrderDTO.self)
            #expect(acmeOrder.quantity == ExactNumber("0.51282") && acmeOrder.notional == "10.00", "\(acme.text)")
            // By quantity, to the millionth.
            let third = try await server.send(.POST, orders, token: player.accessToken, body: #"{"symbol":"MSFT","side":"buy","quantity":0.333333}"#)
            #expect(third.status == 201 && (try? third.decode(OrderDTO.self).notional) == "133.33", "\(third.text)")
            let tooFine = try await server.send(.POST, orders, token: player.accessToken, body: #"{"symbol":"MSFT","side":"buy","quantity":0.0000001}"#)
            #expect(tooFine.status == 422 && tooFine.errorCode == "quantity_out_of_range" && tooFine.text.contains("0.000001"), "\(tooFine.text)")

            let positions = try await server.send(.GET, "/api/v1/portfolios/\(id)/positions", token: player.accessToken).decode(PositionList.self)
            let msft = try #require(positions.positions.first { $0.symbol == "MSFT" })
            #expect(msft.quantity == ExactNumber("0.958333") && msft.costBasis == "383.33" && msft.marketValue == "383.33")
            // Sell the remainder: nothing left, every cent back.
            let sold = try await server.send(.POST, orders, token: player.accessToken, body: #"{"symbol":"MSFT","side":"sell","quantity":0.958333}"#)
            #expect(sold.status == 201 && (try? sold.decode(OrderDTO.self).realizedPnl) == "0.00", "\(sold.text)")
            let after = try await server.send(.GET, "/api/v1/portfolios/\(id)/positions", token: player.accessToken).decode(PositionList.self)
            #expect(after.positions.map(\.symbol) == ["ACME"])
            let summary = try await server.portfolio(player, id)
            #expect(summary.cash == "99990.00" && summary.equity == "100000.00", "\(summary)")
            let activity = try await server.send(.GET, "/api/v1/portfolios/\(id)/activities", token: player.accessToken)
            #expect(activity.text.contains(#""quantity":0.958333"#), "activities carry the exact quantity")
            try await server.expectBalanced(player, id)
        }
    }

    @Test func amountsAreCheckedAndRoundedToTheLot() async throws {
        try await withServer { server in
            let player = try await server.register()
            let orders = "/api/v1/portfolios/\(player.mainPortfolio)/orders"
            // A whole-share portfolio: $1,000 of MSFT at $400 buys 2 shares.
            let whole = try await server.send(.POST, orders, token: player.accessToken, body: #"{"symbol":"MSFT","side":"buy","notional":"1000"}"#)
            #expect(whole.status == 201 && (try? whole.decode(OrderDTO.self).quantity) == 2, "\(whole.text)")
            // Less than one share's worth: a clear problem, nothing bought.
            let small = try await server.send(.POST, orders, token: player.accessToken, body: #"{"symbol":"MSFT","side":"buy","notional":"25.00"}"#)
            #expect(small.status == 422 && small.errorCode == "quantity_out_of_range" && small.text.contains("one share"), "\(small.text)")
            let preview = try await server.send(.POST, orders + "/preview", token: player.accessToken,
                                                body: #"{"symbol":"MSFT","side":"buy","notional":"25.00"}"#).decode(OrderPreviewDTO.self)
            #expect(preview.quantity == 0 && preview.problems.map(\.code) == ["quantity_out_of_range"])
            for (body, code) in [
                (#"{"symbol":"MSFT","side":"buy","notional":"25.00","quantity":1}"#, "validation_failed"),
                (#"{"symbol":"MSFT","side":"buy"}"#, "validation_failed"),
                (#"{"symbol":"MSFT","side":"buy","notional":"-5"}"#, "validation_failed"),
                (#"{"symbol":"MSFT","side":"buy","notional":"0"}"#, "validation_failed"),
                (#"{"symbol":"MSFT","side":"buy","notional":"1.005"}"#, "validation_failed"),
                (#"{"symbol":"MSFT","side":"buy","notional":250}"#, "validation_failed"),
                (#"{"symbol":"MSFT","side":"buy","notional":"250","type":"stop","stopPrice":"1"}"#, "validation_failed"),
                (#"{"symbol":"MSFT","side":"buy","quantity":"1"}"#, "validation_failed"),
                (#"{"symbol":"MSFT","side":"buy","quantity":1e40}"#, "quantity_out_of_range"),
            ] {
                let reply = try await server.send(.POST, orders, token: player.accessToken, body: body)
                #expect(reply.errorCode == code, "\(body): \(reply.text)")
            }
            let summary = try await server.portfolio(player, player.mainPortfolio)
            #expect(summary.cash == "99200.00", "only the two whole shares were bought")
            try await server.expectBalanced(player, player.mainPortfolio)
        }
    }

    @Test func aLeagueCanAllowFractionalShares() async throws {
        try await withServer { server in
            let owner = try await server.register()
            let created = try await server.send(.POST, "/api/v1/leagues", token: owner.accessToken,
                                                body: #"{"name":"Slices","visibility":"public","rules":{"allowFractionalShares":true}}"#)
            try #require(created.status == 201, "\(created.text)")
            let league = try created.decode(LeagueDTO.self)
            #expect(league.rules.allowFractionalShares)
            let portfolio = try #require(league.myPortfolioId)
            let order = try await server.send(.POST, "/api/v1/portfolios/\(portfolio)/orders", token: owner.accessToken,
                                              body: #"{"symbol":"ACME","side":"buy","quantity":0.5}"#)
            #expect(order.status == 201, "\(order.text)")
            let plain = try await server.send(.POST, "/api/v1/leagues", token: owner.accessToken,
                                              body: #"{"name":"Whole","visibility":"public"}"#).decode(LeagueDTO.self)
            #expect(!plain.rules.allowFractionalShares)
        }
    }
}

/// Coins on the demo exchange, over HTTP: bought by amount at three on a Sunday morning, to the
/// hundred-millionth, whatever the portfolio's share rules; a league may keep to stocks.
@Suite("Crypto over HTTP")
struct CryptoAPITests {
    /// Sunday 2 November 2025, 03:00 UTC.
    static let sunday = Date(timeIntervalSince1970: TimeInterval(SessionDate(year: 2025, month: 11, day: 2).day) * 86_400 + 3 * 3_600)

    @Test func aCoinBoughtAtThreeOnASundayFills() async throws {
        let time = FixedTimeSource(Self.sunday)
        try await withServer(demo: true, time: time, demoTime: time) { server in
            let player = try await server.register()
            let asset = try await server.send(.GET, "/api/v1/assets/BPC-USD", token: player.accessToken).decode(AssetDetailDTO.self)
            #expect(asset.assetClass == "crypto" && asset.asOf == Self.sunday, "\(asset)")
            let price = try #require(asset.price.flatMap(Price.init(parsing:)))
            let orders = "/api/v1/portfolios/\(player.mainPortfolio)/orders"
            let bought = try await server.send(.POST, orders, token: player.accessToken, body: #"{"symbol":"BPC-USD","side":"buy","notional":"25"}"#)
            try #require(bought.status == 201, "\(bought.text)")
            let order = try bought.decode(OrderDTO.self)
            let quantity = try #require(Quantity(parsing: order.quantity.text))
            // The most coins $25 buys at the tick's price, to 10⁻⁸: a satoshi more would cost more.
            #expect(order.status == "filled" && order.fillPrice == asset.price && order.marketOpen == true, "\(order)")
            #expect(quantity == price.quantity(affordableWith: Money(dollars: 25), lot: .crypto) && !quantity.isWhole)
            #expect(Money(parsing: order.notional)! <= Money(dollars: 25))
            // A limit the price reaches fills at once, in fractions of a coin; one below the price
            // waits (a day order until midnight UTC); a coin has no opening or closing auction.
            let above = (price.ticks * 11 / 10 / 100) * 100
            let limit = try await server.send(.POST, orders, token: player.accessToken,
                                              body: #"{"symbol":"BPC-USD","side":"buy","quantity":0.01,"type":"limit","limitPrice":"\#(Price(ticks: above).decimalString)"}"#)
            #expect(limit.status == 201 && (try? limit.decode(OrderDTO.self).status) == "filled", "\(limit.text)")
            let resting = try await server.send(.POST, orders, token: player.accessToken,
                                                body: #"{"symbol":"BPC-USD","side":"buy","quantity":0.5,"type":"limit","limitPrice":"1.00"}"#)
            #expect(resting.status == 201, "\(resting.text)")
            let waiting = try resting.decode(OrderDTO.self)
            #expect(waiting.status == "new" && waiting.expiresAt == SessionDate(year: 2025, month: 11, day: 3).date, "\(waiting)")
            let atTheOpen = try await server.send(.POST, orders, token: player.accessToken,
                                                  body: #"{"symbol":"BPC-USD","side":"buy","quantity":0.5,"type":"limit","limitPrice":"1.00","timeInForce":"opg"}"#)
            #expect(atTheOpen.status == 422 && atTheOpen.errorCode == "order_type_not_available", "\(atTheOpen.text)")
            let cancelled = try await server.send(.DELETE, "\(orders)/\(waiting.id)", token: player.accessToken)
            #expect(cancelled.status == 200, "\(cancelled.text)")
            // A whole number of coins, or 0.5 of one, fills too: coins are never whole-share bound.
            let half = try await server.send(.POST, orders, token: player.accessToken, body: #"{"symbol":"HOP-USD","side":"buy","quantity":1234.56789012}"#)
            #expect(half.status == 201, "\(half.text)")
            let tooFine = try await server.send(.POST, orders, token: player.accessToken, body: #"{"symbol":"HOP-USD","side":"buy","quantity":0.000000001}"#)
            #expect(tooFine.status == 400, "nine places is finer than any coin: \(tooFine.text)")
            // Sell it all back: the books balance.
            let sold = try await server.send(.POST, orders, token: player.accessToken,
                                             body: #"{"symbol":"BPC-USD","side":"sell","quantity":\#(order.quantity.text)}"#)
            #expect(sold.status == 201, "\(sold.text)")
            try await server.expectBalanced(player, player.mainPortfolio)
            // Movers: stocks over the exchange's session (Friday's, on a Sunday), coins over their UTC day.
            let coins = try await server.send(.GET, "/api/v1/market/movers?list=most-active&limit=50&assetClass=crypto").decode(MoversDTO.self)
            let stocks = try await server.send(.GET, "/api/v1/market/movers?list=losers&limit=50").decode(MoversDTO.self)
            #expect(coins.assetClass == "crypto" && coins.session == "2025-11-02" && coins.assets.count == 4
                    && coins.assets.allSatisfy { $0.assetClass == "crypto" }, "\(coins)")
            #expect(stocks.assetClass == "us_equity" && stocks.session == "2025-10-31" && !stocks.assets.isEmpty
                    && stocks.assets.allSatisfy { $0.assetClass == "us_equity" }, "\(stocks)")
            let bad = try await server.send(.GET, "/api/v1/market/movers?assetClass=bonds")
            #expect(bad.status == 400 && bad.errorCode == "invalid_list", "\(bad.text)")
            // Options are written on stocks only.
            let chain = try await server.send(.GET, "/api/v1/options/BPC-USD/chain", token: player.accessToken)
            #expect(chain.status == 422 && chain.errorCode == "not_supported", "\(chain.text)")
        }
    }

    /// A replay holding a coin counts every calendar day: from Friday one day is Saturday, where
    /// the coin is at Friday's close (a replay sees a coin's UTC day before its date, which is not
    /// over at the New York close), shares are refused at the market and their limit orders wait
    /// for Monday's session; a coin's limit order rests and fills on a later day's bar; the
    /// snapshots have every day.
    @Test func aReplayHoldingACoinAdvancesOverAWeekend() async throws {
        let time = FixedTimeSource(Self.sunday)
        try await withServer(demo: true, time: time, demoTime: time) { server in
            let player = try await server.register()
            let profile = try await server.createReplay(player, #"{"name":"Coins","replay":{"start":"2020-03-13"}}"#)
            #expect(profile.clock.dayCount == "sessions")
            let bpc = Symbol("BPC-USD")!, vtsw = Symbol("VTSW")!
            let demo = DemoExchange(time: time)
            let bars = try await demo.dailyBars(bpc, from: SessionDate(iso: "2020-03-12"), through: SessionDate(iso: "2020-03-16"), asOf: .live)
            let close = Dictionary(uniqueKeysWithValues: bars.map { ($0.date.description, $0.close) })
            let bar = Dictionary(uniqueKeysWithValues: bars.map { ($0.date.description, $0) })
            let orders = "/api/v1/portfolios/\(profile.id)/orders"
            let reply = try await server.send(.POST, orders, token: player.accessToken, body: #"{"symbol":"BPC-USD","side":"buy","quantity":0.25}"#)
            try #require(reply.status == 201, "\(reply.text)")
            let bought = try reply.decode(OrderDTO.self)
            #expect(bought.fillPrice == close["2020-03-12"]?.decimalString, "Friday's replay sees Thursday's close: \(bought)")
            let portfolio = try await server.portfolio(player, profile.id)
            #expect(portfolio.clock.dayCount == "calendar")

            let moved = try await server.advance(player, profile.id, #"{"days":1}"#)
            try #require(moved.status == 200, "\(moved.text)")
            let advance = try moved.decode(AdvanceDTO.self)
            #expect(advance.to == "2020-03-14" && advance.days == 1 && advance.dayCount == "calendar", "\(advance)")
            #expect(advance.message.hasPrefix("Moved 1 day, from 2020-03-13 to 2020-03-14.") && advance.message.contains("every calendar day"), "\(advance.message)")
            let holding = try #require(advance.holdings.first { $0.symbol == "BPC-USD" })
            #expect(holding.priceBefore == close["2020-03-12"]?.decimalString && holding.priceAfter == close["2020-03-13"]?.decimalString, "\(holding)")

            // Saturday: shares wait for the exchange, coins trade.
            let atMarket = try await server.send(.POST, orders, token: player.accessToken, body: #"{"symbol":"VTSW","side":"buy","quantity":1}"#)
            #expect(atMarket.status == 409 && atMarket.errorCode == "market_closed" && atMarket.text.contains("Monday 2020-03-16"), "\(atMarket.text)")
            // A bot's clock says so too: closed on Saturday, open again on Monday.
            let key = try await AlpacaAPITests.makeKey(server, player, portfolio: profile.id)
            let clock = try await server.send(.GET, "/alpaca/v2/clock", headers: key.headers).json()
            #expect(clock["is_open"] as? Bool == false && (clock["next_open"] as? String)?.hasPrefix("2020-03-16T09:30") == true, "\(clock)")
            let preview = try await server.send(.POST, "\(orders)/preview", token: player.accessToken,
                                                body: #"{"symbol":"VTSW","side":"buy","quantity":1,"type":"limit","limitPrice":"10000"}"#)
            #expect(preview.status == 200 && preview.text.contains("the order waits for the session of Monday 2020-03-16"), "\(preview.text)")
            let stockLimit = try await server.send(.POST, orders, token: player.accessToken,
                                                   body: #"{"symbol":"VTSW","side":"buy","quantity":1,"type":"limit","limitPrice":"10000"}"#)
            try #require(stockLimit.status == 201, "\(stockLimit.text)")
            let waitingStock = try stockLimit.decode(OrderDTO.self)
            #expect(waitingStock.status == "new", "a marketable limit waits for Monday's bar on a Saturday: \(waitingStock)")
            // A coin's limit under Friday's close rests; Saturday's bar (walked on Sunday) reaches it.
            let saturday = try #require(bar["2020-03-14"]), friday = try #require(close["2020-03-13"])
            try #require(saturday.low < friday, "the demo's Saturday must dip below Friday's close for this test")
            let limitPrice = Price(ticks: (saturday.low.ticks + friday.ticks) / 2).roundedToTradingTick()
            let coinLimit = try await server.send(.POST, orders, token: player.accessToken,
                                                  body: #"{"symbol":"BPC-USD","side":"buy","quantity":0.1,"type":"limit","limitPrice":"\#(limitPrice.decimalString)"}"#)
            try #require(coinLimit.status == 201, "\(coinLimit.text)")
            let waitingCoin = try coinLimit.decode(OrderDTO.self)
            #expect(waitingCoin.status == "new", "\(waitingCoin)")

            let weekend = try await server.advance(player, profile.id, #"{"to":"2020-03-16"}"#)
            try #require(weekend.status == 200, "\(weekend.text)")
            let toMonday = try weekend.decode(AdvanceDTO.self)
            #expect(toMonday.days == 2 && toMonday.dayCount == "calendar" && toMonday.message.contains("2 fills"), "\(toMonday)")
            let coinFill = try await server.send(.GET, "\(orders)/\(waitingCoin.id)", token: player.accessToken).decode(OrderDTO.self)
            // Filled by Saturday's UTC bar, walked on Sunday: at its open when it opened under the limit, else at the limit.
            let expected = saturday.open <= limitPrice ? saturday.open : limitPrice
            #expect(coinFill.status == "filled" && coinFill.fillPrice == expected.decimalString, "\(coinFill) \(saturday)")
            let stockFill = try await server.send(.GET, "\(orders)/\(waitingStock.id)", token: player.accessToken).decode(OrderDTO.self)
            let monday = try #require(try await demo.dailyBars(vtsw, from: SessionDate(iso: "2020-03-16"), through: SessionDate(iso: "2020-03-16"), asOf: .live).first)
            #expect(stockFill.status == "filled" && stockFill.fillPrice == monday.open.decimalString, "Monday's open: \(stockFill)")
            let positions = try await server.send(.GET, "/api/v1/portfolios/\(profile.id)/positions", token: player.accessToken).decode(PositionList.self)
            let coin = try #require(positions.positions.first { $0.symbol == "BPC-USD" })
            #expect(coin.lastPrice == close["2020-03-15"]?.decimalString && coin.assetClass == "crypto" && coin.quantity.text == "0.35", "\(coin)")
            #expect(positions.positions.first { $0.symbol == "VTSW" }?.assetClass == "us_equity")
            // Every calendar day has its close in the equity curve.
            let curve = try await server.send(.GET, "/api/v1/portfolios/\(profile.id)/history", token: player.accessToken)
            #expect(["2020-03-13", "2020-03-14", "2020-03-15", "2020-03-16"].allSatisfy { curve.text.contains("\"\($0)\"") }, "\(curve.text)")
            try await server.expectBalanced(player, profile.id)
        }
    }

    /// Live, a coin's limit order is worked around the clock: it fills at three on a Sunday while a
    /// stock's waits for the exchange to open, and a coin's day order ends at midnight UTC.
    @Test func aCoinsLimitOrderFillsOnASunday() async throws {
        let time = FixedTimeSource(Self.sunday)
        let market = MovableMarketData(base: DemoExchange(time: time))
        // The clock moves a day: the player's token must last that long.
        let configure: (inout ServerConfiguration) -> Void = { config in
            NotificationAPITests.quiet(&config)
            config.accessTokenLifetime = 86_400
        }
        try await withServer(time: time, source: market, configure: configure) { server in
            let player = try await server.register()
            let monitor = try #require(server.app.bullpen.orderMonitor)
            market.setMarketOpen(false)
            market.set("BPC-USD", "100")
            market.set("VTSW", "50")
            market.stampTrades(Self.sunday)
            let coin = try await server.placed(player, #"{"symbol":"BPC-USD","side":"buy","quantity":0.5,"type":"limit","limitPrice":"95"}"#)
            #expect(coin.status == "new" && coin.heldCash == "47.50" && coin.expiresAt == SessionDate(year: 2025, month: 11, day: 3).date, "\(coin)")
            let stock = try await server.placed(player, #"{"symbol":"VTSW","side":"buy","quantity":1,"type":"limit","limitPrice":"45","timeInForce":"gtc"}"#)
            #expect(stock.status == "new")
            market.set("BPC-USD", "94.5")
            market.set("VTSW", "44")
            let round = try await monitor.runOnce()
            #expect(round.filled == 1 && round.working == 2, "\(round)")
            let filled = try await server.send(.GET, "/api/v1/portfolios/\(player.mainPortfolio)/orders/\(coin.id)",
                                               token: player.accessToken).decode(OrderDTO.self)
            #expect(filled.status == "filled" && filled.fillPrice == "94.50" && filled.filledQuantity == ExactNumber("0.5"), "\(filled)")
            #expect(try await server.orders(player, status: "open").map(\.id) == [stock.id], "the stock's waits for the open")
            // A day order for a coin placed at 23:00 ends at midnight UTC.
            time.advance(by: 20 * 3_600)
            market.stampTrades(time.now())
            let late = try await server.placed(player, #"{"symbol":"BPC-USD","side":"buy","quantity":0.5,"type":"limit","limitPrice":"80"}"#)
            time.advance(by: 3_601)
            market.stampTrades(time.now())
            #expect(try await monitor.runOnce().expired == 1)
            let ended = try await server.send(.GET, "/api/v1/portfolios/\(player.mainPortfolio)/orders/\(late.id)",
                                              token: player.accessToken).decode(OrderDTO.self)
            #expect(ended.status == "expired", "\(ended)")
            try await server.expectBalanced(player, player.mainPortfolio)
        }
    }

    @Test func aLeagueMayKeepToStocksAndMarketHoursDoNotBindCoins() async throws {
        let time = FixedTimeSource(Self.sunday)
        try await withServer(demo: true, time: time, demoTime: time) { server in
            let owner = try await server.register()
            let stocksOnly = try await server.send(.POST, "/api/v1/leagues", token: owner.accessToken,
                                                   body: #"{"name":"Stocks","visibility":"public","rules":{"allowCrypto":false}}"#).decode(LeagueDTO.self)
            #expect(!stocksOnly.rules.allowCrypto)
            let refused = try await server.send(.POST, "/api/v1/portfolios/\(stocksOnly.myPortfolioId!)/orders", token: owner.accessToken,
                                                body: #"{"symbol":"BPC-USD","side":"buy","notional":"25"}"#)
            #expect(refused.status == 422 && refused.errorCode == "instrument_not_allowed", "\(refused.text)")
            let hours = try await server.send(.POST, "/api/v1/leagues", token: owner.accessToken,
                                              body: #"{"name":"Hours","visibility":"public","rules":{"marketHoursOnly":true}}"#).decode(LeagueDTO.self)
            #expect(hours.rules.allowCrypto)
            let portfolio = "/api/v1/portfolios/\(hours.myPortfolioId!)/orders"
            let coin = try await server.send(.POST, portfolio, token: owner.accessToken, body: #"{"symbol":"EMBR-USD","side":"buy","quantity":0.5}"#)
            #expect(coin.status == 201, "\(coin.text)")
            let stock = try await server.send(.POST, portfolio, token: owner.accessToken, body: #"{"symbol":"VTSW","side":"buy","quantity":1}"#)
            #expect(stock.status == 409 && stock.errorCode == "market_closed", "\(stock.status) \(stock.text)")
            // A replay league's clock moves on sessions, so a coin's order there must fill at once.
            let replay = try await server.send(.POST, "/api/v1/leagues", token: owner.accessToken, body: #"""
                {"name":"Then","visibility":"public","clock":{"mode":"replay","start":"2020-03","advance":"manual"}}
                """#).decode(LeagueDTO.self)
            let then = "/api/v1/portfolios/\(replay.myPortfolioId!)/orders"
            let resting = try await server.send(.POST, then, token: owner.accessToken,
                                                body: #"{"symbol":"BPC-USD","side":"buy","quantity":0.5,"type":"limit","limitPrice":"1.00"}"#)
            #expect(resting.status == 422 && resting.errorCode == "order_type_not_available" && resting.text.contains("sessions"), "\(resting.text)")
            let atOnce = try await server.send(.POST, then, token: owner.accessToken, body: #"{"symbol":"BPC-USD","side":"buy","quantity":0.5}"#)
            #expect(atOnce.status == 201, "\(atOnce.text)")
        }
    }
}
