import BullpenCore
import PropertyBased
import Testing

/// Every parser of numbers takes any string without crashing, refuses what does not fit, and
/// round-trips what it formats exactly.
@Suite("Parsing numbers, properties")
struct ParsingPropertyTests {
    static let numberish = Gen.oneOf(Gen.character(in: "0"..."9"), Gen.always(Character(".")), Gen.always(Character("-")),
                                     Gen.always(Character("e")), Gen.always(Character(" ")), Gen.character(in: "a"..."z"))
        .string(of: 0...40)

    @Test func anyStringParsesOrIsRefusedWithoutCrashing() async {
        await propertyCheck(count: 2_000, input: Self.numberish) { text in
            if let money = Money(parsing: text) { #expect(Money(parsing: money.decimalString) == money) }
            if let price = Price(parsing: text) { #expect(price.ticks >= 0 && Price(parsing: price.decimalString) == price) }
        }
    }

    @Test func longDigitStringsAreRefusedNotTrapped() async {
        await propertyCheck(input: Gen.character(in: "0"..."9").string(of: 16...60), Gen.character(in: "0"..."9").string(of: 0...4)) { whole, fraction in
            #expect(Money(parsing: whole) == nil)
            #expect(Price(parsing: whole + (fraction.isEmpty ? "" : "." + fraction)) == nil)
        }
        // The overflow the review found: fifteen digits at four places is past Int64.
        #expect(Price(parsing: "999999999999999.9999") == nil)
        #expect(Price(parsing: "922337203685477.5808") == nil)   // Int64.max + 1 ticks
        #expect(Price(parsing: "922337203685477.5807")?.ticks == .max)
        #expect(Price(parsing: "922337203685.4775") != nil)
    }

    @Test func everyAmountRoundTrips() async {
        await propertyCheck(count: 1_000, input: Gen.int64(in: -999_999_999_999_999...999_999_999_999_999)) { cents in
            let money = Money(cents: cents)
            #expect(Money(parsing: money.decimalString) == money)
        }
        await propertyCheck(count: 1_000, input: Gen.int64(in: 0...922_337_203_685_4775)) { ticks in
            #expect(Price(parsing: Price(ticks: ticks).decimalString) == Price(ticks: ticks))
        }
    }
}
