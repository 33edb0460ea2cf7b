import BullpenCore
import Foundation
import Testing

@Suite("Options in the core")
struct OptionTests {
    let aapl = Symbol("AAPL")!
    let calendar = TradingCalendar()

    func date(_ text: String) -> SessionDate { SessionDate(iso: text)! }

    // MARK: Pricing

    /// Values and greeks against QuantLib's analytic European engine (scripts/option-fixtures.py),
    /// to 1e-8 (relative above 1).
    @Test func valuesAndGreeksMatchQuantLib() {
        #expect(BlackScholesFixtures.cases.count == 288)
        for fixture in BlackScholesFixtures.cases {
            let result = BlackScholes.valuation(OptionType(rawValue: fixture.type)!, spot: fixture.spot, strike: fixture.strike,
                                                years: Double(fixture.days) / 365, rate: fixture.rate,
                                                dividendYield: fixture.dividend, volatility: fixture.volatility)
            let ours = [result.value, result.delta, result.gamma, result.theta, result.vega, result.rho]
            for (index, name) in ["value", "delta", "gamma", "theta", "vega", "rho"].enumerated() {
                let expected = fixture.expected[index]
                #expect(abs(ours[index] - expected) <= 1e-8 * max(1, abs(expected)),
                        "\(name) of \(fixture): \(ours[index]) vs QuantLib \(expected)")
            }
        }
    }

    /// Put-call parity, C − P = S·e^(−qT) − K·e^(−rT), on every fixture and at expiry.
    @Test func putCallParityHolds() {
        for fixture in BlackScholesFixtures.cases where fixture.type == "call" {
            let years = Double(fixture.days) / 365
            func value(_ type: OptionType) -> Double {
                BlackScholes.valuation(type, spot: fixture.spot, strike: fixture.strike, years: years, rate: fixture.rate,
                                       dividendYield: fixture.dividend, volatility: fixture.volatility).value
            }
            let parity = fixture.spot * exp(-fixture.dividend * years) - fixture.strike * exp(-fixture.rate * years)
            #expect(abs(value(.call) - value(.put) - parity) < 1e-10, "\(fixture)")
        }
        let call = BlackScholes.valuation(.call, spot: 120, strike: 100, years: 0, rate: 0.05, volatility: 0.3)
        let put = BlackScholes.valuation(.put, spot: 120, strike: 100, years: 0, rate: 0.05, volatility: 0.3)
        #expect(call.value == 20 && put.value == 0 && call.delta == 1 && put.delta == 0)
    }

    // MARK: Contracts

    @Test func occSymbolsRoundTrip() throws {
        let contract = OptionContract(underlying: aapl, type: .call, expiration: date("2026-03-20"), strike: Price(cents: 25_000))
        #expect(contract.occSymbol == "AAPL  260320C00250000")
        #expect(OptionContract(occ: "AAPL  260320C00250000") == contract)
        #expect(OptionContract(occ: "aapl260320c00250000") == contract)
        let put = OptionContract(underlying: Symbol("F")!, type: .put, expiration: date("2026-01-16"), strike: Price(parsing: "12.5")!)
        #expect(put.occSymbol == "F     260116P00012500" && OptionContract(occ: put.occSymbol) == put)
        #expect(OptionContract.root(of: Symbol("BRK-B")!) == "BRKB")
        for bad in ["AAPL  260431C00250000", "AAPL  261320C00250000", "AAPL  260320X00250000", "AAPL  260320C00000000",
                    "AAPL  26032OC00250000", "TOOLONGX260320C00250000", "260320C00250000", "AAPL 260320C0025000", ""] {
            #expect(OptionContract(occ: bad) == nil, "\(bad)")
        }
        #expect(contract.intrinsic(at: Price(cents: 26_000)) == Price(cents: 1_000))
        #expect(contract.intrinsic(at: Price(cents: 24_000)) == Price(cents: 0))
    }

    /// Monthlies on the third Friday up to a year out, weeklies for four weeks, a holiday moving
    /// an expiration to the day before.
    @Test func expirationsFollowTheCalendar() {
        // Good Friday 2025 is the third Friday of April: the expiration is Thursday the 17th.
        let april = calendar.optionExpirations(on: date("2025-04-01"))
        #expect(april.prefix(5) == [date("2025-04-04"), date("2025-04-11"), date("2025-04-17"), date("2025-04-25"),
                                    date("2025-05-16")])
        #expect(!april.contains(date("2025-04-18")))
        #expect(april.last == date("2026-03-20") && april.count == 15)
        #expect(april.allSatisfy { calendar.isTradingDay($0) })
        // Juneteenth 2026 is June's third Friday.
        #expect(calendar.optionExpirations(on: date("2026-06-01")).contains(date("2026-06-18")))
        // A replay date: September 2008, the day Lehman failed; the expiration day itself is listed.
        let lehman = calendar.optionExpirations(on: date("2008-09-15"))
        #expect(lehman.prefix(5) == [date("2008-09-19"), date("2008-09-26"), date("2008-10-03"), date("2008-10-10"),
                                     date("2008-10-17")])
        #expect(lehman.last == date("2009-08-21"))   // September 2009 is more than a year out
        #expect(calendar.optionExpirations(on: date("2008-09-19")).first == date("2008-09-19"))
    }

    @Test func strikesUseTheIncrementOfTheirLevel() {
        #expect(OptionStrikes.increment(at: Price(cents: 2_499)) == Price(cents: 50))
        #expect(OptionStrikes.increment(at: Price(cents: 2_500)) == Price(cents: 100))
        #expect(OptionStrikes.increment(at: Price(cents: 7_500)) == Price(cents: 250))
        #expect(OptionStrikes.increment(at: Price(cents: 15_000)) == Price(cents: 500))
        #expect(OptionStrikes.increment(at: Price(cents: 25_000)) == Price(cents: 1_000))
        let low = OptionStrikes.around(Price(parsing: "23.40")!, each: 4)
        #expect(low.map(\.decimalString) == ["21.50", "22.00", "22.50", "23.00", "23.50", "24.00", "24.50", "25.00", "26.00"])
        let high = OptionStrikes.around(Price(parsing: "187.43")!, each: 4)
        #expect(high.map(\.decimalString) == ["165.00", "170.00", "175.00", "180.00", "185.00", "190.00", "195.00", "200.00", "210.00"])
        // Near zero there are fewer strikes below.
        #expect(OptionStrikes.around(Price(parsing: "1.20")!, each: 3).map(\.decimalString)
                == ["0.50", "1.00", "1.50", "2.00", "2.50"])
    }

    // MARK: Quotes

    @Test func quotesSpreadAroundTheModelAndNeverBelowIntrinsic() throws {
        let market = OptionMarket(underlying: aapl, date: date("2026-02-20"), spot: Price(cents: 20_000), volatility: 0.3, rate: 0.05)
        let expiration = date("2026-03-20")
        let chain = market.chain(expiration: expiration)
        #expect(chain.count == 21 && chain[10].call.contract.strike == Price(cents: 20_000))
        for (call, put) in chain {
            for quote in [call, put] {
                #expect(quote.bid < quote.ask && quote.bid <= quote.fair && quote.fair <= quote.ask, "\(quote.contract)")
                #expect(quote.ask >= quote.intrinsic && quote.days == 28)
                #expect(quote.bid.ticks % 100 == 0 && quote.ask.ticks % 100 == 0)
            }
        }
        let atTheMoney = chain[10].call
        #expect(atTheMoney.fair == Price(ticks: Int64((atTheMoney.valuation.value * 10_000).rounded())))
        // Wider away from the money and near expiry.
        func width(_ quote: OptionQuote) -> Double { Double(quote.ask.ticks - quote.bid.ticks) / Double(quote.fair.ticks) }
        #expect(width(chain[20].call) > width(atTheMoney))
        let lastWeek = OptionMarket(underlying: aapl, date: date("2026-03-17"), spot: Price(cents: 20_000), volatility: 0.3, rate: 0.05)
        #expect(OptionMarket.halfSpread(moneyness: 0, days: 3) > OptionMarket.halfSpread(moneyness: 0, days: 28))
        #expect(lastWeek.quote(atTheMoney.contract).days == 3)
        // A deep in-the-money put is worth less than exercising it under the European model:
        // the quote stands on intrinsic value, so buying and exercising never pays.
        let deep = market.quote(OptionContract(underlying: aapl, type: .put, expiration: date("2027-01-15"), strike: Price(cents: 40_000)))
        #expect(deep.valuation.value * 10_000 < Double(deep.intrinsic.ticks))
        #expect(deep.fair == deep.intrinsic && deep.ask > deep.intrinsic)
        // Expired: intrinsic value only.
        let expired = OptionMarket(underlying: aapl, date: expiration, spot: Price(cents: 21_000), volatility: 0.3, rate: 0.05)
            .quote(chain[10].call.contract)
        #expect(expired.fair == Price(cents: 1_000) && expired.days == 0)
    }

    @Test func realisedVolatilityBlendsAMonthAndAYear() throws {
        // Log returns alternating +1 % and −1 % for a year, then 21 days of ±3 %.
        var closes = [Price(cents: 10_000)]
        var level = 100.0
        var returns: [Double] = []
        for day in 0..<273 {
            let move = (day >= 252 ? 0.03 : 0.01) * (day.isMultiple(of: 2) ? 1 : -1)
            level *= exp(move)
            closes.append(Price(ticks: Int64((level * 10_000).rounded())))
        }
        for (a, b) in zip(closes, closes.dropFirst()) { returns.append(log(Double(b.ticks) / Double(a.ticks))) }
        func annualised(_ values: ArraySlice<Double>) -> Double {
            let mean = values.reduce(0, +) / Double(values.count)
            return (values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count - 1) * 252).squareRoot()
        }
        let expected = 0.5 * annualised(returns.suffix(21)) + 0.5 * annualised(returns.suffix(252))
        let realised = try #require(OptionVolatility.realised(closes: closes))
        #expect(abs(realised - expected) < 1e-12)
        #expect(realised > 0.3 && realised < 0.4)
        // Too short a history has none; a flat one is held to the floor.
        #expect(OptionVolatility.realised(closes: Array(closes.prefix(21))) == nil)
        #expect(OptionVolatility.realised(closes: Array(repeating: Price(cents: 5_000), count: 40)) == OptionVolatility.floor)
        #expect(RiskFreeRate.on(date("2008-09-15")) == 0.0137 && RiskFreeRate.on(date("1985-01-02")) == 0.0749)
    }
}
