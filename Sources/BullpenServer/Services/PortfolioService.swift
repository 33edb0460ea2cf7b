import BullpenAPI
import BullpenCore
import BullpenMarketData
import BullpenStore
import Foundation

/// What the portfolio and order routes call: the store and the market data put together, so
/// that each route parses, calls one of these, and encodes. Prices are always gathered before a
/// change is written: nothing here awaits market data inside a transaction or the writer lock.
struct PortfolioService: Sendable {
    let store: BullpenStore
    let marketData: (any MarketDataSource)?
    let time: any TimeSource

    /// How many times a change computed outside the ledger (a reset's valuation, an order's price,
    /// a replay's advance) is computed again when the portfolio moved meanwhile.
    static let attempts = 5

    // MARK: Valuation

    /// Values a portfolio's book at its clock, with today's change net of today's trades.
    /// Without market data, holdings are carried at cost.
    func valuation(of state: PortfolioState) async throws -> Valuation {
        try await valued(state).valuation
    }

    /// The portfolio's state with its valuation, both as of the same moment of the ledger.
    func valued(_ id: PortfolioID, owner: UserID) async throws -> (state: PortfolioState, valuation: Valuation) {
        // Most portfolios follow the live clock: its session is known before the portfolio is
        // read, so the state and the session's entries come in one ask of the ledger.
        if let marketData, let session = await marketData.sessionDate(asOf: .live) {
            let taken = try await store.sessionState(of: id, owner: owner, session: session)
            if taken.state.portfolio.clock == .live {
                return try await valued(taken.state, today: taken.today)
            }
        }
        return try await valued(try await store.state(of: id, owner: owner))
    }

    private func valued(_ read: PortfolioState) async throws -> (state: PortfolioState, valuation: Valuation) {
        guard let session = await marketData?.sessionDate(asOf: read.portfolio.clock) else {
            return try await valued(read, today: nil)
        }
        let taken = try await store.sessionState(of: read.portfolio.id, owner: read.portfolio.ownerID, session: session)
        return try await valued(taken.state, today: taken.today)
    }

    private func valued(_ state: PortfolioState, today: SessionTrades?) async throws -> (state: PortfolioState, valuation: Valuation) {
        guard let marketData else {
            return (state, Valuation(book: state.book, quotes: [:], realizedPnL: state.realizedPnL))
        }
        let symbols = Set(state.book.positions.keys).union(today?.symbols ?? [])
        let quotes = try await marketData.quotes(symbols.sorted(), asOf: state.portfolio.clock)
        return (state, Valuation(book: state.book, quotes: quotes, realizedPnL: state.realizedPnL, today: today))
    }

    func state(_ id: PortfolioID, owner: UserID) async throws -> PortfolioState {
        try await store.state(of: id, owner: owner)
    }

    // MARK: Reset

    /// Starts the portfolio over, keeping the closing figures of the period. The book is valued
    /// first, outside any lock; if an order moves the portfolio before the reset is written, the
    /// version check refuses it and the book is valued again.
    func reset(_ id: PortfolioID, owner: UserID) async throws {
        for _ in 1...Self.attempts {
            let state = try await store.state(of: id, owner: owner)
            let equity = try await valuation(of: state).equity
            do {
                _ = try await store.resetPortfolio(id, owner: owner, version: state.portfolio.version, endingEquity: equity)
                return
            } catch StoreError.portfolioChanged {
                continue
            }
        }
        throw StoreError.portfolioChanged
    }

    // MARK: Top-ups

    /// Whether the portfolio may have a top-up now: the amount, or why not, with the equity and the threshold.
    struct TopUpCheck: Sendable {
        var equity: Money
        var threshold: Money
        var outcome: Result<Money, TopUp.Refusal>?
        /// Why there is no outcome: not the player's Main portfolio.
        var notMain: Bool
        var version: Int64
    }

    func topUpCheck(_ id: PortfolioID, owner: UserID) async throws -> TopUpCheck {
        let (state, valuation) = try await valued(id, owner: owner)
        let threshold = TopUp.threshold(startingCash: state.portfolio.startingCash)
        guard try await store.mainPortfolio(of: owner) == id else {
            return TopUpCheck(equity: valuation.equity, threshold: threshold, outcome: nil, notMain: true, version: state.portfolio.version)
        }
        let outcome = TopUp.grant(equity: valuation.equity, startingCash: state.portfolio.startingCash,
                                  lastGrant: try await store.lastGrant(of: owner), now: time.now())
        return TopUpCheck(equity: valuation.equity, threshold: threshold, outcome: outcome, notMain: false, version: state.portfolio.version)
    }

