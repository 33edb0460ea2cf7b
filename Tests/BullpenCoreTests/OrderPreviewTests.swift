import BullpenCore
import Testing

/// A preview is computed by the engine that executes: the same figures, and every rule the
/// order would break (the first of which is what executing it throws).
@Suite("Order preview")
struct OrderPreviewTests {
    let msft = Symbol("MSFT")!

    @Test func aBuyThatFitsHasNoProblemsAndTheExecutionsFigures() throws {
        let book = Book(startingCash: Money(dollars: 10_000))
        let rules = PortfolioRules(commission: Commission(perOrder: Money(dollars: 1), basisPoints: 10))
        let request = OrderRequest(symbol: msft, side: .buy, quantity: 5)
        let preview = TradingEngine.preview(request, on: book, at: Price(parsing: "397.23")!, rules: rules, trading: true)
        let (fill, after) = try TradingEngine.execute(request, on: book, at: Price(parsing: "397.23")!, rules: rules, trading: true)
        #expect(preview.problems.isEmpty)
        #expect(preview.notional == fill.notional && preview.commission == fill.commission)
        #expect(preview.total == Money(cents: 198_615 + 100 + 199))
        #expect(preview.cashAfter == after.cash)
        #expect(preview.maxQuantity == TradingEngine.maxAffordable(cash: book.cash, price: Price(parsing: "397.23")!, rules: rules))
    }

    @Test func everyBrokenRuleIsListed() {
        var book = Book(startingCash: Money(dollars: 100))
        book.positions[Symbol("KO")!] = Position(symbol: Symbol("KO")!, quantity: 1, costBasis: Money(dollars: 50))
        let rules = PortfolioRules(maxDistinctHoldings: 1)
        let preview = TradingEngine.preview(OrderRequest(symbol: msft, side: .buy, quantity: 5), on: book,
                                            at: Price(parsing: "397.23")!, rules: rules, trading: false)
        #expect(preview.problems.map(\.code) == ["not_trading", "insufficient_funds", "too_many_holdings"])
        #expect(preview.maxQuantity == 0)
        #expect(throws: OrderRejection.notTrading(msft)) {
            try TradingEngine.execute(OrderRequest(symbol: msft, side: .buy, quantity: 5), on: book,
                                      at: Price(parsing: "397.23")!, rules: rules, trading: false)
        }
    }

    /// A reduce-only order closes at most the position: on a margin book, where a sell with
    /// nothing held opens a short (the second of two closes sent at once), it is refused when it
    /// executes.
    @Test func aReduceOnlyOrderNeverOpensTheOtherSide() throws {
        var book = Book(startingCash: Money(dollars: 100_000))
        book.positions[msft] = Position(symbol: msft, quantity: 3, costBasis: Money(dollars: 1_200))
        let rules = PortfolioRules(margin: .standard)
        let price = Price(parsing: "400")!
        var close = OrderRequest(symbol: msft, side: .sell, quantity: 3)
        close.reduceOnly = true
        let (_, flat) = try TradingEngine.execute(close, on: book, at: price, rules: rules, trading: true)
        #expect(flat.quantity(of: msft) == 0)
        // The same sell once flat would be a short sale; reduce-only, it is refused.
        #expect(TradingEngine.preview(OrderRequest(symbol: msft, side: .sell, quantity: 3), on: flat, at: price, rules: rules,
                                      trading: true).problems.isEmpty)
        #expect(throws: OrderRejection.insufficientShares(requested: 3, held: 0)) {
            try TradingEngine.execute(close, on: flat, at: price, rules: rules, trading: true)
        }
        var more = close
        more.quantity = 5
        #expect(throws: OrderRejection.insufficientShares(requested: 5, held: 3)) {
            try TradingEngine.execute(more, on: book, at: price, rules: rules, trading: true)
        }
        var cover = OrderRequest(symbol: msft, side: .buy, quantity: 1)
        cover.reduceOnly = true
        #expect(throws: OrderRejection.coverExceedsShort(requested: 1, short: 0)) {
            try TradingEngine.execute(cover, on: flat, at: price, rules: rules, trading: true)
        }
    }

    @Test func aSellOfASymbolThatEndedGoesThrough() throws {
        var book = Book(startingCash: Money(dollars: 100))
        book.positions[msft] = Position(symbol: msft, quantity: 3, costBasis: Money(dollars: 30))
        let request = OrderRequest(symbol: msft, side: .sell, quantity: 3)
        let preview = TradingEngine.preview(request, on: book, at: Price(parsing: "12")!, rules: .default, trading: false)
        #expect(preview.problems.isEmpty && preview.maxQuantity == 3 && preview.total == Money(dollars: 36))
        let (fill, _) = try TradingEngine.execute(request, on: book, at: Price(parsing: "12")!, rules: .default, trading: false)
        #expect(fill.realizedPnL == Money(dollars: 6))
    }

    @Test func quantityOutOfRangeIsAProblemNotACrash() {
        let preview = TradingEngine.preview(OrderRequest(symbol: msft, side: .buy, quantity: 0), on: Book(startingCash: Money(dollars: 10)),
                                            at: Price(parsing: "1")!, rules: .default, trading: true)
        #expect(preview.problems.first?.code == "quantity_out_of_range")
        let huge = TradingEngine.preview(OrderRequest(symbol: msft, side: .buy, quantity: .max), on: Book(startingCash: Money(dollars: 10)),
                                         at: Price(parsing: "10000000")!, rules: .default, trading: true)
        #expect(huge.problems.map(\.code).contains("quantity_out_of_range"))
    }
}
