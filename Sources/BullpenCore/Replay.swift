import Foundation

/// How a replay portfolio began and whether it is over, kept beside its clock.
public struct ReplayInfo: Sendable, Hashable, Codable {
    /// The session the replay started on.
    public var start: SessionDate
    /// The scenario it started from, if any.
    public var scenario: String?
    /// The shares bought when it started (random stocks or a scenario's): what "buy and hold"
    /// compares with.
    public var holdings: [Symbol: Quantity]
    /// Set when the player ended the replay: no more orders or advances.
    public var ended: Bool

    public init(start: SessionDate, scenario: String? = nil, holdings: [Symbol: Quantity] = [:], ended: Bool = false) {
        self.start = start
        self.scenario = scenario
        self.holdings = holdings
        self.ended = ended
    }

    private enum CodingKeys: String, CodingKey { case start, scenario, holdings, ended }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let text = try container.decode(String.self, forKey: .start)
        guard let start = SessionDate(iso: text) else {
            throw DecodingError.dataCorruptedError(forKey: .start, in: container, debugDescription: "not a date: \(text)")
        }
        self.start = start
        scenario = try container.decodeIfPresent(String.self, forKey: .scenario)
        let held = try container.decodeIfPresent([String: Quantity].self, forKey: .holdings) ?? [:]
        holdings = Dictionary(uniqueKeysWithValues: try held.map { key, quantity in
            guard let symbol = Symbol(key) else {
                throw DecodingError.dataCorruptedError(forKey: .holdings, in: container, debugDescription: "not a symbol: \(key)")
            }
            return (symbol, quantity)
        })
        ended = try container.decodeIfPresent(Bool.self, forKey: .ended) ?? false
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(start.description, forKey: .start)
        try container.encodeIfPresent(scenario, forKey: .scenario)
        try container.encode(Dictionary(uniqueKeysWithValues: holdings.map { ($0.key.rawValue, $0.value) }), forKey: .holdings)
        try container.encode(ended, forKey: .ended)
    }
}

/// Where a replay starts, as a player asks for it: the rules of Bazhanga's New Profile screen.
public enum ReplayStart: Sendable, Hashable {
    /// The earliest date of the data.
    case earliest
    /// `YYYY-MM`: the first trading day of that month.
    case month(year: Int, month: Int)
    /// `YYYY-MM-DD`: that day, or the next trading day.
    case day(SessionDate)
    /// A random trading day with at least a year of data after it.
    case random

    /// Parses `"2009-03"`, `"2009-03-02"` or `"random"`; nil for anything else.
    public init?(parsing text: String) {
        if text == "random" { self = .random; return }
        if let date = SessionDate(iso: text) { self = .day(date); return }
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 4, parts[1].count == 2,
              parts.allSatisfy({ $0.utf8.allSatisfy { (48...57).contains($0) } }),
              let year = Int(parts[0]), let month = Int(parts[1]), (1...12).contains(month)
        else { return nil }
        self = .month(year: year, month: month)
    }

    /// Why a start cannot be used with the data at hand.
    public enum Problem: Error, Sendable, Hashable {
        /// The start falls outside the data (`first` and `last` are its bounds).
        case outsideData(first: SessionDate, last: SessionDate)
        /// The data is too short for a random start (less than a year after its first day).
        case tooLittleData
    }

    /// The least data a random start leaves ahead of it.
    public static let randomRunway = 365