    /// Grants the top-up the portfolio qualifies for, or throws 409 `top_up_not_available` saying why.
    func topUp(_ id: PortfolioID, owner: UserID) async throws -> Money {
        for _ in 1...Self.attempts {
            let check = try await topUpCheck(id, owner: owner)
            guard let outcome = check.outcome else { throw APIError(.topUpNotAvailable, Self.topUpReason(check)) }
            guard case .success(let amount) = outcome else { throw APIError(.topUpNotAvailable, Self.topUpReason(check)) }
            do {
                _ = try await store.grantTopUp(amount, to: id, owner: owner, version: check.version)
                return amount
            } catch StoreError.portfolioChanged {
                continue
            }
        }
        throw StoreError.portfolioChanged
    }

    /// The top-up rule as it stands for this portfolio, in words.
    static func topUpReason(_ check: TopUpCheck) -> String {
        if check.notMain { return "Top-ups are for your Main portfolio (your first live one); start other portfolios over with a reset." }
        switch check.outcome {
        case .success(let amount)?:
            return "Your equity (\(check.equity.dollars)) is below a tenth of your starting cash (\(check.threshold.dollars)): you may claim \(amount.dollars) to start again. One top-up every 7 days; it counts as money put in, not as a gain, and the portfolio leaves the global leaderboard until it is reset."
        case .failure(.notBelowThreshold(let equity, let threshold))?:
            return "A top-up is for a portfolio that has lost almost everything: your equity (\(equity.dollars)) is not below a tenth of your starting cash (\(threshold.dollars))."
        case .failure(.tooSoon(let next))?:
            return "One top-up every 7 days: the next can be claimed from \(next.formatted(.iso8601))."
        case nil:
            return ""
        }
    }

    // MARK: Orders

    /// Prices an order for `symbol` at the portfolio's clock: the symbol must be listed and have
    /// a price then. The market data is asked here, before any write.
    func price(_ request: OrderRequest, for portfolio: PortfolioRecord) async throws -> PricedOrder {
        var priced = try await quote(request, for: portfolio)
        if let amount = request.notional {
            // An order by amount buys what the amount buys at its fill price (a limit order's at its limit).
            let at = request.terms.fillsAtOnce ? priced.price : (request.terms.limit ?? priced.price)
            priced.request = priced.request.resolvingNotional(at: at, lot: portfolio.rules.lot(for: request.symbol, assetClass: priced.request.assetClass))
            let sentence = "\(amount.dollars) \(request.side == .buy ? "buys" : "sells") \(priced.request.quantity) at \(at.dollars)."
            priced.note = priced.note.map { $0 + " " + sentence } ?? sentence
        }
        // A replay whose clock counts every day (it holds coins) may stand on a day the exchange is
        // closed: coins trade then, shares and options wait for the next session.
        if request.terms.fillsAtOnce, let closed = priced.closedExchange {
            throw OrderRejection.exchangeClosed(on: closed.day, opens: closed.opens)
        }
        // A replay league's shared clock moves on sessions, so its walk never sees a coin's
        // weekend: there a coin's order must fill at once.
        if case .replay = portfolio.clock, portfolio.leagueID != nil, priced.request.assetClass == .crypto,
           !request.terms.fillsAtOnce, !wouldFillNow(priced) {
            throw OrderRejection.orderTypeNotAvailable(
                "A replay league's clock moves on the exchange's sessions: a coin's order there fills at once (a market order, or a limit the price reaches, \(priced.price.dollars) now).")
        }
        return priced
    }

    /// Whether a working order on `priced`'s terms would fill at once at its price.
    private func wouldFillNow(_ priced: PricedOrder) -> Bool {
        let request = priced.request
        let (_, fill) = OrderEvaluation.evaluate(
            WorkingOrder(id: OrderID(UUID()), symbol: request.symbol, side: request.side, quantity: request.quantity,
                         terms: request.terms, waterMark: priced.price, placedOn: SessionDate(time.now()), placedAt: time.now()),
            quote: priced.price, at: priced.pricing.asOf)
        return fill != nil
    }

