import Foundation

/// Where a fill's price came from, so that every order answer can say how it was priced.
public enum PriceSource: String, Sendable, Hashable, CaseIterable, Codable {
    /// A live provider's last trade.
    case lastTrade = "last_trade"
    /// A session's closing price (the latest close while the market is closed).
    case close
    /// The close of the session a replay portfolio stands on.
    case replayClose = "replay_close"
    /// A tick of the demo exchange's simulated session in progress.
    case demoTick = "demo_tick"
    /// The last close before a symbol's data ended: it no longer trades, and is sold at that price.
    case finalClose = "final_close"
    /// An option contract's modelled quote (the ask for a buy, the bid for a sell), from its
    /// underlying's price of that time.
    case model
    /// A working order filled on a replay's daily bar (its open, high, low or close).
    case dailyBar = "daily_bar"
}

/// How a fill was priced: the source, the time of that price, and whether the exchange was in a
/// session when the order filled.
public struct FillPricing: Sendable, Hashable {
    public var source: PriceSource
    public var asOf: Date
    public var marketOpen: Bool

    public init(source: PriceSource, asOf: Date, marketOpen: Bool) {
        self.source = source
        self.asOf = asOf
        self.marketOpen = marketOpen
    }

    /// One sentence for the player: where the price came from.
    public var explanation: String {
        let day = SessionDate(asOf).description
        return switch source {
        case .replayClose:
            "Filled at the close of \(day), the date this replay stands on: that day's market is over, so its closing price is the price."
        case .close:
            "Filled at the close of \(day): the market was closed, so the last close is the price."
        case .finalClose:
            "Filled at the final close of \(day): this company's data ended then, so it sells at its last price."
        case .lastTrade:
            "Filled at the last trade the market data reported."
        case .demoTick:
            "Filled at the demo exchange's simulated price of that moment."
        case .dailyBar:
            "Filled on the daily bar of \(day): the order's price was reached during that session."
        case .model:
            "Filled at the option model's quote (Black-Scholes-Merton, from the underlying's price as of \(day)): bought at the ask, sold at the bid."
        }
    }

    /// The pricing of an order filled at `quote` for a portfolio on `clock`.
    ///
    /// A quote stamped with a time of day (not midnight UTC, the stamp of daily closes) is a
    /// trade of the session in progress: the demo's tick when the source is simulated, a
    /// provider's last trade otherwise.
    public static func of(_ quote: Quote, clock: PortfolioClock, simulated: Bool, marketOpen: Bool, now: Date) -> FillPricing {
        let asOf = quote.asOf ?? now
        let source: PriceSource
        if !quote.trading {
            source = .finalClose
        } else if case .replay = clock {
            source = .replayClose
        } else if asOf.timeIntervalSince1970.truncatingRemainder(dividingBy: 86_400) != 0 {
            source = simulated ? .demoTick : .lastTrade
        } else {
            source = .close
        }
        return FillPricing(source: source, asOf: asOf, marketOpen: marketOpen)
    }
}
