import Foundation
import Testing
@testable import BullpenCore

/// Short selling on margin: the rule allows it or not, collateral holds proceeds and the initial
/// margin, covering realizes the gain or loss, and each close charges the fee, checks the
/// maintenance requirement, calls, and buys back after the grace sessions.
@Suite("Short selling and margin")
struct MarginTests {
    static let acme = Symbol("ACME")!
    static func p(_ text: String) -> Price { Price(parsing: text)! }
    static let margin = PortfolioRules(margin: .standard)

    static func short(_ quantity: Quantity, at price: String, on book: Book = Book(startingCash: Money(dollars: 10_000))) throws -> Book {
        try TradingEngine.execute(OrderRequest(symbol: acme, side: .sell, quantity: quantity), on: book, at: p(price),
                                  rules: margin, trading: true).book
    }

    @Test func aShortSaleNeedsTheRuleAndItsCollateral() throws {
        let book = Book(startingCash: Money(dollars: 10_000))
        let sell = { (quantity: Quantity) in OrderRequest(symbol: Self.acme, side: .sell, quantity: quantity) }
        // Without the rule: no shares, no sale.
        #expect(TradingEngine.problems(sell(10), on: book, at: Self.p("100"), rules: PortfolioRules(), trading: true).map(\.code) == ["insufficient_shares"])
        // With it: proceeds plus half again may be held from the cash and the proceeds: $20,000 of shorts at most.
        #expect(TradingEngine.problems(sell(200), on: book, at: Self.p("100"), rules: Self.margin, trading: true).isEmpty)
        #expect(TradingEngine.problems(sell(201), on: book, at: Self.p("100"), rules: Self.margin, trading: true)
                == [.marginInsufficient(required: Money(dollars: 30_150), available: Money(dollars: 30_100))])
        let shorted = try Self.short(100, at: "100")
        #expect(shorted.cash == Money(dollars: 20_000) && shorted.quantity(of: Self.acme) == -100)
        #expect(shorted.shortCollateral(.standard) == Money(dollars: 15_000))
        // Buys may spend only what the collateral leaves: $5,000.
        let buy = OrderRequest(symbol: Symbol("MSFT")!, side: .buy, quantity: 51)
        #expect(TradingEngine.problems(buy, on: shorted, at: Self.p("100"), rules: Self.margin, trading: true).map(\.code) == ["insufficient_funds"])
        #expect(TradingEngine.preview(OrderRequest(symbol: Symbol("MSFT")!, side: .buy, quantity: 1), on: shorted, at: Self.p("100"),
                                      rules: Self.margin, trading: true).maxQuantity == 50)
        // A long position is sold before a short starts from it.
        var long = Book(startingCash: Money(dollars: 10_000))
        long.apply(Fill(symbol: Self.acme, side: .buy, quantity: 5, price: Self.p("100"), notional: Money(dollars: 500), commission: .zero,
                        realizedPnL: .zero, cashDelta: Money(dollars: -500)))
        #expect(TradingEngine.problems(sell(6), on: long, at: Self.p("100"), rules: Self.margin, trading: true)
                == [.shortingNotAllowed(Self.acme, held: 5)])
    }

    @Test func coveringRealizesTheDifference() throws {
        let shorted = try Self.short(100, at: "100")
        let cover = OrderRequest(symbol: Self.acme, side: .buy, quantity: 100)
        let (fill, after) = try TradingEngine.execute(cover, on: shorted, at: Self.p("90"), rules: Self.margin, trading: true)
        #expect(fill.realizedPnL == Money(dollars: 1_000) && after.cash == Money(dollars: 11_000) && after.positions.isEmpty)
        #expect(TradingEngine.problems(OrderRequest(symbol: Self.acme, side: .buy, quantity: 101), on: shorted, at: Self.p("90"),
                                       rules: Self.margin, trading: true) == [.coverExceedsShort(requested: 101, short: 100)])
    }

    /// A short of $20,000 on $10,000: the price runs from 100 to 160; the close charges the fee
    /// and calls (equity below zero against $9,600 needed), one grace session passes, and the
    /// second close after the call buys the shorts back at 160.
    @Test func aMarginCallIsBoughtBackAfterTheGraceSessions() throws {
        let book = try Self.short(200, at: "100")
        let sessions = TradingCalendar().tradingDays(from: SessionDate(year: 2020, month: 3, day: 3), through: SessionDate(year: 2020, month: 3, day: 6))
        #expect(sessions.count == 4)
        var walk = MarginWalk(rule: .standard, callSince: nil, sessionsSince: 0)
        var after = book
        var events: [ReplayOrderEvent] = []
        // First close at 100: the fee only ($20,000 × 3 % / 252 = $2.38).
        events += walk.close(sessions[0], book: &after, closes: [Self.acme: Self.p("100")])
        #expect(events == [.margin(.fee(Money(cents: 238)), on: sessions[0])])
        events += walk.close(sessions[1], book: &after, closes: [Self.acme: Self.p("160")])
        let status = Margin.status(of: after, prices: [Self.acme: Self.p("160")], rule: .standard)
        #expect(status.requirement == Money(dollars: 9_600) && !status.isMet && status.words.contains("margin call"))
        #expect(walk.callSince == sessions[1])
        events += walk.close(sessions[2], book: &after, closes: [Self.acme: Self.p("160")])
        #expect(after.quantity(of: Self.acme) == -200)
        events += walk.close(sessions[3], book: &after, closes: [Self.acme: Self.p("160")])
        #expect(after.positions.isEmpty && walk.callSince == nil)
        let fees = events.compactMap { event -> Money? in if case .margin(.fee(let fee), _) = event { fee } else { nil } }
        #expect(fees.count == 4 && fees[0] == Money(cents: 238) && fees[1] == Money(cents: 381))
        // $30,000 − the fees − $32,000 bought back: a debt of about $2,000, as a broker's would be.
        #expect(after.cash == Money(dollars: 30_000) - fees.reduce(.zero, +) - Money(dollars: 32_000))
        guard case .margin(.liquidate(let covers), let on)? = events.dropLast().last else { Issue.record("\(events)"); return }
        #expect(on == sessions[3] && covers == [Margin.Cover(symbol: Self.acme, quantity: 200, price: Self.p("160"))])
        #expect(events.last == .margin(.met, on: sessions[3]))
    }

    @Test func aCallMetAgainEnds() {
        var book = Book(startingCash: Money(dollars: 10_000))
        book = (try? Self.short(200, at: "100", on: book)) ?? book
        let day = SessionDate(year: 2020, month: 3, day: 3)
        // The price falls back: the requirement is met and the call ends.
        let actions = Margin.close(book, closes: [Self.acme: Self.p("90")], rule: .standard, callSince: day, sessionsSince: 1)
        #expect(actions.last == .met)
        // Nothing short and no call: nothing at all.
        #expect(Margin.close(Book(startingCash: Money(dollars: 1)), closes: [:], rule: .standard, callSince: nil, sessionsSince: 0).isEmpty)
    }

    @Test func theJournalSaysWhichCallIsInForce() {
        func entry(_ kind: JournalEntry.Kind, _ sequence: Int64, _ day: Int) -> JournalEntry {
            JournalEntry(id: JournalEntryID(UUID()), portfolioID: PortfolioID(UUID()), period: 1, sequence: sequence, kind: kind,
                         symbol: nil, side: nil, quantityDelta: 0, price: nil, cashDelta: .zero, commission: .zero, realizedPnL: .zero,
                         orderID: nil, fillID: nil, priceAsOf: SessionDate(year: 2020, month: 3, day: day).date, createdAt: Date())
        }
        #expect(Margin.callSince([entry(.marginCall, 1, 3), entry(.marginMet, 2, 4)]) == nil)
        #expect(Margin.callSince([entry(.marginCall, 1, 3), entry(.marginMet, 2, 4), entry(.marginCall, 3, 9)]) == SessionDate(year: 2020, month: 3, day: 9))
        // A borrow fee is cash out, nothing else.
        var book = Book(startingCash: Money(dollars: 100))
        var fee = entry(.borrowFee, 4, 10)
        fee.cashDelta = Money(cents: -238)
        book.apply(fee)
        #expect(book.cash == Money(cents: 9_762))
    }

    /// Options and a short of the same stock do not go together (an exercise or an assignment
    /// would deliver shares into the short), whichever comes first.
    @Test func optionsAndAShortOfOneStockAreRefusedTogether() throws {
        let shorted = try Self.short(10, at: "100")
        let call = Symbol("ACME  270115C00100000")!
        let buyCall = OrderRequest(symbol: call, side: .buy, quantity: 1)
        #expect(TradingEngine.problems(buyCall, on: shorted, at: Self.p("5"), rules: Self.margin, trading: true).map(\.code)
                .contains("options_while_short"))
        var withCall = Book(startingCash: Money(dollars: 10_000))
        withCall.apply(Fill(symbol: call, side: .buy, quantity: 1, price: Self.p("500"), notional: Money(dollars: 500), commission: .zero,
                            realizedPnL: .zero, cashDelta: Money(dollars: -500)))
        #expect(TradingEngine.problems(OrderRequest(symbol: Self.acme, side: .sell, quantity: 10), on: withCall, at: Self.p("100"),
                                       rules: Self.margin, trading: true) == [.optionsWhileShort(Self.acme)])
    }

    /// A buy-back of two shorts that lost more than everything covers both, the cash going below
    /// zero (a debt), and only then is the call over.
    @Test func aBuyBackCoversEveryShortEvenIntoDebt() throws {
        var book = try Self.short(100, at: "100")
        book = try TradingEngine.execute(OrderRequest(symbol: Symbol("BETA")!, side: .sell, quantity: 50), on: book, at: Self.p("100"),
                                         rules: Self.margin, trading: true).book
        #expect(book.cash == Money(dollars: 25_000))
        let closes = [Self.acme: Self.p("300"), Symbol("BETA")!: Self.p("300")]
        var walk = MarginWalk(rule: .standard, callSince: SessionDate(year: 2020, month: 3, day: 2), sessionsSince: 1)
        let events = walk.close(SessionDate(year: 2020, month: 3, day: 4), book: &book, closes: closes)
        #expect(book.shorts.isEmpty && book.cash.isNegative && walk.callSince == nil)
        #expect(events.last == .margin(.met, on: SessionDate(year: 2020, month: 3, day: 4)))
    }
}
