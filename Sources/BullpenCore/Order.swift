import Foundation

/// Buy or sell.
public enum OrderSide: String, Sendable, Codable, CaseIterable {
    case buy, sell
}

/// How an order is priced: at once at the market, or waiting for a price (see ``OrderTerms``).
public enum OrderType: String, Sendable, Codable, CaseIterable {
    case market, limit, stop
    case stopLimit = "stop_limit"
    case trailingStop = "trailing_stop"
}

/// What kind of instrument an order is for; portfolio rules may allow only some.
public enum InstrumentKind: String, Sendable, Codable, CaseIterable {
    case stock
    case option
}

/// A player's request to trade, already validated for shape (not yet against the portfolio).
public struct OrderRequest: Sendable, Hashable {
    public var symbol: Symbol
    public var side: OrderSide
    public var quantity: Quantity
    /// The type, prices and time in force.
    public var terms: OrderTerms
    public var instrument: InstrumentKind
    public var clientOrderID: String?
    /// Only closes (part of) a position: a sell of at most the shares held, a buy of at most the
    /// shares short, checked when it executes, so that two closes at once never open the other side.
    public var reduceOnly = false
    /// An order by amount: the dollars to trade. ``quantity`` is then what they buy at the order's
    /// price, rounded down to the lot (``resolvingNotional(at:lot:)``), zero until it is priced.
    public var notional: Money?
    /// What the symbol is (the market data says, when the order is priced): crypto trades around
    /// the clock, to 10⁻⁸ of a coin, where the rules allow crypto.
    public var assetClass: AssetClass = .usEquity
    /// Set on the fill of a working order, whose lot was checked when it was placed.
    public var lotChecked = false

    public var type: OrderType {
        get { terms.type }
        set { terms.type = newValue }
    }

    /// `instrument` is the symbol's own (a stock, or an option contract) unless given.
    public init(symbol: Symbol, side: OrderSide, quantity: Quantity, type: OrderType = .market,
                instrument: InstrumentKind? = nil, clientOrderID: String? = nil) {
        self.init(symbol: symbol, side: side, quantity: quantity, terms: OrderTerms(type: type),
                  instrument: instrument, clientOrderID: clientOrderID)
    }

    public init(symbol: Symbol, side: OrderSide, quantity: Quantity, terms: OrderTerms,
                instrument: InstrumentKind? = nil, clientOrderID: String? = nil) {
        self.symbol = symbol
        self.side = side
        self.quantity = quantity
        self.terms = terms
        self.instrument = instrument ?? symbol.instrument
        self.clientOrderID = clientOrderID
    }

    /// An order for `notional` dollars of `symbol`, its quantity set when it is priced.
    public init(symbol: Symbol, side: OrderSide, notional: Money, terms: OrderTerms = OrderTerms(type: .market),
                clientOrderID: String? = nil) {
        self.init(symbol: symbol, side: side, quantity: .zero, terms: terms, clientOrderID: clientOrderID)
        self.notional = notional
    }

    /// This order with an amount turned into a quantity at `price` (the fill price of a market
    /// order, the limit of a limit order): the most of `lot` whose value is at most the amount.
    /// An order by quantity is returned as it is.
    public func resolvingNotional(at price: Price, lot: Lot) -> OrderRequest {
        guard let notional else { return self }
        var resolved = self
        resolved.quantity = price.quantity(affordableWith: notional, lot: lot)
        return resolved
    }
}

/// An executed trade: `quantity` shares at `price`.
public struct Fill: Sendable, Hashable {
    public var symbol: Symbol
    public var side: OrderSide
    public var quantity: Quantity
    public var price: Price
    /// `price × quantity`, rounded once to the cent.
    public var notional: Money
    public var commission: Money
    /// For sells: proceeds less commission less the cost basis of the shares sold. Zero for buys.
    public var realizedPnL: Money
    /// What the fill did to cash: `-(notional + commission)` for a buy, `notional - commission` for a sell.
    public var cashDelta: Money

    public init(symbol: Symbol, side: OrderSide, quantity: Quantity, price: Price, notional: Money,
                commission: Money, realizedPnL: Money, cashDelta: Money) {
        self.symbol = symbol
        self.side = side
        self.quantity = quantity
        self.price = price
        self.notional = notional
        self.commission = commission
        self.realizedPnL = realizedPnL
        self.cashDelta = cashDelta
    }

    /// Shares added to (buy) or removed from (sell) the position.
    public var quantityDelta: Quantity { side == .buy ? quantity : -quantity }
}
