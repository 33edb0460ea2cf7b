import Foundation

/// A price observation: the last price and, where known, the previous session's close.
public struct Quote: Sendable, Hashable {
    public var price: Price
    public var previousClose: Price?
    /// When `price` was observed (the session date for daily data).
    public var asOf: Date?
    /// Shares traded in the session so far, where known.
    public var volume: Int64?

    public init(price: Price, previousClose: Price? = nil, asOf: Date? = nil, volume: Int64? = nil) {
        self.price = price
        self.previousClose = previousClose
        self.asOf = asOf
        self.volume = volume
    }

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
    /// Value change since the previous close; nil when unknown.
    public var dayChange: Money?

    public init(position: Position, quote: Quote?) {
        self.position = position
        self.quote = quote
        // Without a price a holding is carried at cost: no gain, no loss.
        let value = quote.map { position.marketValue(at: $0.price) } ?? position.costBasis
        self.marketValue = value
        self.unrealizedPnL = value - position.costBasis
        self.unrealizedPercent = unrealizedPnL.percent(of: position.costBasis)
        self.dayChange = quote?.previousClose.map { value - position.marketValue(at: $0) }
    }
}

/// The figures of a portfolio summary, all derived from the book, the quotes and realized P&L.
public struct Valuation: Sendable, Hashable {
    public var positions: [PositionValuation]
    public var cash: Money
    public var startingCash: Money
    public var marketValue: Money
    public var equity: Money
    public var realizedPnL: Money
    public var unrealizedPnL: Money
    public var totalReturnPercent: Percent?
    public var dayChange: Money
    public var dayChangePercent: Percent?

    public init(book: Book, quotes: [Symbol: Quote], realizedPnL: Money) {
        positions = book.positions.values.sorted { $0.symbol < $1.symbol }
            .map { PositionValuation(position: $0, quote: quotes[$0.symbol]) }
        cash = book.cash
        startingCash = book.startingCash
        marketValue = positions.reduce(.zero) { $0 + $1.marketValue }
        equity = cash + marketValue
        self.realizedPnL = realizedPnL
        unrealizedPnL = positions.reduce(.zero) { $0 + $1.unrealizedPnL }
        totalReturnPercent = (equity - startingCash).percent(of: startingCash)
        dayChange = positions.reduce(.zero) { $0 + ($1.dayChange ?? .zero) }
        dayChangePercent = dayChange.percent(of: equity - dayChange)
    }
}
