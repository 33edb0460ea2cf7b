import BullpenCore
import Testing

@Suite("Money and prices")
struct MoneyAndPriceTests {
    @Test(arguments: [("1234.50", 123_450), ("12", 1_200), ("0.07", 7), ("-0.07", -7), ("5.5", 550), ("0", 0)])
    func moneyParsesDecimalStrings(text: String, cents: Int64) {
        #expect(Money(parsing: text)?.cents == cents)
    }

    @Test(arguments: ["", "abc", "1.234", "1,000.00", "1e5", "1.", ".5", "--1", "12.3.4", "1234567890123456.00", " 1"])
    func moneyRejectsAnythingElse(text: String) {
        #expect(Money(parsing: text) == nil)
    }

    @Test func moneyFormatsWithTwoPlaces() {
        #expect(Money(cents: 123_450).decimalString == "1234.50")
        #expect(Money(cents: -7).decimalString == "-0.07")
        #expect(Money(cents: 0).decimalString == "0.00")
        #expect(Money(dollars: 100_000).decimalString == "100000.00")
    }

    @Test func sentencesGroupThousands() {
        #expect(Money(cents: 123_456_789).dollars == "$1,234,567.89" && Money(cents: -700_000).dollars == "-$7,000.00")
        #expect(Money(cents: 99_999).dollars == "$999.99" && Money(cents: -5).dollars == "-$0.05" && Money.zero.dollars == "$0.00")
        #expect(Price(parsing: "1234.5678")!.dollars == "$1,234.5678" && Price(parsing: "100000")!.dollars == "$100,000.00")
    }

    @Test func pricesKeepFourPlacesAndTrimTrailingZerosPastTheCents() {
        #expect(Price(parsing: "0.2792")?.ticks == 2_792)
        #expect(Price(parsing: "397.23")?.decimalString == "397.23")
        #expect(Price(parsing: "12")?.decimalString == "12.00")
        #expect(Price(parsing: "0.2792")?.decimalString == "0.2792")
        #expect(Price(parsing: "1.23456") == nil)
        #expect(Price(parsing: "-1") == nil)
    }

    @Test func notionalRoundsOncePerFillHalfAwayFromZero() {
        // 3 × 0.3333 = 0.9999 → 1.00, not 3 × 0.33 = 0.99
        #expect(Price(parsing: "0.3333")!.notional(quantity: 3) == Money(cents: 100))
        // 1 × 0.0050 = half a cent → rounds up to 0.01
        #expect(Price(parsing: "0.005")!.notional(quantity: 1) == Money(cents: 1))
        // 1 × 0.0049 → 0.00
        #expect(Price(parsing: "0.0049")!.notional(quantity: 1) == Money(cents: 0))
        #expect(Price(parsing: "264.58")!.notional(quantity: 1_000_000) == Money(dollars: 264_580_000))
    }

    @Test func percentOfRoundsToHundredths() {
        #expect(Money(cents: 1).percent(of: Money(cents: 3))?.decimalString == "33.33")
        #expect(Money(cents: 2).percent(of: Money(cents: 3))?.decimalString == "66.67")
        #expect(Money(cents: -2).percent(of: Money(cents: 3))?.decimalString == "-66.67")
        #expect(Money(cents: 5).percent(of: .zero) == nil)
    }

    @Test func symbolsAreNormalisedAndValidated() {
        #expect(Symbol("aapl")?.rawValue == "AAPL")
        #expect(Symbol("BRK-B") != nil)
        #expect(Symbol("BF.B") != nil)
        #expect(Symbol("") == nil)
        #expect(Symbol("-X") == nil)
        #expect(Symbol("TOOLONGSYMBOL") == nil)
        #expect(Symbol("A B") == nil)
        #expect(Symbol("ÄPL") == nil)
    }

    @Test func commissionCombinesFlatFeeAndBasisPoints() {
        let commission = Commission(perOrder: Money(cents: 495), basisPoints: 10)
        // $10,000 × 0.10 % = $10.00, plus $4.95
        #expect(commission.amount(on: Money(dollars: 10_000)) == Money(cents: 1_495))
        #expect(Commission.free.amount(on: Money(dollars: 10_000)) == .zero)
    }
}
