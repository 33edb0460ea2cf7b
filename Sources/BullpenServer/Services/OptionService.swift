import BullpenAPI
import BullpenCore
import BullpenMarketData
import BullpenStore
import Foundation

/// Options (Fishback's game): chains and contracts as the model prices them at a clock, and
/// exercises, which go through the ledger like every change of cash and positions.
struct OptionService: Sendable {
    let store: BullpenStore
    let options: OptionMarketData
    let time: any TimeSource

    /// Points of a payoff diagram.
    static let payoffPoints = 41

    /// The chain of `underlying` for `expiration` (the nearest when nil) as of `clock`.
    func chain(_ underlying: Symbol, expiration: SessionDate?, asOf clock: PortfolioClock) async throws -> OptionChainDTO {
        guard let company = try await options.asset(underlying), !underlying.isOption else { throw APIError.unknownSymbol(underlying.rawValue) }
        guard company.assetClass != .crypto else {
            throw APIError(.notSupported, "\(underlying) is a coin: options are offered on stocks only.")
        }
        let inputs = try await self.inputs(company.symbol, asOf: clock)
        let market = inputs.market, previous = inputs.previous
        let expirations = TradingCalendar().optionExpirations(on: market.date)
        guard let chosen = expiration ?? expirations.first(where: { $0 > market.date }) ?? expirations.first else { throw APIError(.noPrice, "No expirations are listed on \(market.date).") }
        guard expirations.contains(chosen) else {
            throw APIError(.invalidExpiration, "\(chosen) is not an expiration listed on \(market.date); the listed ones are \(expirations.map(\.description).joined(separator: ", ")).")
        }
        let rows = market.chain(expiration: chosen)
        let below = rows.last { $0.call.contract.strike <= market.spot }?.call.contract.strike
        let above = rows.first { $0.call.contract.strike > market.spot }?.call.contract.strike
        let strikes = rows.map { row in
            let strike = row.call.contract.strike
            return OptionStrikeDTO(strike: strike.decimalString, nearTheMoney: strike == below || strike == above,
                                   call: OptionQuoteDTO(row.call, previous: previous?.quote(row.call.contract)),
                                   put: OptionQuoteDTO(row.put, previous: previous?.quote(row.put.contract)))
        }
        return OptionChainDTO(underlying: company.symbol.rawValue, model: OptionModelDTO(market),
                              expirations: expirations.map(\.description), expiration: chosen.description, strikes: strikes)
    }

    /// One contract's terms, quote, payoff at expiry and modelled history as of `clock`.
    func contract(_ symbol: Symbol, asOf clock: PortfolioClock) async throws -> OptionContractDetailDTO {
        guard let contract = try await options.contract(symbol) else { throw APIError.unknownSymbol(symbol.rawValue) }
        guard let session = await options.sessionDate(asOf: clock) else { throw APIError.marketDataUnavailable }
        let expired = session > contract.expiration
        let inputs = expired ? nil : try await options.inputs(contract.underlying, asOf: clock)
        let quote = inputs?.market.quote(contract)
        let history = try await self.history(contract, through: min(session, contract.expiration), asOf: clock)
        return OptionContractDetailDTO(
            contract: OptionContractDTO(contract), listed: !expired && contract.isListed(on: session), expired: expired,
            quote: quote.map { OptionQuoteDTO($0, previous: inputs?.previous?.quote(contract)) },
            model: inputs.map { OptionModelDTO($0.market) },
            payoff: Self.payoff(contract, premium: quote?.ask ?? history.last.flatMap { Price(parsing: $0.value) } ?? Price(ticks: 0)),
            history: history)
    }

    /// What one contract bought at `premium` (per share) is worth at expiry, less the premium, for
    /// the underlying from zero (or half the strike) to twice the strike.
    static func payoff(_ contract: OptionContract, premium: Price) -> [OptionPayoffPointDTO] {
        let high = contract.strike.ticks * 2, low = contract.type == .call ? contract.strike.ticks / 2 : 0
        return (0..<payoffPoints).map { index in
            let ticks = low + (high - low) * Int64(index) / Int64(payoffPoints - 1)
            let spot = Price(ticks: ticks / Price.ticksPerCent * Price.ticksPerCent)
            let profit = (contract.intrinsic(at: spot).ticks - premium.ticks) * OptionContract.multiplier
            return OptionPayoffPointDTO(underlying: spot.decimalString,
                                        profit: Money(cents: profit / Price.ticksPerCent).decimalString)
        }
    }

