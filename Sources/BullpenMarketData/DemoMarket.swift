import BullpenCore
import Foundation

/// A small, fast, seedable random source (SplitMix64) with the distributions the demo market needs.
struct Noise: Sendable {
    private var state: UInt64
    private var spare: Double?

    init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 ^ 0xD1B5_4A32_D192_ED03 }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in (0, 1).
    mutating func uniform() -> Double { (Double(next() >> 11) + 0.5) / 9_007_199_254_740_992 }

    /// Standard normal (Box–Muller).
    mutating func normal() -> Double {
        if let spare { self.spare = nil; return spare }
        let radius = (-2 * log(uniform())).squareRoot(), angle = 2 * Double.pi * uniform()
        spare = radius * sin(angle)
        return radius * cos(angle)
    }

    /// Student's t with 4 degrees of freedom, scaled to unit variance: the fat tails of daily returns.
    mutating func fatTailed() -> Double {
        let chi = (0..<4).reduce(0.0) { sum, _ in let n = normal(); return sum + n * n }
        return normal() / (chi / 4).squareRoot() / 2.0.squareRoot()
    }

    /// A seed mixed from several numbers (for per-company, per-day streams).
    static func seed(_ parts: UInt64...) -> UInt64 {
        parts.reduce(0x243F_6A88_85A3_08D3) { hash, part in
            var noise = Noise(seed: hash ^ part)
            return noise.next()
        }
    }
}

/// Volatility clustering: a GARCH(1,1) variance multiplier that averages 1.
struct Clustering: Sendable {
    static let alpha = 0.08, beta = 0.90
    var level = 1.0
    private var lastShock = 0.0

    /// The multiplier for today's volatility, then remembers today's shock.
    mutating func next(_ shock: Double) -> Double {
        level = (1 - Self.alpha - Self.beta) + Self.alpha * lastShock * lastShock * level + Self.beta * level
        level = min(max(level, 0.2), 25)
        lastShock = shock
        return level.squareRoot()
    }
}

/// The simulated market's history: a market factor following the shape of real history by regime
/// (the 1990s boom, the 2000–2002 bust, the 2008 crash, the 2020 crash and rebound, 2022), sector
/// factors, and companies with their own betas, fat-tailed clustered shocks and occasional gaps.
/// Every figure comes from a seed, so the same dates always give the same prices.
enum DemoMarket {
    /// The regimes of the market factor: total return and annualised volatility between two
    /// dates, measured on the S&P 500 (summary figures, not prices).
    struct Regime { var end: SessionDate; var totalReturn: Double; var volatility: Double }

    static let firstDay = SessionDate(year: 1990, month: 1, day: 2)
    static let regimes: [Regime] = [
        Regime(end: SessionDate(year: 1990, month: 10, day: 11), totalReturn: -0.18, volatility: 0.16),
        Regime(end: SessionDate(year: 1994, month: 12, day: 30), totalReturn: 0.55, volatility: 0.11),
        Regime(end: SessionDate(year: 2000, month: 3, day: 24), totalReturn: 2.33, volatility: 0.16),
        Regime(end: SessionDate(year: 2002, month: 10, day: 9), totalReturn: -0.49, volatility: 0.23),
        Regime(end: SessionDate(year: 2007, month: 10, day: 9), totalReturn: 1.01, volatility: 0.14),
        Regime(end: SessionDate(year: 2009, month: 3, day: 9), totalReturn: -0.57, volatility: 0.38),
        Regime(end: SessionDate(year: 2020, month: 2, day: 19), totalReturn: 4.01, volatility: 0.16),
        Regime(end: SessionDate(year: 2020, month: 3, day: 23), totalReturn: -0.34, volatility: 0.79),
        Regime(end: SessionDate(year: 2022, month: 1, day: 3), totalReturn: 1.14, volatility: 0.20),
        Regime(end: SessionDate(year: 2022, month: 10, day: 12), totalReturn: -0.25, volatility: 0.24),
        Regime(end: SessionDate(year: 2026, month: 8, day: 21), totalReturn: 1.15, volatility: 0.15),
    ]
    /// After the last measured regime: a plain market, 7 % a year at 16 % volatility.
    static let openEnded = (yearlyReturn: 0.07, volatility: 0.16)
    /// The long-run volatility of the S&P 500 in the real pack, 1990–2017.
    static let marketVolatility = 0.176
    /// Chance of an overnight gap (news, earnings) on a given day, and its typical size.
    static let gapChance = 0.003, gapSize = 0.07

    struct Output: Sendable {
        var index: ColumnBuilder
        var companies: [(Symbol, ColumnBuilder)]
        /// Each company's typical daily volatility (for intraday paths).
        var dailyVolatility: [Symbol: Double]
        /// The splits and dividends of the history (its prices are unadjusted: they drop on the ex-dates).
        var actions: [CorporateAction] = []
    }

