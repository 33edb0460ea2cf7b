import Foundation
import Testing
@testable import BullpenCore

/// Working orders: when a bar or a quote fills each type, at what price, and why; time in force;
/// holds; the trigger index against a look at every order.
@Suite("Working orders")
struct WorkingOrderTests {
    static let placed = SessionDate(year: 2020, month: 3, day: 2)
    static let next = SessionDate(year: 2020, month: 3, day: 3)

    static func p(_ text: String) -> Price { Price(parsing: text)! }

    static func bar(_ open: String, _ high: String, _ low: String, _ close: String, on date: SessionDate = next,
                    volume: Int64 = 1_000_000) -> DailyBar {
        DailyBar(date: date, open: p(open), high: p(high), low: p(low), close: p(close), volume: volume)
    }

    /// The three bars of the matrix, around a price of 100 when the order was placed.
    static let gapUp = bar("110", "115", "108", "112")
    static let gapDown = bar("90", "92", "85", "88")
    static let inside = bar("100", "106", "94", "101")

    static func order(_ side: OrderSide, _ terms: OrderTerms, quantity: Quantity = 10, mark: String? = "100") -> WorkingOrder {
        let schedule = OrderSchedule.replay(terms.timeInForce, on: placed)
        return WorkingOrder(id: OrderID(UUID()), symbol: Symbol("ACME")!, side: side, quantity: quantity, terms: terms,
                            waterMark: terms.type == .trailingStop ? mark.map(p) : nil, placedOn: placed,
                            placedAt: placed.date, lastSession: schedule.lastSession, expiresAt: schedule.expiresAt,
                            holdPrice: OrderEvaluation.holdPrice(for: terms, side: side, now: p("100")))
    }