    /// The contract's model value at each close of the year before its expiration (or since the
    /// underlying's history began), up to `end`.
    func history(_ contract: OptionContract, through end: SessionDate, asOf clock: PortfolioClock) async throws -> [OptionHistoryPointDTO] {
        let start = contract.expiration.adding(days: -365)
        guard start <= end else { return [] }
        return try await options.dailyMarkets(contract.underlying, from: start, through: end, asOf: clock).map { market in
            OptionHistoryPointDTO(date: market.date.description, value: market.quote(contract).fair.decimalString,
                                  underlying: market.spot.decimalString)
        }
    }

    /// Exercises `contracts` of `symbol` held by the portfolio, at the underlying's price as of
    /// its clock (asked again if a replay moves meanwhile).
    func exercise(_ symbol: Symbol, contracts: Int64, in id: PortfolioID, owner: UserID) async throws -> OptionSettlementDTO {
        for attempt in 1...PortfolioService.attempts {
            let portfolio = try await store.portfolioForPricing(id, owner: owner)
            let exercise = try await self.exercise(symbol, contracts: contracts, at: portfolio.clock)
            do {
                let (settlement, _) = try await store.exerciseOption(exercise, in: id, owner: owner)
                return OptionSettlementDTO(settlement)
            } catch StoreError.portfolioChanged where attempt < PortfolioService.attempts {
                continue
            }
        }
        throw StoreError.portfolioChanged
    }

    /// What exercising `contracts` of `symbol` would do now: the settlement, or the rule it breaks.
    func previewExercise(_ symbol: Symbol, contracts: Int64, in id: PortfolioID, owner: UserID) async throws -> ExercisePreviewDTO {
        let state = try await store.state(of: id, owner: owner)
        let exercise = try await self.exercise(symbol, contracts: contracts, at: state.portfolio.clock)
        let held = state.book.quantity(of: exercise.contract.symbol)
        let cash = state.book.cash.decimalString
        do throws(OrderRejection) {
            let (settlement, after) = try OptionSettlement.exercise(exercise.contract, contracts: exercise.contracts, on: state.book,
                                                                    spot: exercise.spot, date: exercise.date)
            return ExercisePreviewDTO(settlement: OptionSettlementDTO(settlement), cashBefore: cash,
                                      cashAfter: after.cash.decimalString, held: held.wholePart, problems: [])
        } catch {
            return ExercisePreviewDTO(settlement: nil, cashBefore: cash, cashAfter: cash, held: held.wholePart,
                                      problems: [ProblemDTO(code: error.code, message: error.message)])
        }
    }

    /// An exercise of `contracts` of `symbol` at the underlying's price and session as of `clock`.
    private func exercise(_ symbol: Symbol, contracts: Int64, at clock: PortfolioClock) async throws -> OptionExercise {
        guard (1...1_000_000).contains(contracts) else { throw APIError.validation("contracts must be a whole number from 1 to 1000000.") }
        guard let contract = try await options.contract(symbol) else { throw APIError.unknownSymbol(symbol.rawValue) }
        guard let session = await options.sessionDate(asOf: clock),
              let spot = try await options.quote(contract.underlying, asOf: clock) else {
            throw OrderRejection.noPrice(contract.underlying)
        }
        return OptionExercise(contract: contract, contracts: Quantity(whole: contracts), spot: spot.price, date: session, clock: clock)
    }

    private func inputs(_ underlying: Symbol, asOf clock: PortfolioClock) async throws -> OptionMarketData.Inputs {
        guard let inputs = try await options.inputs(underlying, asOf: clock) else {
            if try await options.quote(underlying, asOf: clock) == nil {
                throw APIError(.noPrice, "There is no price for \(underlying) at this date, so it has no options.")
            }
            throw APIError(.noPrice, "\(underlying) has less than a month of prices at this date: its volatility, and so its options' prices, are not known yet.")
        }
        return inputs
    }
}
