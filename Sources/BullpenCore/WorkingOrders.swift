import Foundation

/// How long an order stays working.
public enum TimeInForce: String, Sendable, Codable, CaseIterable {
    /// Until the close of its session (the next session when placed while the market is closed).
    case day
    /// Until cancelled, at most ``TimeInForce/gtcDays`` days.
    case gtc
    /// Immediate or cancel: what fills at once fills, the rest is cancelled.
    case ioc
    /// Fill or kill: the whole quantity at once, or nothing.
    case fok
    /// At the open of the next session (daily data: the next bar's open).
    case opg
    /// At the close of the next session (daily data: the next bar's close).
    case cls

    /// A good-'til-cancelled order expires this many calendar days after it was placed.
    public static let gtcDays = 90
}

/// Where an order stands.
public enum OrderStatus: String, Sendable, Codable, CaseIterable {
    case new
    case partiallyFilled = "partially_filled"
    case filled, canceled, expired, rejected, replaced

    /// Still working: it may fill, and it holds cash or shares back.
    public var isOpen: Bool { self == .new || self == .partiallyFilled }
}

/// How far a trailing stop follows the price: a fixed amount, or a share of the best price.
public enum Trail: Sendable, Hashable {
    case price(Price)
    /// Hundredths of a percent: 500 is 5 %.
    case percent(basisPoints: Int64)

    /// The distance from `mark`, rounded to the tick.
    public func offset(from mark: Price) -> Price {
        switch self {
        case .price(let amount): amount
        case .percent(let basisPoints): Price(ticks: FixedPoint.divideRounded(mark.ticks * basisPoints, by: 10_000))
        }
    }

    public var description: String {
        switch self {
        case .price(let amount): amount.dollars
        case .percent(let basisPoints):
            basisPoints % 100 == 0 ? "\(basisPoints / 100) %"
                : "\(FixedPoint.format(basisPoints, scale: 2).replacingOccurrences(of: #"0$"#, with: "", options: .regularExpression)) %"
        }
    }
}

/// An order's type and prices beyond side and quantity.
public struct OrderTerms: Sendable, Hashable {
    public var type: OrderType
    public var timeInForce: TimeInForce
    public var limit: Price?
    public var stop: Price?
    public var trail: Trail?

    public init(type: OrderType = .market, timeInForce: TimeInForce = .day, limit: Price? = nil, stop: Price? = nil,
                trail: Trail? = nil) {
        self.type = type
        self.timeInForce = timeInForce
        self.limit = limit
        self.stop = stop
        self.trail = trail
    }

    public static let market = OrderTerms()

    /// Whether an order on these terms fills at once (a market order of the day, gtc, ioc or
    /// fok) rather than waiting for a price or a moment.
    public var fillsAtOnce: Bool { type == .market && timeInForce != .opg && timeInForce != .cls }

    /// What is wrong with the terms, in words; nil when they make a valid order.
    public var problem: String? {
        func has(_ field: String, _ value: Any?, needed: Bool) -> String? {
            if needed, value == nil { return "A \(type.words) order needs \(field)." }
            if !needed, value != nil { return "A \(type.words) order has no \(field)." }
            return nil
        }
        let needsLimit = type == .limit || type == .stopLimit
        let needsStop = type == .stop || type == .stopLimit
        if let found = has("limitPrice", limit, needed: needsLimit) ?? has("stopPrice", stop, needed: needsStop)
            ?? has("a trail (trailPrice or trailPercent)", trail, needed: type == .trailingStop) {
            return found
        }
        for price in [limit, stop].compactMap({ $0 }) where price.ticks <= 0 {
            return "Prices must be above zero (\(price.dollars) is not)."
        }
        switch trail {
        case .price(let amount)? where amount.ticks <= 0: return "trailPrice must be above zero."
        case .percent(let basisPoints)? where !(1...5_000).contains(basisPoints): return "trailPercent must be above 0 and at most 50."
        default: break
        }
        if (timeInForce == .opg || timeInForce == .cls), type != .market, type != .limit {
            return "\(timeInForce.rawValue) orders fill at an auction price: they are market or limit orders."
        }
        return nil
    }
}

extension OrderType {
    /// The type in a sentence: "stop-limit", "trailing stop".
    public var words: String {
        switch self {
        case .market: "market"
        case .limit: "limit"
        case .stop: "stop"
        case .stopLimit: "stop-limit"
        case .trailingStop: "trailing stop"
        }
    }
}

