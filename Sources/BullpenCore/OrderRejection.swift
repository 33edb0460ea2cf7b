import Foundation

/// Why an order was not executed. Each case has a stable wire `code`; the server maps them to HTTP
/// statuses in one place.
public enum OrderRejection: Error, Sendable, Hashable {
    case unknownSymbol(Symbol)
    /// A replay stands on a date before the company was listed.
    case notListedYet(Symbol, on: SessionDate)
    case noPrice(Symbol)
    /// The symbol's data has ended: it can be sold at its last price but not bought.
    case notTrading(Symbol)
    case insufficientFunds(required: Money, available: Money)
    case insufficientShares(requested: Quantity, held: Quantity)
    case quantityOutOfRange(Quantity, allowed: ClosedRange<Quantity>)
    /// Not a whole number of the instrument's lot (whole shares, or a millionth of a share).
    case quantityNotInLots(Quantity, lot: Lot)
    /// An order by amount that buys less than one lot at its price.
    case notionalTooSmall(Money, price: Price, lot: Lot)
    /// The rules (a league's) do not allow cryptocurrencies.
    case cryptoNotAllowed
    case tooManyHoldings(limit: Int)
    case instrumentNotAllowed(InstrumentKind)
    case marketDataUnavailable
    /// The buy would make one position a larger share of the equity than the rules allow.
    case positionTooLarge(symbol: Symbol, limitBasisPoints: Int64, wouldBeBasisPoints: Int64)
    case belowMinimumPrice(Symbol, price: Price, minimum: Money)
    /// The rules trade only while the exchange is open.
    case marketClosed
    /// A coin's opening or closing order (`opg`, `cls`): a coin trades around the clock.
    public static let coinAuction = OrderRejection.orderTypeNotAvailable(
        "A coin trades around the clock: it has no opening or closing auction to fill at. Use a day order (until midnight UTC) or a good-'til-cancelled one.")
    /// A replay standing on a day the exchange is closed (its clock counts every day, for coins):
    /// shares and options trade again on `opens`.
    case exchangeClosed(on: SessionDate, opens: SessionDate)
    case tradingNotOpen(until: Date)
    case tradingClosed(since: Date)
    /// Exercising or selling more option contracts than held.
    case insufficientContracts(requested: Quantity, held: Quantity)
    /// The contract's expiration day has passed: it no longer trades or exercises.
    case optionExpired(Symbol, on: SessionDate)
    /// Buying a contract the chain does not list (an expiration or strike it does not offer).
    case contractNotListed(Symbol)
    /// Exercising a contract that is not in the money.
    case outOfTheMoney(Symbol, spot: Price)
    /// Selling a contract not held when the rules do not allow writing contracts.
    case writingNotAllowed(Symbol)
    /// Writing a call without 100 free shares of the underlying for each contract.
    case uncoveredCall(Symbol, sharesNeeded: Quantity, sharesFree: Quantity)
    /// Writing a put without the free cash to buy 100 shares for each contract at the strike.
    case unsecuredPut(Symbol, cashNeeded: Money, cashFree: Money)
    /// Buying back more contracts than were written (close them first, then buy to hold).
    case buyBackExceedsWritten(requested: Quantity, written: Quantity)
    /// Spending cash that written puts hold back.
    case cashReserved(required: Money, free: Money, reserved: Money)
    /// Selling or delivering shares that written calls hold back.
    case sharesCommitted(Symbol, requested: Quantity, free: Quantity, committed: Quantity)
    /// An order type or time in force that this portfolio or instrument cannot use; the reason in words.
    case orderTypeNotAvailable(String)
    /// Selling more shares than held when the rules allow no short sales (or beyond a long position).
    case shortingNotAllowed(Symbol, held: Quantity)
    /// A short sale whose collateral (proceeds plus initial margin) the free cash cannot hold.
    case marginInsufficient(required: Money, available: Money)
    /// Buying back more shares than are short.
    case coverExceedsShort(requested: Quantity, short: Quantity)
    /// Options on a stock sold short, or a short sale of a stock with options on it: an exercise
    /// or an assignment would deliver shares into the short.
    case optionsWhileShort(Symbol)

