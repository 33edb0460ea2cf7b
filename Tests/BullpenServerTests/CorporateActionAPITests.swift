import BullpenAPI
import BullpenCore
import BullpenMarketData
import BullpenStore
@testable import BullpenServer
import BullpenTestSupport
import Foundation
import NIOHTTP1
import Vapor
import Testing

/// Splits and dividends reaching portfolios: a replay on the demo exchange passes Quillfeather's
/// 2-for-1 split and a Brightlattice dividend; a live portfolio gets its dividend on the ex-date,
/// for the shares held when that session opened, once however often the job runs.
@Suite("Splits and dividends over HTTP")
struct CorporateActionAPITests {
    @Test func aReplayPassesASplitAndADividend() async throws {
        // A demo exchange in February 2027, after its first split and dividends.
        let source = DemoExchange(time: FixedTimeSource(TradingCalendar.instant(SessionDate(year: 2027, month: 2, day: 1), 20, 0)))
        try await withServer(source: source) { server in
            let player = try await server.register()
            let profile = try await server.createReplay(player, #"{"startingCash":"100000.00","replay":{"start":"2027-01-04"}}"#)
            _ = try await server.order(player, "buy", 10, "QFSC", portfolio: profile.id)
            _ = try await server.order(player, "buy", 100, "BLTN", portfolio: profile.id)
            let close = try #require(try await source.quote(Symbol("QFSC")!, asOf: .replay(SessionDate(year: 2027, month: 1, day: 4).date))).price
            let limit = Price(cents: close.ticks * 3 / Price.ticksPerCent)
            let sell = try await server.placed(player, #"{"symbol":"QFSC","side":"sell","quantity":10,"type":"limit","limitPrice":"\#(limit.decimalString)","timeInForce":"gtc"}"#, portfolio: profile.id)
            let before = try await server.portfolio(player, profile.id)
            let moved = try await server.advance(player, profile.id, #"{"to":"2027-01-19"}"#)
            try #require(moved.status == 200, "\(moved.text)")
            let positions = try await server.send(.GET, "/api/v1/portfolios/\(profile.id)/positions", token: player.accessToken)
                .decode(PositionList.self).positions
            #expect(positions.first { $0.symbol == "QFSC" }?.quantity == 20)
            #expect(positions.first { $0.symbol == "QFSC" }?.costBasis == positions.first { $0.symbol == "QFSC" }.map { _ in
                Money(cents: close.notional(quantity: 10).cents).decimalString })
            let order = try await server.send(.GET, "/api/v1/portfolios/\(profile.id)/orders/\(sell.id)", token: player.accessToken)
                .decode(OrderDTO.self)
            #expect(order.quantity == 20 && order.limitPrice == Price(ticks: FixedPoint.divideRounded(limit.ticks, by: 2)).decimalString)
            #expect(order.history?.contains { $0.note?.contains("split 2-for-1") == true } == true)
            let activity = try await server.send(.GET, "/api/v1/portfolios/\(profile.id)/activities", token: player.accessToken)
                .decode(ActivityPage.self).activities
            #expect(activity.first { $0.type == "split" }?.quantity == 10)
            #expect(activity.first { $0.type == "dividend" }?.amount == "30.00")
            let after = try await server.portfolio(player, profile.id)
            #expect(Money(parsing: after.cash) == Money(parsing: before.cash)! + Money(dollars: 30))
            try await server.expectBalanced(player, profile.id)
        }
    }

    @Test func aLivePortfolioGetsItsDividendOnceOnTheExDate() async throws {
        // Thursday 2027-01-14 in session, then the ex-date, Friday 2027-01-15.
        let time = FixedTimeSource(TradingCalendar.instant(SessionDate(year: 2027, month: 1, day: 14), 11, 0))
        try await withServer(demo: true, time: time, demoTime: time, configure: NotificationAPITests.quiet) { server in
            let player = try await server.register()
            let bought = try await server.order(player, "buy", 40, "BLTN")
            try #require(bought.status == 201, "\(bought.text)")
            let source = try #require(server.app.bullpen.marketData)
            let job = CorporateActionJob(store: server.store, source: source, logger: server.app.logger)
            #expect(try await job.runOnce() == 0)
            time.advance(by: 86_400)
            // Shares bought on the ex-date, before the job runs, take no part in the dividend.
            let owner = try #require(UserID(player.id)), id = try #require(PortfolioID(player.mainPortfolio))
            _ = try await server.app.bullpen.portfolios.placeOrder(OrderRequest(symbol: Symbol("BLTN")!, side: .buy, quantity: 10),
                                                                   in: id, owner: owner, idempotency: nil)
            #expect(try await job.runOnce() == 1)
            #expect(try await job.runOnce() == 0)
            let again = CorporateActionJob(store: server.store, source: source, logger: server.app.logger)
            #expect(try await again.runOnce() == 0)   // a restart finds it applied
            let journal = try await server.store.currentPeriod(of: id, owner: owner).journal
            #expect(journal.filter { $0.kind == .dividend }.map(\.cashDelta) == [Money(dollars: 12)])   // 40 shares × $0.30
            try await server.expectBalanced(player, player.mainPortfolio)
        }
    }
}
