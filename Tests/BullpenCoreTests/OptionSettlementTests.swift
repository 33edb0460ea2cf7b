import BullpenCore
import BullpenTestSupport
import Foundation
import Testing

/// Option positions in a book: bought and sold like shares (a contract's price is 100 shares'),
/// exercised, expired, and the invariants kept through all of it.
@Suite("Option settlement")
struct OptionSettlementTests {
    let aapl = Symbol("AAPL")!
    let ids = SequentialIDSource()

    func date(_ text: String) -> SessionDate { SessionDate(iso: text)! }
    func price(_ text: String) -> Price { Price(parsing: text)! }
    func money(_ text: String) -> Money { Money(parsing: text)! }

    func contract(_ type: OptionType, _ strike: String, _ expiration: String = "2020-01-17") -> OptionContract {
        OptionContract(underlying: aapl, type: type, expiration: date(expiration), strike: price(strike))
    }

    /// A book after buying `contracts` of `contract` at `premium` a share (and `shares` AAPL at $60).
    func book(cash: String = "10000.00", holding contract: OptionContract, contracts: Quantity, premium: String,
              shares: Quantity = 0) throws -> (book: Book, journal: [JournalEntry]) {
        var book = Book(startingCash: money(cash))
        var journal: [JournalEntry] = []
        func fill(_ request: OrderRequest, _ unit: Price) throws {
            let (fill, after) = try TradingEngine.execute(request, on: book, at: unit, rules: .default, trading: true)
            book = after
            journal += JournalEntry.entries(of: fill, portfolioID: PortfolioID(UUID()), period: 1, sequence: Int64(journal.count + 1),
                                            orderID: nil, fillID: nil, priceAsOf: nil, createdAt: Date(), ids: ids)
        }
        if shares > 0 { try fill(OrderRequest(symbol: aapl, side: .buy, quantity: shares), price("60")) }
        try fill(OrderRequest(symbol: contract.symbol, side: .buy, quantity: contracts),
                 Price(ticks: price(premium).ticks * OptionContract.multiplier))
        return (book, journal)
    }

    /// The journal after `settlements`, and the invariants over the whole of it.
    func expectBalanced(_ start: (book: Book, journal: [JournalEntry]), _ settlements: [OptionSettlement], after book: Book,
                        sourceLocation: SourceLocation = #_sourceLocation) {
        var journal = start.journal
        for settlement in settlements {
            journal += JournalEntry.entries(of: settlement, portfolioID: PortfolioID(UUID()), period: 1,
                                            sequence: Int64(journal.count + 1), fillID: FillID(UUID()), createdAt: Date(), ids: ids)
        }
        let fills = journal.compactMap(\.fill)
        let snapshot = Invariants.Snapshot(startingCash: book.startingCash, cash: book.cash,
                                           positions: Array(book.positions.values), journal: journal, fills: fills, prices: [:],
                                           realizedPnL: journal.reduce(.zero) { $0 + $1.realizedPnL })
        #expect(Invariants.check(snapshot).isEmpty, "\(Invariants.check(snapshot))", sourceLocation: sourceLocation)
        #expect(Book.replaying(journal, startingCash: book.startingCash) == book, sourceLocation: sourceLocation)
    }

    @Test func optionSymbolsAreSymbols() throws {
        let call = contract(.call, "70")
        #expect(call.symbol.rawValue == "AAPL200117C00070000" && call.symbol.isOption && call.symbol.multiplier == 100)
        #expect(Symbol("AAPL  200117C00070000") == call.symbol && Symbol("aapl200117c00070000") == call.symbol)
        #expect(call.symbol.option == call && call.symbol.instrument == .option)
        #expect(!aapl.isOption && aapl.option == nil && aapl.multiplier == 1)
        // A root with punctuation keeps its spelling in the position's symbol, not in the OCC symbol.
        let brk = OptionContract(underlying: Symbol("BRK-B")!, type: .put, expiration: date("2026-03-20"), strike: price("500"))
        #expect(brk.symbol.rawValue == "BRK-B260320P00500000" && brk.occSymbol == "BRKB  260320P00500000")
        #expect(brk.symbol.option == brk)
        #expect(Symbol("AAPL  200117X00070000") == nil && Symbol("AAPLAAPLAAPLAAPL") == nil)
        #expect(OrderRequest(symbol: call.symbol, side: .buy, quantity: 1).instrument == .option)
    }