    /// The price `request` would execute at now, as of the portfolio's clock.
    private func quote(_ request: OrderRequest, for portfolio: PortfolioRecord) async throws -> PricedOrder {
        guard let marketData else { throw OrderRejection.marketDataUnavailable }
        if request.symbol.isOption { return try await priceOption(request, for: portfolio) }
        guard let asset = try await marketData.asset(request.symbol) else { throw OrderRejection.unknownSymbol(request.symbol) }
        var request = request
        request.assetClass = asset.assetClass
        guard let quote = try await marketData.quote(request.symbol, asOf: portfolio.clock) else {
            if case .replay(let date) = portfolio.clock { throw OrderRejection.notListedYet(request.symbol, on: SessionDate(date)) }
            throw OrderRejection.noPrice(request.symbol)
        }
        let now = time.now()
        var open = false
        // Crypto trades around the clock; stocks while the exchange is open.
        if case .live = portfolio.clock { open = asset.assetClass == .crypto ? true : await marketData.isMarketOpen(at: now) }
        let pricing = FillPricing.of(quote, clock: portfolio.clock, simulated: marketData.isSimulated, marketOpen: open, now: now)
        let slippage = portfolio.rules.slippageBasisPoints
        guard request.terms.fillsAtOnce, slippage > 0 else {
            return PricedOrder(request: request, price: quote.price, pricing: pricing, trading: quote.trading, clock: portfolio.clock)
        }
        let slipped = OrderEvaluation.slipped(quote.price, side: request.side, basisPoints: slippage).roundedToTradingTick()
        var priced = PricedOrder(request: request, price: slipped, pricing: pricing, trading: quote.trading, clock: portfolio.clock)
        priced.note = pricing.explanation + " This portfolio's rules add a slippage of \(FixedPoint.format(slippage, scale: 2)) %: "
            + "the \(quote.price.dollars) quote became \(slipped.dollars), as a real order moves the price against you a little."
        return priced
    }

    /// Prices an option order at the model's quote as of the portfolio's clock: the ask for a
    /// buy (of a listed contract only), the bid for a sell; a contract past its expiration day
    /// does not trade.
    func priceOption(_ request: OrderRequest, for portfolio: PortfolioRecord) async throws -> PricedOrder {
        guard let options = marketData as? OptionMarketData else { throw OrderRejection.marketDataUnavailable }
        guard let contract = try await options.contract(request.symbol) else { throw OrderRejection.unknownSymbol(request.symbol) }
        var request = request
        request.symbol = contract.symbol
        guard let session = await options.sessionDate(asOf: portfolio.clock),
              let inputs = try await options.inputs(contract.underlying, asOf: portfolio.clock) else {
            if try await options.quote(contract.underlying, asOf: portfolio.clock) != nil { throw OrderRejection.noPrice(contract.symbol) }
            if case .replay(let date) = portfolio.clock { throw OrderRejection.notListedYet(contract.underlying, on: SessionDate(date)) }
            throw OrderRejection.noPrice(contract.underlying)
        }
        guard session <= contract.expiration else { throw OrderRejection.optionExpired(contract.symbol, on: contract.expiration) }
        let market = inputs.market
        let quote = market.quote(contract)
        let perShare = request.side == .buy ? quote.ask : quote.bid
        let now = time.now()
        var open = false
        if case .live = portfolio.clock { open = await options.isMarketOpen(at: now) }
        let pricing = FillPricing(source: .model, asOf: inputs.quote.asOf ?? now, marketOpen: open)
        var priced = PricedOrder(request: request, price: OptionMarketData.unit(perShare), pricing: pricing,
                                 trading: inputs.quote.trading, clock: portfolio.clock)
        priced.note = Self.optionNote(quote, market: market, side: request.side)
        priced.listed = contract.isListed(on: session)
        return priced
    }

    /// How an option order was priced, in words.
    static func optionNote(_ quote: OptionQuote, market: OptionMarket, side: OrderSide) -> String {
        let price = side == .buy ? quote.ask : quote.bid
        return "\(side == .buy ? "Bought at the ask" : "Sold at the bid"): $\(price.decimalString) a share, "
            + "$\(OptionMarketData.unit(price).decimalString) a contract of \(OptionContract.multiplier) shares. The model values it at "
            + "$\(quote.fair.decimalString) (quotes $\(quote.bid.decimalString) bid, $\(quote.ask.decimalString) ask) with "
            + "\(market.underlying) at $\(market.spot.decimalString) as of \(market.date), volatility "
            + "\(Decimals.format(market.volatility * 100, places: 1)) %, rate \(Decimals.format(market.rate * 100, places: 2)) % and "
            + "\(quote.days) day\(quote.days == 1 ? "" : "s") to expiry. Prices are modelled, not real quotes."
    }

    /// Places an order at the price as of the portfolio's clock: priced here, then validated and
    /// executed (or, for a working order, placed) once, by the ledger.
    /// The note says how an option's price was found (nil for stocks: their order's pricing says it).
    @discardableResult
    func placeOrder(_ request: OrderRequest, in id: PortfolioID, owner: UserID,
                    idempotency: IdempotencyClaim?) async throws -> (outcome: BullpenStore.OrderOutcome, note: String?) {
        try await pricedAgain(request, in: id, owner: owner) { priced in
            (try await store.placeOrder(priced, in: id, owner: owner, idempotency: idempotency), priced.note)
        }
    }

    /// Replaces a working order with one on `request`'s terms, priced at the portfolio's clock now.
    func replaceOrder(_ orderID: OrderID, with request: OrderRequest, in id: PortfolioID,
                      owner: UserID) async throws -> (old: OrderRecord, new: OrderRecord) {
        try await pricedAgain(request, in: id, owner: owner) { priced in
            try await store.replaceOrder(orderID, with: priced, in: id, owner: owner)
        }
    }

