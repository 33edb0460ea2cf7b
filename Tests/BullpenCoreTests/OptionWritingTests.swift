import BullpenCore
import BullpenTestSupport
import Foundation
import Testing

/// Writing contracts (selling to open) where the rules allow it: covered calls and cash-secured
/// puts, bought back or assigned at expiry, with the cover held back meanwhile.
@Suite("Option writing")
struct OptionWritingTests {
    let aapl = Symbol("AAPL")!
    let ids = SequentialIDSource()
    let writing = PortfolioRules(optionWriting: true)

    func date(_ text: String) -> SessionDate { SessionDate(iso: text)! }
    func price(_ text: String) -> Price { Price(parsing: text)! }
    func money(_ text: String) -> Money { Money(parsing: text)! }
    func unit(_ perShare: String) -> Price { Price(ticks: price(perShare).ticks * OptionContract.multiplier) }

    func contract(_ type: OptionType, _ strike: String, _ expiration: String = "2020-01-17") -> OptionContract {
        OptionContract(underlying: aapl, type: type, expiration: date(expiration), strike: price(strike))
    }

    /// A book and its journal, filled order by order through the engine.
    struct Ledger {
        var book: Book
        var journal: [JournalEntry] = []
        let rules: PortfolioRules
        let ids: SequentialIDSource

        mutating func fill(_ symbol: Symbol, _ side: OrderSide, _ quantity: Quantity, at price: Price) throws(OrderRejection) -> Fill {
            let (fill, after) = try TradingEngine.execute(OrderRequest(symbol: symbol, side: side, quantity: quantity), on: book,
                                                          at: price, rules: rules, trading: true)
            book = after
            journal += JournalEntry.entries(of: fill, portfolioID: PortfolioID(UUID()), period: 1, sequence: Int64(journal.count + 1),
                                            orderID: nil, fillID: nil, priceAsOf: nil, createdAt: Date(), ids: ids)
            return fill
        }

        mutating func record(_ settlements: [OptionSettlement], after book: Book) {
            for settlement in settlements {
                journal += JournalEntry.entries(of: settlement, portfolioID: PortfolioID(UUID()), period: 1,
                                                sequence: Int64(journal.count + 1), fillID: FillID(UUID()), createdAt: Date(), ids: ids)
            }
            self.book = book
        }

        func violations(prices: [Symbol: Price] = [:]) -> [Invariants.Violation] {
            Invariants.check(Invariants.Snapshot(
                startingCash: book.startingCash, cash: book.cash, positions: Array(book.positions.values), journal: journal,
                fills: journal.compactMap(\.fill), prices: prices, realizedPnL: journal.reduce(.zero) { $0 + $1.realizedPnL }))
        }
    }

    func ledger(cash: String = "10000.00", rules: PortfolioRules? = nil) -> Ledger {
        Ledger(book: Book(startingCash: money(cash)), rules: rules ?? writing, ids: ids)
    }

    @Test func writingIsOffUnlessTheRulesAllowIt() throws {
        var plain = ledger(rules: .default)
        _ = try plain.fill(aapl, .buy, 100, at: price("60"))
        let call = contract(.call, "70").symbol
        #expect(throws: OrderRejection.writingNotAllowed(call)) { try plain.fill(call, .sell, 1, at: unit("1.00")) }
        // Selling more contracts than held is a contract count, not a share count.
        _ = try plain.fill(call, .buy, 1, at: unit("1.00"))
        #expect(throws: OrderRejection.insufficientContracts(requested: 2, held: 1)) { try plain.fill(call, .sell, 2, at: unit("1.00")) }
        #expect(plain.violations().isEmpty)
    }