/// What cash and shares working orders hold back: promised to them, so no other order may spend them.
public struct OrderHolds: Sendable, Hashable {
    public var cash: Money
    public var shares: [Symbol: Quantity]

    public init(cash: Money = .zero, shares: [Symbol: Quantity] = [:]) {
        self.cash = cash
        self.shares = shares
    }

    public static let none = OrderHolds()

    /// What `orders` hold together.
    public init<S: Sequence>(_ orders: S) where S.Element == WorkingOrder {
        self.init()
        for order in orders {
            cash += order.heldCash
            if order.heldShares > 0 { shares[order.symbol, default: 0] += order.heldShares }
        }
    }
}

/// An order that waits for its price or its moment: what the evaluation and the holds need.
public struct WorkingOrder: Sendable, Hashable {
    public var id: OrderID
    public var symbol: Symbol
    public var side: OrderSide
    public var quantity: Quantity
    public var filledQuantity: Quantity
    public var terms: OrderTerms
    /// A trailing stop's best price since it was placed: the highest for a sell, the lowest for a buy.
    public var waterMark: Price?
    /// A stop-limit whose stop was reached: it is a limit order from then on.
    public var triggered: Bool
    /// The session the order was placed on: only later sessions' bars may fill it.
    public var placedOn: SessionDate
    public var placedAt: Date
    /// The last session it works in (day, opg and cls orders); nil for good-'til-cancelled.
    public var lastSession: SessionDate?
    /// When a good-'til-cancelled order expires.
    public var expiresAt: Date?
    /// The per-share price a buy's cash is held at (its limit, or the expected fill for a stop).
    public var holdPrice: Price?
    /// The commission schedule the hold includes.
    public var commission: Commission

    public init(id: OrderID, symbol: Symbol, side: OrderSide, quantity: Quantity, filledQuantity: Quantity = .zero, terms: OrderTerms,
                waterMark: Price? = nil, triggered: Bool = false, placedOn: SessionDate, placedAt: Date,
                lastSession: SessionDate? = nil, expiresAt: Date? = nil, holdPrice: Price? = nil, commission: Commission = .free) {
        self.id = id
        self.symbol = symbol
        self.side = side
        self.quantity = quantity
        self.filledQuantity = filledQuantity
        self.terms = terms
        self.waterMark = waterMark
        self.triggered = triggered
        self.placedOn = placedOn
        self.placedAt = placedAt
        self.lastSession = lastSession
        self.expiresAt = expiresAt
        self.holdPrice = holdPrice
        self.commission = commission
    }

    public var remaining: Quantity { quantity - filledQuantity }

    /// The cash a buy holds back: the remaining shares at the hold price, with their commission.
    public var heldCash: Money {
        guard side == .buy, let holdPrice, remaining > 0 else { return .zero }
        let notional = holdPrice.notional(quantity: remaining)
        return notional + commissionNow.amount(on: notional)
    }

    /// The commission its next fill pays: the per-order fee once, on the first fill, and the rate on each.
    public var commissionNow: Commission {
        filledQuantity > 0 ? Commission(perOrder: .zero, basisPoints: commission.basisPoints) : commission
    }

    /// The shares a sell holds back.
    public var heldShares: Quantity { side == .sell ? remaining : 0 }

    /// The price that triggers the order: a stop's stop, a trailing stop's mark less (a sell) or
    /// plus (a buy) its trail.
    public var stopPrice: Price? {
        switch terms.type {
        case .stop, .stopLimit: return terms.stop
        case .trailingStop:
            guard let mark = waterMark, let trail = terms.trail else { return nil }
            let offset = trail.offset(from: mark)
            return side == .sell ? Price(ticks: max(0, mark.ticks - offset.ticks)) : Price(ticks: mark.ticks + offset.ticks)
        case .market, .limit: return nil
        }
    }

    /// Whether `price` satisfies a limit: at or below it for a buy, at or above it for a sell.
    func satisfies(_ limit: Price, at price: Price) -> Bool {
        side == .buy ? price <= limit : price >= limit
    }

    /// Whether `price` reaches a stop: at or above it for a buy, at or below it for a sell.
    func reaches(_ stop: Price, at price: Price) -> Bool {
        side == .buy ? price >= stop : price <= stop
    }