    /// Prices `request` and hands it to `write`; a replay whose clock moved between the two is
    /// priced again at its new date.
    private func pricedAgain<T>(_ request: OrderRequest, in id: PortfolioID, owner: UserID,
                                _ write: (PricedOrder) async throws -> T) async throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            let portfolio = try await store.portfolioForPricing(id, owner: owner)
            let priced = try await price(request, for: portfolio)
            do {
                return try await write(priced)
            } catch StoreError.portfolioChanged where attempt < Self.attempts {
                continue
            }
        }
    }

    /// What `request` would do now, with every rule it would break (as problems, not errors).
    func preview(_ request: OrderRequest, in id: PortfolioID, owner: UserID) async throws -> (OrderPreview, PricedOrder) {
        let state = try await store.state(of: id, owner: owner)
        var priced = try await price(request, for: state.portfolio)
        guard !request.terms.fillsAtOnce else {
            let preview = TradingEngine.preview(priced.request, on: state.book, at: priced.price, rules: state.portfolio.rules,
                                                context: OrderContext(trading: priced.trading, listed: priced.listed))
            return (preview, priced)
        }
        // A working order is checked at what it may cost: a buy at the price its cash is held at.
        let hold = OrderEvaluation.holdPrice(for: request.terms, side: request.side, now: priced.price) ?? priced.price
        var preview = TradingEngine.preview(priced.request, on: state.book, at: hold, rules: state.portfolio.rules,
                                            context: OrderContext(trading: priced.trading, listed: priced.listed))
        preview.problems.removeAll { $0 == .marketClosed }
        if request.symbol.isOption {
            preview.problems.append(.orderTypeNotAvailable("Option contracts trade at the market only."))
        }
        if case .live = state.portfolio.clock, request.terms.timeInForce == .opg || request.terms.timeInForce == .cls {
            preview.problems.append(.orderTypeNotAvailable("At-the-open and at-the-close orders are for replay portfolios."))
        }
        if priced.request.assetClass == .crypto, request.terms.timeInForce == .opg || request.terms.timeInForce == .cls {
            preview.problems.append(.coinAuction)
        }
        let now = "The price now is \(priced.price.dollars)"
        if let closed = priced.closedExchange {
            priced.note = "\(now), the last close: the exchange is closed on \(closed.day.weekdayName) \(closed.day), so the order waits for the session of \(closed.opens.weekdayName) \(closed.opens)."
        } else {
            priced.note = wouldFillNow(priced)
                ? "\(now): this order would fill at once, at that price."
                : request.side == .buy
                    ? "\(now). Until it fills or ends, the order holds \(preview.total.dollars) of your cash (\(hold.dollars) a share with the commission), so nothing else can spend it."
                    : "\(now). Until it fills or ends, the order holds your \(priced.request.quantity) share\(priced.request.quantity == 1 ? "" : "s"), so no other order can sell them."
        }
        return (preview, priced)
    }

    // MARK: History

    /// The equity curve of the current period, one point a session, with the S&P 500 (or the
    /// demo index) scaled to the same start.
    func equityCurve(_ id: PortfolioID, owner: UserID) async throws -> (startingCash: Money, points: [EquityCurve.Point]) {
        let portfolio = try await store.portfolio(id, owner: owner)
        let period = try await store.currentPeriod(of: id, owner: owner)
        guard let marketData else { return (period.startingCash, []) }
        let calendar = TradingCalendar()
        let start = TradingCalendar.sessionDate(at: period.startedAt)
        let last = await marketData.sessionDate(asOf: portfolio.clock) ?? start
        var dates = last >= start ? calendar.tradingDays(from: start, through: last) : []
        if dates.isEmpty { dates = [last] }   // a portfolio newer than the data: one point, today's value
        let symbols = Set(period.journal.compactMap(\.symbol)).sorted()
        var closes: [Symbol: [SessionDate: Price]] = [:]
        for symbol in symbols {
            let bars = try await marketData.dailyBars(symbol, from: dates.first, through: dates.last, asOf: portfolio.clock)
            closes[symbol] = Dictionary(bars.map { ($0.date, $0.close) }, uniquingKeysWith: { _, later in later })
        }
        let latest = try await marketData.quotes(symbols, asOf: portfolio.clock)
        let benchmark = try await marketData.benchmarkBars("SPX", from: dates.first, through: dates.last, asOf: portfolio.clock) ?? []
        let points = EquityCurve.build(
            startingCash: period.startingCash, journal: period.journal, dates: dates, closes: closes, latest: latest,
            benchmark: Dictionary(benchmark.map { ($0.date, $0.close) }, uniquingKeysWith: { _, later in later }),
            calendar: calendar)
        return (period.startingCash, points)
    }
}
