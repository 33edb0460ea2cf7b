import Foundation
import Testing
import BullpenTestSupport
@testable import BullpenCore

/// Splits and dividends on positions, cash, working orders, the journal and a replay's walk.
@Suite("Splits and dividends")
struct CorporateActionTests {
    static let acme = Symbol("ACME")!
    static let day = SessionDate(year: 2024, month: 6, day: 10)
    static func p(_ text: String) -> Price { Price(parsing: text)! }

    static func holding(_ quantity: Quantity, at price: String, cash: Money = Money(dollars: 10_000)) -> Book {
        var book = Book(startingCash: cash)
        let notional = p(price).notional(quantity: quantity)
        book.apply(Fill(symbol: acme, side: .buy, quantity: quantity, price: p(price), notional: notional, commission: .zero,
                        realizedPnL: .zero, cashDelta: Money.zero - notional))
        return book
    }

    @Test func aSplitMultipliesSharesAndKeepsTheBasis() throws {
        let split = CorporateAction(symbol: Self.acme, exDate: Self.day, kind: .split(to: 2, from: 1))
        var book = Self.holding(10, at: "100")
        book.apply(split, price: Self.p("51"))
        #expect(book.quantity(of: Self.acme) == 20 && book.positions[Self.acme]?.costBasis == Money(dollars: 1_000))
        #expect(book.cash == Money(dollars: 9_000))
    }

