import Foundation

/// What becomes of option contracts that leave a book without being sold: exercised (early, by the
/// player, or automatically at expiry), settled in cash at expiry, or expired worthless. Pure: the
/// caller gives the book and the underlying's price, and journals the legs that come back.
///
/// The rules, as the help states them:
/// - Exercising a call buys 100 shares a contract at the strike (the cash must be there); a put
///   sells 100 shares a contract at the strike (the shares must be there). Only a contract in the
///   money can be exercised (one out of the money would buy dearer or sell cheaper than the market).
/// - The premium paid is not lost at exercise: it moves into the cost of the shares a call buys,
///   and comes off the proceeds of the shares a put sells (as brokers report it).
/// - At the close of its expiration day, a contract in the money is exercised automatically when
///   the book has the cash (calls) or the shares (puts) for all of it; otherwise it is settled in
///   cash for its intrinsic value. A contract out of the money (or at it) expires worthless.
/// - A written contract (when the rules allow writing) is assigned at the close of its expiration
///   day when it is in the money: a call delivers its 100 shares a contract at the strike, a put
///   buys them at the strike with the cash it held back; the premium received comes into the
///   proceeds (a call) or off the shares' cost (a put). Out of the money, it expires worthless and
///   the premium is kept. No early assignment happens here.
/// - No commission is charged on exercises, assignments and expiries.
public struct OptionSettlement: Sendable, Hashable {
    public enum Outcome: String, Sendable, Hashable, Codable {
        case exercised
        case assigned
        case cashSettled = "cash_settled"
        case expiredWorthless = "expired_worthless"
    }

    /// One change of the book: a journal entry's worth.
    public struct Leg: Sendable, Hashable {
        public var kind: JournalEntry.Kind
        public var symbol: Symbol
        public var side: OrderSide
        public var quantity: Quantity
        /// A unit's price: a contract's for an option leg (intrinsic value × 100 when settled in
        /// cash, zero when exercised or worthless), the strike for the shares of an exercise.
        public var price: Price
        public var cashDelta: Money
        public var realizedPnL: Money
        public var carriedBasis: Money
    }

    public var contract: OptionContract
    public var contracts: Quantity
    public var outcome: Outcome
    /// Whether expiry exercised it, not the player.
    public var automatic: Bool
    /// The underlying's price used.
    public var spot: Price
    /// The session the settlement belongs to (its expiration day for an expiry).
    public var date: SessionDate
    public var legs: [Leg]

    /// The cash the settlement moved (negative when a call's exercise paid the strike).
    public var cashDelta: Money { legs.reduce(.zero) { $0 + $1.cashDelta } }
    public var realizedPnL: Money { legs.reduce(.zero) { $0 + $1.realizedPnL } }

    /// Exercises `contracts` of `contract` held in `book` at `spot` on `date`.
    /// - Throws: ``OrderRejection`` when the book does not hold them, the contract has expired or
    ///   is not in the money, or a call lacks the cash or a put the shares.
    public static func exercise(_ contract: OptionContract, contracts: Quantity, on book: Book, spot: Price, date: SessionDate,
                                automatic: Bool = false) throws(OrderRejection) -> (settlement: OptionSettlement, book: Book) {
        let symbol = contract.symbol
        let held = book.quantity(of: symbol)
        guard contracts > 0, contracts <= held else { throw .insufficientContracts(requested: contracts, held: held) }
        guard date <= contract.expiration else { throw .optionExpired(symbol, on: contract.expiration) }
        guard contract.intrinsic(at: spot).ticks > 0 else { throw .outOfTheMoney(symbol, spot: spot) }
        let shares = contracts * OptionContract.multiplier
        let strikeNotional = contract.strike.notional(quantity: shares)
        var probe = book.positions[symbol] ?? Position(symbol: symbol)
        let premium = probe.remove(quantity: contracts)
        var legs = [Leg(kind: .exercise, symbol: symbol, side: .sell, quantity: contracts, price: Price(ticks: 0),
                        cashDelta: .zero, realizedPnL: .zero, carriedBasis: -premium)]
        switch contract.type {
        case .call:
            guard strikeNotional <= book.cash else { throw .insufficientFunds(required: strikeNotional, available: book.cash) }
            let reserved = book.reservedCash
            guard strikeNotional <= book.cash - reserved else {
                throw .cashReserved(required: strikeNotional, free: book.cash - reserved, reserved: reserved)
            }
            legs.append(Leg(kind: .exercise, symbol: contract.underlying, side: .buy, quantity: shares, price: contract.strike,
                            cashDelta: -strikeNotional, realizedPnL: .zero, carriedBasis: premium))
        case .put:
            let owned = book.quantity(of: contract.underlying)
            guard shares <= owned else { throw .insufficientShares(requested: shares, held: owned) }
            let committed = book.committedShares(of: contract.underlying)
            guard shares <= owned - committed else {
                throw .sharesCommitted(contract.underlying, requested: shares, free: owned - committed, committed: committed)
            }
            var stock = book.positions[contract.underlying] ?? Position(symbol: contract.underlying)
            let basis = stock.remove(quantity: shares)
            legs.append(Leg(kind: .exercise, symbol: contract.underlying, side: .sell, quantity: shares, price: contract.strike,
                            cashDelta: strikeNotional, realizedPnL: strikeNotional - basis - premium, carriedBasis: -premium))
        }
        let settlement = OptionSettlement(contract: contract, contracts: contracts, outcome: .exercised, automatic: automatic,
                                          spot: spot, date: date, legs: legs)
        return (settlement, settlement.applied(to: book))
    }