    @Test func exercisingACallBuysTheSharesAtTheStrikeWithThePremiumInTheirCost() throws {
        let call = contract(.call, "70")
        let start = try book(holding: call, contracts: 2, premium: "2.50")
        #expect(start.book.cash == money("9500.00"))
        // Not enough cash for 200 shares at $70 ($14,000).
        #expect(throws: OrderRejection.insufficientFunds(required: money("14000.00"), available: money("9500.00"))) {
            try OptionSettlement.exercise(call, contracts: 2, on: start.book, spot: price("75"), date: date("2020-01-10"))
        }
        let (settlement, after) = try OptionSettlement.exercise(call, contracts: 1, on: start.book, spot: price("75"), date: date("2020-01-10"))
        #expect(settlement.outcome == .exercised && !settlement.automatic && settlement.cashDelta == money("-7000.00"))
        #expect(after.cash == money("2500.00") && after.quantity(of: call.symbol) == 1 && after.quantity(of: aapl) == 100)
        // The $250 premium of the exercised contract is in the shares' cost: $7,250 for 100.
        #expect(after.positions[aapl]?.costBasis == money("7250.00") && settlement.realizedPnL == .zero)
        expectBalanced(start, [settlement], after: after)
    }

    @Test func exercisingAPutSellsHeldSharesAtTheStrike() throws {
        let put = contract(.put, "65")
        let bare = try book(holding: put, contracts: 1, premium: "1.20")
        #expect(throws: OrderRejection.insufficientShares(requested: 100, held: 0)) {
            try OptionSettlement.exercise(put, contracts: 1, on: bare.book, spot: price("55"), date: date("2020-01-10"))
        }
        let start = try book(holding: put, contracts: 1, premium: "1.20", shares: 150)
        let (settlement, after) = try OptionSettlement.exercise(put, contracts: 1, on: start.book, spot: price("55"), date: date("2020-01-10"))
        // 100 of 150 shares bought at $60 go at $65: $6,500 in; realized $500 less the $120 premium.
        #expect(settlement.cashDelta == money("6500.00") && settlement.realizedPnL == money("380.00"))
        #expect(after.quantity(of: aapl) == 50 && after.quantity(of: put.symbol) == 0)
        expectBalanced(start, [settlement], after: after)
    }

    @Test func onlyHeldInTheMoneyUnexpiredContractsExercise() throws {
        let call = contract(.call, "70")
        let start = try book(cash: "100000.00", holding: call, contracts: 1, premium: "1.00")
        #expect(throws: OrderRejection.outOfTheMoney(call.symbol, spot: price("70"))) {
            try OptionSettlement.exercise(call, contracts: 1, on: start.book, spot: price("70"), date: date("2020-01-10"))
        }
        #expect(throws: OrderRejection.insufficientContracts(requested: 2, held: 1)) {
            try OptionSettlement.exercise(call, contracts: 2, on: start.book, spot: price("80"), date: date("2020-01-10"))
        }
        #expect(throws: OrderRejection.optionExpired(call.symbol, on: date("2020-01-17"))) {
            try OptionSettlement.exercise(call, contracts: 1, on: start.book, spot: price("80"), date: date("2020-01-21"))
        }
    }

    @Test func expiryExercisesSettlesInCashOrExpiresWorthless() throws {
        let rich = contract(.call, "70"), poorCall = contract(.call, "60", "2020-01-10"), worthless = contract(.put, "50", "2020-01-03")
        var start = try book(cash: "7400.00", holding: rich, contracts: 1, premium: "2.00")
        // Two more contracts held: 1 call at $60 expiring first, 1 put at $50 expiring before it.
        for (other, premium) in [(poorCall, "3.00"), (worthless, "0.50")] {
            let (fill, after) = try TradingEngine.execute(OrderRequest(symbol: other.symbol, side: .buy, quantity: 1), on: start.book,
                                                          at: Price(ticks: price(premium).ticks * 100), rules: .default, trading: true)
            start.journal += JournalEntry.entries(of: fill, portfolioID: PortfolioID(UUID()), period: 1, sequence: Int64(start.journal.count + 1),
                                                  orderID: nil, fillID: nil, priceAsOf: nil, createdAt: Date(), ids: ids)
            start.book = after
        }
        #expect(start.book.cash == money("6850.00"))
        let closes: [SessionDate: Price] = [date("2020-01-03"): price("52"), date("2020-01-10"): price("71"), date("2020-01-17"): price("77")]
        let (settlements, after) = OptionSettlement.expire(on: start.book, through: date("2020-01-17")) { closes[$0.expiration] }
        #expect(settlements.map(\.contract) == [worthless, poorCall, rich])
        #expect(settlements.map(\.outcome) == [.expiredWorthless, .exercised, .cashSettled])
        #expect(settlements.map(\.date) == [date("2020-01-03"), date("2020-01-10"), date("2020-01-17")])
        #expect(settlements.allSatisfy { $0.automatic })
        // The put's $50 premium is lost; the $60 call buys 100 shares ($6,000 of $6,850); the $70
        // call is then short of cash for $7,000 and pays its intrinsic value, $7 a share.
        #expect(settlements[0].realizedPnL == money("-50.00") && settlements[0].cashDelta == .zero)
        #expect(settlements[1].cashDelta == money("-6000.00") && after.positions[aapl]?.costBasis == money("6300.00"))
        #expect(settlements[2].cashDelta == money("700.00") && settlements[2].realizedPnL == money("500.00"))
        #expect(after.cash == money("1550.00") && after.positions.keys.sorted() == [aapl])
        expectBalanced(start, settlements, after: after)
        // Nothing expires before its day.
        #expect(OptionSettlement.expire(on: start.book, through: date("2020-01-02")) { _ in price("1") }.settlements.isEmpty)
    }

    /// A replay advance over several expirations settles each at the close of its own day, in
    /// order, and values what the settlements left at each later close.
    @Test func anAdvanceSettlesEachExpirationOnItsDay() throws {
        let first = contract(.call, "70", "2020-01-03"), second = contract(.put, "80", "2020-01-10")
        var book = Book(startingCash: money("10000.00"))
        book.apply(Fill(symbol: first.symbol, side: .buy, quantity: 1, price: price("200"), notional: money("200.00"),
                        commission: .zero, realizedPnL: .zero, cashDelta: money("-200.00")))
        book.apply(Fill(symbol: second.symbol, side: .buy, quantity: 2, price: price("300"), notional: money("600.00"),
                        commission: .zero, realizedPnL: .zero, cashDelta: money("-600.00")))
        let days = [date("2020-01-03"), date("2020-01-06"), date("2020-01-07"), date("2020-01-08"), date("2020-01-09"),
                    date("2020-01-10"), date("2020-01-13")]
        var closes: [Symbol: [SessionDate: Price]] = [aapl: [:], first.symbol: [:], second.symbol: [:]]
        for (index, day) in days.enumerated() {
            let spot = Price(ticks: price("72").ticks + Int64(index) * 10_000)
            closes[aapl]?[day] = spot
            closes[first.symbol]?[day] = Price(ticks: max(0, spot.ticks - price("70").ticks) * 100)
            closes[second.symbol]?[day] = Price(ticks: max(0, price("80").ticks - spot.ticks) * 100)
        }
        let walk = ReplayAdvance.walk(book: book, from: date("2020-01-02"), days: days,
                                      startPrices: [aapl: price("71"), first.symbol: price("150"), second.symbol: price("900")],
                                      closes: closes)
        #expect(walk.settlements.map(\.contract) == [first, second] && walk.settlements.map(\.date) == [date("2020-01-03"), date("2020-01-10")])
        // The call is exercised at $72 on the 3rd (100 shares for $7,000); the puts at $77 on the
        // 10th sell 200 shares, but 100 are held: settled in cash, $3 a share.
        #expect(walk.settlements[0].outcome == .exercised && walk.settlements[1].outcome == .cashSettled)
        #expect(walk.settlements[1].cashDelta == money("600.00"))
        #expect(walk.book.cash == money("2800.00") && walk.book.positions.keys.sorted() == [aapl])
        // Each day's equity: cash and holdings at that day's close.
        #expect(walk.snapshots.map(\.date) == [date("2020-01-02")] + days)
        #expect(walk.snapshots[1].equity == money("9200.00") + money("200.00") + money("1600.00"))   // the 3rd, before settling
        #expect(walk.snapshots[2].equity == money("2200.00") + money("7300.00") + money("1400.00"))  // the 6th: 100 shares at $73
        #expect(walk.snapshots.last?.equity == money("2800.00") + money("7800.00"))                 // the 13th
        // Contracts expiring on the day the clock stops on stay, tradable that day.
        let stop = ReplayAdvance.walk(book: book, from: date("2020-01-02"), days: Array(days.prefix(1)),
                                      startPrices: [:], closes: closes)
        #expect(stop.settlements.isEmpty && stop.book == book)
    }
}