    /// 3-for-2 on 5 shares is 7.5: 7 shares, and half a share paid at the day's price with its basis.
    @Test func aFractionIsPaidInCashWithItsBasis() throws {
        let split = CorporateAction(symbol: Self.acme, exDate: Self.day, kind: .split(to: 3, from: 2))
        let book = Self.holding(5, at: "90")   // basis $450, 7.5 new shares at $60 each
        let effect = try #require(split.effect(on: book, price: Self.p("61")))
        #expect(effect.quantityDelta == 2 && effect.cash == Money(cents: 3_050) && effect.basisOut == Money(dollars: 30))
        #expect(effect.realized == Money(cents: 50))
        // Journaled, the entry replays to the same book: the journal stays the whole truth.
        let ids = SequentialIDSource()
        let entry = try #require(split.entry(on: book, price: Self.p("61"), portfolioID: PortfolioID(UUID()), period: 1, sequence: 2,
                                             createdAt: Date(), ids: ids))
        var journaled = book
        journaled.apply(entry)
        var direct = book
        direct.apply(split, price: Self.p("61"))
        #expect(journaled == direct && journaled.quantity(of: Self.acme) == 7 && journaled.positions[Self.acme]?.costBasis == Money(dollars: 420))
    }

    @Test func dividendsPayHoldersAndShortsPayThem() throws {
        let dividend = CorporateAction(symbol: Self.acme, exDate: Self.day, kind: .dividend(cash: Self.p("0.24")))
        var long = Self.holding(100, at: "50")
        long.apply(dividend, price: nil)
        #expect(long.cash == Money(dollars: 5_000) + Money(cents: 2_400))
        var short = try TradingEngine.execute(OrderRequest(symbol: Self.acme, side: .sell, quantity: 100), on: Book(startingCash: Money(dollars: 10_000)),
                                              at: Self.p("50"), rules: PortfolioRules(margin: .standard), trading: true).book
        short.apply(dividend, price: nil)
        #expect(short.cash == Money(dollars: 15_000) - Money(cents: 2_400))
        // Nothing held: nothing happens.
        #expect(dividend.effect(on: Book(startingCash: Money(dollars: 1)), price: nil) == nil)
    }

    @Test func workingOrdersAreAdjustedAsBrokersDo() {
        var order = WorkingOrder(id: OrderID(UUID()), symbol: Self.acme, side: .sell, quantity: 10, filledQuantity: 3,
                                 terms: OrderTerms(type: .stopLimit, timeInForce: .gtc, limit: Self.p("95"), stop: Self.p("97.01")),
                                 placedOn: Self.day, placedAt: Self.day.date, holdPrice: nil)
        order = order.adjusted(for: CorporateAction(symbol: Self.acme, exDate: Self.day, kind: .split(to: 2, from: 1)))
        #expect(order.quantity == 17 && order.filledQuantity == 3 && order.remaining == 14)
        #expect(order.terms.limit == Self.p("47.50") && order.terms.stop == Price(ticks: 485_050))
        var trailing = WorkingOrder(id: OrderID(UUID()), symbol: Self.acme, side: .sell, quantity: 4,
                                    terms: OrderTerms(type: .trailingStop, trail: .price(Self.p("3"))), waterMark: Self.p("120"),
                                    placedOn: Self.day, placedAt: Self.day.date)
        trailing = trailing.adjusted(for: CorporateAction(symbol: Self.acme, exDate: Self.day, kind: .split(to: 3, from: 1)))
        #expect(trailing.quantity == 12 && trailing.waterMark == Self.p("40") && trailing.terms.trail == .price(Self.p("1")))
    }

    /// A replay's walk applies a split at the open of its ex-date: the shares double, the working
    /// sell follows, and the equity does not jump on the day the price halves.
    @Test func aReplayWalksThroughASplit() {
        let before = SessionDate(year: 2024, month: 6, day: 7)
        let days = [Self.day, SessionDate(year: 2024, month: 6, day: 11)]
        var book = Self.holding(10, at: "100")
        let sell = WorkingOrder(id: OrderID(UUID()), symbol: Self.acme, side: .sell, quantity: 10,
                                terms: OrderTerms(type: .limit, timeInForce: .gtc, limit: Self.p("120")),
                                placedOn: before, placedAt: before.date)
        book.holds = OrderHolds([sell])
        let bars: [SessionDate: DailyBar] = [
            days[0]: DailyBar(date: days[0], open: Self.p("50"), high: Self.p("52"), low: Self.p("49"), close: Self.p("51"), volume: 1_000),
            days[1]: DailyBar(date: days[1], open: Self.p("51"), high: Self.p("56"), low: Self.p("50"), close: Self.p("55"), volume: 1_000),
        ]
        let split = CorporateAction(symbol: Self.acme, exDate: Self.day, kind: .split(to: 2, from: 1))
        let walk = ReplayAdvance.walk(book: book, from: before, days: days, startPrices: [Self.acme: Self.p("100")],
                                      closes: [Self.acme: bars.mapValues(\.close)],
                                      orders: ReplayOrderWalk(working: [sell], bars: [Self.acme: bars], rules: PortfolioRules()),
                                      actions: [split])
        #expect(walk.events.first == .corporate(split, price: Self.p("51")))
        #expect(walk.book.quantity(of: Self.acme) == 20 && walk.book.holds.shares[Self.acme] == 20)
        // $9,000 cash and 20 shares at 51, then 55: no jump at the split.
        #expect(walk.snapshots.map(\.equity) == [Money(dollars: 10_000), Money(dollars: 10_020), Money(dollars: 10_100)])
        #expect(walk.events.contains { if case .changed(let order) = $0 { order.quantity == 20 && order.terms.limit == Self.p("60") } else { false } })
    }

    /// Live, only the shares held when the ex-date's session opened take part.
    @Test func onlyTheEntitledSharesTakePart() throws {
        let book = Self.holding(50, at: "100")
        let dividend = CorporateAction(symbol: Self.acme, exDate: Self.day, kind: .dividend(cash: Self.p("0.30")))
        #expect(dividend.effect(on: book, price: nil, entitled: 40)?.cash == Money(dollars: 12))
        #expect(dividend.effect(on: book, price: nil, entitled: 0) == nil)
        let split = CorporateAction(symbol: Self.acme, exDate: Self.day, kind: .split(to: 2, from: 1))
        #expect(split.effect(on: book, price: nil, entitled: 40)?.quantityDelta == 40)
    }
}