    /// The stable code clients switch on.
    public var code: String {
        switch self {
        case .unknownSymbol: "unknown_symbol"
        case .notListedYet: "not_listed_yet"
        case .noPrice: "no_price"
        case .notTrading: "not_trading"
        case .insufficientFunds: "insufficient_funds"
        case .insufficientShares: "insufficient_shares"
        case .quantityOutOfRange, .quantityNotInLots, .notionalTooSmall: "quantity_out_of_range"
        case .cryptoNotAllowed: "instrument_not_allowed"
        case .tooManyHoldings: "too_many_holdings"
        case .instrumentNotAllowed: "instrument_not_allowed"
        case .marketDataUnavailable: "market_data_unavailable"
        case .positionTooLarge: "position_limit"
        case .belowMinimumPrice: "below_minimum_price"
        case .marketClosed, .exchangeClosed: "market_closed"
        case .tradingNotOpen: "league_not_started"
        case .tradingClosed: "league_ended"
        case .insufficientContracts: "insufficient_contracts"
        case .optionExpired: "option_expired"
        case .outOfTheMoney: "out_of_the_money"
        case .contractNotListed: "contract_not_listed"
        case .writingNotAllowed: "option_writing_not_allowed"
        case .uncoveredCall, .unsecuredPut: "option_not_covered"
        case .buyBackExceedsWritten: "insufficient_contracts"
        case .cashReserved: "insufficient_funds"
        case .sharesCommitted: "shares_committed"
        case .orderTypeNotAvailable: "order_type_not_available"
        case .shortingNotAllowed: "insufficient_shares"
        case .marginInsufficient: "insufficient_margin"
        case .coverExceedsShort: "insufficient_shares"
        case .optionsWhileShort: "options_while_short"
        }
    }

