import BullpenAPI
import BullpenCore
import BullpenStore
import Foundation

// Conversions from the core's portfolio and order values to the wire types.

extension RulesDTO {
    init(_ rules: PortfolioRules) {
        self.init(maxDistinctHoldings: rules.maxDistinctHoldings,
                  commissionPerOrder: rules.commission.perOrder.decimalString,
                  commissionBasisPoints: rules.commission.basisPoints,
                  allowedInstruments: rules.allowedInstruments.map(\.rawValue).sorted(),
                  maxOrderQuantity: rules.maxOrderQuantity)
        maxPositionPercent = rules.maxPositionBasisPoints.map { Percent(hundredths: $0).decimalString }
        minimumPrice = rules.minimumPrice?.decimalString
        marketHoursOnly = rules.marketHoursOnly
        tradingOpens = rules.tradingOpens
        tradingCloses = rules.tradingCloses
        optionWriting = rules.optionWriting
        fractionalShares = rules.fractionalShares
        allowCrypto = rules.allowCrypto
        volumeCapPercent = rules.volumeCapBasisPoints.map { Percent(hundredths: $0).decimalString }
        slippagePercent = rules.slippageBasisPoints > 0 ? Percent(hundredths: rules.slippageBasisPoints).decimalString : nil
        if let margin = rules.margin {
            shortSelling = true
            initialMarginPercent = Percent(hundredths: margin.initialBasisPoints).decimalString
            maintenanceMarginPercent = Percent(hundredths: margin.maintenanceBasisPoints).decimalString
            borrowFeePercent = Percent(hundredths: margin.borrowFeeBasisPoints).decimalString
        }
    }
}

extension PortfolioRules {
    /// Sets the margin rule a league asks for.
    mutating func setMargin(allow: Bool?, initial: String?, maintenance: String?) throws {
        guard allow == true else {
            if initial != nil || maintenance != nil {
                throw APIError.validation("rules.initialMarginPercent and rules.maintenanceMarginPercent need rules.allowShortSelling.")
            }
            return
        }
        var rule = MarginRule.standard
        if let text = initial {
            guard let value = Percent(parsing: text), (1_000...10_000).contains(value.hundredths) else {
                throw APIError.validation("rules.initialMarginPercent must be a percent from 10 to 100.")
            }
            rule.initialBasisPoints = value.hundredths
        }
        if let text = maintenance {
            guard let value = Percent(parsing: text), (500...10_000).contains(value.hundredths) else {
                throw APIError.validation("rules.maintenanceMarginPercent must be a percent from 5 to 100.")
            }
            rule.maintenanceBasisPoints = value.hundredths
        }
        guard rule.maintenanceBasisPoints <= rule.initialBasisPoints else {
            throw APIError.validation("rules.maintenanceMarginPercent may not be above rules.initialMarginPercent.")
        }
        margin = rule
    }
}

extension PortfolioRules {
    /// Sets the realism rules from their percent texts (`field` names them in errors).
    mutating func setRealism(volumeCap: String?, slippage: String?, field: String) throws {
        if let text = volumeCap {
            guard let cap = Percent(parsing: text), (1...10_000).contains(cap.hundredths) else {
                throw APIError.validation("\(field)volumeCapPercent must be a percent from 0.01 to 100 (two places).")
            }
            volumeCapBasisPoints = cap.hundredths
        }
        if let text = slippage {
            guard let slip = Percent(parsing: text), (0...500).contains(slip.hundredths) else {
                throw APIError.validation("\(field)slippagePercent must be a percent from 0 to 5 (two places).")
            }
            slippageBasisPoints = slip.hundredths
        }
    }
}

extension ClockDTO {
    init(_ clock: PortfolioClock, replay: ReplayInfo?) {
        switch clock {
        case .live: self.init(mode: "live")
        case .replay(let date):
            self.init(mode: "replay", date: SessionDate(date).description, start: replay?.start.description,
                      scenario: replay?.scenario, ended: replay?.ended ?? false)
        }
    }
}

extension MarketDataDTO {
    init(_ status: MarketDataStatus) {
        self.init(source: status.source, simulated: status.simulated, available: status.available)
    }
}

extension PortfolioDTO {
    init(_ portfolio: PortfolioRecord, valuation: Valuation, marketData: MarketDataStatus) {
        self.init(
            id: portfolio.id.description, name: portfolio.name, period: portfolio.period,
            clock: ClockDTO(portfolio.clock, replay: portfolio.replay), rules: RulesDTO(portfolio.rules),
            startingCash: portfolio.startingCash.decimalString, cash: valuation.cash.decimalString,
            marketValue: valuation.marketValue.decimalString, equity: valuation.equity.decimalString,
            realizedPnl: valuation.realizedPnL.decimalString, unrealizedPnl: valuation.unrealizedPnL.decimalString,
            totalReturn: valuation.totalReturn.decimalString, totalReturnPercent: (valuation.totalReturnPercent ?? Percent(hundredths: 0)).decimalString,
            dayChange: valuation.dayChange.decimalString, dayChangePercent: valuation.dayChangePercent?.decimalString,
            holdingsCount: valuation.positions.count, marketData: MarketDataDTO(marketData),
            createdAt: portfolio.createdAt, updatedAt: portfolio.updatedAt)
        leagueId = portfolio.leagueID?.description
        closedAt = portfolio.closedAt
        visibility = portfolio.visibility.rawValue
        reservedCash = valuation.reservedCash.decimalString
        availableCash = (valuation.cash - valuation.reservedCash).decimalString
    }