    /// The session this start stands for, given the data's first and last sessions.
    public func resolve(first: SessionDate, last: SessionDate, calendar: TradingCalendar = TradingCalendar(),
                        random: inout some RandomNumberGenerator) throws(Problem) -> SessionDate {
        let firstDay = calendar.isTradingDay(first) ? first : calendar.nextTradingDay(after: first)
        let date: SessionDate
        switch self {
        case .earliest:
            date = firstDay
        case .month(let year, let month):
            let start = SessionDate(year: year, month: month, day: 1)
            date = calendar.isTradingDay(start) ? start : calendar.nextTradingDay(after: start)
            // A month the data begins in part-way starts on the data's first day.
            if date < firstDay, start.components.year == firstDay.components.year,
               start.components.month == firstDay.components.month {
                return firstDay
            }
        case .day(let day):
            date = calendar.isTradingDay(day) ? day : calendar.nextTradingDay(after: day)
        case .random:
            let latest = calendar.tradingDay(onOrBefore: last.adding(days: -Self.randomRunway))
            guard latest >= firstDay else { throw .tooLittleData }
            // Every trading day equally likely: draw calendar days until one is a trading day.
            while true {
                let day = firstDay.adding(days: Int.random(in: 0...firstDay.distance(to: latest), using: &random))
                if calendar.isTradingDay(day) { return day }
            }
        }
        guard date >= firstDay, date <= last else { throw .outsideData(first: firstDay, last: last) }
        return date
    }
}

/// One day of a replay portfolio's equity: cash and holdings at that session's close.
public struct EquitySnapshot: Sendable, Hashable {
    public var date: SessionDate
    public var cash: Money
    public var marketValue: Money
    public var equity: Money { cash + marketValue }

    public init(date: SessionDate, cash: Money, marketValue: Money) {
        self.date = date
        self.cash = cash
        self.marketValue = marketValue
    }
}

/// Moving a replay portfolio's clock forward: which days it passes, and its equity at each.
public enum ReplayAdvance {
    /// How a replay's clock counts its days. A portfolio of stocks moves on the exchange's
    /// sessions; one holding coins (or with a coin's order working) moves on every calendar day,
    /// as coins trade every day: its weekends and holidays are days it can trade coins on, the
    /// stocks standing at their last close.
    public enum DayCount: Sendable, Hashable {
        case sessions
        case everyDay

        /// The largest step: a year (252 sessions, 366 days).
        public var maxDays: Int { self == .sessions ? 252 : 366 }

        /// "trading day" or "day", in the singular or the plural.
        public func words(_ count: Int) -> String {
            let noun = self == .sessions ? "trading day" : "day"
            return count == 1 ? noun : noun + "s"
        }
    }

    /// The largest step, in trading days: a year.
    public static let maxDays = DayCount.sessions.maxDays

    /// The days after `from`, `days` of them, stopping at `last` (the data's last session).
    public static func days(after from: SessionDate, count days: Int, last: SessionDate, counting: DayCount = .sessions,
                            calendar: TradingCalendar = TradingCalendar()) -> [SessionDate] {
        var result: [SessionDate] = []
        result.reserveCapacity(days)
        var date = from
        while result.count < days {
            date = counting == .sessions ? calendar.nextTradingDay(after: date) : date.adding(days: 1)
            guard date <= last else { break }
            result.append(date)
        }
        return result
    }

    /// The days after `from` through `to`, stopping at `last`.
    public static func days(after from: SessionDate, through to: SessionDate, last: SessionDate, counting: DayCount = .sessions,
                            calendar: TradingCalendar = TradingCalendar()) -> [SessionDate] {
        let end = min(to, last)
        guard end > from else { return [] }
        guard counting == .sessions else { return (1...from.distance(to: end)).map { from.adding(days: $0) } }
        return calendar.tradingDays(from: from.adding(days: 1), through: end)
    }

    /// The book's equity at the close of `from` and of each of `days`: each holding at its close
    /// of that day, or its last close before (a day without a bar, or data that ended), starting
    /// from `startPrices`. Nothing trades in between, so the cash stays.
    public static func snapshots(book: Book, from: SessionDate, days: [SessionDate], startPrices: [Symbol: Price],
                                 closes: [Symbol: [SessionDate: Price]]) -> [EquitySnapshot] {
        walk(book: book, from: from, days: days, startPrices: startPrices, closes: closes).snapshots
    }