    /// One row of the matrix: an order, and what each bar does to it (the fill price and the
    /// reason's code, or nil for no fill).
    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var side: OrderSide
        var terms: OrderTerms
        var gapUp: (String, String)?
        var gapDown: (String, String)?
        var inside: (String, String)?
        var description: String { name }
    }

    static func terms(_ type: OrderType, limit: String? = nil, stop: String? = nil, trail: Trail? = nil,
                      _ timeInForce: TimeInForce = .day) -> OrderTerms {
        OrderTerms(type: type, timeInForce: timeInForce, limit: limit.map(p), stop: stop.map(p), trail: trail)
    }

    static let cases: [Case] = [
        Case(name: "buy limit 95", side: .buy, terms: terms(.limit, limit: "95"),
             gapUp: nil, gapDown: ("90", "opened_through_limit"), inside: ("95", "limit_reached")),
        Case(name: "sell limit 105", side: .sell, terms: terms(.limit, limit: "105"),
             gapUp: ("110", "opened_through_limit"), gapDown: nil, inside: ("105", "limit_reached")),
        Case(name: "buy stop 105", side: .buy, terms: terms(.stop, stop: "105"),
             gapUp: ("110", "gapped_through_stop"), gapDown: nil, inside: ("105", "stop_reached")),
        Case(name: "sell stop 95", side: .sell, terms: terms(.stop, stop: "95"),
             gapUp: nil, gapDown: ("90", "gapped_through_stop"), inside: ("95", "stop_reached")),
        // A gap through the stop beyond the limit triggers it without a fill.
        Case(name: "buy stop-limit 105/107", side: .buy, terms: terms(.stopLimit, limit: "107", stop: "105"),
             gapUp: nil, gapDown: nil, inside: ("105", "stop_reached")),
        Case(name: "sell stop-limit 95/93", side: .sell, terms: terms(.stopLimit, limit: "93", stop: "95"),
             gapUp: nil, gapDown: nil, inside: ("95", "stop_reached")),
        Case(name: "sell trailing 5 %", side: .sell, terms: terms(.trailingStop, trail: .percent(basisPoints: 500)),
             gapUp: nil, gapDown: ("90", "gapped_through_stop"), inside: ("95", "stop_reached")),
        Case(name: "buy trailing $5", side: .buy, terms: terms(.trailingStop, trail: .price(p("5"))),
             gapUp: ("110", "gapped_through_stop"), gapDown: nil, inside: ("105", "stop_reached")),
        Case(name: "buy market at the open", side: .buy, terms: terms(.market, .opg),
             gapUp: ("110", "at_open"), gapDown: ("90", "at_open"), inside: ("100", "at_open")),
        Case(name: "sell market at the close", side: .sell, terms: terms(.market, .cls),
             gapUp: ("112", "at_close"), gapDown: ("88", "at_close"), inside: ("101", "at_close")),
        Case(name: "buy limit 95 at the open", side: .buy, terms: terms(.limit, limit: "95", .opg),
             gapUp: nil, gapDown: ("90", "at_open"), inside: nil),
        Case(name: "sell limit 100 at the close", side: .sell, terms: terms(.limit, limit: "100", .cls),
             gapUp: ("112", "at_close"), gapDown: nil, inside: ("101", "at_close")),
    ]

    /// Every type and side against a gap up, a gap down and a bar that trades through, in day and
    /// good-'til-cancelled form (the opening and closing auctions in their own).
    @Test(arguments: cases, [TimeInForce.day, .gtc])
    func everyTypeAndSideOnGapsAndRanges(_ row: Case, _ timeInForce: TimeInForce) {
        var terms = row.terms
        if terms.timeInForce != .opg, terms.timeInForce != .cls { terms.timeInForce = timeInForce }
        for (bar, expected) in [(Self.gapUp, row.gapUp), (Self.gapDown, row.gapDown), (Self.inside, row.inside)] {
            let (_, fill) = OrderEvaluation.evaluate(Self.order(row.side, terms), bar: bar)
            #expect(fill?.price == expected.map { Self.p($0.0) }, "\(row.name) on \(bar)")
            #expect(fill?.reason.code == expected?.1, "\(row.name) on \(bar)")
            #expect(fill.map { $0.quantity == 10 && !$0.explanation.isEmpty } ?? true)
        }
    }

    @Test func aBarNeverFillsAnOrderPlacedAfterIt() {
        let buy = Self.order(.buy, Self.terms(.limit, limit: "95"))
        let sameDay = Self.bar("90", "92", "85", "88", on: Self.placed)
        #expect(OrderEvaluation.evaluate(buy, bar: sameDay).fill == nil)
        let earlier = Self.bar("90", "92", "85", "88", on: SessionDate(year: 2020, month: 2, day: 28))
        #expect(OrderEvaluation.evaluate(buy, bar: earlier).fill == nil)
        #expect(OrderEvaluation.evaluate(buy, bar: Self.gapDown).fill != nil)
    }

    @Test func aStopLimitTriggeredByAGapWorksAsALimitAfterwards() {
        let order = Self.order(.buy, Self.terms(.stopLimit, limit: "107", stop: "105"))
        let (triggered, none) = OrderEvaluation.evaluate(order, bar: Self.gapUp)
        #expect(none == nil && triggered.triggered)
        // The next bar dips to the limit: filled at it.
        let dip = Self.bar("109", "110", "106", "108", on: SessionDate(year: 2020, month: 3, day: 4))
        var later = triggered
        later.lastSession = nil
        let (_, fill) = OrderEvaluation.evaluate(later, bar: dip)
        #expect(fill?.price == Self.p("107") && fill?.reason.code == "limit_reached")
    }

    @Test func aTrailingStopFollowsTheHighsAndFillsOnTheTurn() {
        var order = Self.order(.sell, Self.terms(.trailingStop, trail: .percent(basisPoints: 1_000), .gtc))
        // Up to 120: the mark follows, the stop becomes 108.
        (order, _) = OrderEvaluation.evaluate(order, bar: Self.bar("101", "120", "100", "118"))
        #expect(order.waterMark == Self.p("120") && order.stopPrice == Self.p("108"))
        let turn = Self.bar("117", "118", "105", "106", on: SessionDate(year: 2020, month: 3, day: 4))
        let (_, fill) = OrderEvaluation.evaluate(order, bar: turn)
        #expect(fill?.price == Self.p("108") && fill?.reason.code == "stop_reached")
    }

    @Test func theVolumeCapLeavesTheRestWorking() {
        let order = Self.order(.buy, Self.terms(.limit, limit: "95"), quantity: 500)
        let thin = Self.bar("100", "101", "94", "96", volume: 20_000)
        let (_, fill) = OrderEvaluation.evaluate(order, bar: thin, volumeCapBasisPoints: 100)   // 1 % of 20,000
        #expect(fill?.quantity == 200 && fill?.cappedBy == 300)
        #expect(fill?.explanation.contains("300 stay working") == true)
        // A meme coin's volume past what a quantity holds: the cap saturates, never traps.
        let flood = Self.bar("100", "101", "94", "96", volume: .max)
        #expect(OrderEvaluation.evaluate(order, bar: flood, volumeCapBasisPoints: 10_000).fill?.quantity == 500)
        // A fractional order is capped to the hundred-millionth: 0.01 % of 3 shares traded.
        let fraction = Self.order(.buy, Self.terms(.limit, limit: "95"), quantity: Quantity(parsing: "0.5")!)
        let sliver = Self.bar("100", "101", "94", "96", volume: 3)
        #expect(OrderEvaluation.evaluate(fraction, bar: sliver, volumeCapBasisPoints: 1).fill?.quantity == Quantity(parsing: "0.0003"))
    }

    /// A per-order fee is paid once, with the first fill of an order filled in parts; the hold
    /// leaves it out after.
    @Test func thePerOrderFeeIsPaidOnce() throws {
        let rules = PortfolioRules(commission: Commission(perOrder: Money(dollars: 5), basisPoints: 10))
        var order = Self.order(.buy, Self.terms(.limit, limit: "100"), quantity: 10)
        order.commission = rules.commission
        #expect(order.heldCash == Money(cents: 100_000 + 500 + 100))
        let book = Book(startingCash: Money(dollars: 10_000))
        func part(_ quantity: Quantity) -> WorkingFill {
            WorkingFill(orderID: order.id, price: Self.p("100"), quantity: quantity, reason: .limitReached(Self.p("100"), on: Self.next))
        }
        var holding = book
        holding.holds = OrderHolds([order])
        let first = try TradingEngine.fill(order, with: part(4), on: holding, rules: rules, context: OrderContext(trading: true))
        #expect(first.fill.commission == Money(cents: 500 + 40))
        #expect(first.order.heldCash == Money(cents: 60_000 + 60))
        var after = first.book
        after.holds = OrderHolds([first.order])
        let second = try TradingEngine.fill(first.order, with: part(6), on: after, rules: rules, context: OrderContext(trading: true))
        #expect(second.fill.commission == Money(cents: 60) && second.order.remaining == 0)
        #expect(second.book.cash == Money(dollars: 10_000) - Money(dollars: 1_000) - Money(cents: 500 + 40 + 60))
    }

    @Test func quotesFillAtTheQuoteOnceTheyReachTheOrder() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let limit = Self.order(.buy, Self.terms(.limit, limit: "95"))
        #expect(OrderEvaluation.evaluate(limit, quote: Self.p("95.01"), at: now).fill == nil)
        #expect(OrderEvaluation.evaluate(limit, quote: Self.p("94.50"), at: now).fill?.price == Self.p("94.50"))
        let stop = Self.order(.sell, Self.terms(.stop, stop: "95"))
        #expect(OrderEvaluation.evaluate(stop, quote: Self.p("95.50"), at: now).fill == nil)
        #expect(OrderEvaluation.evaluate(stop, quote: Self.p("95"), at: now).fill?.price == Self.p("95"))
        var trailing = Self.order(.sell, Self.terms(.trailingStop, trail: .price(Self.p("2"))))
        var fill: WorkingFill?
        (trailing, fill) = OrderEvaluation.evaluate(trailing, quote: Self.p("104"), at: now)
        #expect(fill == nil && trailing.stopPrice == Self.p("102"))
        (trailing, fill) = OrderEvaluation.evaluate(trailing, quote: Self.p("101.99"), at: now)
        #expect(fill?.price == Self.p("101.99"))
        // At-the-open orders wait for a bar: quotes never fill them.
        #expect(OrderEvaluation.evaluate(Self.order(.buy, Self.terms(.market, .opg)), quote: Self.p("1"), at: now).fill == nil)
    }

    /// The index finds exactly the orders a look at every order finds, for random books and prices.
    @Test func theTriggerIndexFindsWhatAScanFinds() {
        var random = SeededRandom(seed: 42)
        let symbols = ["AAA", "BBB", "CCC"].map { Symbol($0)! }
        let types: [OrderType] = [.limit, .stop, .stopLimit, .trailingStop]
        for _ in 0..<200 {
            var orders: [WorkingOrder] = []
            for _ in 0..<40 {
                let type = types[Int(random.next() % 4)]
                let side: OrderSide = random.next() % 2 == 0 ? .buy : .sell
                let level = Price(ticks: Int64(90 + random.next() % 21) * 10_000)
                let other = Price(ticks: level.ticks + (side == .buy ? 20_000 : -20_000))
                let terms = OrderTerms(type: type, limit: type == .limit ? level : type == .stopLimit ? other : nil,
                                       stop: type == .stop || type == .stopLimit ? level : nil,
                                       trail: type == .trailingStop ? .price(Price(ticks: 30_000)) : nil)
                var order = WorkingOrder(id: OrderID(UUID()), symbol: symbols[Int(random.next() % 3)], side: side, quantity: 5,
                                         terms: terms, waterMark: type == .trailingStop ? Price(ticks: 1_000_000) : nil,
                                         placedOn: Self.placed, placedAt: Self.placed.date)
                order.triggered = type == .stopLimit && random.next() % 3 == 0
                orders.append(order)
            }
            let index = TriggerIndex(orders)
            let price = Price(ticks: Int64(85 + random.next() % 31) * 10_000)
            let symbol = symbols[Int(random.next() % 3)]
            let now = Self.placed.date
            let scanned = Set(orders.filter { $0.symbol == symbol && OrderEvaluation.evaluate($0, quote: price, at: now).fill != nil }.map(\.id))
            let found = index.evaluate([symbol: (price, now)]).fills.map(\.order.id)
            #expect(Set(found) == scanned)
            #expect(found.count == scanned.count)
        }
    }

    @Test func holdsKeepCashAndSharesFromBeingPromisedTwice() {
        var book = Book(startingCash: Money(dollars: 1_000))
        book.apply(Fill(symbol: Symbol("ACME")!, side: .buy, quantity: 10, price: Self.p("50"), notional: Money(dollars: 500),
                        commission: .zero, realizedPnL: .zero, cashDelta: Money(dollars: -500)))
        let buy = Self.order(.buy, Self.terms(.limit, limit: "40"), quantity: 10)   // holds $400
        let sell = Self.order(.sell, Self.terms(.limit, limit: "60"), quantity: 6)  // holds 6 shares
        book.holds = OrderHolds([buy, sell])
        #expect(book.freeCash == Money(dollars: 100) && book.freeShares(of: Symbol("ACME")!) == 4)
        let rules = PortfolioRules()
        let tooMuch = OrderRequest(symbol: Symbol("MSFT")!, side: .buy, quantity: 3)
        #expect(TradingEngine.problems(tooMuch, on: book, at: Self.p("40"), rules: rules, trading: true).map(\.code) == ["insufficient_funds"])
        let sellMore = OrderRequest(symbol: Symbol("ACME")!, side: .sell, quantity: 5)
        #expect(TradingEngine.problems(sellMore, on: book, at: Self.p("55"), rules: rules, trading: true).map(\.code) == ["shares_committed"])
        // The buy itself fills with its own hold released: at 39 it costs $390.
        let done = try? TradingEngine.fill(buy, with: WorkingFill(orderID: buy.id, price: Self.p("39"), quantity: 10,
                                                                   reason: .limitReached(Self.p("40"), on: Self.next)),
                                           on: book, rules: rules, context: OrderContext(trading: true))
        #expect(done?.book.cash == Money(dollars: 110) && done?.order.remaining == 0)
    }

    /// A replay's walk fills on the bars in order and expires day orders after their session.
    @Test func theReplayWalkFillsExpiresAndKeepsTheBooksBalanced() {
        let acme = Symbol("ACME")!
        let days = [Self.next, SessionDate(year: 2020, month: 3, day: 4), SessionDate(year: 2020, month: 3, day: 5)]
        let bars: [SessionDate: DailyBar] = [
            days[0]: Self.bar("100", "101", "97", "98", on: days[0]),
            days[1]: Self.bar("96", "97", "93", "94", on: days[1]),
            days[2]: Self.bar("95", "99", "94", "98", on: days[2]),
        ]
        let gtcBuy = Self.order(.buy, Self.terms(.limit, limit: "94", .gtc), quantity: 5)
        let dayBuy = Self.order(.buy, Self.terms(.limit, limit: "90"), quantity: 5)
        var book = Book(startingCash: Money(dollars: 1_000))
        book.holds = OrderHolds([gtcBuy, dayBuy])
        let walk = ReplayAdvance.walk(book: book, from: Self.placed, days: days, startPrices: [acme: Self.p("100")],
                                      closes: [acme: bars.mapValues(\.close)],
                                      orders: ReplayOrderWalk(working: [gtcBuy, dayBuy], bars: [acme: bars], rules: PortfolioRules()))
        // The day order expires after the first session; the GTC one fills on the second at its limit.
        #expect(walk.events.count == 2)
        guard case .expired(let expired, let on) = walk.events[0], case .filled(let fill, _) = walk.events[1] else {
            Issue.record("\(walk.events)")
            return
        }
        #expect(expired.id == dayBuy.id && on == days[0])
        #expect(fill.orderID == gtcBuy.id && fill.price == Self.p("94") && fill.reason.session == days[1])
        #expect(walk.book.cash == Money(dollars: 530) && walk.book.quantity(of: acme) == 5 && walk.book.holds == .none)
        // Equity after the fill: $530 cash and 5 shares at the day's close of 94, then 98.
        #expect(walk.snapshots.map(\.equity) == [Money(dollars: 1_000), Money(dollars: 1_000), Money(dollars: 1_000), Money(dollars: 1_020)])
    }

    @Test func sentencesSayWhatWillHappen() {
        let text = OrderSentence.describe(side: .buy, quantity: 10, symbol: Symbol("AAPL")!,
                                          terms: Self.terms(.limit, limit: "180", .gtc))
        #expect(text == "Buy 10 AAPL if the price is $180.00 or lower, until you cancel it (at most 90 days).")
        let trail = OrderSentence.describe(side: .sell, quantity: 3, symbol: Symbol("MSFT")!,
                                           terms: Self.terms(.trailingStop, trail: .percent(basisPoints: 250)))
        #expect(trail == "Sell 3 MSFT if the price falls 2.5 % below its highest point since now, until the end of the trading day.")
    }

    @Test func termsAreCheckedForWhatEachTypeNeeds() {
        #expect(Self.terms(.limit).problem == "A limit order needs limitPrice.")
        #expect(Self.terms(.market, limit: "5").problem == "A market order has no limitPrice.")
        #expect(Self.terms(.stopLimit, stop: "5").problem == "A stop-limit order needs limitPrice.")
        #expect(Self.terms(.stop, stop: "5", .opg).problem != nil)
        #expect(Self.terms(.trailingStop, trail: .percent(basisPoints: 6_000)).problem != nil)
        #expect(Self.terms(.stopLimit, limit: "5", stop: "6").problem == nil)
    }

    @Test func liveDayOrdersEndWithTheirSession() {
        let calendar = TradingCalendar()
        let monday = SessionDate(year: 2025, month: 10, day: 13)
        let inSession = TradingCalendar.instant(monday, 11, 0)
        #expect(OrderSchedule.live(.day, now: inSession).expiresAt == calendar.sessionBounds(on: monday)?.close)
        let evening = TradingCalendar.instant(monday, 18, 0)
        #expect(OrderSchedule.live(.day, now: evening).expiresAt == calendar.sessionBounds(on: calendar.nextTradingDay(after: monday))?.close)
        #expect(OrderSchedule.live(.gtc, now: inSession).expiresAt == inSession.addingTimeInterval(90 * 86_400))
        #expect(OrderSchedule.replay(.day, on: monday).lastSession == calendar.nextTradingDay(after: monday))
        // A coin's day is the UTC day: its day order works until midnight UTC, in a replay the next day's bar.
        let friday = SessionDate(year: 2025, month: 10, day: 17)
        let fridayEvening = TradingCalendar.instant(friday, 18, 0)
        #expect(OrderSchedule.live(.day, now: fridayEvening, assetClass: .crypto).expiresAt == SessionDate(year: 2025, month: 10, day: 18).date)
        #expect(OrderSchedule.replay(.day, on: friday, assetClass: .crypto).lastSession == SessionDate(year: 2025, month: 10, day: 18))
        #expect(OrderSchedule.replay(.day, on: friday).lastSession == SessionDate(year: 2025, month: 10, day: 20))
    }
}

/// A small deterministic generator (SplitMix64) for repeatable random cases.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
