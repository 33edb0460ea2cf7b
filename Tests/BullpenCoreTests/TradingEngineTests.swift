import BullpenCore
import Testing

@Suite("Trading engine")
struct TradingEngineTests {
    let msft = Symbol("MSFT")!
    let aapl = Symbol("AAPL")!
    let ko = Symbol("KO")!

    func buy(_ symbol: Symbol, _ quantity: Quantity) -> OrderRequest { OrderRequest(symbol: symbol, side: .buy, quantity: quantity) }
    func sell(_ symbol: Symbol, _ quantity: Quantity) -> OrderRequest { OrderRequest(symbol: symbol, side: .sell, quantity: quantity) }

    @Test func buyingMovesCashIntoAPosition() throws {
        let book = Book(startingCash: Money(dollars: 10_000))
        let (fill, after) = try TradingEngine.execute(buy(msft, 5), on: book, at: Price(parsing: "397.23")!, rules: .default, trading: true)
        #expect(fill.notional == Money(cents: 198_615))
        #expect(fill.cashDelta == Money(cents: -198_615))
        #expect(after.cash == Money(cents: 801_385))
        #expect(after.positions[msft] == Position(symbol: msft, quantity: 5, costBasis: Money(cents: 198_615)))
    }

    @Test func realizedPnLAcrossPartialSells() throws {
        var book = Book(startingCash: Money(dollars: 10_000))
        book = try TradingEngine.execute(buy(msft, 10), on: book, at: Price(parsing: "100")!, rules: .default, trading: true).book
        book = try TradingEngine.execute(buy(msft, 10), on: book, at: Price(parsing: "110")!, rules: .default, trading: true).book
        // average cost 105
        let first = try TradingEngine.execute(sell(msft, 5), on: book, at: Price(parsing: "120")!, rules: .default, trading: true)
        #expect(first.fill.realizedPnL == Money(dollars: 75))        // 5 × (120 - 105)
        let second = try TradingEngine.execute(sell(msft, 15), on: first.book, at: Price(parsing: "100")!, rules: .default, trading: true)
        #expect(second.fill.realizedPnL == Money(dollars: -75))      // 15 × (100 - 105)
        #expect(second.book.positions[msft] == nil)
        #expect(second.book.cash == Money(dollars: 10_000))           // +75 - 75
    }

    @Test func commissionsGoIntoCostOnBuysAndOutOfProceedsOnSells() throws {
        let rules = PortfolioRules(commission: Commission(perOrder: Money(cents: 500)))
        var book = Book(startingCash: Money(dollars: 1_000))
        let bought = try TradingEngine.execute(buy(ko, 10), on: book, at: Price(parsing: "50")!, rules: rules, trading: true)
        #expect(bought.fill.cashDelta == Money(cents: -50_500))
        #expect(bought.book.positions[ko]?.costBasis == Money(cents: 50_500))
        book = bought.book
        let sold = try TradingEngine.execute(sell(ko, 10), on: book, at: Price(parsing: "51")!, rules: rules, trading: true)
        // proceeds 510 - 5 commission - 505 basis = 0
        #expect(sold.fill.realizedPnL == .zero)
        #expect(sold.book.cash == Money(dollars: 1_000))
    }

    @Test func buyingMoreThanCashAllowsIsRejected() {
        let book = Book(startingCash: Money(dollars: 1_000))
        #expect(throws: OrderRejection.insufficientFunds(required: Money(cents: 100_001), available: Money(dollars: 1_000))) {
            try TradingEngine.execute(buy(msft, 1), on: book, at: Price(parsing: "1000.01")!, rules: .default, trading: true)
        }
    }

    @Test func spendingExactlyAllCashIsAllowed() throws {
        let book = Book(startingCash: Money(dollars: 1_000))
        let (_, after) = try TradingEngine.execute(buy(msft, 10), on: book, at: Price(parsing: "100")!, rules: .default, trading: true)
        #expect(after.cash == .zero)
    }

    @Test func sellingMoreThanOwnedIsRejected() throws {
        let book = try TradingEngine.execute(buy(msft, 3), on: Book(startingCash: Money(dollars: 1_000)),
                                             at: Price(parsing: "10")!, rules: .default, trading: true).book
        #expect(throws: OrderRejection.insufficientShares(requested: 4, held: 3)) {
            try TradingEngine.execute(sell(msft, 4), on: book, at: Price(parsing: "10")!, rules: .default, trading: true)
        }
        #expect(throws: OrderRejection.insufficientShares(requested: 1, held: 0)) {
            try TradingEngine.execute(sell(aapl, 1), on: book, at: Price(parsing: "10")!, rules: .default, trading: true)
        }
    }

    @Test(arguments: [Quantity(whole: 0), -1, 1_000_001])
    func quantitiesOutOfRangeAreRejected(quantity: Quantity) {
        #expect(throws: OrderRejection.quantityOutOfRange(quantity, allowed: 1...1_000_000)) {
            try TradingEngine.execute(buy(msft, quantity), on: Book(startingCash: Money(dollars: 1_000)),
                                      at: Price(parsing: "1")!, rules: .default, trading: true)
        }
    }

    @Test func maxDistinctHoldingsLimitsNewSymbolsButNotAddingToHeldOnes() throws {
        let rules = PortfolioRules(maxDistinctHoldings: 2)
        var book = Book(startingCash: Money(dollars: 10_000))
        book = try TradingEngine.execute(buy(msft, 1), on: book, at: Price(parsing: "10")!, rules: rules, trading: true).book
        book = try TradingEngine.execute(buy(aapl, 1), on: book, at: Price(parsing: "10")!, rules: rules, trading: true).book
        #expect(throws: OrderRejection.tooManyHoldings(limit: 2)) {
            try TradingEngine.execute(buy(ko, 1), on: book, at: Price(parsing: "10")!, rules: rules, trading: true)
        }
        book = try TradingEngine.execute(buy(msft, 1), on: book, at: Price(parsing: "10")!, rules: rules, trading: true).book
        #expect(book.quantity(of: msft) == 2)
    }

    @Test func instrumentsOutsideTheRulesAreRejected() {
        let rules = PortfolioRules(allowedInstruments: [.stock])
        let request = OrderRequest(symbol: msft, side: .buy, quantity: 1, instrument: .option)
        #expect(throws: OrderRejection.instrumentNotAllowed(.option)) {
            try TradingEngine.execute(request, on: Book(startingCash: Money(dollars: 1_000)), at: Price(parsing: "1")!, rules: rules, trading: true)
        }
    }

    @Test func maxAffordableAccountsForCommission() {
        let rules = PortfolioRules(commission: Commission(perOrder: Money(dollars: 5)))
        #expect(TradingEngine.maxAffordable(cash: Money(dollars: 1_000), price: Price(parsing: "100")!, rules: .default) == 10)
        #expect(TradingEngine.maxAffordable(cash: Money(dollars: 1_000), price: Price(parsing: "100")!, rules: rules) == 9)
        #expect(TradingEngine.maxAffordable(cash: Money(dollars: 1), price: Price(parsing: "100")!, rules: .default) == 0)
    }

    @Test func rejectionsHaveStableCodes() {
        #expect(OrderRejection.insufficientFunds(required: .zero, available: .zero).code == "insufficient_funds")
        #expect(OrderRejection.insufficientShares(requested: 1, held: 0).code == "insufficient_shares")
        #expect(OrderRejection.unknownSymbol(msft).code == "unknown_symbol")
        #expect(OrderRejection.marketDataUnavailable.code == "market_data_unavailable")
    }
}
