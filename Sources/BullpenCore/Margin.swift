import Foundation

/// Short selling on margin, a rule that is off by default: a portfolio (or a league) that allows
/// it may sell shares it does not hold and buy them back later.
///
/// The model, in cash: a short sale's proceeds go to cash, and the proceeds plus the initial
/// margin (50 %) on them are held as collateral that buys cannot spend. Each session's close
/// charges a borrow fee on the shorts' value, and checks the maintenance requirement: the equity
/// must be at least the maintenance margin (30 %) of the shorts' value. Below it, a margin call;
/// still below it after the grace sessions, the shorts are bought back at the close.
public struct MarginRule: Sendable, Hashable, Codable {
    /// The margin a short sale needs on top of its proceeds, in hundredths of a percent (5000 is 50 %).
    public var initialBasisPoints: Int64
    /// The equity the shorts need at each close, as a share of their value (3000 is 30 %).
    public var maintenanceBasisPoints: Int64
    /// The yearly fee for borrowing the shares, charged each session (1/252 of it), in hundredths of a percent.
    public var borrowFeeBasisPoints: Int64
    /// The closes a margin call may last before the shorts are bought back.
    public var graceSessions: Int

    public init(initialBasisPoints: Int64 = 5_000, maintenanceBasisPoints: Int64 = 3_000, borrowFeeBasisPoints: Int64 = 300,
                graceSessions: Int = 2) {
        self.initialBasisPoints = initialBasisPoints
        self.maintenanceBasisPoints = maintenanceBasisPoints
        self.borrowFeeBasisPoints = borrowFeeBasisPoints
        self.graceSessions = graceSessions
    }

    public static let standard = MarginRule()
    /// Sessions in a year, for the daily share of the borrow fee.
    public static let sessionsPerYear: Int64 = 252
}

/// Where a portfolio with shorts stands against its maintenance requirement at some prices.
public struct MarginStatus: Sendable, Hashable {
    /// The shorts' value at the prices (positive).
    public var shortValue: Money
    public var equity: Money
    /// The equity the maintenance margin asks for.
    public var requirement: Money

    public var isMet: Bool { equity >= requirement }
    public var deficit: Money { isMet ? .zero : requirement - equity }

    /// The shorts and their risk, in words.
    public var words: String {
        "Your short positions are worth \(shortValue.dollars) at today's prices; a short loses as the price rises, with no limit. "
            + "The rules ask for equity of at least \(requirement.dollars) to hold them; you have \(equity.dollars)."
            + (isMet ? "" : " That is a margin call: bring the equity up (cover some shorts, or wait for the prices) before the grace sessions end, or the shorts are bought back at the close.")
    }
}

/// The margin rule as a replay's advance walks it: the call in force when it starts.
public struct MarginWalk: Sendable {
    public var rule: MarginRule
    public var callSince: SessionDate?
    public var sessionsSince: Int
    /// The commission a forced buy-back pays.
    public var commission: Commission

    public init(rule: MarginRule, callSince: SessionDate?, sessionsSince: Int, commission: Commission = .free) {
        self.rule = rule
        self.commission = commission
        self.callSince = callSince
        self.sessionsSince = sessionsSince
    }

    /// The close of `date` at `closes`: the actions, applied to `book` (a fee out of cash, the
    /// shorts bought back at their closes).
    public mutating func close(_ date: SessionDate, book: inout Book, closes: [Symbol: Price]) -> [ReplayOrderEvent] {
        if callSince != nil { sessionsSince += 1 }
        let actions = Margin.close(book, closes: closes, rule: rule, callSince: callSince, sessionsSince: sessionsSince)
        var events: [ReplayOrderEvent] = []
        for action in actions {
            switch action {
            case .fee(let fee):
                book.cash -= fee
            case .call:
                callSince = date
                sessionsSince = 0
            case .met:
                callSince = nil
            case .liquidate(let covers):
                for cover in covers {
                    if let done = Margin.buyBack(cover, on: book, commission: commission) { book = done.book }
                }
            }
            events.append(.margin(action, on: date))
        }
        // The call ends once nothing is short (a short without a close that day waits for the next).
        if case .liquidate? = actions.last, book.shorts.isEmpty {
            callSince = nil
            events.append(.margin(.met, on: date))
        }
        return events
    }
}