    /// The demo's splits and cash dividends, all from 2027 (the history players already hold
    /// stays as it was): Quillfeather splits 2-for-1 on 2027-01-11; Brightlattice and Cobaltwave pay
    /// quarterly dividends (ex-dates the first session on or after the 15th of January, April, July
    /// and October, paid two weeks later).
    static func corporateActions(through last: SessionDate, calendar: TradingCalendar = TradingCalendar()) -> [CorporateAction] {
        var actions: [CorporateAction] = []
        let split = SessionDate(year: 2027, month: 1, day: 11)
        if split <= last { actions.append(CorporateAction(symbol: Symbol("QFSC")!, exDate: split, kind: .split(to: 2, from: 1))) }
        for (symbol, cents) in [("BLTN", Int64(30)), ("CBWV", Int64(45))] {
            for year in 2027...max(2027, last.components.year) {
                for month in [1, 4, 7, 10] {
                    var exDate = SessionDate(year: year, month: month, day: 15)
                    while !calendar.isTradingDay(exDate) { exDate = exDate.adding(days: 1) }
                    guard exDate <= last else { continue }
                    actions.append(CorporateAction(symbol: Symbol(symbol)!, exDate: exDate, payDate: exDate.adding(days: 14),
                                                   kind: .dividend(cash: Price(cents: cents))))
                }
            }
        }
        return actions.sorted { ($0.exDate, $0.symbol) < ($1.exDate, $1.symbol) }
    }

    static func generate(companies: [DemoCompany], through last: SessionDate, seed: UInt64) -> Output {
        let calendar = TradingCalendar()
        let days = calendar.tradingDays(from: firstDay, through: last)
        let market = marketReturns(days: days, seed: seed)

        // The index: a composite starting at 1,000.
        var index = ColumnBuilder(capacity: days.count)
        var level = 1_000.0
        for (t, day) in days.enumerated() {
            if t > 0 { level *= exp(market[t]) }
            let price = ticks(level)
            index.append(DailyBar(date: day, open: price, high: price, low: price, close: price, volume: 0))
        }

        // Sector factors, one series per sector.
        var sectorReturns: [DemoSector: [Double]] = [:]
        for (n, sector) in DemoSector.allCases.enumerated() {
            var noise = Noise(seed: Noise.seed(seed, 100 + UInt64(n)))
            var clustering = Clustering()
            let vol = sectorVolatility(sector) / 252.0.squareRoot()
            sectorReturns[sector] = days.map { _ in
                let z = noise.fatTailed()
                return vol * clustering.next(z) * z
            }
        }

        var output: [(Symbol, ColumnBuilder)] = []
        var dailyVolatility: [Symbol: Double] = [:]
        let actions = corporateActions(through: last)
        let actionsOn = Dictionary(grouping: actions) { "\($0.symbol) \($0.exDate)" }
        for (n, company) in companies.enumerated() {
            let symbol = Symbol(company.symbol)!
            var noise = Noise(seed: Noise.seed(seed, 1_000 + UInt64(n)))
            var clustering = Clustering()
            let sector = company.sector
            let idioYearly = idiosyncraticVolatility(sector)
            let idio = idioYearly / 252.0.squareRoot()
            let totalDaily = sector.volatility / 252.0.squareRoot()
            dailyVolatility[symbol] = totalDaily
            // Drift: the company's alpha, less the drag of its own variance.
            let drift = company.alpha / 252 - 0.5 * (idio * idio + pow(sectorVolatility(sector), 2) / 252)
            let start = company.listed.map { calendar.tradingDay(onOrBefore: max($0, firstDay)) } ?? firstDay
            var builder = ColumnBuilder(capacity: days.count)
            var close = company.startPrice
            for (t, day) in days.enumerated() where day >= start {
                let z = noise.fatTailed()
                let own = idio * clustering.next(z) * z
                let gap = noise.uniform() < gapChance ? noise.normal() * gapSize : 0
                let move = day == start ? 0 : company.beta * market[t] + sectorReturns[sector]![t] + own + drift
                var previous = close
                // Unadjusted prices: a split divides the price from its ex-date, a dividend comes off it.
                for action in actionsOn["\(symbol) \(day)"] ?? [] {
                    switch action.kind {
                    case .split(let to, let from): previous = previous * Double(from) / Double(to)
                    case .dividend(let cash): previous = max(previous - Double(cash.ticks) / 10_000, 0.05)
                    }
                }
                close = max(previous * exp(move + gap), 0.05)
                let open = day == start ? close : max(previous * exp(0.25 * move + gap), 0.05)
                let reach = totalDaily * 0.35 * clustering.level.squareRoot()
                let high = max(open, close) * exp(abs(noise.normal()) * reach)
                let low = min(open, close) * exp(-abs(noise.normal()) * reach)
                let activity = 1 + 1.5 * abs(move + gap) / totalDaily
                let volume = company.volume * exp(0.3 * noise.normal()) * activity
                builder.append(DailyBar(date: day, open: ticks(open), high: ticks(high), low: ticks(max(low, 0.01)),
                                        close: ticks(close), volume: Int64(volume.rounded())))
            }
            output.append((symbol, builder))
        }
        return Output(index: index, companies: output, dailyVolatility: dailyVolatility, actions: actions)
    }

