import Foundation

/// One line of a portfolio's journal: every change of cash or of a position is one entry, written
/// in the same database transaction as the change itself.
public struct JournalEntry: Sendable, Hashable {
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// A fill: shares in or out, cash out or in (the notional; its commission is an entry of its own).
        case trade
        /// The commission a trade paid (cash out), journaled beside the trade with the trade's symbol.
        case commission
        /// A leg of an option's exercise: the contracts going, or the shares bought or sold at the
        /// strike (see ``OptionSettlement``).
        case exercise
        /// An option contract's expiry: worthless, or settled in cash for its intrinsic value.
        case expiry
        /// A leg of a written contract's assignment at expiry: the contracts closed, or the shares
        /// delivered (a call) or bought (a put) at the strike.
        case assignment
        /// Money added to the portfolio from outside (a top-up, see ``TopUp``): cash in, no
        /// position, no P&L. Returns count it as money put in, not as a gain.
        case grant
        /// The fee for borrowing the shares of a short position, one session's worth (cash out).
        case borrowFee = "borrow_fee"
        /// A margin call: the equity fell below the maintenance requirement at a session's close.
        /// Moves nothing; the shorts are bought back if it is not met within the grace sessions.
        case marginCall = "margin_call"
        /// The maintenance requirement met again (or the shorts covered): the call is over. Moves nothing.
        case marginMet = "margin_met"
        /// A cash dividend on shares held on its ex-date (cash in; a short pays it: cash out). A
        /// realized gain (or loss), as income.
        case dividend
        /// A stock split on its ex-date: the shares multiplied, the cost basis kept; a fraction of a
        /// share left over is paid in cash at the day's price (its basis goes with it).
        case split
    }

    public var id: JournalEntryID
    public var portfolioID: PortfolioID
    /// Which period of the portfolio (a reset starts a new one).
    public var period: Int
    /// Increasing per portfolio across periods; orders the journal and pages activities.
    public var sequence: Int64
    public var kind: Kind
    public var symbol: Symbol?
    public var side: OrderSide?
    public var quantityDelta: Quantity
    public var price: Price?
    public var cashDelta: Money
    public var commission: Money
    public var realizedPnL: Money
    public var orderID: OrderID?
    public var fillID: FillID?
    /// The time of the price a trade filled at (nil for entries recorded before it was kept).
    public var priceAsOf: Date?
    public var createdAt: Date
    /// Cost basis moved by an exercise, not paid in cash: the premium of the contracts exercised,
    /// out of the option (negative) and into the shares a call buys (positive) or off the
    /// proceeds of the shares a put sells (negative). Zero for every other entry.
    public var carriedBasis: Money

    public init(id: JournalEntryID, portfolioID: PortfolioID, period: Int, sequence: Int64, kind: Kind,
                symbol: Symbol?, side: OrderSide?, quantityDelta: Quantity, price: Price?, cashDelta: Money,
                commission: Money, realizedPnL: Money, orderID: OrderID?, fillID: FillID?, priceAsOf: Date?,
                createdAt: Date, carriedBasis: Money = .zero) {
        self.id = id
        self.portfolioID = portfolioID
        self.period = period
        self.sequence = sequence
        self.kind = kind
        self.symbol = symbol
        self.side = side
        self.quantityDelta = quantityDelta
        self.price = price
        self.cashDelta = cashDelta
        self.commission = commission
        self.realizedPnL = realizedPnL
        self.orderID = orderID
        self.fillID = fillID
        self.priceAsOf = priceAsOf
        self.createdAt = createdAt
        self.carriedBasis = carriedBasis
    }

    /// Whether this entry is a settlement's leg (an exercise or an expiry), which changes a
    /// position without a fill.
    public var isSettlement: Bool { kind == .exercise || kind == .expiry || kind == .assignment }

    /// The trades among `journal` that close (part of) a position: a sale of shares or contracts
    /// held, or a buy back of contracts written (a buy or a contract written opens one). Answers
    /// them in the order they happened; each period (a reset starts one) starts empty.
    public static func closingTrades(in journal: some Sequence<JournalEntry>) -> [JournalEntry] {
        var held: [Int: [Symbol: Quantity]] = [:]   // by period, then symbol
        var closing: [JournalEntry] = []
        for entry in journal.sorted(by: { ($0.period, $0.sequence) < ($1.period, $1.sequence) }) {
            guard let symbol = entry.symbol, entry.quantityDelta != 0 else { continue }
            let before = held[entry.period]?[symbol] ?? 0
            if entry.kind == .trade, before != 0, (before > 0) != (entry.quantityDelta > 0) { closing.append(entry) }
            held[entry.period, default: [:]][symbol] = before + entry.quantityDelta
        }
        return closing
    }

    /// The fill a trade entry records, its cash move commission included. A trade entry's own
    /// `cashDelta` is the notional alone: the commission is cash moved by the entry that follows it.
    public var fill: Fill? {
        guard kind == .trade, let symbol, let side, let price else { return nil }
        let quantity = quantityDelta.magnitude
        let notional = side == .buy ? -cashDelta : cashDelta
        return Fill(symbol: symbol, side: side, quantity: quantity, price: price, notional: notional,
                    commission: commission, realizedPnL: realizedPnL, cashDelta: cashDelta - commission)
    }

    /// The entries that journal `fill`: the trade (cash moved by the notional), then its commission
    /// as an entry of its own when there is one. Sequences follow `sequence`.
    public static func entries(of fill: Fill, portfolioID: PortfolioID, period: Int, sequence: Int64,
                               orderID: OrderID?, fillID: FillID?, priceAsOf: Date?, createdAt: Date,
                               ids: any IDSource) -> [JournalEntry] {
        var entries = [JournalEntry(
            id: JournalEntryID(ids.makeUUID()), portfolioID: portfolioID, period: period, sequence: sequence, kind: .trade,
            symbol: fill.symbol, side: fill.side, quantityDelta: fill.quantityDelta, price: fill.price,
            cashDelta: fill.cashDelta + fill.commission, commission: fill.commission, realizedPnL: fill.realizedPnL,
            orderID: orderID, fillID: fillID, priceAsOf: priceAsOf, createdAt: createdAt)]
        if fill.commission != .zero {
            entries.append(JournalEntry(
                id: JournalEntryID(ids.makeUUID()), portfolioID: portfolioID, period: period, sequence: sequence + 1,
                kind: .commission, symbol: fill.symbol, side: nil, quantityDelta: 0, price: nil,
                cashDelta: -fill.commission, commission: fill.commission, realizedPnL: .zero,
                orderID: orderID, fillID: fillID, priceAsOf: priceAsOf, createdAt: createdAt))
        }
        return entries
    }

    /// The entries that journal `settlement`, one per leg, with sequences from `sequence`; the
    /// legs share `fillID` so that readers can put them back together.
    public static func entries(of settlement: OptionSettlement, portfolioID: PortfolioID, period: Int, sequence: Int64,
                               fillID: FillID, createdAt: Date, ids: any IDSource) -> [JournalEntry] {
        settlement.legs.enumerated().map { index, leg in
            JournalEntry(id: JournalEntryID(ids.makeUUID()), portfolioID: portfolioID, period: period,
                         sequence: sequence + Int64(index), kind: leg.kind, symbol: leg.symbol, side: leg.side,
                         quantityDelta: leg.side == .buy ? leg.quantity : -leg.quantity, price: leg.price,
                         cashDelta: leg.cashDelta, commission: .zero, realizedPnL: leg.realizedPnL, orderID: nil,
                         fillID: fillID, priceAsOf: settlement.date.date, createdAt: createdAt, carriedBasis: leg.carriedBasis)
        }
    }
}