    @Test func aCoveredCallHoldsItsSharesUntilBoughtBack() throws {
        var ledger = ledger()
        _ = try ledger.fill(aapl, .buy, 150, at: price("60"))
        let call = contract(.call, "70").symbol
        let sold = try ledger.fill(call, .sell, 1, at: unit("2.50"))
        #expect(sold.cashDelta == money("250.00") && sold.realizedPnL == .zero)
        #expect(ledger.book.cash == money("1250.00") && ledger.book.quantity(of: call) == -1)
        #expect(ledger.book.positions[call]?.costBasis == money("-250.00"))
        #expect(ledger.book.committedShares(of: aapl) == 100 && ledger.book.freeShares(of: aapl) == 50)
        // A second call needs 100 more shares: 50 are free.
        #expect(throws: OrderRejection.uncoveredCall(call, sharesNeeded: 100, sharesFree: 50)) {
            try ledger.fill(call, .sell, 1, at: unit("2.50"))
        }
        // The 100 covering shares cannot be sold; the other 50 can.
        #expect(throws: OrderRejection.sharesCommitted(aapl, requested: 51, free: 50, committed: 100)) {
            try ledger.fill(aapl, .sell, 51, at: price("61"))
        }
        _ = try ledger.fill(aapl, .sell, 50, at: price("61"))
        // Valued at what buying it back costs: $1.00 a share now, so $150 of profit unrealized.
        let valuation = Valuation(book: ledger.book, quotes: [call: Quote(price: unit("1.00")), aapl: Quote(price: price("61"))],
                                  realizedPnL: .zero)
        let written = valuation.positions.first { $0.position.symbol == call }
        #expect(written?.marketValue == money("-100.00") && written?.unrealizedPnL == money("150.00"))
        #expect(written?.unrealizedPercent == Percent(hundredths: 6000))
        #expect(ledger.violations(prices: [call: unit("1.00"), aapl: price("61")]).isEmpty)
        #expect(throws: OrderRejection.buyBackExceedsWritten(requested: 2, written: 1)) {
            try ledger.fill(call, .buy, 2, at: unit("1.00"))
        }
        let bought = try ledger.fill(call, .buy, 1, at: unit("1.00"))
        #expect(bought.realizedPnL == money("150.00") && bought.cashDelta == money("-100.00"))
        #expect(ledger.book.positions[call] == nil && ledger.book.freeShares(of: aapl) == 100)
        #expect(ledger.violations().isEmpty)
        #expect(Book.replaying(ledger.journal, startingCash: ledger.book.startingCash) == ledger.book)
    }

    @Test func aCashSecuredPutHoldsBackTheStrike() throws {
        var ledger = ledger()
        let put = contract(.put, "70").symbol
        _ = try ledger.fill(put, .sell, 1, at: unit("3.00"))
        #expect(ledger.book.cash == money("10300.00") && ledger.book.reservedCash == money("7000.00"))
        #expect(ledger.book.freeCash == money("3300.00"))
        // Another put needs $7,000 of free cash; the premium received is not counted.
        #expect(throws: OrderRejection.unsecuredPut(put, cashNeeded: money("7000.00"), cashFree: money("3300.00"))) {
            try ledger.fill(put, .sell, 1, at: unit("3.00"))
        }
        #expect(throws: OrderRejection.cashReserved(required: money("6000.00"), free: money("3300.00"), reserved: money("7000.00"))) {
            try ledger.fill(aapl, .buy, 100, at: price("60"))
        }
        let preview = TradingEngine.preview(OrderRequest(symbol: aapl, side: .buy, quantity: 1), on: ledger.book, at: price("60"),
                                            rules: writing, trading: true)
        #expect(preview.maxQuantity == 55)
        _ = try ledger.fill(aapl, .buy, 54, at: price("60"))
        #expect(ledger.violations().isEmpty)
        // A call exercise may not spend the cash the put holds back either.
        var held = ledger
        let call = contract(.call, "50").symbol
        _ = try held.fill(call, .buy, 1, at: unit("0.10"))
        #expect(throws: OrderRejection.cashReserved(required: money("5000.00"), free: money("50.00"), reserved: money("7000.00"))) {
            try OptionSettlement.exercise(call.option!, contracts: 1, on: held.book, spot: price("60"), date: date("2020-01-10"))
        }
    }

    @Test func expiryAssignsWrittenContractsInTheMoneyAndLetsTheOthersLapse() throws {
        var ledger = ledger(cash: "20000.00")
        _ = try ledger.fill(aapl, .buy, 200, at: price("60"))   // $12,000: $8,000 left
        let call = contract(.call, "65"), farCall = contract(.call, "90"), put = contract(.put, "55", "2020-01-24")
        _ = try ledger.fill(call.symbol, .sell, 1, at: unit("2.00"))      // +$200
        _ = try ledger.fill(farCall.symbol, .sell, 1, at: unit("0.50"))   // +$50
        _ = try ledger.fill(put.symbol, .sell, 1, at: unit("1.50"))       // +$150, $5,500 held back
        #expect(ledger.book.cash == money("8400.00") && ledger.violations().isEmpty)

        // 17 January: AAPL closes at $70. The $65 call is assigned, the $90 one lapses.
        let first = OptionSettlement.expire(on: ledger.book, through: date("2020-01-17")) { _ in price("70") }
        #expect(first.settlements.map(\.outcome) == [.assigned, .expiredWorthless])
        let assigned = first.settlements[0]
        // 100 shares go at $65: $6,500 in; they cost $6,000, and the $200 premium counts as proceeds.
        #expect(assigned.cashDelta == money("6500.00") && assigned.realizedPnL == money("700.00") && assigned.automatic)
        #expect(first.settlements[1].realizedPnL == money("50.00") && first.settlements[1].cashDelta == .zero)
        ledger.record(first.settlements, after: first.book)
        #expect(ledger.book.quantity(of: aapl) == 100 && ledger.book.positions[call.symbol] == nil)
        #expect(ledger.book.positions[farCall.symbol] == nil && ledger.book.cash == money("14900.00"))
        #expect(ledger.violations().isEmpty)

        // 24 January: AAPL closes at $50. The $55 put is assigned: 100 shares bought at $55, their
        // cost less the $150 received.
        let second = OptionSettlement.expire(on: ledger.book, through: date("2020-01-24")) { _ in price("50") }
        #expect(second.settlements.map(\.outcome) == [.assigned])
        #expect(second.settlements[0].cashDelta == money("-5500.00") && second.settlements[0].realizedPnL == .zero)
        ledger.record(second.settlements, after: second.book)
        #expect(ledger.book.quantity(of: aapl) == 200 && ledger.book.positions[aapl]?.costBasis == money("11350.00"))
        #expect(ledger.book.reservedCash == .zero && ledger.book.cash == money("9400.00"))
        #expect(ledger.violations(prices: [aapl: price("50")]).isEmpty)
        #expect(Book.replaying(ledger.journal, startingCash: ledger.book.startingCash) == ledger.book)
    }

    @Test func aReplayWalkAssignsOnTheExpirationDay() throws {
        var ledger = ledger()
        let put = contract(.put, "60")
        _ = try ledger.fill(put.symbol, .sell, 1, at: unit("2.00"))
        let days = [date("2020-01-16"), date("2020-01-17"), date("2020-01-21")]
        let closes: [Symbol: [SessionDate: Price]] = [aapl: [days[0]: price("61"), days[1]: price("58"), days[2]: price("62")]]
        let walk = ReplayAdvance.walk(book: ledger.book, from: date("2020-01-15"), days: days,
                                      startPrices: [aapl: price("61"), put.symbol: unit("2.00")], closes: closes)
        #expect(walk.settlements.map(\.outcome) == [.assigned] && walk.settlements[0].date == date("2020-01-17"))
        // $6,000 paid for 100 shares worth $62 at the end; $200 kept: equity $10,400.
        #expect(walk.book.quantity(of: aapl) == 100 && walk.book.cash == money("4200.00"))
        #expect(walk.snapshots.last?.equity == money("10400.00"))
        ledger.record(walk.settlements, after: walk.book)
        #expect(ledger.violations(prices: [aapl: price("62")]).isEmpty)
    }

    @Test func theInvariantsCatchAnUncoveredCall() throws {
        var ledger = ledger()
        _ = try ledger.fill(aapl, .buy, 100, at: price("60"))
        _ = try ledger.fill(contract(.call, "70").symbol, .sell, 1, at: unit("1.00"))
        #expect(ledger.violations().isEmpty)
        // The shares gone without the journal saying so: the call is naked and the books disagree.
        ledger.book.positions[aapl] = nil
        let found = ledger.violations().map(\.description)
        #expect(found.contains { $0.contains("written calls need 100 shares, 0 held") })
    }
}