    /// Moves a trailing stop's mark with `price` (up for a sell, down for a buy).
    mutating func follow(_ price: Price) {
        guard terms.type == .trailingStop else { return }
        guard let mark = waterMark else { waterMark = price; return }
        waterMark = side == .sell ? max(mark, price) : min(mark, price)
    }

}

/// How a working order's fill was priced, for the player.
public enum WorkingFillReason: Sendable, Hashable {
    /// A live quote reached the order's price.
    case quote(Price, at: Date)
    /// The bar's range reached the limit: filled at the limit.
    case limitReached(Price, on: SessionDate)
    /// The bar opened through the limit: filled at the open, better than the limit.
    case openedThroughLimit(limit: Price, open: Price, on: SessionDate)
    /// The bar's range reached the stop: filled at the stop.
    case stopReached(Price, on: SessionDate)
    /// The bar opened beyond the stop (a gap): filled at the open, worse than the stop.
    case gappedThroughStop(stop: Price, open: Price, on: SessionDate)
    /// An at-the-open order: the bar's open.
    case atOpen(Price, on: SessionDate)
    /// An at-the-close order: the bar's close.
    case atClose(Price, on: SessionDate)

    public var code: String {
        switch self {
        case .quote: "quote"
        case .limitReached: "limit_reached"
        case .openedThroughLimit: "opened_through_limit"
        case .stopReached: "stop_reached"
        case .gappedThroughStop: "gapped_through_stop"
        case .atOpen: "at_open"
        case .atClose: "at_close"
        }
    }

    /// The session of the bar (nil for a live quote).
    public var session: SessionDate? {
        switch self {
        case .quote: nil
        case .limitReached(_, let day), .stopReached(_, let day), .atOpen(_, let day), .atClose(_, let day): day
        case .openedThroughLimit(_, _, let day), .gappedThroughStop(_, _, let day): day
        }
    }

    public var explanation: String {
        switch self {
        case .quote(let price, let at):
            "The market reached your price: filled at the quote of \(price.dollars) at \(at.formatted(.iso8601))."
        case .limitReached(let limit, let day):
            "On \(day) the price reached your limit of \(limit.dollars) during the day: filled at your limit."
        case .openedThroughLimit(let limit, let open, let day):
            "On \(day) the market opened at \(open.dollars), already better than your limit of \(limit.dollars): filled at the open."
        case .stopReached(let stop, let day):
            "On \(day) the price reached your stop of \(stop.dollars) during the day: the order became a market order and filled at the stop."
        case .gappedThroughStop(let stop, let open, let day):
            "On \(day) the market opened at \(open.dollars), past your stop of \(stop.dollars) (a gap): the order filled at the open, worse than the stop. A stop does not promise its price."
        case .atOpen(let open, let day):
            "An at-the-open order: filled at the opening price of \(day), \(open.dollars)."
        case .atClose(let close, let day):
            "An at-the-close order: filled at the closing price of \(day), \(close.dollars)."
        }
    }
}

/// A fill the evaluation decided: how many shares, at what price, and why.
public struct WorkingFill: Sendable, Hashable {
    public var orderID: OrderID
    public var price: Price
    public var quantity: Quantity
    public var reason: WorkingFillReason
    /// The shares the volume cap left working (zero when it did not bind).
    public var cappedBy: Quantity

    public init(orderID: OrderID, price: Price, quantity: Quantity, reason: WorkingFillReason, cappedBy: Quantity = .zero) {
        self.orderID = orderID
        self.price = price
        self.quantity = quantity
        self.reason = reason
        self.cappedBy = cappedBy
    }

    public var explanation: String {
        var text = reason.explanation
        if cappedBy > 0 {
            text += " The volume cap let \(quantity) share\(quantity == 1 ? "" : "s") fill; \(cappedBy) stay working."
        }
        return text
    }
}