    /// With the shorts' standing when the rules allow short selling and `book` holds shorts; the
    /// cash available net of their collateral.
    init(_ portfolio: PortfolioRecord, valuation: Valuation, marketData: MarketDataStatus, book: Book) {
        self.init(portfolio, valuation: valuation, marketData: marketData)
        guard let rule = portfolio.rules.margin, !book.shorts.isEmpty else { return }
        let prices = Dictionary(valuation.positions.compactMap { position in position.quote.map { (position.position.symbol, $0.price) } },
                                uniquingKeysWith: { first, _ in first })
        let status = Margin.status(of: book, prices: prices, rule: rule)
        let collateral = book.shortCollateral(rule)
        margin = MarginStatusDTO(shortValue: status.shortValue.decimalString, equity: status.equity.decimalString,
                                 requirement: status.requirement.decimalString, collateral: collateral.decimalString,
                                 met: status.isMet, words: status.words)
    }
}

extension PositionDTO {
    init(_ valued: PositionValuation, name: String?) {
        let position = valued.position
        let symbol = position.symbol
        self.init(symbol: symbol.rawValue, name: name, quantity: position.quantity.wire,
                  averageCost: Price.average(of: position.costBasis, over: position.quantity * symbol.multiplier).decimalString,
                  costBasis: position.costBasis.decimalString,
                  lastPrice: valued.quote?.price.perShare(of: symbol).decimalString, priceAsOf: valued.quote?.asOf,
                  marketValue: valued.marketValue.decimalString, unrealizedPnl: valued.unrealizedPnL.decimalString,
                  unrealizedPnlPercent: valued.unrealizedPercent?.decimalString,
                  dayChange: valued.dayChange?.decimalString, trading: valued.quote?.trading ?? true)
        option = OptionContractDTO(symbol)
    }
}

extension OrderDTO {
    init(_ order: OrderRecord) {
        self.init(id: order.id.description, portfolioId: order.portfolioID.description,
                  clientOrderId: order.clientOrderID, symbol: order.symbol.rawValue, side: order.side.rawValue,
                  type: order.type.rawValue, quantity: order.quantity.wire, status: order.status.rawValue,
                  filledQuantity: order.filledQuantity.wire, fillPrice: order.fillPrice?.perShare(of: order.symbol).decimalString,
                  priceSource: order.pricing?.source.rawValue, priceAsOf: order.pricing?.asOf,
                  marketOpen: order.pricing?.marketOpen, priceNote: order.pricing?.explanation,
                  notional: order.notional.decimalString, commission: order.commission.decimalString,
                  realizedPnl: order.realizedPnL.decimalString, cashDelta: order.cashDelta.decimalString,
                  createdAt: order.createdAt, filledAt: order.filledAt)
        option = OptionContractDTO(order.symbol)
        let terms = order.terms
        timeInForce = terms.timeInForce.rawValue
        limitPrice = terms.limit?.decimalString
        stopPrice = terms.stop?.decimalString
        switch terms.trail {
        case .price(let amount)?: trailPrice = amount.decimalString
        case .percent(let basisPoints)?: trailPercent = FixedPoint.format(basisPoints, scale: 2)
        case nil: break
        }
        waterMark = order.waterMark?.decimalString
        if terms.type == .stopLimit || terms.type == .trailingStop { triggered = order.triggered }
        if let working = order.working(commission: .free) {
            currentStop = working.stopPrice?.decimalString
            heldShares = working.heldShares > 0 ? working.heldShares.wire : nil
        }
        expiresAt = order.expiresAt
        lastSession = order.lastSession?.description
        replacesOrderId = order.replacesID?.description
        replacedByOrderId = order.replacedByID?.description
        updatedAt = order.updatedAt
        reason = order.reason
        fillNote = order.fillNote
        if terms.type != .market || terms.timeInForce == .opg || terms.timeInForce == .cls {
            summary = OrderSentence.describe(side: order.side, quantity: order.quantity, symbol: order.symbol, terms: terms)
            if order.fillNote != nil { priceNote = order.fillNote }
        }
    }

    /// With what a working buy holds of the cash under `rules` (the commission included).
    init(_ order: OrderRecord, rules: PortfolioRules) {
        self.init(order)
        if let working = order.working(commission: rules.commission), working.heldCash > .zero {
            heldCash = working.heldCash.decimalString
        }
    }
}

extension OrderEventDTO {
    init(_ event: OrderEvent) {
        self.init(status: event.status.rawValue, at: event.at, note: event.note)
    }
}

