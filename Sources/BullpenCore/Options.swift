import Foundation

// Options: contracts, their expirations and strikes, and their modelled prices.
//
// No real option quotes exist here, so premiums come from a stated model (``BlackScholes``) fed
// with the underlying's adjusted closes as of the clock: the spot is the latest close, the
// volatility is realised (``OptionVolatility``), the rate a yearly table (``RiskFreeRate``), and
// no dividend yield (adjusted prices already carry the dividends). Quotes are a spread around the
// model value (``OptionQuote``). The model is European; the contracts are American (they can be
// exercised early), so a quote never stands below the contract's intrinsic value.

/// A call (the right to buy 100 shares at the strike) or a put (the right to sell them).
public enum OptionType: String, Sendable, Hashable, Codable, CaseIterable {
    case call, put
}

/// One listed contract: its underlying, type, expiration day and strike.
public struct OptionContract: Hashable, Sendable, CustomStringConvertible {
    /// Shares per contract.
    public static let multiplier: Int64 = 100

    public var underlying: Symbol
    public var type: OptionType
    /// The last trading day: the contract expires at that session's close.
    public var expiration: SessionDate
    /// A whole number of tenths of a cent (OCC symbols carry strikes to $0.001).
    public var strike: Price

    public init(underlying: Symbol, type: OptionType, expiration: SessionDate, strike: Price) {
        self.underlying = underlying; self.type = type; self.expiration = expiration; self.strike = strike
    }

    /// The OCC root: the underlying without punctuation (`BRK-B` is `BRKB`); at most six characters.
    public static func root(of symbol: Symbol) -> String? {
        let root = String(symbol.rawValue.filter { $0.isLetter || $0.isNumber })
        return (1...6).contains(root.count) ? root : nil
    }

    /// The OCC symbol: the root padded to six characters, the expiration as `yymmdd`, `C` or
    /// `P`, and the strike in thousandths of a dollar on eight digits: `AAPL  260320C00250000`.
    public var occSymbol: String {
        let root = Self.root(of: underlying) ?? underlying.rawValue
        let (year, month, day) = expiration.components
        let date = String(format: "%02d%02d%02d", year % 100, month, day)
        return root.padding(toLength: 6, withPad: " ", startingAt: 0) + date + (type == .call ? "C" : "P")
            + String(format: "%08lld", strike.ticks / 10)
    }

    /// Reads an OCC symbol (the root's padding may be spaces or nothing; letters in any case), or
    /// the ``symbol`` form whose root is the underlying's own spelling (`BRK-B260320C00500000`).
    /// An OCC root without punctuation stands for itself (`BRKB`): the caller maps it to a listed
    /// symbol (see ``rooted(in:)``).
    public init?(occ text: String) {
        let compact = text.uppercased().filter { $0 != " " }
        guard compact.utf8.count >= 16, compact.utf8.count <= 27 else { return nil }
        let tail = compact.suffix(15)
        let root = String(compact.dropLast(15))
        let digits = Array(tail)
        let isDigit: (Character) -> Bool = { $0.isASCII && $0.isNumber }
        guard Symbol.isStock(root), let alphanumeric = Self.root(of: Symbol(stock: root)), alphanumeric.count <= 6,
              digits.prefix(6).allSatisfy(isDigit), digits.suffix(8).allSatisfy(isDigit),
              let yy = Int(String(digits[0..<2])), let mm = Int(String(digits[2..<4])), let dd = Int(String(digits[4..<6])),
              let thousandths = Int64(String(digits[7...]))
        else { return nil }
        let type: OptionType
        switch digits[6] {
        case "C": type = .call
        case "P": type = .put
        default: return nil
        }
        let year = 2000 + yy
        guard (1...12).contains(mm), (1...31).contains(dd) else { return nil }
        let date = SessionDate(year: year, month: mm, day: dd)
        // A date that does not exist (31 April) comes back as another day.
        let parts = date.components
        guard parts.year == year, parts.month == mm, parts.day == dd, thousandths > 0 else { return nil }
        self.init(underlying: Symbol(stock: root), type: type, expiration: date, strike: Price(ticks: thousandths * 10))
    }

    /// The contract's symbol for positions and the journal: the underlying as it is spelled, then
    /// the OCC symbol's date, type and strike (`AAPL260320C00250000`).
    public var symbol: Symbol {
        let (year, month, day) = expiration.components
        return Symbol(stock: underlying.rawValue + String(format: "%02d%02d%02d", year % 100, month, day)
                      + (type == .call ? "C" : "P") + String(format: "%08lld", strike.ticks / 10))
    }