/// The pure rules of when and at what price working orders fill.
public enum OrderEvaluation {
    /// What one bar does to `order`: the order as it leaves it (a trailing mark moved, a stop-limit
    /// triggered) and the fill, if any. A bar of the order's own session or earlier never fills
    /// it (it was placed after that bar's prices were known).
    ///
    /// Within a bar the path between open, high, low and close is unknown, so the rules are the
    /// conservative ones: the open comes first; a limit fills at the limit when the range reaches
    /// it, at the open when the bar opens through it; a stop fills at the stop when the range
    /// reaches it, at the open when the bar gaps through it; a stop-limit triggered in a bar fills
    /// in it only if the trigger price satisfies its limit (it works as a limit from the next bar);
    /// a trailing stop's mark moves with the open before the check, with the high (a sell) or low
    /// (a buy) only after it.
    public static func evaluate(_ order: WorkingOrder, bar: DailyBar, volumeCapBasisPoints: Int64? = nil) -> (order: WorkingOrder, fill: WorkingFill?) {
        var order = order
        guard bar.date > order.placedOn, order.remaining > 0 else { return (order, nil) }
        if let last = order.lastSession, bar.date > last { return (order, nil) }
        let day = bar.date
        var found: (price: Price, reason: WorkingFillReason)?
        switch order.terms.timeInForce {
        case .opg:
            if order.terms.limit.map({ order.satisfies($0, at: bar.open) }) ?? true { found = (bar.open, .atOpen(bar.open, on: day)) }
        case .cls:
            if order.terms.limit.map({ order.satisfies($0, at: bar.close) }) ?? true { found = (bar.close, .atClose(bar.close, on: day)) }
        default:
            found = crossing(&order, bar: bar)
        }
        guard let found else { return (order, nil) }
        var quantity = order.remaining
        var capped = Quantity.zero
        if let cap = volumeCapBasisPoints {
            // Saturating: a meme coin trades more than a quantity holds in a day.
            let exact = Quantity(units: FixedPoint.multiplyDivideSaturating(max(bar.volume, 0), cap * Quantity.unitsPerWhole, 10_000))
            let allowed = quantity.isWhole ? exact.roundedDown(to: .whole) : exact
            if allowed <= .zero { return (order, nil) }
            if allowed < quantity { capped = quantity - allowed; quantity = allowed }
        }
        return (order, WorkingFill(orderID: order.id, price: found.price, quantity: quantity, reason: found.reason, cappedBy: capped))
    }

    private static func crossing(_ order: inout WorkingOrder, bar: DailyBar) -> (Price, WorkingFillReason)? {
        let day = bar.date
        let favourable = order.side == .buy ? bar.low : bar.high   // the best price of the bar for the order
        let adverse = order.side == .buy ? bar.high : bar.low      // the price a stop watches
        switch order.terms.type {
        case .market:
            return nil
        case .limit:
            return limitFill(order, limit: order.terms.limit, bar: bar, favourable: favourable)
        case .stopLimit where order.triggered:
            return limitFill(order, limit: order.terms.limit, bar: bar, favourable: favourable)
        case .stop, .stopLimit:
            guard let stop = order.terms.stop else { return nil }
            let trigger: Price
            let gap: Bool
            if order.reaches(stop, at: bar.open) { trigger = bar.open; gap = true }
            else if order.reaches(stop, at: adverse) { trigger = stop; gap = false }
            else { return nil }
            if order.terms.type == .stop {
                return (trigger, gap ? .gappedThroughStop(stop: stop, open: bar.open, on: day) : .stopReached(stop, on: day))
            }
            order.triggered = true
            guard let limit = order.terms.limit, order.satisfies(limit, at: trigger) else { return nil }
            return (trigger, gap ? .gappedThroughStop(stop: stop, open: bar.open, on: day) : .stopReached(stop, on: day))
        case .trailingStop:
            if let stop = order.stopPrice, order.reaches(stop, at: bar.open) {
                return (bar.open, .gappedThroughStop(stop: stop, open: bar.open, on: day))
            }
            order.follow(bar.open)
            if let stop = order.stopPrice, order.reaches(stop, at: adverse) {
                return (stop, .stopReached(stop, on: day))
            }
            order.follow(favourable)   // the mark moves with the bar's best price, after the check
            return nil
        }
    }

    private static func limitFill(_ order: WorkingOrder, limit: Price?, bar: DailyBar, favourable: Price) -> (Price, WorkingFillReason)? {
        guard let limit else { return nil }
        if order.satisfies(limit, at: bar.open) { return (bar.open, .openedThroughLimit(limit: limit, open: bar.open, on: bar.date)) }
        if order.satisfies(limit, at: favourable) { return (limit, .limitReached(limit, on: bar.date)) }
        return nil
    }

