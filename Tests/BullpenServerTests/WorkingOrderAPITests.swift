import BullpenAPI
import BullpenCore
import BullpenMarketData
import BullpenStore
@testable import BullpenServer
import BullpenTestSupport
import Foundation
import NIOHTTP1
import Testing
import Vapor

extension TestServer {
    func place(_ player: Player, _ body: String, portfolio: String? = nil) async throws -> Reply {
        try await send(.POST, "/api/v1/portfolios/\(portfolio ?? player.mainPortfolio)/orders", token: player.accessToken, body: body)
    }

    func placed(_ player: Player, _ body: String, portfolio: String? = nil) async throws -> OrderDTO {
        let reply = try await place(player, body, portfolio: portfolio)
        try #require(reply.status == 201, "\(body): \(reply.text)")
        return try reply.decode(OrderDTO.self)
    }

    func orders(_ player: Player, portfolio: String? = nil, status: String = "all") async throws -> [OrderDTO] {
        try await send(.GET, "/api/v1/portfolios/\(portfolio ?? player.mainPortfolio)/orders?status=\(status)&limit=100",
                       token: player.accessToken).decode(OrderList.self).orders
    }
}

@Suite("Working orders over HTTP")
struct WorkingOrderAPITests {
    /// Wednesday 2026-11-25, 10:00 in New York: the market is open.
    static let inSession = TradingCalendar.instant(SessionDate(year: 2026, month: 11, day: 25), 10, 0)