public enum Margin {
    /// Buys back a short whatever the cash (a forced buy-back at a margin call's end): the cash
    /// may go below zero when the shorts lost more than the account held, a debt as a broker's.
    public static func buyBack(_ cover: Cover, on book: Book, commission: Commission) -> (fill: Fill, book: Book)? {
        guard var position = book.positions[cover.symbol], position.quantity < 0 else { return nil }
        let quantity = min(cover.quantity, -position.quantity)
        let notional = cover.price.notional(quantity: quantity)
        let fee = commission.amount(on: notional)
        // The short's proceeds (its basis, negative) less what buying it back costs.
        let credit = -position.cover(quantity: quantity)
        let fill = Fill(symbol: cover.symbol, side: .buy, quantity: quantity, price: cover.price, notional: notional,
                        commission: fee, realizedPnL: credit - notional - fee, cashDelta: Money.zero - (notional + fee))
        var after = book
        after.apply(fill)
        return (fill, after)
    }

    /// The portfolio's standing at `prices` (shorts without a price count at their basis).
    public static func status(of book: Book, prices: [Symbol: Price], rule: MarginRule) -> MarginStatus {
        var shortValue = Money.zero, value = Money.zero
        for position in book.positions.values {
            let worth = prices[position.symbol].map { $0.notional(quantity: position.quantity) } ?? position.costBasis
            value += worth
            if position.quantity < 0, !position.symbol.isOption { shortValue -= worth }
        }
        let requirement = Money(cents: FixedPoint.divideRoundedUp(shortValue.cents * rule.maintenanceBasisPoints, by: 10_000))
        return MarginStatus(shortValue: shortValue, equity: book.cash + value, requirement: requirement)
    }

    /// One session's borrow fee on the shorts' value at `prices`.
    public static func borrowFee(of book: Book, prices: [Symbol: Price], rule: MarginRule) -> Money {
        let value = book.shorts.reduce(Money.zero) { total, short in
            total - (prices[short.symbol].map { $0.notional(quantity: short.quantity) } ?? short.costBasis)
        }
        return Money(cents: FixedPoint.divideRounded(value.cents * rule.borrowFeeBasisPoints, by: 10_000 * MarginRule.sessionsPerYear))
    }

    /// The margin call in force from the journal: the session of the latest call not met since.
    public static func callSince(_ journal: [JournalEntry]) -> SessionDate? {
        var since: SessionDate?
        for entry in journal.sorted(by: { $0.sequence < $1.sequence }) {
            switch entry.kind {
            case .marginCall: if since == nil { since = entry.priceAsOf.map(SessionDate.init) }
            case .marginMet: since = nil
            default: break
            }
        }
        return since
    }

    /// A short bought back at a close.
    public struct Cover: Sendable, Hashable {
        public var symbol: Symbol
        public var quantity: Quantity
        public var price: Price

        public init(symbol: Symbol, quantity: Quantity, price: Price) {
            self.symbol = symbol
            self.quantity = quantity
            self.price = price
        }
    }

    /// What a session's close does to a portfolio with shorts (or with a call in force).
    public enum CloseAction: Sendable, Hashable {
        case fee(Money)
        /// A margin call starts (with the status that made it).
        case call(MarginStatus)
        /// The call is over: met again, or nothing short any more.
        case met
        /// The call outlasted the grace sessions: every short is bought back at its close.
        case liquidate([Cover])
    }

    /// The close of `session` for `book` at `closes`: the borrow fee, then the maintenance check.
    /// `callSince` is the call in force before it; `sessionsSince` counts the closes since it
    /// started (this one included).
    public static func close(_ book: Book, closes: [Symbol: Price], rule: MarginRule, callSince: SessionDate?,
                             sessionsSince: Int) -> [CloseAction] {
        var actions: [CloseAction] = []
        let shorts = book.shorts
        guard !shorts.isEmpty else { return callSince == nil ? [] : [.met] }
        let fee = borrowFee(of: book, prices: closes, rule: rule)
        var after = book
        if fee > .zero {
            actions.append(.fee(fee))
            after.cash -= fee
        }
        let status = self.status(of: after, prices: closes, rule: rule)
        switch (status.isMet, callSince) {
        case (true, nil): break
        case (true, _?): actions.append(.met)
        case (false, nil): actions.append(.call(status))
        case (false, _?):
            if sessionsSince >= rule.graceSessions {
                actions.append(.liquidate(shorts.compactMap { short in
                    closes[short.symbol].map { Cover(symbol: short.symbol, quantity: -short.quantity, price: $0) }
                }))
            }
        }
        return actions
    }
}