    /// A sentence a player understands.
    public var message: String {
        switch self {
        case .unknownSymbol(let symbol):
            "There is no company with the symbol \(symbol)."
        case .notListedYet(let symbol, let date):
            "\(symbol) was not listed on \(date): on this portfolio's date it cannot be traded yet."
        case .noPrice(let symbol):
            "There is no price for \(symbol) at this portfolio's date."
        case .notTrading(let symbol):
            "\(symbol) no longer trades here: its price data has ended. You can sell shares you hold at its last price, but not buy more."
        case .insufficientFunds(let required, let available):
            "This order needs $\(required.decimalString) but the portfolio has $\(available.decimalString) in cash."
        case .insufficientShares(let requested, let held):
            "You tried to sell \(requested) shares but hold \(held)."
        case .quantityOutOfRange(let quantity, let allowed):
            "Quantity \(quantity) is out of range: from \(allowed.lowerBound) to \(allowed.upperBound)."
        case .quantityNotInLots(let quantity, let lot):
            lot == .whole ? "Quantity \(quantity) is not a whole number of shares: this portfolio trades whole shares."
                : "Quantity \(quantity) has more decimals than allowed: the smallest amount is \(lot)."
        case .notionalTooSmall(let amount, let price, let lot):
            "\(amount.dollars) is less than the smallest amount that trades at \(price.dollars): \(lot == .whole ? "one share" : lot.description)."
        case .cryptoNotAllowed:
            "This portfolio's rules do not allow cryptocurrencies: stocks only."
        case .tooManyHoldings(let limit):
            "This portfolio may hold at most \(limit) different companies."
        case .instrumentNotAllowed(let kind):
            "This portfolio's rules do not allow trading \(kind.rawValue)s."
        case .marketDataUnavailable:
            "Market data is not available right now, so orders cannot be priced."
        case .positionTooLarge(let symbol, let limit, let wouldBe):
            "This buy would make \(symbol) \(Percent(hundredths: wouldBe).decimalString) % of the portfolio; the rules allow at most \(Percent(hundredths: limit).decimalString) % in one position."
        case .belowMinimumPrice(let symbol, let price, let minimum):
            "\(symbol) costs $\(price.decimalString); the rules allow buying only stocks priced at $\(minimum.decimalString) or more."
        case .marketClosed:
            "The rules allow trading only while the market is open (9:30 to 16:00 New York time on trading days)."
        case .exchangeClosed(let date, let opens):
            "The stock exchange is closed on \(date.weekdayName) \(date): shares and options trade again on \(opens.weekdayName) \(opens). Coins trade every day; a limit or stop order placed now waits for the next session."
        case .tradingNotOpen(let until):
            "Trading opens when the league starts, at \(until.formatted(.iso8601))."
        case .tradingClosed(let since):
            "The league ended at \(since.formatted(.iso8601)): its standings are final and no more orders are taken."
        case .insufficientContracts(let requested, let held):
            "You asked for \(requested) contract\(requested == 1 ? "" : "s") but hold \(held)."
        case .optionExpired(let symbol, let date):
            "\(symbol.option?.title ?? symbol.rawValue) expired at the close of \(date): it no longer trades or exercises."
        case .contractNotListed(let symbol):
            "\(symbol.option?.title ?? symbol.rawValue) is not listed: buy a contract from the chain (its expirations and strikes), GET /api/v1/options/{symbol}/chain."
        case .outOfTheMoney(let symbol, let spot):
            "\(symbol.option?.title ?? symbol.rawValue) is not in the money with the stock at $\(spot.decimalString): exercising it would \(symbol.option?.type == .put ? "sell shares for less" : "pay more for shares") than the market. Sell the contract instead, or let it expire."
        case .writingNotAllowed(let symbol):
            "You hold no \(symbol.option?.title ?? symbol.rawValue) contracts to sell, and this portfolio's rules do not allow writing (selling to open) contracts."
        case .uncoveredCall(let symbol, let needed, let free):
            "Writing \(symbol.option?.title ?? symbol.rawValue) needs \(needed) shares of \(symbol.option?.underlying.rawValue ?? "the stock") to cover it (100 a contract); you have \(free) not already covering written calls. Only covered calls can be written here."
        case .unsecuredPut(let symbol, let needed, let free):
            "Writing \(symbol.option?.title ?? symbol.rawValue) needs \(needed.dollars) of cash set aside to buy the shares at the strike if it is assigned; \(free.dollars) is free. Only cash-secured puts can be written here."
        case .buyBackExceedsWritten(let requested, let written):
            "You wrote \(written) contract\(written == 1 ? "" : "s"): buy back at most that many (\(requested) asked); to hold contracts, buy again once they are closed."
        case .cashReserved(let required, let free, let reserved):
            "This needs \(required.dollars) but only \(free.dollars) of the cash is free: \(reserved.dollars) is held back for your open orders and any puts you wrote. Cancel an open order to free its cash."
        case .sharesCommitted(let symbol, let requested, let free, let committed):
            "You asked for \(requested) shares of \(symbol) but only \(free) are free: \(committed) are held for your open sell orders or cover calls you wrote. Cancel the order, or buy the calls back, first."
        case .orderTypeNotAvailable(let reason):
            reason
        case .shortingNotAllowed(let symbol, let held):
            held > 0 ? "You hold \(held) shares of \(symbol): sell those first; a short sale starts from none."
                : "You hold no shares of \(symbol). Selling shares you do not own (a short sale) needs a portfolio whose rules allow short selling on margin."
        case .marginInsufficient(let required, let available):
            "A short sale holds its proceeds and the initial margin as collateral: this one needs \(required.dollars) of free cash with its proceeds, and \(available.dollars) is free."
        case .optionsWhileShort(let symbol):
            "Options on \(symbol) and a short sale of it do not go together here: an exercise or an assignment would deliver shares into the short. Close one before opening the other."
        case .coverExceedsShort(let requested, let short):
            "You are short \(short) shares: buy back at most that many (\(requested) asked), then buy again to hold shares."

        }
    }
}