extension ActivityDTO {
    init(_ entry: JournalEntry) {
        let type = switch entry.kind {
        case .trade: entry.side?.rawValue ?? "trade"
        case .commission: "commission"
        case .exercise: "option_exercise"
        case .expiry: "option_expiry"
        case .assignment: "option_assignment"
        case .grant: "top_up"
        case .borrowFee: "borrow_fee"
        case .marginCall: "margin_call"
        case .marginMet: "margin_met"
        case .dividend: "dividend"
        case .split: "split"
        }
        self.init(id: entry.id.description, sequence: entry.sequence, period: entry.period, type: type,
                  symbol: entry.symbol?.rawValue, quantity: entry.quantityDelta.magnitude.wire,
                  price: entry.symbol.flatMap { symbol in entry.price?.perShare(of: symbol) }?.decimalString ?? entry.price?.decimalString,
                  amount: entry.cashDelta.decimalString, commission: entry.commission.decimalString,
                  realizedPnl: entry.side == .sell || entry.realizedPnL != .zero ? entry.realizedPnL.decimalString : nil,
                  orderId: entry.orderID?.description, createdAt: entry.createdAt)
        date = entry.priceAsOf.map { SessionDate($0).description }
        option = entry.symbol.flatMap(OptionContractDTO.init)
    }
}

extension OrderPreviewDTO {
    init(_ preview: OrderPreview, pricing: FillPricing, trading: Bool) {
        self.init(symbol: preview.request.symbol.rawValue, side: preview.request.side.rawValue,
                  quantity: preview.request.quantity.wire, price: preview.price.perShare(of: preview.request.symbol).decimalString,
                  priceSource: pricing.source.rawValue, priceAsOf: pricing.asOf, marketOpen: pricing.marketOpen,
                  trading: trading, notional: preview.notional.decimalString, commission: preview.commission.decimalString,
                  total: preview.total.decimalString, cashBefore: preview.cashBefore.decimalString,
                  cashAfter: preview.cashAfter.decimalString, maxQuantity: preview.maxQuantity.wire, held: preview.held.wire,
                  problems: preview.problems.map { ProblemDTO(code: $0.code, message: $0.message) })
        option = OptionContractDTO(preview.request.symbol)
    }
}

extension RealizedSummaryDTO {
    init(_ summary: RealizedSummary, period: String) {
        self.init(period: period, realizedProfits: summary.profits.decimalString,
                  realizedLosses: summary.losses.decimalString, realizedNet: summary.net.decimalString,
                  trades: summary.trades, buys: summary.buys, sells: summary.sells)
    }
}

extension EquityHistoryDTO {
    init(startingCash: Money, points: [EquityCurve.Point]) {
        self.init(startingCash: startingCash.decimalString, benchmark: "SPX", points: points.map { point in
            EquityPointDTO(date: point.date.description, equity: point.equity.decimalString,
                           benchmark: point.benchmark?.decimalString)
        })
    }
}

extension HoldingChangeDTO {
    init(_ change: ReplayAdvance.HoldingChange) {
        let symbol = change.symbol
        self.init(symbol: symbol.rawValue, quantity: change.quantity.wire, priceBefore: change.priceBefore?.perShare(of: symbol).decimalString,
                  priceAfter: change.priceAfter?.perShare(of: symbol).decimalString, valueChange: change.valueChange.decimalString,
                  changePercent: change.changePercent?.decimalString)
        option = OptionContractDTO(symbol)
    }
}

extension ClosedTradeDTO {
    init(_ trade: ReplayReport.ClosedTrade) {
        self.init(symbol: trade.symbol.rawValue, side: trade.side.rawValue, date: trade.date.description, quantity: trade.quantity.wire,
                  price: trade.price.perShare(of: trade.symbol).decimalString, realizedPnl: trade.realizedPnL.decimalString,
                  option: OptionContractDTO(trade.symbol))
    }
}

extension ReplayReportDTO {
    init(_ result: ReplayService.Report) {
        let report = result.report
        self.init(
            start: report.start.description, end: report.end.description, ended: result.ended, endOfData: result.endOfData,
            startingCash: report.startingCash.decimalString, endingEquity: report.endingEquity.decimalString,
            totalReturn: report.totalReturn.decimalString, totalReturnPercent: report.totalReturnPercent?.decimalString,
            benchmark: "SPX", benchmarkReturnPercent: report.benchmarkReturnPercent?.decimalString,
            maxDrawdown: report.maxDrawdown.decimalString, maxDrawdownPercent: report.maxDrawdownPercent?.decimalString,
            drawdownPeak: report.drawdownPeak?.description, drawdownTrough: report.drawdownTrough?.description,
            bestTrade: report.bestTrade.map(ClosedTradeDTO.init), worstTrade: report.worstTrade.map(ClosedTradeDTO.init),
            daysInvested: report.daysInvested, days: report.days,
            daysInvestedPercent: report.daysInvestedPercent?.decimalString,
            buyAndHoldStocks: report.buyAndHoldStocks?.decimalString,
            buyAndHoldBenchmark: report.buyAndHoldBenchmark?.decimalString,
            points: report.points.map { EquityPointDTO(date: $0.date.description, equity: $0.equity.decimalString,
                                                       benchmark: $0.benchmark?.decimalString) })
    }
}