    /// What a live quote of `price` at `time` does to `order`: the order as it leaves it and the
    /// fill, at the quote, if the quote reaches the order's price. Market orders at the open or
    /// close are not filled by quotes.
    public static func evaluate(_ order: WorkingOrder, quote price: Price, at time: Date) -> (order: WorkingOrder, fill: WorkingFill?) {
        var order = order
        guard order.remaining > 0, order.terms.timeInForce != .opg, order.terms.timeInForce != .cls else { return (order, nil) }
        let fill = WorkingFill(orderID: order.id, price: price, quantity: order.remaining, reason: .quote(price, at: time))
        switch order.terms.type {
        case .market:
            return (order, nil)
        case .limit:
            guard let limit = order.terms.limit, order.satisfies(limit, at: price) else { return (order, nil) }
            return (order, fill)
        case .stop:
            guard let stop = order.terms.stop, order.reaches(stop, at: price) else { return (order, nil) }
            return (order, fill)
        case .stopLimit:
            if !order.triggered {
                guard let stop = order.terms.stop, order.reaches(stop, at: price) else { return (order, nil) }
                order.triggered = true
            }
            guard let limit = order.terms.limit, order.satisfies(limit, at: price) else { return (order, nil) }
            return (order, fill)
        case .trailingStop:
            order.follow(price)
            guard let stop = order.stopPrice, order.reaches(stop, at: price) else { return (order, nil) }
            return (order, fill)
        }
    }

    /// The per-share price a buy on `terms` holds cash at, given the price now: its limit (a
    /// limit or stop-limit), else the higher of its stop and the price now (a stop), the price
    /// now plus the trail (a trailing stop), or the price now.
    public static func holdPrice(for terms: OrderTerms, side: OrderSide, now price: Price) -> Price? {
        guard side == .buy else { return nil }
        switch terms.type {
        case .limit, .stopLimit: return terms.limit
        case .stop: return max(terms.stop ?? price, price)
        case .trailingStop: return Price(ticks: price.ticks + (terms.trail?.offset(from: price).ticks ?? 0))
        case .market: return price
        }
    }

    /// A market order's price after slippage: `basisPoints` worse than `price` for the side.
    public static func slipped(_ price: Price, side: OrderSide, basisPoints: Int64) -> Price {
        guard basisPoints > 0 else { return price }
        let move = FixedPoint.divideRounded(price.ticks * basisPoints, by: 10_000)
        return Price(ticks: side == .buy ? price.ticks + move : max(0, price.ticks - move))
    }
}

/// The one sentence the trade sheet shows: what an order will do.
public enum OrderSentence {
    public static func describe(side: OrderSide, quantity: Quantity, symbol: Symbol, terms: OrderTerms) -> String {
        let verb = side == .buy ? "Buy" : "Sell"
        let what = "\(verb) \(quantity) \(symbol)"
        let condition: String
        switch terms.type {
        case .market:
            condition = switch terms.timeInForce {
            case .opg: " at the opening price of the next session"
            case .cls: " at the closing price of the next session"
            default: " now at the market price"
            }
        case .limit:
            let limit = terms.limit?.dollars ?? "?"
            let prefix = terms.timeInForce == .opg ? " at the next open" : terms.timeInForce == .cls ? " at the next close" : ""
            condition = prefix + (side == .buy ? " if the price is \(limit) or lower" : " if the price is \(limit) or higher")
        case .stop:
            let stop = terms.stop?.dollars ?? "?"
            condition = side == .buy ? " at the market price once it rises to \(stop) or higher"
                                     : " at the market price once it falls to \(stop) or lower"
        case .stopLimit:
            let stop = terms.stop?.dollars ?? "?", limit = terms.limit?.dollars ?? "?"
            condition = side == .buy ? " once the price rises to \(stop), paying at most \(limit)"
                                     : " once the price falls to \(stop), taking at least \(limit)"
        case .trailingStop:
            let trail = terms.trail?.description ?? "?"
            condition = side == .buy ? " if the price rises \(trail) above its lowest point since now"
                                     : " if the price falls \(trail) below its highest point since now"
        }
        let until = switch terms.timeInForce {
        case .day: terms.type == .market ? "" : ", until the end of the trading day"
        case .gtc: terms.type == .market ? "" : ", until you cancel it (at most \(TimeInForce.gtcDays) days)"
        case .ioc: terms.type == .market ? "" : "; what cannot fill at once is cancelled"
        case .fok: terms.type == .market ? "" : "; all at once or nothing"
        case .opg, .cls: ""
        }
        return what + condition + until + "."
    }
}

