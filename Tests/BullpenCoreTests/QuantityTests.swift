import BullpenCore
import BullpenTestSupport
import Foundation
import PropertyBased
import Testing

/// Fixed-point quantities: eight places, integer units, one rounding rule (down to the lot), and a
/// book that stays exact whatever lots are bought and sold.
@Suite("Quantities")
struct QuantityTests {
    let msft = Symbol("MSFT")!
    let ids = SequentialIDSource()

    @Test func parsesAndFormatsExactly() {
        #expect(Quantity(parsing: "5") == 5)
        #expect(Quantity(parsing: "0.5")?.units == 50_000_000)
        #expect(Quantity(parsing: "0.00000001")?.units == 1)
        #expect(Quantity(parsing: "0.000000001") == nil)   // nine places: finer than any lot
        #expect(Quantity(parsing: "1e3") == nil && Quantity(parsing: ".5") == nil && Quantity(parsing: "5.") == nil)
        #expect(Quantity(parsing: "92233720368.54775807") == .max)
        #expect(Quantity(parsing: "92233720368.54775808") == nil)
        #expect(Quantity(units: 250_000_000).decimalString == "2.5")
        #expect(Quantity(units: -1).decimalString == "-0.00000001")
        #expect(Quantity(whole: 1_000_000).decimalString == "1000000")
        #expect((5 as Quantity).isWhole && !Quantity(units: 150_000_000).isWhole)
        #expect(Quantity(units: -275_000_000).wholePart == -2)
    }

    @Test func everyQuantityRoundTrips() async {
        await propertyCheck(count: 1_000, input: Gen.int64(in: -Int64.max...Int64.max)) { units in
            let quantity = Quantity(units: units)
            #expect(Quantity(parsing: quantity.decimalString) == quantity)
        }
    }