    /// What an advance over `days` does to `book`: its equity at the close of `from` and of each
    /// day (as ``snapshots(book:from:days:startPrices:closes:)``), and the option contracts that
    /// expire on the way, each settled at the close of its own expiration day, in order (see
    /// ``OptionSettlement/expire(on:through:spot:)``), the book changing with them. Contracts
    /// expiring on the last day stay: the clock stands on that day, when they still trade.
    /// `closes` must hold the bars of the held contracts' underlyings too.
    ///
    /// With `orders`, the working orders are evaluated against each day's bars before its close is
    /// taken (see ``ReplayOrderWalk``): their fills change the book, and `events` lists what
    /// happened to them and to expiring contracts, in order.
    public static func walk(book: Book, from: SessionDate, days: [SessionDate], startPrices: [Symbol: Price],
                            closes: [Symbol: [SessionDate: Price]], orders: ReplayOrderWalk? = nil, margin: MarginWalk? = nil,
                            actions: [CorporateAction] = [], calendar: TradingCalendar = TradingCalendar())
        -> (snapshots: [EquitySnapshot], settlements: [OptionSettlement], book: Book, events: [ReplayOrderEvent]) {
        var book = book
        var orders = orders
        var margin = margin
        let initial = orders?.working ?? []
        var events: [ReplayOrderEvent] = []
        var prices = startPrices
        var settlements: [OptionSettlement] = []
        func snapshot(_ date: SessionDate) -> EquitySnapshot {
            var value = Money.zero
            for position in book.positions.values {
                // A holding without any price yet is carried at cost, as a valuation does.
                value += prices[position.symbol].map { $0.notional(quantity: position.quantity) } ?? position.costBasis
            }
            return EquitySnapshot(date: date, cash: book.cash, marketValue: value)
        }
        func settle(through date: SessionDate) {
            guard book.positions.keys.contains(where: { $0.option.map { $0.expiration <= date } ?? false }) else { return }
            let settled = OptionSettlement.expire(on: book, through: date) { contract in
                let bars = closes[contract.underlying] ?? [:]
                return bars.keys.filter { $0 <= contract.expiration }.max().flatMap { bars[$0] }
                    ?? startPrices[contract.underlying]
            }
            for settlement in settled.settlements {
                settlements.append(settlement)
                events.append(.settled(settlement))
                // Shares that an exercise brought are worth the close they were settled at.
                if settlement.spot.ticks > 0 { prices[settlement.contract.underlying] = settlement.spot }
            }
            book = settled.book
        }
        var result = [snapshot(from)]
        result.reserveCapacity(days.count + 1)
        if !days.isEmpty { settle(through: from) }
        let actionsOn = Dictionary(grouping: actions, by: \.exDate)
        for (index, date) in days.enumerated() {
            // Splits and dividends at the open of their ex-date: positions, cash, working orders.
            for action in actionsOn[date] ?? [] {
                let held = book.positions[action.symbol] != nil
                let ordered = orders?.working.contains { $0.symbol == action.symbol } ?? false
                guard held || ordered else { continue }
                let price = closes[action.symbol]?[date]
                book.apply(action, price: price)
                orders?.adjust(for: action)
                events.append(.corporate(action, price: price))
            }
            if orders != nil {
                events += orders!.step(date, book: &book)
                // A position a fill opened is worth its bar's close from the start.
                for symbol in book.positions.keys where prices[symbol] == nil {
                    if let bar = orders!.bars[symbol]?[date] { prices[symbol] = bar.close }
                }
            }
            for symbol in book.positions.keys {
                if let close = closes[symbol]?[date] { prices[symbol] = close }
            }
            // The close under the margin rule: the borrow fee, the maintenance check, a buy-back
            // (a session's: a day the exchange is closed charges no fee and counts no session).
            if margin != nil, calendar.isTradingDay(date) {
                // Every holding at its close: longs count in the equity as much as shorts.
                events += margin!.close(date, book: &book, closes: prices)
            }
            result.append(snapshot(date))
            if index < days.count - 1 { settle(through: date) }
        }
        if let orders { events += orders.changes(since: initial) }
        return (result, settlements, book, events)
    }

