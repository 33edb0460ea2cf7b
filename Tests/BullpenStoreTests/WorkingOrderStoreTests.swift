import BullpenCore
import Foundation
import Testing
@testable import BullpenStore

/// Working orders through the ledger, on SQLite and PostgreSQL: holds, cancels, replaces, fills,
/// races, resets, and the books balanced after each.
@Suite("Working orders in the store")
struct WorkingOrderStoreTests {
    static let ko = Symbol("KO")!

    static func working(_ side: OrderSide, _ quantity: Quantity, _ terms: OrderTerms, now price: String,
                        symbol: Symbol = ko) -> PricedOrder {
        .at(OrderRequest(symbol: symbol, side: side, quantity: quantity, terms: terms), price)
    }

    static func limit(_ price: String, _ timeInForce: TimeInForce = .gtc) -> OrderTerms {
        OrderTerms(type: .limit, timeInForce: timeInForce, limit: Price(parsing: price)!)
    }

    static func place(_ priced: PricedOrder, in store: BullpenStore, _ id: PortfolioID, _ owner: UserID) async throws -> OrderRecord {
        guard case .executed(let order, _) = try await store.placeOrder(priced, in: id, owner: owner, idempotency: nil) else {
            throw CancellationError()
        }
        return order
    }

    @Test(arguments: TestDatabases.kinds)
    func workingOrdersHoldCashAndSharesUntilCancelled(kind: DatabaseKind) async throws {
        try await TestDatabases.withStore(kind) { store, _ in
            let (user, _) = try await store.makeUser()
            let book = try await store.createPortfolio(owner: user.id, name: "Holds", startingCash: Money(dollars: 5_000))
            let id = book.id, me = user.id
            try await store.trade(.buy, 10, "KO", at: "50", in: id, owner: me)   // $4,500 left
            let buy = try await Self.place(Self.working(.buy, 100, Self.limit("40"), now: "50"), in: store, id, me)
            #expect(buy.status == .new && buy.holdPrice == Price(parsing: "40"))
            let sell = try await Self.place(Self.working(.sell, 6, Self.limit("60"), now: "50"), in: store, id, me)
            var state = try await store.state(of: id, owner: me)
            #expect(state.book.reservedCash == Money(dollars: 4_000) && state.book.freeShares(of: Self.ko) == 4)
            // Neither the held cash nor the held shares can be promised again.
            await #expect(throws: OrderRejection.cashReserved(required: Money(dollars: 600), free: Money(dollars: 500), reserved: Money(dollars: 4_000))) {
                try await store.trade(.buy, 12, "KO", at: "50", in: id, owner: me)
            }
            await #expect(throws: OrderRejection.sharesCommitted(Self.ko, requested: 5, free: 4, committed: 6)) {
                try await store.trade(.sell, 5, "KO", at: "50", in: id, owner: me)
            }
            try await store.expectBalancedBooks(id, owner: me)
            // Cancelled: the shares are free again; a second cancel finds it no longer working.
            let cancelled = try await store.cancelOrder(sell.id, in: id, owner: me)
            #expect(cancelled.status == .canceled && cancelled.reason == "Cancelled by you.")
            await #expect(throws: StoreError.orderNotOpen(status: "no longer working")) {
                try await store.cancelOrder(sell.id, in: id, owner: me)
            }
            try await store.trade(.sell, 5, "KO", at: "50", in: id, owner: me)
            // Read again from the database: the open orders bring their holds back.
            await store.ledger.drop(id)
            state = try await store.state(of: id, owner: me)
            #expect(state.book.reservedCash == Money(dollars: 4_000) && state.working.map(\.id) == [buy.id])
            let history = try await store.orderEvents(cancelled)
            #expect(history.map(\.status) == [.new, .canceled])
            try await store.expectBalancedBooks(id, owner: me)
        }
    }

    /// 50 limit buys at once, each holding $300 of $10,000: exactly 33 are accepted, the holds never
    /// pass the cash, and the cash does not move.
    @Test(arguments: TestDatabases.kinds)
    func concurrentOrdersNeverHoldMoreThanTheCash(kind: DatabaseKind) async throws {
        try await TestDatabases.withStore(kind) { store, _ in
            let (user, _) = try await store.makeUser()
            let portfolio = try await store.createPortfolio(owner: user.id, name: "Fifty", startingCash: Money(dollars: 10_000))
            let id = portfolio.id, me = user.id
            let results = await withTaskGroup(of: Result<OrderRecord, any Error>.self) { group in
                for _ in 0..<50 {
                    group.addTask {
                        do { return .success(try await Self.place(Self.working(.buy, 3, Self.limit("100"), now: "120"), in: store, id, me)) }
                        catch { return .failure(error) }
                    }
                }
                var all: [Result<OrderRecord, any Error>] = []
                for await result in group { all.append(result) }
                return all
            }
            let accepted = results.filter { (try? $0.get()) != nil }.count
            let refused = results.compactMap { result -> String? in
                if case .failure(let error as OrderRejection) = result { return error.code } else { return nil }
            }
            #expect(accepted == 33 && refused.count == 17 && Set(refused) == ["insufficient_funds"])
            let state = try await store.state(of: id, owner: me)
            #expect(state.book.cash == Money(dollars: 10_000) && state.book.reservedCash == Money(dollars: 9_900))
            try await store.expectBalancedBooks(id, owner: me)
        }
    }

    /// A cancel racing a fill: exactly one of them happens, every time.
    @Test(arguments: TestDatabases.kinds)
    func aCancelRacingAFillHasExactlyOneOutcome(kind: DatabaseKind) async throws {
        try await TestDatabases.withStore(kind) { store, _ in
            let (user, main) = try await store.makeUser()
            let id = main.id, me = user.id
            var outcomes: [String: Int] = [:]
            for round in 0..<20 {
                let order = try await Self.place(Self.working(.buy, 10, Self.limit("45"), now: "50"), in: store, id, me)
                let fill = WorkingFill(orderID: order.id, price: Price(parsing: "44.50")!, quantity: 10,
                                       reason: .quote(Price(parsing: "44.50")!, at: Date()))
                let pricing = FillPricing(source: .lastTrade, asOf: Date(), marketOpen: true)
                async let filled: Bool = (try? await store.fillWorkingOrder(fill, pricing: pricing, in: id, owner: me)) != nil
                async let cancelled: Bool = (try? await store.cancelOrder(order.id, in: id, owner: me)) != nil
                let (didFill, didCancel) = await (filled, cancelled)
                #expect(didFill != didCancel, "round \(round): filled \(didFill), cancelled \(didCancel)")
                let stored = try await store.order(order.id, in: id, owner: me)
                #expect(stored.status == (didFill ? .filled : .canceled))
                outcomes[stored.status.rawValue, default: 0] += 1
            }
            let state = try await store.state(of: id, owner: me)
            #expect(state.book.quantity(of: Self.ko) == Quantity(whole: Int64(outcomes["filled", default: 0]) * 10))
            #expect(state.book.holds == .none)
            try await store.expectBalancedBooks(id, owner: me)
        }
    }

    /// A replace racing a fill: either the old order filled and the replace is refused, or it was
    /// replaced and the fill finds it no longer working; never both.
    @Test(arguments: TestDatabases.kinds)
    func aReplaceRacingAFillHasExactlyOneOutcome(kind: DatabaseKind) async throws {
        try await TestDatabases.withStore(kind) { store, _ in
            let (user, main) = try await store.makeUser()
            let id = main.id, me = user.id
            for round in 0..<12 {
                let order = try await Self.place(Self.working(.buy, 10, Self.limit("45"), now: "50"), in: store, id, me)
                let fill = WorkingFill(orderID: order.id, price: Price(parsing: "44.50")!, quantity: 10,
                                       reason: .quote(Price(parsing: "44.50")!, at: Date()))
                let pricing = FillPricing(source: .lastTrade, asOf: Date(), marketOpen: true)
                async let filled: Bool = (try? await store.fillWorkingOrder(fill, pricing: pricing, in: id, owner: me)) != nil
                async let replaced = try? await store.replaceOrder(order.id, with: Self.working(.buy, 10, Self.limit("44"), now: "50"),
                                                                   in: id, owner: me)
                let (didFill, replacement) = await (filled, replaced)
                #expect(didFill != (replacement != nil), "round \(round)")
                let stored = try await store.order(order.id, in: id, owner: me)
                #expect(stored.status == (didFill ? .filled : .replaced))
                if let replacement { _ = try await store.cancelOrder(replacement.new.id, in: id, owner: me) }
            }
            #expect(try await store.state(of: id, owner: me).book.holds == .none)
            try await store.expectBalancedBooks(id, owner: me)
        }
    }

    @Test(arguments: TestDatabases.kinds)
    func aReplaceMovesTheHoldToTheNewOrder(kind: DatabaseKind) async throws {
        try await TestDatabases.withStore(kind) { store, _ in
            let (user, _) = try await store.makeUser()
            let portfolio = try await store.createPortfolio(owner: user.id, name: "Replace", startingCash: Money(dollars: 1_000))
            let id = portfolio.id, me = user.id
            let old = try await Self.place(Self.working(.buy, 20, Self.limit("40"), now: "50"), in: store, id, me)   // holds $800
            // $45 × 20 = $900: possible only because the old hold goes in the same batch.
            let (replaced, new) = try await store.replaceOrder(old.id, with: Self.working(.buy, 20, Self.limit("45"), now: "50"),
                                                               in: id, owner: me)
            #expect(replaced.status == .replaced && replaced.replacedByID == new.id && new.replacesID == old.id)
            #expect(try await store.state(of: id, owner: me).book.reservedCash == Money(dollars: 900))
            // One that does not fit leaves the old one working.
            await #expect(throws: OrderRejection.self) {
                try await store.replaceOrder(new.id, with: Self.working(.buy, 30, Self.limit("45"), now: "50"), in: id, owner: me)
            }
            #expect(try await store.order(new.id, in: id, owner: me).status == .new)
            try await store.expectBalancedBooks(id, owner: me)
        }
    }

    /// A buy stop holds the cash at its stop; a gap that makes the fill cost more than the cash is
    /// rejected with the reason, and nothing moves.
    @Test(arguments: TestDatabases.kinds)
    func aFillTheCashCannotPayIsRejectedWithItsReason(kind: DatabaseKind) async throws {
        try await TestDatabases.withStore(kind) { store, _ in
            let (user, _) = try await store.makeUser()
            let portfolio = try await store.createPortfolio(owner: user.id, name: "Gap", startingCash: Money(dollars: 1_000))
            let id = portfolio.id, me = user.id
            let stop = try await Self.place(Self.working(.buy, 10, OrderTerms(type: .stop, timeInForce: .gtc, stop: Price(parsing: "100")!),
                                                         now: "90"), in: store, id, me)
            #expect(stop.holdPrice == Price(parsing: "100"))
            let gap = WorkingFill(orderID: stop.id, price: Price(parsing: "130")!, quantity: 10,
                                  reason: .quote(Price(parsing: "130")!, at: Date()))
            let (order, _) = try await store.fillWorkingOrder(gap, pricing: FillPricing(source: .lastTrade, asOf: Date(), marketOpen: true),
                                                              in: id, owner: me)
            #expect(order.status == .rejected && order.reason?.contains("needs $1300.00 but the portfolio has $1000.00") == true)
            let state = try await store.state(of: id, owner: me)
            #expect(state.book.cash == Money(dollars: 1_000) && state.book.positions.isEmpty && state.book.holds == .none)
            try await store.expectBalancedBooks(id, owner: me)
        }
    }

    @Test(arguments: TestDatabases.kinds)
    func partialFillsAddUpAndAResetCancelsWhatIsLeft(kind: DatabaseKind) async throws {
        try await TestDatabases.withStore(kind) { store, _ in
            let (user, main) = try await store.makeUser()
            let id = main.id, me = user.id
            let order = try await Self.place(Self.working(.buy, 10, Self.limit("45"), now: "50"), in: store, id, me)
            let pricing = FillPricing(source: .lastTrade, asOf: Date(), marketOpen: true)
            let first = WorkingFill(orderID: order.id, price: Price(parsing: "44")!, quantity: 4,
                                    reason: .limitReached(Price(parsing: "45")!, on: SessionDate(year: 2026, month: 2, day: 23)), cappedBy: 6)
            let (partly, _) = try await store.fillWorkingOrder(first, pricing: pricing, in: id, owner: me)
            #expect(partly.status == .partiallyFilled && partly.filledQuantity == 4 && partly.fillNote?.contains("6 stay working") == true)
            #expect(try await store.state(of: id, owner: me).book.reservedCash == Money(dollars: 270))   // 6 × $45
            try await store.expectBalancedBooks(id, owner: me)
            let second = WorkingFill(orderID: order.id, price: Price(parsing: "43")!, quantity: 6, reason: .quote(Price(parsing: "43")!, at: Date()))
            _ = try await store.fillWorkingOrder(second, pricing: pricing, in: id, owner: me)
            let done = try await store.order(order.id, in: id, owner: me)
            #expect(done.status == .filled && done.notional == Money(cents: 43_400) && done.fillPrice == Price(parsing: "43.40"))
            #expect(try await store.orderEvents(done).map(\.status) == [.new, .partiallyFilled, .filled])
            // A reset cancels the orders still working.
            let open = try await Self.place(Self.working(.buy, 1, Self.limit("10"), now: "50"), in: store, id, me)
            _ = try await store.reset(id, owner: me) { _ in Money(dollars: 100_000) }
            #expect(try await store.order(open.id, in: id, owner: me).status == .canceled)
            #expect(try await store.state(of: id, owner: me).book.holds == .none)
            try await store.expectBalancedBooks(id, owner: me)
        }
    }

    /// Short sales and their closes through the ledger: a short, a fee, a call, the buy-back (an
    /// order and a fill), the call's end; the books balance after each, a debt included.
    @Test(arguments: TestDatabases.kinds)
    func shortsFeesCallsAndBuyBacksBalance(kind: DatabaseKind) async throws {
        try await TestDatabases.withStore(kind) { store, _ in
            let (user, _) = try await store.makeUser()
            let portfolio = try await store.createPortfolio(owner: user.id, name: "Short", startingCash: Money(dollars: 10_000),
                                                            rules: PortfolioRules(margin: .standard))
            let id = portfolio.id, me = user.id
            let short = try await store.trade(.sell, 200, "KO", at: "100", in: id, owner: me)
            #expect(short.cashDelta == Money(dollars: 20_000))
            try await store.expectBalancedBooks(id, owner: me, prices: ["KO": "100"])
            let day = SessionDate(year: 2026, month: 2, day: 23), next = SessionDate(year: 2026, month: 2, day: 24)
            var state = try await store.state(of: id, owner: me)
            let calling = Margin.close(state.book, closes: [Self.ko: Price(parsing: "160")!], rule: .standard, callSince: nil, sessionsSince: 0)
            try await store.closeMarginSession(calling, session: day, version: state.portfolio.version, in: id, owner: me)
            // A stale version is refused: the close is decided again.
            await #expect(throws: StoreError.portfolioChanged) {
                try await store.closeMarginSession(calling, session: day, version: state.portfolio.version, in: id, owner: me)
            }
            var journal = try await store.currentPeriod(of: id, owner: me).journal
            #expect(Margin.callSince(journal) == day)
            try await store.expectBalancedBooks(id, owner: me, prices: ["KO": "160"])
            state = try await store.state(of: id, owner: me)
            let buying = Margin.close(state.book, closes: [Self.ko: Price(parsing: "160")!], rule: .standard, callSince: day, sessionsSince: 2)
            guard case .liquidate? = buying.last else { Issue.record("\(buying)"); return }
            try await store.closeMarginSession(buying, session: next, version: state.portfolio.version, in: id, owner: me)
            state = try await store.state(of: id, owner: me)
            #expect(state.book.positions.isEmpty && state.book.cash.isNegative)
            journal = try await store.currentPeriod(of: id, owner: me).journal
            #expect(Margin.callSince(journal) == nil)
            #expect(journal.map(\.kind).filter { $0 != .trade } == [.borrowFee, .marginCall, .borrowFee, .marginMet])
            let orders = try await store.orders(of: id, owner: me, limit: 10, cursor: nil).items
            #expect(orders.first?.side == .buy && orders.first?.quantity == 200 && orders.first?.reason?.contains("margin call") == true)
            // The forced buy-back is not the player buying a share: the first run's buy step is still to do.
            #expect(try await store.firstRun(owner: me).bought == false)
            try await store.expectBalancedBooks(id, owner: me)
        }
    }
}
