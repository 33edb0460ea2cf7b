import Foundation

/// A price observation: the last price and, where known, the previous session's close.
public struct Quote: Sendable, Hashable {
    public var price: Price
    public var previousClose: Price?
    /// When `price` was observed (the session date for daily data).
    public var asOf: Date?
    /// Shares traded in the session so far, where known.
    public var volume: Int64?
    /// Whether the symbol trades on the clock's date. False once its data has ended (the last
    /// price is then the close of its final session): it can be sold at that price, not bought.
    public var trading: Bool

    public init(price: Price, previousClose: Price? = nil, asOf: Date? = nil, volume: Int64? = nil, trading: Bool = true) {
        self.price = price
        self.previousClose = previousClose
        self.asOf = asOf
        self.volume = volume
        self.trading = trading
    }

    /// The session date of this price (daily closes are stamped at midnight UTC of their date;
    /// intraday prices fall within the New York session of their UTC date).
    public var session: SessionDate? { asOf.map(SessionDate.init) }

    /// Price change since the previous close, per share.
    public var change: Price? { previousClose.map { Price(ticks: price.ticks - $0.ticks) } }

    /// Change since the previous close in percent, to two places.
    public var changePercent: Percent? {
        guard let previousClose, previousClose.ticks != 0 else { return nil }
        return Percent(hundredths: FixedPoint.divideRounded((price.ticks - previousClose.ticks) * 10_000, by: previousClose.ticks))
    }
}

/// A position valued at a quote.
public struct PositionValuation: Sendable, Hashable {
    public var position: Position
    public var quote: Quote?
    public var marketValue: Money
    public var unrealizedPnL: Money
    public var unrealizedPercent: Percent?
    /// What the holding gained or lost since the previous session's close (shares bought today
    /// count from their fill, shares sold today up to their sale); nil without a price.
    public var dayChange: Money?

    public init(position: Position, quote: Quote?, dayChange: Money?) {
        self.position = position
        self.quote = quote
        // Without a price a holding is carried at cost: no gain, no loss.
        let value = quote.map { position.marketValue(at: $0.price) } ?? position.costBasis
        self.marketValue = value
        self.unrealizedPnL = value - position.costBasis
        // A written contract's basis is the premium received (negative): its gain is a share of that.
        self.unrealizedPercent = unrealizedPnL.percent(of: Money(cents: abs(position.costBasis.cents)))
        self.dayChange = dayChange
    }
}

/// The trades of the session a valuation stands on, per symbol: what "today" nets out.
///
/// A journal entry belongs to the session when its price does (a fill priced by that session's
/// data), or, for entries recorded before prices were dated, when it was made after the previous
/// session's close.
public struct SessionTrades: Sendable, Hashable {
    /// The session date the valuation's quotes stand on.
    public var session: SessionDate
    /// Shares bought less shares sold in the session, per symbol.
    public var quantity: [Symbol: Quantity] = [:]
    /// Cash paid (negative) and received (positive) in the session, per symbol, commissions included.
    public var cash: [Symbol: Money] = [:]

    public init(session: SessionDate, journal: [JournalEntry], calendar: TradingCalendar = TradingCalendar()) {
        self.session = session
        include(journal, calendar: calendar)
    }

    /// Adds the entries of `journal` that count in the session to the totals: the totals of a
    /// journal kept as it grows, without going over it again.
    public mutating func include(_ journal: [JournalEntry], calendar: TradingCalendar = TradingCalendar()) {
        // One lookup per run of entries of one symbol, not two per entry.
        var run: (symbol: Symbol, quantity: Quantity, cash: Money)?
        func close(_ run: (symbol: Symbol, quantity: Quantity, cash: Money)?) {
            guard let run else { return }
            quantity[run.symbol, default: 0] += run.quantity
            cash[run.symbol, default: .zero] += run.cash
        }
        for entry in journal {
            guard let symbol = entry.symbol, Self.mayBelong(entry, to: session, calendar: calendar) else { continue }
            if run?.symbol == symbol {
                run!.quantity += entry.quantityDelta
                run!.cash += entry.cashDelta
            } else {
                close(run)
                run = (symbol, entry.quantityDelta, entry.cashDelta)
            }
        }
        close(run)
    }

