import BullpenCore
import Testing

@Suite("Positions and average cost")
struct PositionTests {
    let symbol = Symbol("MSFT")!

    @Test func averageCostBlendsBuysAtDifferentPrices() {
        var position = Position(symbol: symbol)
        position.add(quantity: 10, cost: Money(dollars: 1_000))   // 10 @ 100
        position.add(quantity: 30, cost: Money(dollars: 3_600))   // 30 @ 120
        #expect(position.quantity == 40)
        #expect(position.averageCost == Price(parsing: "115")!)
        #expect(position.costBasis == Money(dollars: 4_600))
    }

    @Test func partialSellsRemoveProportionalBasisAndTheLastSellTakesTheRest() {
        var position = Position(symbol: symbol)
        position.add(quantity: 3, cost: Money(cents: 1_000))       // $10.00 for 3 shares: 3.3333 each
        let first = position.remove(quantity: 1)
        #expect(first == Money(cents: 333))
        let second = position.remove(quantity: 1)
        #expect(second == Money(cents: 334))                      // round(667 × 1 / 2) = 334 (half up)
        let last = position.remove(quantity: 1)
        #expect(last == Money(cents: 333))
        #expect(first + second + last == Money(cents: 1_000))    // not a cent lost or made
        #expect(position.quantity == 0 && position.costBasis == .zero)
    }

    @Test func averageCostIsUnchangedBySells() {
        var position = Position(symbol: symbol)
        position.add(quantity: 8, cost: Money(dollars: 800))
        _ = position.remove(quantity: 3)
        #expect(position.averageCost == Price(parsing: "100")!)
        #expect(position.costBasis == Money(dollars: 500))
    }

    @Test func unrealizedPnLIsValueLessBasis() {
        let position = Position(symbol: symbol, quantity: 4, costBasis: Money(dollars: 400))
        #expect(position.unrealizedPnL(at: Price(parsing: "110.5")!) == Money(cents: 4_200))
        #expect(position.unrealizedPnL(at: Price(parsing: "90")!) == Money(dollars: -40))
    }
}