    /// How one holding moved over an advance.
    public struct HoldingChange: Sendable, Hashable {
        public var symbol: Symbol
        public var quantity: Quantity
        public var priceBefore: Price?
        public var priceAfter: Price?
        public var valueChange: Money
        public var changePercent: Percent?
    }

    /// Each holding's move from `before` to `after` prices.
    public static func holdingChanges(book: Book, before: [Symbol: Price], after: [Symbol: Price]) -> [HoldingChange] {
        book.positions.values.sorted { $0.symbol < $1.symbol }.map { position in
            let start = before[position.symbol], end = after[position.symbol] ?? start
            let valueBefore = start?.notional(quantity: position.quantity) ?? position.costBasis
            let valueAfter = end?.notional(quantity: position.quantity) ?? position.costBasis
            return HoldingChange(symbol: position.symbol, quantity: position.quantity, priceBefore: start,
                                 priceAfter: end, valueChange: valueAfter - valueBefore,
                                 // A written contract is worth less than nothing: its gain is a share of that.
                                 changePercent: (valueAfter - valueBefore).percent(of: Money(cents: abs(valueBefore.cents))))
        }
    }

    /// The change of a benchmark from one close to another, in percent.
    public static func change(from start: Price?, to end: Price?) -> Percent? {
        guard let start, let end, start.ticks > 0 else { return nil }
        return Percent(hundredths: FixedPoint.divideRounded((end.ticks - start.ticks) * 10_000, by: start.ticks))
    }

    /// Shares of each symbol that `budget` buys when split equally between `prices` (whole
    /// shares at each price; a symbol the budget cannot buy one share of is left out).
    public static func equalWeights(budget: Money, prices: [Symbol: Price]) -> [Symbol: Quantity] {
        guard !prices.isEmpty, budget.cents > 0 else { return [:] }
        let each = budget.cents / Int64(prices.count)
        var result: [Symbol: Quantity] = [:]
        for (symbol, price) in prices where price.ticks > 0 {
            // Whole shares whose cost (at the price rounded as a fill would be) fits the share.
            let quantity = price.quantity(affordableWith: Money(cents: each), lot: .whole)
            if quantity > .zero { result[symbol] = quantity }
        }
        return result
    }
}

/// The end-of-replay report: how the player did against the market and against doing nothing.
public struct ReplayReport: Sendable, Hashable {
    /// A closed trade: a sale of what was held (or a buy back of written contracts) and the profit
    /// or loss it realized.
    public struct ClosedTrade: Sendable, Hashable {
        public var symbol: Symbol
        /// `.sell` for a sale of what was held, `.buy` for written contracts bought back.
        public var side: OrderSide
        public var date: SessionDate
        public var quantity: Quantity
        public var price: Price
        public var realizedPnL: Money
    }

    public var start: SessionDate
    public var end: SessionDate
    public var startingCash: Money
    public var endingEquity: Money
    public var totalReturn: Money
    public var totalReturnPercent: Percent?
    /// The benchmark's change over the same dates.
    public var benchmarkReturnPercent: Percent?
    /// The largest fall of equity from a previous high, with the dates of that high and low.
    public var maxDrawdown: Money
    public var maxDrawdownPercent: Percent?
    public var drawdownPeak: SessionDate?
    public var drawdownTrough: SessionDate?
    public var bestTrade: ClosedTrade?
    public var worstTrade: ClosedTrade?
    /// Days that ended with something held, of all the days of the replay.
    public var daysInvested: Int
    public var days: Int
    public var daysInvestedPercent: Percent?
    /// What the starting stocks would be worth now, held from the start (nil without any).
    public var buyAndHoldStocks: Money?
    /// What the starting cash would be worth now in the benchmark.
    public var buyAndHoldBenchmark: Money?
    /// The equity curve with the benchmark scaled to the starting cash (at most
    /// ``EquityCurve/maxPoints``).
    public var points: [EquityCurve.Point]

