import Foundation

/// A portfolio's equity session by session, beside a benchmark scaled to the same start: the
/// chart of "how am I doing against the market".
public enum EquityCurve {
    /// One point of the curve.
    public struct Point: Sendable, Hashable {
        public var date: SessionDate
        public var equity: Money
        /// The benchmark's close scaled to the starting cash; nil before its first close.
        public var benchmark: Money?
        /// The cash part of `equity`.
        public var cash: Money
    }

    /// At most this many points; longer curves keep every n-th session and the last one.
    public static let maxPoints = 500

    /// Replays the period's journal session by session, valuing the holdings at each session's
    /// closes, and on the last point at `latest` quotes (a session in progress).
    ///
    /// - Parameters:
    ///   - dates: the sessions to draw, ascending (at least one).
    ///   - closes: each traded symbol's closes by session.
    ///   - latest: the latest quotes, for the last point.
    ///   - benchmark: the benchmark's closes by session; its last close stands until a newer one.
    ///   - closing: every point at its session's close, the last one too (closing figures of
    ///     sessions that are over), and every point kept.
    public static func build(startingCash: Money, journal: [JournalEntry], dates: [SessionDate],
                             closes: [Symbol: [SessionDate: Price]], latest: [Symbol: Quote],
                             benchmark: [SessionDate: Price], calendar: TradingCalendar = TradingCalendar(),
                             closing: Bool = false) -> [Point] {
        var book = Book(startingCash: startingCash)
        var entries = journal.sorted { $0.sequence < $1.sequence }[...]
        var lastPrice: [Symbol: Price] = [:]
        var lastBenchmark: Price?
        let base = dates.lazy.compactMap { benchmark[$0] }.first
        // What was put in, each amount with the benchmark's close when it came (the base for the
        // starting cash): the benchmark line is that money as if it had bought the index.
        var invested: [(amount: Money, base: Price?)] = [(startingCash, base)]
        var points: [Point] = []
        points.reserveCapacity(dates.count)
        for (n, date) in dates.enumerated() {
            let isLast = n == dates.count - 1 && !closing
            // Everything traded up to that session's close (and, on the last point, up to now).
            let cutoff = isLast ? Date.distantFuture : (calendar.sessionBounds(on: date)?.close ?? date.adding(days: 1).date)
            while let entry = entries.first, entry.createdAt <= cutoff {
                book.apply(entry)
                if entry.kind == .grant { invested.append((entry.cashDelta, benchmark[date] ?? lastBenchmark ?? base)) }
                entries = entries.dropFirst()
            }
            for symbol in book.positions.keys {
                if isLast, let quote = latest[symbol] { lastPrice[symbol] = quote.price }
                else if let close = closes[symbol]?[date] { lastPrice[symbol] = close }
            }
            let equity = Valuation(book: book, quotes: lastPrice.mapValues { Quote(price: $0) }, realizedPnL: .zero).equity
            lastBenchmark = benchmark[date] ?? lastBenchmark
            var line: Money? = nil
            for part in invested {
                guard let value = scaled(part.amount, lastBenchmark, base: part.base) else { continue }
                line = (line ?? .zero) + value
            }
            points.append(Point(date: date, equity: equity, benchmark: line, cash: book.cash))
        }
        return closing ? points : thinned(points)
    }

    /// The curve of stored daily snapshots (a replay's), the benchmark scaled to the starting cash
    /// from the first snapshot's date.
    public static func from(snapshots: [EquitySnapshot], startingCash: Money, benchmark: [SessionDate: Price]) -> [Point] {
        var lastClose: Price?
        let base = snapshots.lazy.compactMap { benchmark[$0.date] }.first
        return snapshots.map { snapshot in
            lastClose = benchmark[snapshot.date] ?? lastClose
            return Point(date: snapshot.date, equity: snapshot.equity, benchmark: scaled(startingCash, lastClose, base: base),
                         cash: snapshot.cash)
        }
    }

    /// `amount` moved as the benchmark moved from `base` to `close`; nil before its first close.
    static func scaled(_ amount: Money, _ close: Price?, base: Price?) -> Money? {
        guard let base, let close, base.ticks > 0 else { return nil }
        return Money(cents: FixedPoint.divideRounded(amount.cents * close.ticks, by: base.ticks))
    }

    /// Keeps at most ``maxPoints``: every n-th point and always the last.
    public static func thinned<T>(_ points: [T]) -> [T] {
        guard points.count > maxPoints else { return points }
        let step = (points.count + maxPoints - 1) / maxPoints
        return points.enumerated().filter { $0.offset % step == 0 || $0.offset == points.count - 1 }.map(\.element)
    }
}
