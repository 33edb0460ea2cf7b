import Foundation

/// When a price alert fires.
public enum AlertCondition: Sendable, Hashable {
    /// The price at or above this.
    case above(Price)
    /// The price at or below this.
    case below(Price)
    /// The price moved this much or more, up or down, since the previous session's close.
    case move(Percent)

    public var kind: String {
        switch self {
        case .above: "above"
        case .below: "below"
        case .move: "move"
        }
    }

    /// Whether `quote` meets the condition.
    public func isMet(by quote: Quote) -> Bool {
        switch self {
        case .above(let price): quote.price >= price
        case .below(let price): quote.price <= price
        case .move(let percent): quote.changePercent.map { abs($0.hundredths) >= percent.hundredths } ?? false
        }
    }

    /// What the alert watches for, as a sentence's end: "rises to $200.00 or above".
    public var phrase: String {
        switch self {
        case .above(let price): "rises to \(price.dollars) or above"
        case .below(let price): "falls to \(price.dollars) or below"
        case .move(let percent): "moves \(percent.decimalString)% or more in a session"
        }
    }
}

/// A player's alert on one symbol: armed until it fires, then kept (with when and at what price)
/// until re-armed or deleted.
public struct PriceAlert: Sendable, Hashable, Identifiable {
    /// Most alerts a player may keep, armed or fired.
    public static let maxPerUser = 50

    public var id: UUID
    public var user: UserID
    public var symbol: Symbol
    public var condition: AlertCondition
    public var createdAt: Date
    public var triggeredAt: Date?
    public var triggeredPrice: Price?

    public init(id: UUID, user: UserID, symbol: Symbol, condition: AlertCondition, createdAt: Date,
                triggeredAt: Date? = nil, triggeredPrice: Price? = nil) {
        self.id = id; self.user = user; self.symbol = symbol; self.condition = condition; self.createdAt = createdAt
        self.triggeredAt = triggeredAt; self.triggeredPrice = triggeredPrice
    }

    public var armed: Bool { triggeredAt == nil }
}

/// Every armed alert, indexed so that a batch of quotes is checked without visiting the alerts
/// it does not fire: per symbol, the "above" thresholds ascending, the "below" thresholds
/// descending and the move thresholds ascending, each cut at the quote by a binary search.
public struct AlertBook: Sendable {
    private struct Entry: Sendable {
        var threshold: Int64
        var id: UUID
    }

    private struct Thresholds: Sendable {
        var above: [Entry] = []   // ascending: fired are a prefix (threshold <= price)
        var below: [Entry] = []   // descending: fired are a prefix (threshold >= price)
        var move: [Entry] = []    // ascending: fired are a prefix (threshold <= |change|)
    }

    private var bySymbol: [Symbol: Thresholds] = [:]
    public private(set) var count = 0

    public init(_ alerts: some Sequence<PriceAlert>) {
        for alert in alerts where alert.armed {
            count += 1
            switch alert.condition {
            case .above(let price): bySymbol[alert.symbol, default: .init()].above.append(Entry(threshold: price.ticks, id: alert.id))
            case .below(let price): bySymbol[alert.symbol, default: .init()].below.append(Entry(threshold: price.ticks, id: alert.id))
            case .move(let percent): bySymbol[alert.symbol, default: .init()].move.append(Entry(threshold: percent.hundredths, id: alert.id))
            }
        }
        for symbol in bySymbol.keys {
            bySymbol[symbol]!.above.sort { $0.threshold < $1.threshold }
            bySymbol[symbol]!.below.sort { $0.threshold > $1.threshold }
            bySymbol[symbol]!.move.sort { $0.threshold < $1.threshold }
        }
    }

    /// The symbols with an armed alert.
    public var symbols: [Symbol] { Array(bySymbol.keys) }

    /// The alerts `quotes` fire, with the quote that fired each.
    public func fired(by quotes: [Symbol: Quote]) -> [(id: UUID, symbol: Symbol, quote: Quote)] {
        var fired: [(id: UUID, symbol: Symbol, quote: Quote)] = []
        for (symbol, quote) in quotes {
            guard let thresholds = bySymbol[symbol] else { continue }
            let price = quote.price.ticks
            for entry in thresholds.above.prefix(Self.count(of: thresholds.above) { $0 <= price }) { fired.append((entry.id, symbol, quote)) }
            for entry in thresholds.below.prefix(Self.count(of: thresholds.below) { $0 >= price }) { fired.append((entry.id, symbol, quote)) }
            if let change = quote.changePercent.map({ abs($0.hundredths) }) {
                for entry in thresholds.move.prefix(Self.count(of: thresholds.move) { $0 <= change }) { fired.append((entry.id, symbol, quote)) }
            }
        }
        return fired
    }

    /// The length of the prefix of `entries` whose thresholds pass `test` (which holds for a
    /// prefix of them, by their order).
    private static func count(of entries: [Entry], where test: (Int64) -> Bool) -> Int {
        var low = 0, high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if test(entries[middle].threshold) { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