    @Test func storedJSONReadsOldWholeNumbersAndNewFractions() throws {
        let old = try JSONDecoder().decode([String: Quantity].self, from: Data(#"{"MSFT": 12}"#.utf8))
        #expect(old["MSFT"] == 12)
        let fraction = Quantity(units: 12_345)
        let data = try JSONEncoder().encode(["BTC": fraction, "KO": 3])
        #expect(try JSONDecoder().decode([String: Quantity].self, from: data) == ["BTC": fraction, "KO": 3])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([Quantity].self, from: Data("[100000000000]".utf8)) }
    }

    @Test func lotsRoundDownOnly() {
        let quantity = Quantity(parsing: "2.123456789".dropLast().description)!   // 2.12345678
        #expect(quantity.roundedDown(to: .whole) == 2)
        #expect(quantity.roundedDown(to: .fractionalShare) == Quantity(parsing: "2.123456"))
        #expect(quantity.roundedDown(to: .crypto) == quantity)
        #expect(Lot.whole.places == 0 && Lot.fractionalShare.places == 6 && Lot.crypto.places == 8)
        #expect(Quantity(parsing: "0.000001")!.isMultiple(of: .fractionalShare) && !Quantity(parsing: "0.0000001")!.isMultiple(of: .fractionalShare))
    }

    /// The notional of the smallest and the largest lots, rounded once to the cent.
    @Test func notionalAtTheEdges() {
        let price = Price(parsing: "187.4321")!
        #expect(price.notional(quantity: Lot.fractionalShare.quantity) == Money(cents: 0))   // $0.000187: rounds to nothing
        #expect(price.notional(quantity: Quantity(parsing: "0.5")!) == Money(cents: 9_372))   // 93.71605 → 93.72
        let bitcoin = Price(parsing: "98765.4321")!
        #expect(bitcoin.notional(quantity: Lot.crypto.quantity) == Money(cents: 0))   // a satoshi: $0.00098765
        #expect(bitcoin.notional(quantity: Quantity(parsing: "0.00001")!) == Money(cents: 99))   // 0.98765 → 0.99
        // The largest order the default rules take, at a large price: no overflow on the way.
        #expect(Price(parsing: "999999.9999")!.notional(quantity: 1_000_000) == Money(cents: 99_999_999_990_000))
        #expect(Price(parsing: "100")!.notional(quantity: .max) == Money(cents: 922_337_203_685_478))
        // A fortune at the smallest price buys the largest quantity, not a crash.
        #expect(Price(ticks: 1).quantity(affordableWith: Money(cents: 999_999_999_999_999), lot: .whole) == Quantity(whole: 92_233_720_368))
    }

    /// What a budget buys: the most of the lot whose notional fits, never a cent over.
    @Test func affordableQuantityNeverExceedsTheBudget() async {
        let lots: [Lot] = [.whole, .fractionalShare, .crypto]
        await propertyCheck(count: 1_000, input: Gen.int64(in: 100...99_999_999_999), Gen.int64(in: 1...1_000_000_000),
                            Gen.int(in: 0...2)) { ticks, cents, lotIndex in
            let price = Price(ticks: ticks), budget = Money(cents: cents), lot = lots[lotIndex]
            let quantity = price.quantity(affordableWith: budget, lot: lot)
            #expect(quantity.isMultiple(of: lot) && quantity >= .zero)
            #expect(price.notional(quantity: quantity) <= budget)
            // One lot more costs more than the budget: rounded to the cent, or else exactly (a lot
            // worth less than half a cent can round to the same cent).
            let more = quantity + lot.quantity
            let exactCost = Int128(price.ticks) * Int128(more.units), exactBudget = Int128(budget.cents) * 10_000_000_000
            #expect(price.notional(quantity: more) > budget || exactCost > exactBudget, "one lot more would fit: \(quantity) at \(price)")
        }
    }

    @Test func fractionalSharesAreARule() throws {
        let book = Book(startingCash: Money(dollars: 1_000))
        let half = Quantity(parsing: "0.5")!
        #expect(throws: OrderRejection.quantityNotInLots(half, lot: .whole)) {
            try TradingEngine.execute(OrderRequest(symbol: msft, side: .buy, quantity: half), on: book,
                                      at: Price(parsing: "400")!, rules: .default, trading: true)
        }
        var rules = PortfolioRules.default
        rules.fractionalShares = true
        let (fill, after) = try TradingEngine.execute(OrderRequest(symbol: msft, side: .buy, quantity: half), on: book,
                                                      at: Price(parsing: "400")!, rules: rules, trading: true)
        #expect(fill.notional == Money(dollars: 200) && after.cash == Money(dollars: 800) && after.quantity(of: msft) == half)
        let tooFine = Quantity(parsing: "0.0000005")!
        #expect(throws: OrderRejection.quantityNotInLots(tooFine, lot: .fractionalShare)) {
            try TradingEngine.execute(OrderRequest(symbol: msft, side: .buy, quantity: tooFine), on: book,
                                      at: Price(parsing: "400")!, rules: rules, trading: true)
        }
        // Option contracts stay whole under the rule.
        #expect(rules.lot(for: Symbol("AAPL  260320C00250000")!) == .whole)
        // The preview's most affordable is to the millionth: $1,000 buys 2.5 shares at $400.
        let preview = TradingEngine.preview(OrderRequest(symbol: msft, side: .buy, quantity: 1), on: book, at: Price(parsing: "400")!,
                                            rules: rules, trading: true)
        #expect(preview.maxQuantity == Quantity(parsing: "2.5"))
        rules.commission = Commission(perOrder: Money(dollars: 1))
        let withFee = TradingEngine.preview(OrderRequest(symbol: msft, side: .buy, quantity: 1), on: book, at: Price(parsing: "400")!,
                                            rules: rules, trading: true)
        #expect(withFee.maxQuantity == Quantity(parsing: "2.497512"))   // $999.0048 is $999.00 to the cent: + $1 is $1,000
        // The old JSON of a portfolio's rules reads as whole shares.
        let old = try JSONDecoder().decode(PortfolioRules.self, from: Data(#"{"maxOrderQuantity": 10}"#.utf8))
        #expect(!old.fractionalShares && old.lot(for: msft) == .whole)
    }

    /// Coins trade to 10⁻⁸ whatever the share rules, around the clock, where the rules allow crypto.
    @Test func coinsHaveTheirOwnLotHoursAndRule() throws {
        let btc = Symbol("BTC-USD")!
        var order = OrderRequest(symbol: btc, side: .buy, quantity: Quantity(parsing: "0.00012345")!)
        order.assetClass = .crypto
        var rules = PortfolioRules.default
        rules.marketHoursOnly = true
        #expect(rules.lot(for: btc, assetClass: .crypto) == .crypto && rules.lot(for: btc) == .whole)
        // A coin at a fraction of a cent: a thousand times the share limit, so that $10,000 of it is one order.
        #expect(rules.maxQuantity(for: .crypto) == Quantity(whole: 1_000_000_000) && rules.maxQuantity(for: .usEquity) == 1_000_000)
        var meme = OrderRequest(symbol: Symbol("HOP-USD")!, side: .buy, quantity: Quantity(whole: 2_500_000))
        meme.assetClass = .crypto
        #expect(TradingEngine.preview(meme, on: Book(startingCash: Money(dollars: 10_000)), at: Price(ticks: 40), rules: .default,
                                      trading: true).problems.isEmpty)
        let book = Book(startingCash: Money(dollars: 100))
        let price = Price(parsing: "98765.4321")!
        let closed = OrderContext(trading: true, marketOpen: false)
        let (fill, _) = try TradingEngine.execute(order, on: book, at: price, rules: rules, context: closed)
        #expect(fill.notional == Money(cents: 1_219))   // 12.1926... dollars
        var stock = OrderRequest(symbol: msft, side: .buy, quantity: 1)
        stock.assetClass = .usEquity
        #expect(TradingEngine.problems(stock, on: book, at: Price(parsing: "10")!, rules: rules, context: closed).map(\.code) == ["market_closed"])
        rules.allowCrypto = false
        #expect(throws: OrderRejection.cryptoNotAllowed) {
            try TradingEngine.execute(order, on: book, at: price, rules: rules, context: closed)
        }
        // By amount: $25 of a coin at $98,765.4321 is 0.00025312 (rounded down), $25.00 to the cent.
        let amount = OrderRequest(symbol: btc, side: .buy, notional: Money(dollars: 25)).resolvingNotional(at: price, lot: .crypto)
        #expect(amount.quantity == Quantity(parsing: "0.00025312") && price.notional(quantity: amount.quantity) == Money(dollars: 25))
    }

    /// Any sequence of buys and sells in any lots keeps the books exact: the position is the sum of
    /// the fills, the cash the starting cash plus the journal, the basis is all gone when the last
    /// lot is sold, and what was realized is exactly the cash made over what was paid.
    @Test func anySequenceOfLotsKeepsTheBooksExact() async throws {
        var rules = PortfolioRules.default
        rules.fractionalShares = true
        rules.commission = Commission(perOrder: Money(cents: 0), basisPoints: 7)
        let prices = ["0.3333", "1", "12.5", "187.4321", "400", "3999.99"].map { Price(parsing: $0)! }
        let step = zip(Gen.bool(0.6), Gen.int64(in: 1...5_000_000_000), Gen.int(in: 0...5))
        await propertyCheck(count: 300, input: step.array(of: 1...40)) { steps in
            var book = Book(startingCash: Money(dollars: 100_000))
            var journal: [JournalEntry] = []
            var fills: [Fill] = []
            var lastPrice = prices[0]
            for (buy, units, priceIndex) in steps {
                let price = prices[priceIndex]
                let held = book.quantity(of: msft)
                let quantity = buy ? Quantity(units: units).roundedDown(to: .fractionalShare)
                    : Swift.min(Quantity(units: units).roundedDown(to: .fractionalShare), held)
                guard quantity > .zero else { continue }
                let request = OrderRequest(symbol: msft, side: buy ? .buy : .sell, quantity: quantity)
                guard let (fill, after) = try? TradingEngine.execute(request, on: book, at: price, rules: rules, trading: true) else { continue }
                journal += JournalEntry.entries(of: fill, portfolioID: PortfolioID(UUID()), period: 1, sequence: Int64(journal.count + 1),
                                                orderID: nil, fillID: nil, priceAsOf: nil, createdAt: Date(), ids: ids)
                fills.append(fill)
                book = after
                lastPrice = price
            }
            let snapshot = Invariants.Snapshot(startingCash: Money(dollars: 100_000), cash: book.cash, positions: Array(book.positions.values),
                                               journal: journal, fills: fills, prices: [msft: lastPrice])
            #expect(Invariants.check(snapshot).isEmpty, "\(Invariants.check(snapshot))")
            #expect(book.quantity(of: msft) == fills.reduce(Quantity.zero) { $0 + $1.quantityDelta })
            // Selling the remainder leaves nothing: no share, no basis, and the realized P&L is the whole story.
            let rest = book.quantity(of: msft)
            if rest > .zero {
                let (fill, after) = try! TradingEngine.execute(OrderRequest(symbol: msft, side: .sell, quantity: rest), on: book,
                                                               at: lastPrice, rules: rules, trading: true)
                fills.append(fill)
                book = after
            }
            #expect(book.positions[msft] == nil)
            let realized = fills.reduce(Money.zero) { $0 + $1.realizedPnL }
            #expect(book.cash == Money(dollars: 100_000) + realized, "everything sold: the cash is the start plus what was realized")
        }
    }

    /// A split keeps whole shares whole (the fraction is paid in cash) and keeps a fractional holding
    /// to the millionth.
    @Test func splitsKeepTheLot() throws {
        var book = Book(startingCash: Money(dollars: 1_000))
        book.positions[msft] = Position(symbol: msft, quantity: 7, costBasis: Money(dollars: 70))
        let reverse = CorporateAction(symbol: msft, exDate: SessionDate(iso: "2024-01-02")!, kind: .split(to: 1, from: 2))
        let whole = try #require(reverse.effect(on: book, price: Price(parsing: "20")!))
        #expect(whole.quantityDelta == -4 && whole.cash == Money(dollars: 10))   // 3 shares and half a share at $20
        book.positions[msft] = Position(symbol: msft, quantity: Quantity(parsing: "0.333333")!, costBasis: Money(dollars: 3))
        let forward = CorporateAction(symbol: msft, exDate: SessionDate(iso: "2024-01-02")!, kind: .split(to: 3, from: 1))
        let fractional = try #require(forward.effect(on: book, price: Price(parsing: "3")!))
        #expect(fractional.quantityDelta == Quantity(parsing: "0.666666") && fractional.cash == .zero)
    }
}