    /// Daily log returns of the market factor; each measured regime ends exactly at its total return.
    static func marketReturns(days: [SessionDate], seed: UInt64) -> [Double] {
        var noise = Noise(seed: Noise.seed(seed, 1))
        var clustering = Clustering()
        var returns = [Double](repeating: 0, count: days.count)
        var t = 1
        for regime in regimes {
            let begin = t
            while t < days.count && days[t] <= regime.end { t += 1 }
            let count = t - begin
            guard count > 0 else { continue }
            let vol = regime.volatility / 252.0.squareRoot()
            var shocks = (0..<count).map { _ in let z = noise.fatTailed(); return vol * clustering.next(z) * z }
            let mean = shocks.reduce(0, +) / Double(count)
            // The whole regime, start to end, is the measured total return.
            let drift = log(1 + regime.totalReturn) / Double(count)
            for i in 0..<count { shocks[i] += drift - mean }
            returns.replaceSubrange(begin..<t, with: shocks)
        }
        let vol = openEnded.volatility / 252.0.squareRoot()
        while t < days.count {
            let z = noise.fatTailed()
            returns[t] = log(1 + openEnded.yearlyReturn) / 252 + vol * clustering.next(z) * z
            t += 1
        }
        return returns
    }

    /// Splits what the sector's volatility leaves after the market: a quarter to the sector factor,
    /// the rest (less the gaps' share) to the company itself.
    static func residualVariance(_ sector: DemoSector) -> Double {
        max(pow(sector.volatility, 2) - pow(sector.beta * marketVolatility, 2), 0.0025)
    }

    static func sectorVolatility(_ sector: DemoSector) -> Double { (0.25 * residualVariance(sector)).squareRoot() }

    static func idiosyncraticVolatility(_ sector: DemoSector) -> Double {
        let gaps = 252 * gapChance * gapSize * gapSize
        return max(0.75 * residualVariance(sector) - gaps, 0.0025).squareRoot()
    }

    /// A simulated price on the trading tick grid (whole cents from $1), at least a cent.
    static func ticks(_ price: Double) -> Price {
        Price(ticks: max(Int64((price * 10_000).rounded()), 100)).roundedToTradingTick()
    }

    /// A day's path of log prices every `stepSeconds`, from the bar's open to its close, touching
    /// its high and low: the intraday ticks of the demo exchange.
    static func intradayPath(bar: DailyBar, steps: Int, dailyVolatility: Double, seed: UInt64) -> [Double] {
        var noise = Noise(seed: seed)
        let open = log(Double(bar.open.ticks)), close = log(Double(bar.close.ticks))
        let high = log(Double(bar.high.ticks)), low = log(Double(bar.low.ticks))
        let stepVol = dailyVolatility * 0.6 / Double(steps).squareRoot()
        var walk = [0.0]
        walk.reserveCapacity(steps + 1)
        for _ in 0..<steps { walk.append(walk.last! + stepVol * noise.normal()) }
        // A Brownian bridge from open to close.
        var path = (0...steps).map { k in
            let fraction = Double(k) / Double(steps)
            return open + fraction * (close - open) + walk[k] - fraction * walk[steps]
        }
        // Stretch the excursions so the path's extremes are the bar's high and low.
        let top = max(open, close), bottom = min(open, close)
        let peak = path.max()!, trough = path.min()!
        for k in path.indices {
            if path[k] > top, peak > top { path[k] = top + (path[k] - top) * (high - top) / (peak - top) }
            if path[k] < bottom, trough < bottom { path[k] = bottom + (path[k] - bottom) * (low - bottom) / (trough - bottom) }
        }
        if peak <= top, high > top { path[max(1, min(steps - 1, Int(noise.uniform() * Double(steps))))] = high }
        if trough >= bottom, low < bottom { path[max(1, min(steps - 1, Int(noise.uniform() * Double(steps))))] = low }
        path[0] = open
        path[steps] = close
        return path
    }
}