extension OrderHolds {
    /// The holds without `order`'s own (what its fill may use besides them).
    public func removing(_ order: WorkingOrder) -> OrderHolds {
        var holds = self
        holds.cash = holds.cash - order.heldCash
        if order.heldShares > 0 {
            let left = (holds.shares[order.symbol] ?? 0) - order.heldShares
            holds.shares[order.symbol] = left > 0 ? left : nil
        }
        return holds
    }
}

extension TradingEngine {
    /// Fills `fill.quantity` of a working order at `fill.price`: its own hold is released first,
    /// the others stay. The rules are checked again (cash may have been spent, a gap may cost more
    /// than was held).
    /// - Returns: the fill, the book after it (its holds without the order: the caller sets them
    ///   from the orders left working), and the order with the quantity filled.
    public static func fill(_ order: WorkingOrder, with fill: WorkingFill, on book: Book, rules: PortfolioRules,
                            context: OrderContext) throws(OrderRejection) -> (fill: Fill, book: Book, order: WorkingOrder) {
        var book = book
        book.holds = book.holds.removing(order)
        var request = OrderRequest(symbol: order.symbol, side: order.side, quantity: min(fill.quantity, order.remaining),
                                   type: order.terms.type)
        // Its lot (a share, a millionth of one, a satoshi) was checked when it was placed; a part fill is any amount.
        request.lotChecked = true
        // An order pays its per-order fee once, with its first fill.
        var rules = rules
        rules.commission = Commission(perOrder: order.filledQuantity > 0 ? .zero : rules.commission.perOrder,
                                      basisPoints: rules.commission.basisPoints)
        let (done, after) = try execute(request, on: book, at: fill.price, rules: rules, context: context)
        var order = order
        order.filledQuantity += done.quantity
        return (done, after, order)
    }
}

/// What a replay's advance did to one working order, in the order it happened.
public enum ReplayOrderEvent: Sendable, Hashable {
    /// Filled (wholly or in part) on a bar; `order` is the order after the fill.
    case filled(WorkingFill, order: WorkingOrder)
    /// The bar reached the order's price but the fill broke a rule (a gap cost more than the cash).
    case rejected(WorkingOrder, OrderRejection, on: SessionDate)
    /// Its time ran out.
    case expired(WorkingOrder, on: SessionDate)
    /// Still working, changed (a trailing stop's mark moved, a stop-limit triggered): its final state.
    case changed(WorkingOrder)
    /// An option contract settled at its expiration.
    case settled(OptionSettlement)
    /// A session's close under the margin rule: a borrow fee, a margin call, its end, or the
    /// shorts bought back.
    case margin(Margin.CloseAction, on: SessionDate)
    /// A split or a dividend on its ex-date, before the session traded (`price`: the day's close,
    /// for a split's fraction paid in cash).
    case corporate(CorporateAction, price: Price?)
}

/// Working orders as a replay's advance walks them: each session's bar evaluated for each order,
/// fills executed on the book in order of placement, the day's expiries after the bar.
public struct ReplayOrderWalk: Sendable {
    public var working: [WorkingOrder]
    public var bars: [Symbol: [SessionDate: DailyBar]]
    public var rules: PortfolioRules

    public init(working: [WorkingOrder], bars: [Symbol: [SessionDate: DailyBar]], rules: PortfolioRules) {
        self.working = working.sorted { ($0.placedAt, $0.id.uuid.uuidString) < ($1.placedAt, $1.id.uuid.uuidString) }
        self.bars = bars
        self.rules = rules
    }