    /// This contract with its underlying's root mapped to the listed symbol it stands for
    /// (`BRKB` to `BRK-B`), nil when no listed symbol has that root.
    public func rooted(in listed: (String) -> Symbol?) -> OptionContract? {
        guard let root = Self.root(of: underlying), let symbol = listed(root) else { return nil }
        var contract = self
        contract.underlying = symbol
        return contract
    }

    /// Whether the chain lists this contract on `date`: its expiration is one of that day's
    /// (``TradingCalendar/optionExpirations(on:)``) and its strike is on the increment of its level.
    public func isListed(on date: SessionDate, calendar: TradingCalendar = TradingCalendar()) -> Bool {
        strike.ticks > 0 && strike.ticks % OptionStrikes.increment(at: strike).ticks == 0
            && calendar.optionExpirations(on: date).contains(expiration)
    }

    /// "AAPL 20 Mar 2026 $250 call", for people.
    public var title: String {
        let (year, month, day) = expiration.components
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        return "\(underlying) \(day) \(months[month - 1]) \(year) $\(strike.decimalString) \(type.rawValue)"
    }

    public var description: String { occSymbol }

    /// What exercising one contract is worth at `spot`, per share (zero when out of the money).
    public func intrinsic(at spot: Price) -> Price {
        Price(ticks: max(0, type == .call ? spot.ticks - strike.ticks : strike.ticks - spot.ticks))
    }
}

// MARK: - Expirations and strikes

extension TradingCalendar {
    /// The expirations listed on `date`: monthly (each month's third Friday) up to a year out, and
    /// weekly (each Friday) for the next four weeks, an expiration on a holiday moved to the
    /// trading day before. An expiration on `date` itself is listed (it trades until the close).
    public func optionExpirations(on date: SessionDate) -> [SessionDate] {
        var result: Set<SessionDate> = []
        let (year, month, _) = date.components
        for offset in 0...12 {
            let m = (month - 1 + offset) % 12 + 1, y = year + (month - 1 + offset) / 12
            guard let third = Self.nthWeekday(3, weekday: 5, month: m, year: y) else { continue }
            let expiration = tradingDay(onOrBefore: third)
            if expiration >= date && expiration.day <= date.day + 366 { result.insert(expiration) }
        }
        // The next four Fridays (today if it is one).
        let firstFriday = date.adding(days: (5 - date.weekday + 7) % 7)
        for week in 0..<4 {
            let expiration = tradingDay(onOrBefore: firstFriday.adding(days: 7 * week))
            if expiration >= date { result.insert(expiration) }
        }
        return result.sorted()
    }
}

/// The strikes listed around a price.
public enum OptionStrikes {
    /// The increment between strikes at `level`: $0.50 below $25, $1 to $50, $2.50 to $100, $5 to
    /// $200, $10 above.
    public static func increment(at level: Price) -> Price {
        switch level.ticks {
        case ..<250_000: Price(cents: 50)
        case ..<500_000: Price(cents: 100)
        case ..<1_000_000: Price(cents: 250)
        case ..<2_000_000: Price(cents: 500)
        default: Price(cents: 1_000)
        }
    }

    /// `each` strikes below and above `spot` on the increments of their levels (the one nearest
    /// the spot included), lowest first; none at or below zero.
    public static func around(_ spot: Price, each: Int = 10) -> [Price] {
        // The ladder: from $0.50 up, each step the increment of the level it stands on.
        var ladder = [Price(cents: 50)]
        while ladder[ladder.count - 1] < spot {
            let last = ladder[ladder.count - 1]
            ladder.append(Price(ticks: last.ticks + increment(at: last).ticks))
        }
        var index = ladder.count - 1
        if index > 0, spot.ticks - ladder[index - 1].ticks < ladder[index].ticks - spot.ticks { index -= 1 }
        let nearest = ladder[index]
        let below = Array(ladder[max(0, index - each)..<index])
        var above: [Price] = []
        var next = nearest
        while above.count < each {
            next = Price(ticks: next.ticks + increment(at: next).ticks)
            above.append(next)
        }
        return below + [nearest] + above
    }
}

// MARK: - The model

/// The Black-Scholes-Merton value of a European option and its sensitivities.
public struct OptionValuation: Sendable, Hashable {
    /// Per share, in dollars.
    public var value: Double
    /// Change of the value per $1 of the underlying.
    public var delta: Double
    /// Change of delta per $1 of the underlying.
    public var gamma: Double
    /// Change of the value per year passing (divide by 365 for a calendar day).
    public var theta: Double
    /// Change of the value per 1.00 (100 points) of volatility (divide by 100 for one point).
    public var vega: Double
    /// Change of the value per 1.00 (100 points) of the interest rate.
    public var rho: Double
}