    /// - Parameters:
    ///   - snapshots: the equity at each session's close, ascending, the last one the current equity.
    ///   - journal: the replay's journal (its sales are the closed trades).
    ///   - benchmark: the benchmark's closes by session.
    ///   - startHoldings, startPrices, endPrices: the starting stocks and their first and last closes.
    public static func build(startingCash: Money, snapshots: [EquitySnapshot], journal: [JournalEntry],
                             benchmark: [SessionDate: Price], startHoldings: [Symbol: Quantity],
                             startPrices: [Symbol: Price], endPrices: [Symbol: Price]) -> ReplayReport? {
        guard let first = snapshots.first, let last = snapshots.last else { return nil }
        // Drawdown: the deepest fall below the highest equity seen before it.
        var peak = first.equity, peakDate = first.date
        var drawdown = Money.zero, drawdownPercent: Percent?, peakOfDrawdown: SessionDate?, trough: SessionDate?
        for snapshot in snapshots {
            if snapshot.equity > peak { peak = snapshot.equity; peakDate = snapshot.date }
            let fall = peak - snapshot.equity
            if fall > drawdown {
                drawdown = fall
                drawdownPercent = fall.percent(of: peak)
                peakOfDrawdown = peakDate
                trough = snapshot.date
            }
        }
        let trades = JournalEntry.closingTrades(in: journal).compactMap { entry -> ClosedTrade? in
            guard let symbol = entry.symbol, let side = entry.side, let price = entry.price else { return nil }
            return ClosedTrade(symbol: symbol, side: side, date: SessionDate(entry.priceAsOf ?? entry.createdAt),
                               quantity: entry.quantityDelta.magnitude, price: price, realizedPnL: entry.realizedPnL)
        }
        // The first of equal trades is kept: earlier wins ties.
        let best = trades.reduce(nil as ClosedTrade?) { best, trade in best.map { trade.realizedPnL > $0.realizedPnL ? trade : $0 } ?? trade }
        let worst = trades.reduce(nil as ClosedTrade?) { worst, trade in worst.map { trade.realizedPnL < $0.realizedPnL ? trade : $0 } ?? trade }
        let invested = snapshots.filter { $0.marketValue != .zero }.count

        let points = EquityCurve.from(snapshots: snapshots, startingCash: startingCash, benchmark: benchmark)
        let base = snapshots.lazy.compactMap { benchmark[$0.date] }.first
        let lastClose = snapshots.reversed().lazy.compactMap { benchmark[$0.date] }.first

        var holdStocks: Money?
        if !startHoldings.isEmpty {
            var value = startingCash
            for (symbol, quantity) in startHoldings {
                guard let bought = startPrices[symbol] else { continue }
                value -= bought.notional(quantity: quantity)
                value += (endPrices[symbol] ?? bought).notional(quantity: quantity)
            }
            holdStocks = value
        }
        let totalReturn = last.equity - startingCash
        return ReplayReport(
            start: first.date, end: last.date, startingCash: startingCash, endingEquity: last.equity,
            totalReturn: totalReturn, totalReturnPercent: totalReturn.percent(of: startingCash),
            benchmarkReturnPercent: ReplayAdvance.change(from: base, to: lastClose),
            maxDrawdown: drawdown, maxDrawdownPercent: drawdownPercent, drawdownPeak: peakOfDrawdown, drawdownTrough: trough,
            bestTrade: best, worstTrade: worst, daysInvested: invested, days: snapshots.count,
            daysInvestedPercent: Money(cents: Int64(invested)).percent(of: Money(cents: Int64(snapshots.count))),
            buyAndHoldStocks: holdStocks, buyAndHoldBenchmark: points.last?.benchmark,
            points: EquityCurve.thinned(points))
    }
}