    /// Settles every contract in `book` that expired by the close of `date`, the earliest
    /// expiration first: `spot` gives the underlying's close on a contract's expiration day (nil
    /// when there is none: the contract then expires worthless, there being no price to settle at).
    public static func expire(on book: Book, through date: SessionDate,
                              spot: (OptionContract) -> Price?) -> (settlements: [OptionSettlement], book: Book) {
        let expiring = book.positions.keys.compactMap(\.option).filter { $0.expiration <= date }
            .sorted { ($0.expiration, $0.symbol) < ($1.expiration, $1.symbol) }
        var book = book
        var settlements: [OptionSettlement] = []
        for contract in expiring {
            let contracts = book.quantity(of: contract.symbol)
            if contracts < 0 {
                let settlement = assignment(contract, written: -contracts, on: book, spot: spot(contract))
                settlements.append(settlement)
                book = settlement.applied(to: book)
                continue
            }
            guard contracts > 0 else { continue }
            let price = spot(contract)
            let intrinsic = price.map(contract.intrinsic(at:)) ?? Price(ticks: 0)
            if let price, intrinsic.ticks > 0,
               let exercised = try? exercise(contract, contracts: contracts, on: book, spot: price, date: contract.expiration,
                                             automatic: true) {
                settlements.append(exercised.settlement)
                book = exercised.book
                continue
            }
            let premium = book.positions[contract.symbol]?.costBasis ?? .zero
            let unit = Price(ticks: intrinsic.ticks * OptionContract.multiplier)
            let cash = unit.notional(quantity: contracts)
            let settlement = OptionSettlement(
                contract: contract, contracts: contracts, outcome: cash > .zero ? .cashSettled : .expiredWorthless,
                automatic: true, spot: price ?? Price(ticks: 0), date: contract.expiration,
                legs: [Leg(kind: .expiry, symbol: contract.symbol, side: .sell, quantity: contracts, price: unit,
                           cashDelta: cash, realizedPnL: cash - premium, carriedBasis: .zero)])
            settlements.append(settlement)
            book = settlement.applied(to: book)
        }
        return (settlements, book)
    }

    /// What expiry does to `written` contracts of `contract` sold to open: assigned in the money
    /// (the shares delivered or bought at the strike), else closed worthless, the premium kept.
    /// Should the shares or the cash not be there (the rules keep them), it is settled in cash
    /// for its intrinsic value instead.
    static func assignment(_ contract: OptionContract, written: Quantity, on book: Book, spot: Price?) -> OptionSettlement {
        let symbol = contract.symbol
        let credit = -(book.positions[symbol]?.costBasis ?? .zero)
        let intrinsic = spot.map(contract.intrinsic(at:)) ?? Price(ticks: 0)
        let shares = written * OptionContract.multiplier
        let strikeNotional = contract.strike.notional(quantity: shares)
        func settled(_ outcome: Outcome, _ legs: [Leg]) -> OptionSettlement {
            OptionSettlement(contract: contract, contracts: written, outcome: outcome, automatic: true,
                             spot: spot ?? Price(ticks: 0), date: contract.expiration, legs: legs)
        }
        guard intrinsic.ticks > 0 else {
            return settled(.expiredWorthless, [Leg(kind: .expiry, symbol: symbol, side: .buy, quantity: written, price: Price(ticks: 0),
                                                   cashDelta: .zero, realizedPnL: credit, carriedBasis: .zero)])
        }
        let close = Leg(kind: .assignment, symbol: symbol, side: .buy, quantity: written, price: Price(ticks: 0),
                        cashDelta: .zero, realizedPnL: .zero, carriedBasis: credit)
        switch contract.type {
        case .call where book.quantity(of: contract.underlying) >= shares:
            var stock = book.positions[contract.underlying] ?? Position(symbol: contract.underlying)
            let basis = stock.remove(quantity: shares)
            return settled(.assigned, [close, Leg(kind: .assignment, symbol: contract.underlying, side: .sell, quantity: shares,
                                                  price: contract.strike, cashDelta: strikeNotional,
                                                  realizedPnL: strikeNotional - basis + credit, carriedBasis: credit)])
        case .put where book.cash >= strikeNotional:
            return settled(.assigned, [close, Leg(kind: .assignment, symbol: contract.underlying, side: .buy, quantity: shares,
                                                  price: contract.strike, cashDelta: -strikeNotional, realizedPnL: .zero,
                                                  carriedBasis: -credit)])
        default:
            let unit = Price(ticks: intrinsic.ticks * OptionContract.multiplier)
            let cost = unit.notional(quantity: written)
            return settled(.cashSettled, [Leg(kind: .assignment, symbol: symbol, side: .buy, quantity: written, price: unit,
                                              cashDelta: -cost, realizedPnL: credit - cost, carriedBasis: .zero)])
        }
    }

    /// `book` with the legs applied, as its journal entries would apply them.
    public func applied(to book: Book) -> Book {
        var book = book
        for leg in legs {
            book.settle(leg.symbol, quantityDelta: leg.side == .buy ? leg.quantity : -leg.quantity, cashDelta: leg.cashDelta,
                        carriedBasis: leg.carriedBasis)
        }
        return book
    }
}