public enum BlackScholes {
    /// The standard normal distribution function.
    public static func normalCDF(_ x: Double) -> Double { 0.5 * erfc(-x / 2.0.squareRoot()) }

    /// The standard normal density.
    public static func normalPDF(_ x: Double) -> Double { exp(-0.5 * x * x) / (2 * Double.pi).squareRoot() }

    /// The value and greeks of a European `type` option on `spot` at `strike`, `years` from
    /// expiry, with the continuously compounded `rate` and `dividendYield` and the annual
    /// `volatility`. At expiry (or with no volatility) the value is what exercise pays then.
    public static func valuation(_ type: OptionType, spot: Double, strike: Double, years: Double, rate: Double,
                                 dividendYield: Double = 0, volatility: Double) -> OptionValuation {
        let call = type == .call
        guard years > 0, volatility > 0, spot > 0, strike > 0 else {
            let discountedStrike = strike * exp(-rate * max(years, 0)), forward = spot * exp(-dividendYield * max(years, 0))
            let inTheMoney = call ? forward > discountedStrike : forward < discountedStrike
            let value = max(0, call ? forward - discountedStrike : discountedStrike - forward)
            return OptionValuation(value: value, delta: inTheMoney ? (call ? 1 : -1) : 0, gamma: 0, theta: 0, vega: 0, rho: 0)
        }
        let root = years.squareRoot()
        let d1 = (log(spot / strike) + (rate - dividendYield + 0.5 * volatility * volatility) * years) / (volatility * root)
        let d2 = d1 - volatility * root
        let carry = exp(-dividendYield * years), discount = exp(-rate * years)
        let density = normalPDF(d1)
        let gamma = carry * density / (spot * volatility * root)
        let vega = spot * carry * density * root
        let decay = -spot * carry * density * volatility / (2 * root)
        if call {
            let nd1 = normalCDF(d1), nd2 = normalCDF(d2)
            return OptionValuation(
                value: spot * carry * nd1 - strike * discount * nd2, delta: carry * nd1, gamma: gamma,
                theta: decay - rate * strike * discount * nd2 + dividendYield * spot * carry * nd1,
                vega: vega, rho: strike * years * discount * nd2)
        }
        let nd1 = normalCDF(-d1), nd2 = normalCDF(-d2)
        return OptionValuation(
            value: strike * discount * nd2 - spot * carry * nd1, delta: -carry * nd1, gamma: gamma,
            theta: decay + rate * strike * discount * nd2 - dividendYield * spot * carry * nd1,
            vega: vega, rho: -strike * years * discount * nd2)
    }
}

/// The underlying's realised volatility as of a date: the annualised standard deviation of daily
/// log returns of its adjusted closes, a blend of two windows so that a quiet month does not hide
/// a violent year nor a crash fade at once: half the last 21 returns' (about 30 calendar days),
/// half the last 252 returns' (a year; fewer if the history is shorter). Bounded to 5 %–300 %.
public enum OptionVolatility {
    public static let shortWindow = 21
    public static let longWindow = 252
    public static let floor = 0.05
    public static let ceiling = 3.0

    /// From closes oldest first (the last one the latest); nil with fewer than 22 closes.
    public static func realised(closes: [Price]) -> Double? {
        guard closes.count > shortWindow else { return nil }
        let recent = closes.suffix(longWindow + 1)
        var returns: [Double] = []
        returns.reserveCapacity(recent.count - 1)
        var previous: Price?
        for close in recent {
            if let previous, previous.ticks > 0, close.ticks > 0 {
                returns.append(log(Double(close.ticks) / Double(previous.ticks)))
            }
            previous = close
        }
        guard returns.count >= shortWindow,
              let short = deviation(returns.suffix(shortWindow)), let long = deviation(returns[...]) else { return nil }
        return min(ceiling, max(floor, 0.5 * short + 0.5 * long))
    }

    /// The sample standard deviation, annualised (×√252).
    static func deviation(_ values: ArraySlice<Double>) -> Double? {
        guard values.count >= 2 else { return nil }
        let mean = values.reduce(0, +) / Double(values.count)
        let variance = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count - 1)
        return (variance * 252).squareRoot()
    }
}

