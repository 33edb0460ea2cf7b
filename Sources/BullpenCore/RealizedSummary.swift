/// Realized profits and losses over a stretch of a journal: the History screen's totals.
public struct RealizedSummary: Sendable, Hashable {
    /// The sum of the closing trades and settlements that made money.
    public var profits: Money = .zero
    /// The sum of the closing trades and settlements that lost money (negative or zero).
    public var losses: Money = .zero
    public var trades = 0
    public var buys = 0
    public var sells = 0

    public var net: Money { profits + losses }

    public init(_ journal: some Sequence<JournalEntry>) {
        for entry in journal {
            // Exercises and expiries realize profits and losses without being trades.
            if entry.isSettlement {
                if entry.realizedPnL > .zero { profits += entry.realizedPnL } else { losses += entry.realizedPnL }
                continue
            }
            guard entry.kind == .trade else { continue }
            trades += 1
            switch entry.side {
            case .buy?: buys += 1
            case .sell?: sells += 1
            case nil: break
            }
            // A sale of what is held realizes, and so does a buy back of written contracts;
            // opening trades realize nothing.
            if entry.realizedPnL > .zero { profits += entry.realizedPnL } else { losses += entry.realizedPnL }
        }
    }
}