    /// Whether a journal entry counts in `session`: priced on or after its date, or (entries
    /// recorded before prices were dated) made after the previous session's close.
    public static func mayBelong(_ entry: JournalEntry, to session: SessionDate,
                                 calendar: TradingCalendar = TradingCalendar()) -> Bool {
        if let priceAsOf = entry.priceAsOf { return SessionDate(priceAsOf) >= session }
        let previousClose = calendar.sessionBounds(on: calendar.previousTradingDay(before: session))?.close ?? session.date
        return entry.createdAt > previousClose
    }

    /// No trades: every holding was held since the previous close.
    public static func none(session: SessionDate) -> SessionTrades {
        SessionTrades(session: session, journal: [])
    }

    /// The symbols traded in the session (some may no longer be held).
    public var symbols: Set<Symbol> { Set(quantity.keys).union(cash.keys) }

    /// The change of one symbol's holding since the previous close: its value now, plus the cash
    /// its trades moved today, less the value at the previous close of the shares held overnight.
    /// A symbol whose price is not of this session (its data ended, or no previous close) did
    /// not move: its previous close is its price.
    func change(of symbol: Symbol, heldNow: Quantity, quote: Quote) -> Money {
        let overnight = heldNow - (quantity[symbol] ?? 0)
        let movedToday = (quote.session.map { $0 >= session } ?? false) && quote.trading
        let reference = movedToday ? (quote.previousClose ?? quote.price) : quote.price
        return quote.price.notional(quantity: heldNow) + (cash[symbol] ?? .zero) - reference.notional(quantity: overnight)
    }
}

/// The figures of a portfolio summary, all derived from the book, the quotes, realized P&L and
/// the trades of the current session.
public struct Valuation: Sendable, Hashable {
    public var positions: [PositionValuation]
    public var cash: Money
    /// What open orders and written puts hold back of the cash; `cash - reservedCash` is available.
    public var reservedCash: Money
    public var startingCash: Money
    /// Money added since the period began (top-ups): counted as put in, not as a gain.
    public var deposits: Money
    public var marketValue: Money
    public var equity: Money
    public var realizedPnL: Money
    public var unrealizedPnL: Money
    /// Equity less what was put in (the starting cash and any deposits).
    public var totalReturn: Money
    public var totalReturnPercent: Percent?
    /// The change of equity since the previous session's close, net of deposits.
    public var dayChange: Money
    public var dayChangePercent: Percent?

    /// - Parameter today: the session's trades; without them every holding counts as held since
    ///   the previous close.
    public init(book: Book, quotes: [Symbol: Quote], realizedPnL: Money, today: SessionTrades? = nil) {
        positions = book.positions.values.sorted { $0.symbol < $1.symbol }.map { position in
            let quote = quotes[position.symbol]
            let change = quote.map { quote in
                (today ?? .none(session: quote.session ?? SessionDate(day: 0)))
                    .change(of: position.symbol, heldNow: position.quantity, quote: quote)
            }
            return PositionValuation(position: position, quote: quote, dayChange: change)
        }
        cash = book.cash
        reservedCash = book.reservedCash
        startingCash = book.startingCash
        deposits = book.deposits
        marketValue = positions.reduce(.zero) { $0 + $1.marketValue }
        equity = cash + marketValue
        self.realizedPnL = realizedPnL
        unrealizedPnL = positions.reduce(.zero) { $0 + $1.unrealizedPnL }
        totalReturn = equity - book.invested
        totalReturnPercent = totalReturn.percent(of: book.invested)
        var day = positions.reduce(.zero) { $0 + ($1.dayChange ?? .zero) }
        // Symbols sold out today: their proceeds against their value at the previous close.
        if let today {
            for symbol in today.symbols where book.positions[symbol] == nil {
                if let quote = quotes[symbol] { day += today.change(of: symbol, heldNow: 0, quote: quote) }
            }
        }
        dayChange = day
        dayChangePercent = dayChange.percent(of: equity - dayChange)
    }
}