    /// The session `date`: every order whose time is not out is evaluated against its symbol's
    /// bar; fills change `book`; orders whose last session this was, or whose good-'til-cancelled
    /// time ran out, expire. `book`'s holds are left as the orders still working hold.
    public mutating func step(_ date: SessionDate, book: inout Book) -> [ReplayOrderEvent] {
        var events: [ReplayOrderEvent] = []
        var index = 0
        while index < working.count {
            var order = working[index]
            var gone = false
            if let expires = order.expiresAt, date.date >= expires {
                events.append(.expired(order, on: date))
                gone = true
            } else if let bar = bars[order.symbol]?[date] {
                let (evaluated, fill) = OrderEvaluation.evaluate(order, bar: bar, volumeCapBasisPoints: rules.volumeCapBasisPoints)
                order = evaluated
                if let fill {
                    book.holds = OrderHolds(working)
                    do {
                        let done = try TradingEngine.fill(working[index], with: fill, on: book, rules: rules,
                                                          context: OrderContext(trading: true))
                        book = done.book
                        order.filledQuantity = done.order.filledQuantity
                        events.append(.filled(fill, order: order))
                        gone = order.remaining == 0
                    } catch {
                        events.append(.rejected(order, error, on: date))
                        gone = true
                    }
                }
            }
            if !gone, let last = order.lastSession, date >= last {
                events.append(.expired(order, on: date))
                gone = true
            }
            if gone { working.remove(at: index) } else { working[index] = order; index += 1 }
        }
        book.holds = OrderHolds(working)
        return events
    }

    /// Adjusts the working orders of a split's symbol, as brokers do.
    /// Adjusts the working orders of a split's symbol, as brokers do; one left with no whole share
    /// to fill (a reverse split) ends.
    public mutating func adjust(for action: CorporateAction) {
        working = working.map { $0.adjusted(for: action) }.filter { $0.remaining > 0 }
    }

    /// The orders still working that differ from what they were in `initial` (a mark moved, a
    /// stop-limit triggered, a part filled): their state now.
    public func changes(since initial: [WorkingOrder]) -> [ReplayOrderEvent] {
        let before = Dictionary(initial.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        return working.filter { before[$0.id] != $0 }.map { .changed($0) }
    }
}

/// When a working order may fill and when its time runs out.
public struct OrderSchedule: Sendable, Hashable {
    /// The session it was placed on: only later bars fill it.
    public var placedOn: SessionDate
    /// The last session it works in (day, opg, cls on daily bars).
    public var lastSession: SessionDate?
    /// When it expires (a live day order at its session's close; good-'til-cancelled after 90 days).
    public var expiresAt: Date?

    public init(placedOn: SessionDate, lastSession: SessionDate? = nil, expiresAt: Date? = nil) {
        self.placedOn = placedOn
        self.lastSession = lastSession
        self.expiresAt = expiresAt
    }

    /// On the live clock at `now`: a day order works until the close of the session in progress,
    /// or of the next one when the market is closed. A coin's day is the UTC day: its day order
    /// works until midnight UTC.
    public static func live(_ timeInForce: TimeInForce, now: Date, assetClass: AssetClass = .usEquity,
                            calendar: TradingCalendar = TradingCalendar()) -> OrderSchedule {
        let today = TradingCalendar.sessionDate(at: now)
        var schedule = OrderSchedule(placedOn: today)
        switch timeInForce {
        case .day where assetClass == .crypto:
            schedule.expiresAt = SessionDate(now).adding(days: 1).date
        case .day, .opg, .cls:
            var session = today
            if !calendar.isTradingDay(today) || (calendar.sessionBounds(on: today).map { now >= $0.close } ?? true) {
                session = calendar.nextTradingDay(after: today)
            }
            schedule.expiresAt = calendar.sessionBounds(on: session)?.close
        case .gtc:
            schedule.expiresAt = now.addingTimeInterval(Double(TimeInForce.gtcDays) * 86_400)
        case .ioc, .fok:
            break
        }
        return schedule
    }