    /// Live: a limit order holds its cash, is replaced, fills when the quote comes down to it (the
    /// monitor's round), and tells the player; a trailing stop follows the price and sells on the
    /// turn; a day order expires at the close; a cancelled order cannot be cancelled again.
    @Test func liveWorkingOrdersFromPlacementToFill() async throws {
        let market = try await MovableMarketData.tiny()
        let time = FixedTimeSource(Self.inSession)
        try await withServer(time: time, source: market, configure: NotificationAPITests.quiet) { server in
            let player = try await server.register()
            let monitor = try #require(server.app.bullpen.orderMonitor)
            market.set("MSFT", "400")
            market.setMarketOpen(true)
            market.stampTrades(Self.inSession)
            let limit = try await server.placed(player, #"{"symbol":"MSFT","side":"buy","quantity":2,"type":"limit","limitPrice":"390","timeInForce":"gtc"}"#)
            #expect(limit.status == "new" && limit.heldCash == "780.00" && limit.timeInForce == "gtc" && limit.limitPrice == "390.00")
            #expect(limit.summary == "Buy 2 MSFT if the price is $390.00 or lower, until you cancel it (at most 90 days).")
            var portfolio = try await server.portfolio(player, player.mainPortfolio)
            #expect(portfolio.reservedCash == "780.00" && portfolio.availableCash == "99220.00" && portfolio.cash == "100000.00")
            #expect(try await server.orders(player, status: "open").map(\.id) == [limit.id])
            #expect(try await server.orders(player, status: "closed").isEmpty)

            // Replaced at 395: a new order, linked; the hold follows.
            let replaced = try await server.send(.PATCH, "/api/v1/portfolios/\(player.mainPortfolio)/orders/\(limit.id)",
                                                 token: player.accessToken, body: #"{"limitPrice":"395"}"#)
            try #require(replaced.status == 200, "\(replaced.text)")
            let pair = try replaced.decode(ReplacedOrderDTO.self)
            #expect(pair.replaced.status == "replaced" && pair.replaced.replacedByOrderId == pair.order.id)
            #expect(pair.order.replacesOrderId == limit.id && pair.order.heldCash == "790.00" && pair.order.quantity == 2)

            // Not reached at 396; reached at 394.50: filled at the quote.
            market.set("MSFT", "396")
            #expect(try await monitor.runOnce().filled == 0)
            // A price that is not a trade of this session (a provider's cached close) fills nothing.
            market.stampTrades(nil)
            market.set("MSFT", "394.5")
            #expect(try await monitor.runOnce().filled == 0)
            market.stampTrades(Self.inSession)
            let round = try await monitor.runOnce()
            #expect(round.filled == 1 && round.working == 1)
            let filled = try await server.send(.GET, "/api/v1/portfolios/\(player.mainPortfolio)/orders/\(pair.order.id)",
                                               token: player.accessToken).decode(OrderDTO.self)
            #expect(filled.status == "filled" && filled.fillPrice == "394.50" && filled.filledQuantity == 2)
            #expect(filled.history?.map(\.status) == ["new", "filled"] && filled.fillNote?.contains("$394.50") == true)
            portfolio = try await server.portfolio(player, player.mainPortfolio)
            #expect(portfolio.cash == "99211.00" && portfolio.reservedCash == "0.00")
            let told = try await server.notifications(player).notifications
            #expect(told.first?.kind == "order_filled" && told.first?.title == "Bought 2 MSFT at $394.50")

            // A trailing stop of 2 %: the mark follows 400 up to 410, and the stop (401.80) sells at 401.
            market.set("MSFT", "400")
            let trailing = try await server.placed(player, #"{"symbol":"MSFT","side":"sell","quantity":2,"type":"trailing_stop","trailPercent":"2","timeInForce":"gtc"}"#)
            #expect(trailing.status == "new" && trailing.heldShares == 2 && trailing.currentStop == "392.00")
            let refused = try await server.order(player, "sell", 1, "MSFT")
            #expect(refused.status == 422 && refused.errorCode == "shares_committed")
            market.set("MSFT", "410")
            try await monitor.runOnce()
            let moved = try await server.send(.GET, "/api/v1/portfolios/\(player.mainPortfolio)/orders/\(trailing.id)",
                                              token: player.accessToken).decode(OrderDTO.self)
            #expect(moved.waterMark == "410.00" && moved.currentStop == "401.80" && moved.status == "new")
            market.set("MSFT", "401")
            #expect(try await monitor.runOnce().filled == 1)
            #expect(try await server.portfolio(player, player.mainPortfolio).holdingsCount == 0)

            // Cancelled once; a second cancel is refused; so is a change.
            let day = try await server.placed(player, #"{"symbol":"MSFT","side":"buy","quantity":1,"type":"limit","limitPrice":"100"}"#)
            let path = "/api/v1/portfolios/\(player.mainPortfolio)/orders/\(day.id)"
            let cancelled = try await server.send(.DELETE, path, token: player.accessToken)
            #expect(cancelled.status == 200)
            #expect(try cancelled.decode(OrderDTO.self).status == "canceled")
            let again = try await server.send(.DELETE, path, token: player.accessToken)
            #expect(again.status == 409 && again.errorCode == "order_not_open")
            let change = try await server.send(.PATCH, path, token: player.accessToken, body: #"{"limitPrice":"101"}"#)
            #expect(change.status == 409 && change.errorCode == "order_not_open")

            // A day order ends with its session: after the close, the monitor expires it.
            let expiring = try await server.placed(player, #"{"symbol":"MSFT","side":"buy","quantity":1,"type":"limit","limitPrice":"100"}"#)
            time.advance(by: 7 * 3_600)   // 17:00 in New York
            market.setMarketOpen(false)
            #expect(try await monitor.runOnce().expired == 1)
            let owner = try #require(UserID(player.id)), id = try #require(PortfolioID(player.mainPortfolio))
            let ended = try await server.store.order(try #require(OrderID(expiring.id)), in: id, owner: owner)
            #expect(ended.status == .expired && ended.reason?.contains("day order") == true)
            try await server.expectBalanced(player, player.mainPortfolio)
        }
    }

    /// What placing refuses, with a clear code each; ioc and fok cancel what cannot fill at once;
    /// a marketable limit fills at once at the price now.
    @Test func placementRulesAndImmediateOrders() async throws {
        try await withServer { server in
            let player = try await server.register()
            for (body, status, code) in [
                (#"{"symbol":"MSFT","side":"buy","quantity":1,"type":"limit"}"#, 400, "validation_failed"),
                (#"{"symbol":"MSFT","side":"buy","quantity":1,"type":"market","limitPrice":"5"}"#, 400, "validation_failed"),
                (#"{"symbol":"MSFT","side":"buy","quantity":1,"type":"limit","limitPrice":"-5"}"#, 400, "validation_failed"),
                (#"{"symbol":"MSFT","side":"buy","quantity":1,"type":"limit","limitPrice":"1.23456"}"#, 400, "validation_failed"),
                (#"{"symbol":"MSFT","side":"buy","quantity":1,"type":"trailing_stop","trailPercent":"60"}"#, 400, "validation_failed"),
                (#"{"symbol":"MSFT","side":"buy","quantity":1,"type":"trailing_stop","trailPercent":"5","trailPrice":"2"}"#, 400, "validation_failed"),
                (#"{"symbol":"MSFT","side":"buy","quantity":1,"type":"iceberg"}"#, 400, "validation_failed"),
                (#"{"symbol":"MSFT","side":"buy","quantity":1,"timeInForce":"forever"}"#, 400, "validation_failed"),
                (#"{"symbol":"MSFT","side":"buy","quantity":1,"type":"limit","limitPrice":"300","stopLoss":"1"}"#, 400, "validation_failed"),
                (#"{"symbol":"MSFT","side":"buy","quantity":1,"timeInForce":"opg"}"#, 422, "order_type_not_available"),
                (#"{"symbol":"MSFT","side":"buy","quantity":1000,"type":"limit","limitPrice":"390"}"#, 422, "insufficient_funds"),
                (#"{"symbol":"MSFT","side":"sell","quantity":1,"type":"stop","stopPrice":"390"}"#, 422, "insufficient_shares"),
            ] {
                let reply = try await server.place(player, body)
                #expect(reply.status == status && reply.errorCode == code, "\(body): \(reply.text)")
            }
            let ioc = try await server.placed(player, #"{"symbol":"MSFT","side":"buy","quantity":1,"type":"limit","limitPrice":"390","timeInForce":"ioc"}"#)
            #expect(ioc.status == "canceled" && ioc.reason?.contains("Immediate or cancel") == true)
            // Marketable now (MSFT's last close is 400): filled at 400, not at the limit.
            let now = try await server.placed(player, #"{"symbol":"MSFT","side":"buy","quantity":1,"type":"limit","limitPrice":"450","timeInForce":"fok"}"#)
            #expect(now.status == "filled" && now.fillPrice == "400.00")
            let preview = try await server.send(.POST, "/api/v1/portfolios/\(player.mainPortfolio)/orders/preview", token: player.accessToken,
                                                body: #"{"symbol":"MSFT","side":"buy","quantity":3,"type":"limit","limitPrice":"380"}"#)
                .decode(OrderPreviewDTO.self)
            #expect(preview.price == "380.00" && preview.total == "1140.00" && preview.problems.isEmpty)
            #expect(preview.summary == "Buy 3 MSFT if the price is $380.00 or lower, until the end of the trading day.")
            #expect(preview.priceNote?.contains("holds $1,140.00 of your cash") == true)
            let bad = try await server.send(.GET, "/api/v1/portfolios/\(player.mainPortfolio)/orders?status=pending", token: player.accessToken)
            #expect(bad.status == 400)
            try await server.expectBalanced(player, player.mainPortfolio)
        }
    }

    /// A replay fills working orders on the bars it passes, each at the price the day's bar gives
    /// (computed here from the bars), never on the bar of the day it was placed; a day order that
    /// did not fill expires after its session.
    @Test(arguments: ReplayMarket.available)
    func replayFillsWorkingOrdersOnTheBarsItPasses(market: ReplayMarket) async throws {
        let source = try await market.source()
        try await withServer(source: source) { server in
            let player = try await server.register()
            let profile = try await server.createReplay(player, #"{"startingCash":"100000.00","replay":{"start":"2009-03-02"}}"#)
            let start = SessionDate(year: 2009, month: 3, day: 2)
            let symbol = try #require(try await ReplayService(store: server.store, source: source, time: SystemTimeSource())
                .listedSymbols(on: start).first)
            let close = try #require(try await source.quote(symbol, asOf: .replay(start.date))).price
            _ = try await server.order(player, "buy", 10, symbol.rawValue, portfolio: profile.id)
            func cents(_ price: Price, _ percent: Int64) -> Price {
                Price(cents: FixedPoint.divideRounded(price.ticks * percent, by: 100 * Price.ticksPerCent))
            }
            let buyAt = cents(close, 95), stopAt = cents(close, 90), never = cents(close, 40)
            let buy = try await server.placed(player, #"{"symbol":"\#(symbol)","side":"buy","quantity":5,"type":"limit","limitPrice":"\#(buyAt.decimalString)","timeInForce":"gtc"}"#, portfolio: profile.id)
            let stop = try await server.placed(player, #"{"symbol":"\#(symbol)","side":"sell","quantity":10,"type":"stop","stopPrice":"\#(stopAt.decimalString)","timeInForce":"gtc"}"#, portfolio: profile.id)
            let day = try await server.placed(player, #"{"symbol":"\#(symbol)","side":"buy","quantity":1,"type":"limit","limitPrice":"\#(never.decimalString)"}"#, portfolio: profile.id)
            #expect([buy.status, stop.status, day.status] == ["new", "new", "new"])
            #expect(day.lastSession == "2009-03-03")
            let committed = try await server.order(player, "sell", 1, symbol.rawValue, portfolio: profile.id)
            #expect(committed.errorCode == "shares_committed")

            let moved = try await server.advance(player, profile.id, #"{"days":60}"#)
            try #require(moved.status == 200, "\(moved.text)")
            let to = try #require(SessionDate(iso: try moved.decode(AdvanceDTO.self).to))
            let bars = try await source.dailyBars(symbol, from: start.adding(days: 1), through: to, asOf: .replay(to.date))
            // What the bars say, worked out here: the first bar that reaches each order's price.
            func expected(_ reaches: (DailyBar) -> Bool, _ price: (DailyBar) -> Price) -> (String, Price)? {
                bars.first(where: reaches).map { ($0.date.description, price($0)) }
            }
            let buyFill = expected({ $0.low <= buyAt }, { $0.open <= buyAt ? $0.open : buyAt })
            let stopFill = expected({ $0.low <= stopAt }, { $0.open <= stopAt ? $0.open : stopAt })
            let orders = Dictionary(uniqueKeysWithValues: try await server.orders(player, portfolio: profile.id).map { ($0.id, $0) })
            for (order, fill) in [(buy, buyFill), (stop, stopFill)] {
                let now = try #require(orders[order.id])
                if let (date, price) = fill {
                    #expect(now.status == "filled" && now.fillPrice.flatMap(Price.init(parsing:)) == price, "\(now)")
                    #expect(now.priceSource == "daily_bar" && now.priceAsOf == SessionDate(iso: date)?.date)
                    #expect(now.fillNote?.contains(date) == true)
                } else {
                    #expect(now.status == "new", "no bar reached \(order.type) \(order.limitPrice ?? order.stopPrice ?? "")")
                }
            }
            #expect(orders[day.id]?.status == "expired")
            try await server.expectBalanced(player, profile.id)
        }
    }

    /// The realism rules: market orders slip by the rule's share against the player; a working
    /// order fills at most the rule's share of a bar's volume, and the rest keeps working.
    @Test(arguments: ReplayMarket.available)
    func slippageAndTheVolumeCap(market: ReplayMarket) async throws {
        let source = try await market.source()
        try await withServer(source: source) { server in
            let player = try await server.register()
            let profile = try await server.createReplay(player, #"{"startingCash":"10000000.00","volumeCapPercent":"0.01","slippagePercent":"0.50","replay":{"start":"2009-03-02"}}"#)
            #expect(profile.rules.volumeCapPercent == "0.01" && profile.rules.slippagePercent == "0.50")
            let start = SessionDate(year: 2009, month: 3, day: 2)
            let symbol = try #require(try await ReplayService(store: server.store, source: source, time: SystemTimeSource())
                .listedSymbols(on: start).first)
            let close = try #require(try await source.quote(symbol, asOf: .replay(start.date))).price
            let bought = try await server.order(player, "buy", 10, symbol.rawValue, portfolio: profile.id).decode(OrderDTO.self)
            let slipped = OrderEvaluation.slipped(close, side: .buy, basisPoints: 50).roundedToTradingTick()
            #expect(bought.fillPrice.flatMap(Price.init(parsing:)) == slipped && slipped > close)
            #expect(bought.priceNote?.contains("slippage of 0.50 %") == true)

            let limit = Price(cents: FixedPoint.divideRounded(close.ticks * 97, by: 100 * Price.ticksPerCent))
            let bars = try await source.dailyBars(symbol, from: start.adding(days: 1), through: start.adding(days: 200), asOf: .replay(start.adding(days: 200).date))
            let reaching = try #require(bars.first { $0.low <= limit })
            let cap = reaching.volume / 10_000
            try #require(cap > 0, "the bar of \(reaching.date) has \(reaching.volume) shares")
            let order = try await server.placed(player, #"{"symbol":"\#(symbol)","side":"buy","quantity":\#(cap + 7),"type":"limit","limitPrice":"\#(limit.decimalString)","timeInForce":"gtc"}"#, portfolio: profile.id)
            let moved = try await server.advance(player, profile.id, #"{"to":"\#(reaching.date)"}"#)
            try #require(moved.status == 200, "\(moved.text)")
            let now = try await server.send(.GET, "/api/v1/portfolios/\(profile.id)/orders/\(order.id)", token: player.accessToken).decode(OrderDTO.self)
            #expect(now.status == "partially_filled" && now.filledQuantity == ExactNumber(String(cap)), "\(now)")
            #expect(now.fillNote?.contains("7 stay working") == true)
            #expect(now.heldCash == (limit.notional(quantity: 7)).decimalString)
            try await server.expectBalanced(player, profile.id)
        }
    }

    /// A portfolio that allows short selling sells shares it does not hold within its margin, shows
    /// the shorts' standing, covers, and is called at a close that finds too little equity (told
    /// to the player, applied once); one that does not allow it refuses.
    @Test func shortSellingOnMarginOverHTTP() async throws {
        let market = try await MovableMarketData.tiny()
        // During the session of 2024-01-03 (the pack's last): the trades come before its close.
        let time = FixedTimeSource(TradingCalendar.instant(SessionDate(year: 2024, month: 1, day: 3), 11, 0))
        try await withServer(time: time, source: market, configure: NotificationAPITests.quiet) { server in
            let player = try await server.register()
            let refused = try await server.order(player, "sell", 1, "MSFT")
            #expect(refused.status == 422 && refused.errorCode == "insufficient_shares")
            let created = try await server.send(.POST, "/api/v1/portfolios", token: player.accessToken,
                                                body: #"{"name":"Bears","shortSelling":true}"#)
            try #require(created.status == 201, "\(created.text)")
            let bears = try created.decode(PortfolioDTO.self)
            #expect(bears.rules.shortSelling == true && bears.rules.initialMarginPercent == "50.00" && bears.rules.maintenanceMarginPercent == "30.00")
            market.set("MSFT", "100")
            let tooMuch = try await server.order(player, "sell", 2_001, "MSFT", portfolio: bears.id)
            #expect(tooMuch.status == 422 && tooMuch.errorCode == "insufficient_margin")
            let short = try await server.order(player, "sell", 1_900, "MSFT", portfolio: bears.id)
            #expect(short.status == 201, "\(short.text)")
            var portfolio = try await server.portfolio(player, bears.id)
            #expect(portfolio.cash == "290000.00" && portfolio.margin?.collateral == "285000.00" && portfolio.availableCash == "5000.00")
            #expect(portfolio.margin?.met == true && portfolio.margin?.words.contains("no limit") == true)
            let over = try await server.order(player, "buy", 1_901, "MSFT", portfolio: bears.id)
            #expect(over.status == 422 && over.errorCode == "insufficient_shares")
            let cover = try await server.order(player, "buy", 100, "MSFT", portfolio: bears.id).decode(OrderDTO.self)
            #expect(cover.realizedPnl == "0.00" && cover.cashDelta == "-10000.00")
            // The session's close at 400 finds the equity far below 30 % of the shorts: a call, told once.
            let job = ClosingEquityJob(store: server.store, source: market, logger: server.app.logger, notifier: server.app.bullpen.notifier)
            let session = SessionDate(year: 2024, month: 1, day: 3)
            try await job.closeMargins(on: session)
            try await job.closeMargins(on: session)
            let activity = try await server.send(.GET, "/api/v1/portfolios/\(bears.id)/activities", token: player.accessToken)
                .decode(ActivityPage.self).activities.map(\.type)
            #expect(activity.filter { $0 == "margin_call" }.count == 1 && activity.filter { $0 == "borrow_fee" }.count == 1, "\(activity)")
            let told = try await server.notifications(player).notifications
            #expect(told.first?.kind == "margin_call" && told.first?.title == "Margin call on Bears")
            market.set("MSFT", "400")
            portfolio = try await server.portfolio(player, bears.id)
            #expect(portfolio.margin?.met == false && portfolio.margin?.shortValue == "720000.00")
            try await server.expectBalanced(player, bears.id)
        }
    }

    /// A replay under the margin rule charges the borrow fee at each close it passes, on the
    /// shorts' value at that close.
    @Test(arguments: ReplayMarket.available)
    func aReplayChargesTheBorrowFeeEachSession(market: ReplayMarket) async throws {
        let source = try await market.source()
        try await withServer(source: source) { server in
            let player = try await server.register()
            let profile = try await server.createReplay(player, #"{"startingCash":"100000.00","shortSelling":true,"replay":{"start":"2009-03-02"}}"#)
            let start = SessionDate(year: 2009, month: 3, day: 2)
            let symbol = try #require(try await ReplayService(store: server.store, source: source, time: SystemTimeSource())
                .listedSymbols(on: start).first)
            let close = try #require(try await source.quote(symbol, asOf: .replay(start.date))).price
            let quantity = 30_000 * Price.ticksPerCent * 100 / close.ticks
            let short = try await server.order(player, "sell", ExactNumber(String(quantity)), symbol.rawValue, portfolio: profile.id)
            try #require(short.status == 201, "\(short.text)")
            let moved = try await server.advance(player, profile.id, #"{"days":5}"#).decode(AdvanceDTO.self)
            let to: SessionDate? = SessionDate(iso: moved.to)
            let end = try #require(to)
            let bars = try await source.dailyBars(symbol, from: start.adding(days: 1), through: end, asOf: .replay(end.date))
            let fees = bars.map { bar in
                Money(cents: FixedPoint.divideRounded(bar.close.notional(quantity: Quantity(whole: quantity)).cents * 300, by: 10_000 * 252))
            }
            let activity = try await server.send(.GET, "/api/v1/portfolios/\(profile.id)/activities", token: player.accessToken)
                .decode(ActivityPage.self).activities.filter { $0.type == "borrow_fee" }
            #expect(activity.map(\.amount).reversed() == fees.map { (Money.zero - $0).decimalString }, "\(activity.map(\.amount))")
            #expect(activity.count == 5)
            try await server.expectBalanced(player, profile.id)
        }
    }
}
