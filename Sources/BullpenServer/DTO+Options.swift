import BullpenAPI
import BullpenCore
import BullpenMarketData
import Foundation

extension OptionContractDTO {
    init(_ contract: OptionContract) {
        self.init(symbol: contract.occSymbol, positionSymbol: contract.symbol.rawValue, underlying: contract.underlying.rawValue,
                  type: contract.type.rawValue, expiration: contract.expiration.description,
                  strike: contract.strike.decimalString, multiplier: OptionContract.multiplier, title: contract.title)
    }

    /// The terms of `symbol` when it is an option contract's.
    init?(_ symbol: Symbol) {
        guard let contract = symbol.option else { return nil }
        self.init(contract)
    }
}

extension Price {
    /// A unit's price as the wire shows it: per share (a contract's price over its 100 shares).
    func perShare(of symbol: Symbol) -> Price { Price(ticks: ticks / symbol.multiplier) }
}

/// Greeks and rates as decimal strings, to a fixed number of places.
enum Decimals {
    static func format(_ value: Double, places: Int = 4) -> String {
        guard value.isFinite else { return "0" }
        let text = String(format: "%.\(places)f", value)
        return text == "-" + String(format: "%.\(places)f", 0.0) ? String(format: "%.\(places)f", 0.0) : text
    }
}

extension OptionQuoteDTO {
    init(_ quote: OptionQuote, previous: OptionQuote?) {
        let breakEven = quote.contract.type == .call
            ? Price(ticks: quote.contract.strike.ticks + quote.ask.ticks)
            : Price(ticks: max(0, quote.contract.strike.ticks - quote.ask.ticks))
        self.init(contract: OptionContractDTO(quote.contract), bid: quote.bid.decimalString, ask: quote.ask.decimalString,
                  mid: quote.fair.decimalString,
                  change: previous.map { Price(ticks: quote.fair.ticks - $0.fair.ticks).decimalString },
                  intrinsic: quote.intrinsic.decimalString, impliedVolatility: Decimals.format(quote.volatility),
                  delta: Decimals.format(quote.valuation.delta), gamma: Decimals.format(quote.valuation.gamma),
                  theta: Decimals.format(quote.valuation.theta / 365), vega: Decimals.format(quote.valuation.vega / 100),
                  rho: Decimals.format(quote.valuation.rho / 100), daysToExpiration: quote.days,
                  breakEven: breakEven.decimalString, inTheMoney: quote.intrinsic.ticks > 0)
    }
}

extension OptionModelDTO {
    init(_ market: OptionMarket) {
        self.init(name: "black-scholes-merton", asOf: market.date.description, spot: market.spot.decimalString,
                  volatility: Decimals.format(market.volatility), rate: Decimals.format(market.rate),
                  description: OptionModelDTO.sentence(market))
    }

    static func sentence(_ market: OptionMarket) -> String {
        "Modelled prices, not real quotes: Black-Scholes-Merton with \(market.underlying) at $\(market.spot.decimalString) "
            + "(\(market.date)), its realised volatility of \(Decimals.format(market.volatility * 100, places: 1)) % a year "
            + "(half the last month's, half the last year's) and a risk-free rate of \(Decimals.format(market.rate * 100, places: 2)) %; "
            + "bid and ask stand around the model value, wider away from the money and near expiry."
    }
}

extension OptionSettlementDTO {
    init(_ settlement: OptionSettlement) {
        let contract = settlement.contract
        let shares = settlement.outcome == .exercised || settlement.outcome == .assigned
            ? settlement.contracts * OptionContract.multiplier : 0
        let count = "\(settlement.contracts) contract\(settlement.contracts == 1 ? "" : "s")"
        let written = settlement.legs.first?.side == .buy   // a written contract closes with a buy
        let stock = "\(contract.underlying) at \(settlement.spot.dollars)"
        let cash = Money(cents: abs(settlement.cashDelta.cents)).dollars
        let strike = contract.strike.dollars
        let message: String
        switch settlement.outcome {
        case .exercised:
            let verb = contract.type == .call ? "bought" : "sold"
            message = "\(settlement.automatic ? "Exercised at expiry" : "Exercised") \(count) of \(contract.title): "
                + "\(verb) \(shares) shares of \(contract.underlying) at the \(strike) strike "
                + "(\(contract.type == .call ? "paid" : "received") \(cash)) with the stock at "
                + "\(settlement.spot.dollars)."
        case .assigned:
            message = "Assigned \(count) of \(contract.title) you wrote, with \(stock): "
                + (contract.type == .call
                    ? "delivered \(shares) shares at the \(strike) strike (received \(cash)); the premium received counts in the proceeds."
                    : "bought \(shares) shares at the \(strike) strike (paid \(cash)); the premium received comes off their cost.")
        case .cashSettled where written:
            message = "\(count) of \(contract.title) you wrote expired in the money with \(stock), without the "
                + "\(contract.type == .call ? "shares to deliver" : "cash to buy the shares"): settled in cash for its intrinsic value, \(cash) paid."
        case .cashSettled:
            message = "\(count) of \(contract.title) expired in the money with \(stock) and "
                + "\(contract.type == .call ? "not enough cash to buy" : "not enough shares to sell") the shares: settled in cash for "
                + "its intrinsic value, \(cash)."
        case .expiredWorthless where written:
            message = "\(count) of \(contract.title) you wrote expired worthless with \(stock): the premium received is kept."
        case .expiredWorthless:
            message = "\(count) of \(contract.title) expired worthless with \(stock): the premium paid is lost."
        }
        self.init(contract: OptionContractDTO(contract), contracts: settlement.contracts.wholePart, outcome: settlement.outcome.rawValue,
                  automatic: settlement.automatic, underlyingPrice: settlement.spot.decimalString,
                  date: settlement.date.description, shares: shares.wholePart, cashDelta: settlement.cashDelta.decimalString,
                  realizedPnl: settlement.realizedPnL.decimalString, message: message)
    }
}