    /// On a replay standing on `date` (its close is known): day, opg and cls orders work in the
    /// next session's bar (a coin's day order in the next day's); good-'til-cancelled ones until
    /// 90 days after `date`.
    public static func replay(_ timeInForce: TimeInForce, on date: SessionDate, assetClass: AssetClass = .usEquity,
                              calendar: TradingCalendar = TradingCalendar()) -> OrderSchedule {
        var schedule = OrderSchedule(placedOn: date)
        switch timeInForce {
        case .day where assetClass == .crypto: schedule.lastSession = date.adding(days: 1)
        case .day, .opg, .cls: schedule.lastSession = calendar.nextTradingDay(after: date)
        case .gtc: schedule.expiresAt = date.date.addingTimeInterval(Double(TimeInForce.gtcDays) * 86_400)
        case .ioc, .fok: break
        }
        return schedule
    }
}

/// Working orders indexed by symbol and trigger price, so that a quote update finds the orders it
/// may fill by two binary searches instead of a look at every order. Limits and untriggered stops
/// sit at their price on one of two sorted lists per symbol: those that act when the price falls
/// to them (buy limits, sell stops) and those that act when it rises to them (sell limits, buy
/// stops). Trailing stops, whose stop moves with the price, are looked at on every update of
/// their symbol.
public struct TriggerIndex: Sendable {
    public let orders: [WorkingOrder]
    private var falling: [Symbol: [(price: Int64, index: Int)]] = [:]
    private var rising: [Symbol: [(price: Int64, index: Int)]] = [:]
    private var moving: [Symbol: [Int]] = [:]

    public init(_ orders: [WorkingOrder]) {
        self.orders = orders
        for (index, order) in orders.enumerated() {
            guard order.terms.timeInForce != .opg, order.terms.timeInForce != .cls else { continue }
            let buy = order.side == .buy
            switch order.terms.type {
            case .market:
                continue
            case .trailingStop:
                moving[order.symbol, default: []].append(index)
            case .limit:
                if let limit = order.terms.limit { add(order.symbol, limit, index, whenFalling: buy) }
            case .stop:
                if let stop = order.terms.stop { add(order.symbol, stop, index, whenFalling: !buy) }
            case .stopLimit:
                if order.triggered, let limit = order.terms.limit { add(order.symbol, limit, index, whenFalling: buy) }
                else if let stop = order.terms.stop { add(order.symbol, stop, index, whenFalling: !buy) }
            }
        }
        for symbol in falling.keys { falling[symbol]!.sort { $0.price < $1.price } }
        for symbol in rising.keys { rising[symbol]!.sort { $0.price < $1.price } }
    }

    private mutating func add(_ symbol: Symbol, _ price: Price, _ index: Int, whenFalling: Bool) {
        if whenFalling { falling[symbol, default: []].append((price.ticks, index)) }
        else { rising[symbol, default: []].append((price.ticks, index)) }
    }

    /// The symbols with working orders.
    public var symbols: [Symbol] { Array(Set(falling.keys).union(rising.keys).union(moving.keys)).sorted() }

    /// The orders a price of `price` for `symbol` may act on: those whose price it reached, and
    /// the trailing stops of the symbol. Indices into ``orders``.
    public func candidates(_ symbol: Symbol, at price: Price) -> [Int] {
        var found: [Int] = moving[symbol] ?? []
        if let list = falling[symbol] {
            // Acting when the price falls to them: every one priced at or above the price now.
            let first = Self.firstIndex(in: list) { $0 >= price.ticks }
            found += list[first...].map(\.index)
        }
        if let list = rising[symbol] {
            // Acting when the price rises to them: every one priced at or below it.
            let end = Self.firstIndex(in: list) { $0 > price.ticks }
            found += list[..<end].map(\.index)
        }
        return found
    }

    /// The first position whose price satisfies `predicate` (which is false, then true, along the list).
    private static func firstIndex(in list: [(price: Int64, index: Int)], where predicate: (Int64) -> Bool) -> Int {
        var low = 0, high = list.count
        while low < high {
            let middle = (low + high) / 2
            if predicate(list[middle].price) { high = middle } else { low = middle + 1 }
        }
        return low
    }

    /// What the quotes do to the orders: each candidate evaluated at its symbol's price. Fills,
    /// and the orders that changed without filling (a trailing mark moved, a stop-limit triggered).
    public func evaluate(_ quotes: [Symbol: (price: Price, at: Date)]) -> (fills: [(order: WorkingOrder, fill: WorkingFill)], changed: [WorkingOrder]) {
        var fills: [(order: WorkingOrder, fill: WorkingFill)] = []
        var changed: [WorkingOrder] = []
        for (symbol, quote) in quotes {
            for index in candidates(symbol, at: quote.price) {
                let order = orders[index]
                let (after, fill) = OrderEvaluation.evaluate(order, quote: quote.price, at: quote.at)
                if let fill { fills.append((after, fill)) } else if after != order { changed.append(after) }
            }
        }
        return (fills, changed)
    }
}