/// The risk-free rate the model uses: each year's average 3-month US Treasury bill rate (secondary
/// market, rounded to a hundredth of a point; 2025–26 approximate), as a continuously compounded
/// annual rate. Years outside the table use the nearest year's.
public enum RiskFreeRate {
    /// Hundredths of a percent, by year from 1990.
    static let yearly: [Int: Int] = [
        1990: 749, 1991: 538, 1992: 343, 1993: 300, 1994: 425, 1995: 549, 1996: 501, 1997: 506, 1998: 478, 1999: 464,
        2000: 582, 2001: 339, 2002: 160, 2003: 101, 2004: 137, 2005: 315, 2006: 473, 2007: 436, 2008: 137, 2009: 15,
        2010: 14, 2011: 5, 2012: 9, 2013: 6, 2014: 3, 2015: 5, 2016: 32, 2017: 93, 2018: 194, 2019: 206,
        2020: 37, 2021: 4, 2022: 202, 2023: 507, 2024: 497, 2025: 420, 2026: 390,
    ]

    /// The rate on `date`, as a fraction (0.0390 for 3.90 %).
    public static func on(_ date: SessionDate) -> Double {
        let year = min(max(date.components.year, 1990), 2026)
        return Double(yearly[year] ?? 0) / 10_000
    }
}

/// What the model says about a contract on a date: its value and greeks, the inputs used, and
/// the bid and ask around it.
public struct OptionQuote: Sendable, Hashable {
    public var contract: OptionContract
    /// The model's value, per share.
    public var valuation: OptionValuation
    /// The value the quotes stand around: the model's, but never below intrinsic value (an
    /// American contract can be exercised now).
    public var fair: Price
    public var bid: Price
    public var ask: Price
    public var spot: Price
    public var volatility: Double
    public var rate: Double
    /// Calendar days to expiration.
    public var days: Int
    public var intrinsic: Price
}

/// The inputs a chain is priced from: one underlying on one date.
public struct OptionMarket: Sendable, Hashable {
    public var underlying: Symbol
    /// The session whose close prices the chain.
    public var date: SessionDate
    /// The underlying's adjusted close.
    public var spot: Price
    public var volatility: Double
    public var rate: Double

    public init(underlying: Symbol, date: SessionDate, spot: Price, volatility: Double, rate: Double) {
        self.underlying = underlying; self.date = date; self.spot = spot; self.volatility = volatility; self.rate = rate
    }

    /// The half-width of the quotes as a share of the value: 2 % at the money, up to 15 points
    /// more away from it (all of them at half the spot or twice it, `moneyness` the log of spot
    /// over strike), and up to 5 more close to expiry (all of them in the last week).
    public static func halfSpread(moneyness: Double, days: Int) -> Double {
        0.02 + 0.15 * min(1, abs(moneyness) / log(2)) + 0.05 * min(1, 7 / Double(max(days, 1)))
    }

    /// `contract` as of the close of `date` (years to expiry: calendar days / 365).
    public func quote(_ contract: OptionContract) -> OptionQuote {
        let days = max(0, date.distance(to: contract.expiration))
        let spotDollars = Double(spot.ticks) / 10_000, strikeDollars = Double(contract.strike.ticks) / 10_000
        let valuation = BlackScholes.valuation(contract.type, spot: spotDollars, strike: strikeDollars, years: Double(days) / 365,
                                               rate: rate, volatility: volatility)
        let intrinsic = contract.intrinsic(at: spot)
        let modelTicks = Int64((valuation.value * 10_000).rounded())
        let fair = Price(ticks: max(modelTicks, intrinsic.ticks))
        // Quotes in whole cents: the bid rounded down, the ask up, at least a cent apart.
        let half = Double(fair.ticks) * Self.halfSpread(moneyness: log(spotDollars / strikeDollars), days: days)
        let bidCents = max(0, Int64(((Double(fair.ticks) - half) / 100).rounded(.down)))
        var askCents = max(1, Int64(((Double(fair.ticks) + half) / 100).rounded(.up)))
        if askCents <= bidCents { askCents = bidCents + 1 }
        return OptionQuote(contract: contract, valuation: valuation, fair: fair, bid: Price(cents: bidCents), ask: Price(cents: askCents),
                           spot: spot, volatility: volatility, rate: rate, days: days, intrinsic: intrinsic)
    }

    /// The chain for one expiration: the strikes around the spot, a call and a put at each.
    public func chain(expiration: SessionDate, each: Int = 10) -> [(call: OptionQuote, put: OptionQuote)] {
        OptionStrikes.around(spot, each: each).map { strike in
            (quote(OptionContract(underlying: underlying, type: .call, expiration: expiration, strike: strike)),
             quote(OptionContract(underlying: underlying, type: .put, expiration: expiration, strike: strike)))
        }
    }
}
