import BullpenAPI
import BullpenCore
import BullpenMarketData
import BullpenStore
import Crypto
import Foundation
import Vapor

/// Native records in Alpaca's shapes, and Alpaca's requests as native ones.
enum AlpacaMapping {
    // MARK: Ids and symbols

    /// A stable UUID for a symbol (Alpaca's assets have ids): the first 16 bytes of the
    /// symbol's SHA-256, marked as a version 5 (name-based) UUID.
    static func assetID(_ symbol: Symbol) -> String {
        var bytes = Array(SHA256.hash(data: Data("bullpen asset \(symbol.rawValue)".utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x50
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let uuid = UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                               bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
        return uuid.uuidString.lowercased()
    }

    /// A portfolio's account number: `BP` and the first ten hex digits of its id.
    static func accountNumber(_ id: PortfolioID) -> String {
        "BP" + id.description.replacingOccurrences(of: "-", with: "").prefix(10).uppercased()
    }

    /// A symbol as Alpaca writes it: a class share with a dot (`BRK.B`, the pack's `BRK-B`), a
    /// coin's pair with a slash (`BTC/USD`, the pack's `BTC-USD`), an option without the OCC padding.
    static func alpacaSymbol(_ symbol: Symbol) -> String {
        if symbol.option != nil { return symbol.rawValue.replacingOccurrences(of: " ", with: "") }
        if symbol.isDollarPair { return symbol.rawValue.dropLast(4) + "/USD" }
        return symbol.rawValue.replacingOccurrences(of: "-", with: ".")
    }

    /// The native form of a symbol as Alpaca writes it (`BRK.B` is `BRK-B`, `BTC/USD` is
    /// `BTC-USD`), in capitals.
    static func nativeSymbol(_ text: String) -> String {
        text.trimmingCharacters(in: .whitespaces).uppercased().replacingOccurrences(of: ".", with: "-").replacingOccurrences(of: "/", with: "-")
    }

    /// A symbol sent in Alpaca's form, or nil when it is not a symbol.
    static func symbol(_ text: String) -> Symbol? { Symbol(nativeSymbol(text)) }

    /// The coin's pair `symbol` names without its separator (Alpaca's older `BTCUSD` for `BTC-USD`),
    /// when it is not itself listed and the pair is a listed coin; nil otherwise.
    static func listedCoin(_ symbol: Symbol, req: Request) async throws -> Symbol? {
        guard let pair = compactPair(symbol), let source = req.bullpen.marketData,
              try await source.asset(symbol) == nil, try await source.asset(pair)?.assetClass == .crypto else { return nil }
        return pair
    }

    /// `BTCUSD` read as the pair `BTC-USD` (nil for a symbol that cannot be one).
    static func compactPair(_ symbol: Symbol) -> Symbol? {
        let text = symbol.rawValue
        guard !symbol.isOption, !symbol.isDollarPair, text.count > 3, text.hasSuffix("USD"), !text.contains("-") else { return nil }
        return Symbol(text.dropLast(3) + "-USD")
    }

    /// The `{symbol}` of a path as sent: a coin's pair may come unescaped, in two parts (`BTC/USD`).
    static func pathText(_ req: Request) -> String {
        let symbol = req.parameters.get("symbol") ?? ""
        return req.parameters.get("quote").map { symbol + "/" + $0 } ?? symbol
    }

    /// The `{symbol}` of a path, in Alpaca's form.
    static func pathSymbol(_ req: Request) throws -> Symbol {
        let text = pathText(req)
        guard let symbol = symbol(text) else { throw APIError.unknownSymbol(text) }
        return symbol
    }

    // MARK: Time

    /// The instant a replay's clock shows on `session`: a minute before its close.
    static func marketInstant(_ session: SessionDate) -> Date {
        (TradingCalendar().sessionBounds(on: session)?.close ?? TradingCalendar.instant(session, 16, 0)).addingTimeInterval(-60)
    }

    /// When a price stamped `asOf` was the market's: a daily close (stamped at its date's
    /// midnight) at its session's close, a live tick at its own time.
    static func marketTime(_ asOf: Date) -> Date {
        let session = SessionDate(asOf)
        guard asOf == session.date else { return asOf }
        return TradingCalendar().sessionBounds(on: session)?.close ?? TradingCalendar.instant(session, 16, 0)
    }

    static func assetClass(_ symbol: Symbol) -> String {
        symbol.option != nil ? "us_option" : symbol.isDollarPair ? "crypto" : "us_equity"
    }

    /// Alpaca's exchange of `symbol`: `CRYPTO` for a coin, else as ``exchange(_:)``.
    static func exchange(_ name: String?, of symbol: Symbol) -> String { symbol.isDollarPair ? "CRYPTO" : exchange(name) }

    /// Alpaca's exchange names; others (the demo exchange) are written as "".
    static func exchange(_ name: String?) -> String {
        let known = ["NASDAQ", "NYSE", "AMEX", "ARCA", "BATS", "NYSEARCA", "OTC"]
        guard let name = name?.uppercased(), known.contains(name) else { return "" }
        return name
    }

    // MARK: Orders

    /// A quantity as sent (`5`, `"5"`, `5.0`, `0.25`) above zero with at most eight decimals, or the
    /// error that says why not. The whole text must be the number: `"5abc"` is not 5. Whether a
    /// fraction may be traded is the portfolio's rule, checked with the order.
    static func quantity(_ text: String, field: String = "qty") throws -> Quantity {
        guard text.range(of: "^[0-9]+(\\.[0-9]+)?$", options: .regularExpression) != nil else {
            throw APIError.validation("\(field) must be a number of shares, like 10 or 0.5.")
        }
        // `"2.000000000"` is 2: the zeros past the point say nothing.
        var trimmed = Substring(text)
        if trimmed.contains(".") { while trimmed.hasSuffix("0") { trimmed.removeLast() } }
        if trimmed.hasSuffix(".") { trimmed.removeLast() }
        let quantity = try OrderRoutes.quantity(ExactNumber(String(trimmed)), field: field)
        guard quantity > .zero, quantity < .max else {
            throw APIError(.quantityOutOfRange, quantity > .zero ? "\(field) is far too large." : "\(field) must be above zero.")
        }
        return quantity
    }

    /// Alpaca's order request as the native one; what Bullpen does not simulate is refused with a reason.
    static func placeRequest(_ body: AlpacaOrderRequest) throws -> PlaceOrderRequest {
        if let orderClass = body.orderClass, orderClass != "simple" {
            throw APIError(.notSupported, "order_class \(orderClass) is not offered: Bullpen takes simple orders (place the legs as separate orders).")
        }
        if body.legs != nil || body.takeProfit != nil || body.stopLoss != nil {
            throw APIError(.notSupported, "Bracket, OCO and OTO legs (take_profit, stop_loss, legs) are not offered: place simple orders.")
        }
        if body.extendedHours == true {
            throw APIError(.notSupported, "Extended-hours trading is not simulated: orders work in the regular session.")
        }
        if let intent = body.positionIntent, !["buy_to_open", "buy_to_close", "sell_to_open", "sell_to_close"].contains(intent) {
            throw APIError.validation("position_intent must be buy_to_open, buy_to_close, sell_to_open or sell_to_close.")
        }
        guard let symbol = body.symbol, !symbol.isEmpty else { throw APIError.validation("symbol is required.") }
        if let parsed = Symbol(symbol), parsed.option != nil || symbol.count > 10 {
            throw APIError(.notSupported, "Options are not offered through the Alpaca-compatible API; use Bullpen's own API for them.")
        }
        guard let side = body.side else { throw APIError.validation("side is required.") }
        var native = PlaceOrderRequest(symbol: nativeSymbol(symbol), side: side, quantity: nil, type: body.type ?? "market",
                                       clientOrderId: body.clientOrderId)
        switch (body.qty, body.notional) {
        case (let qty?, nil): native.quantity = try quantity(qty.text).wire
        case (nil, let notional?): native.notional = notional.text
        case (_?, _?): throw APIError.validation("Give qty or notional, not both.")
        case (nil, nil): throw APIError.validation("qty or notional is required.")
        }
        native.timeInForce = body.timeInForce ?? "day"
        native.limitPrice = body.limitPrice?.text
        native.stopPrice = body.stopPrice?.text
        native.trailPrice = body.trailPrice?.text
        native.trailPercent = body.trailPercent?.text
        return native
    }

    /// Alpaca's replace request as the native one (`trail` is the old order's kind of trail).
    static func replaceRequest(_ body: AlpacaReplaceRequest, old: OrderRecord) throws -> ReplaceOrderRequest {
        var native = ReplaceOrderRequest()
        if let qty = body.qty { native.quantity = try quantity(qty.text).wire }
        native.timeInForce = body.timeInForce
        native.limitPrice = body.limitPrice?.text
        native.stopPrice = body.stopPrice?.text
        if let trail = body.trail {
            switch old.terms.trail {
            case .percent?: native.trailPercent = trail.text
            case .price?: native.trailPrice = trail.text
            case nil: throw APIError.validation("trail changes a trailing stop's trail; this order has none.")
            }
        }
        return native
    }

    /// Every order of the key's portfolio (the current period), newest first.
    static func orders(of caller: KeyCaller, open: Bool?, store: BullpenStore) async throws -> [OrderRecord] {
        var result: [OrderRecord] = [], cursor: String?
        repeat {
            let page = try await store.orders(of: caller.portfolio, owner: caller.user, limit: 500, cursor: cursor, open: open)
            result += page.items
            cursor = page.nextCursor
        } while cursor != nil
        return result
    }

    // MARK: Positions

    static func prices(_ valuation: Valuation) -> [Symbol: Price] {
        Dictionary(valuation.positions.compactMap { position in position.quote.map { (position.position.symbol, $0.price) } },
                   uniquingKeysWith: { first, _ in first })
    }

    /// The key's positions, valued now (as of the portfolio's clock).
    static func positions(_ caller: KeyCaller, req: Request) async throws -> [AlpacaPosition] {
        let (state, valuation) = try await req.bullpen.portfolios.valued(caller.portfolio, owner: caller.user)
        var result: [AlpacaPosition] = []
        for value in valuation.positions {
            let position = value.position, symbol = position.symbol
            let name = try? await req.bullpen.marketData?.asset(symbol)
            let quantity = position.quantity
            // What another order may sell: less what working sells and written calls hold back.
            let available = quantity > 0 ? max(.zero, state.book.freeShares(of: symbol)) : quantity
            var dto = AlpacaPosition(
                assetId: assetID(symbol), symbol: alpacaSymbol(symbol), exchange: exchange(name?.exchange, of: symbol),
                assetClass: assetClass(symbol), avgEntryPrice: position.averageCost.perShare(of: symbol).decimalString,
                qty: quantity.decimalString, qtyAvailable: available.decimalString, side: quantity < 0 ? "short" : "long",
                marketValue: value.marketValue.decimalString, costBasis: position.costBasis.decimalString,
                unrealizedPl: value.unrealizedPnL.decimalString)
            dto.unrealizedPlpc = value.unrealizedPercent.map { FixedPoint.format($0.hundredths, scale: 4) }
            if let quote = value.quote {
                dto.currentPrice = quote.price.perShare(of: symbol).decimalString
                dto.lastdayPrice = quote.previousClose?.perShare(of: symbol).decimalString
                dto.changeToday = quote.changePercent.map { FixedPoint.format($0.hundredths, scale: 4) }
            }
            if let day = value.dayChange {
                dto.unrealizedIntradayPl = day.decimalString
                dto.unrealizedIntradayPlpc = (value.marketValue - day).cents == 0 ? nil
                    : ratio(day.cents, of: abs((value.marketValue - day).cents))
            }
            result.append(dto)
        }
        return result
    }

    /// `numerator / denominator` as a decimal fraction with six places (half away from zero).
    static func ratio(_ numerator: Int64, of denominator: Int64) -> String? {
        guard denominator != 0, let scaled = FixedPoint.checked(numerator, times: 1_000_000, plus: 0) else { return nil }
        return FixedPoint.format(FixedPoint.divideRounded(scaled, by: denominator), scale: 6)
    }

    // MARK: Assets, clock, calendar

    /// The clock the key's portfolio stands on.
    static func clock(_ caller: KeyCaller, req: Request) async throws -> PortfolioClock {
        try await req.bullpen.store.portfolioForPricing(caller.portfolio, owner: caller.user).clock
    }

    /// Every asset listed as of `clock` (a replay sees only what was listed on its date), as the
    /// portfolio under `rules` may trade it: a coin always in fractions, never short or on margin;
    /// a stock in fractions when the rules allow them.
    static func assets(asOf clock: PortfolioClock, rules: PortfolioRules, req: Request) async throws -> [AlpacaAsset] {
        let source = try req.bullpen.requireMarketData()
        // A company whose data ended (delisted, merged) is listed but no longer trades: inactive.
        return try await Research.snapshots(source, asOf: clock).map { snapshot in
            let trading = snapshot.quote?.trading ?? false, symbol = snapshot.info.symbol
            var asset = AlpacaAsset(id: assetID(symbol), exchange: exchange(snapshot.info.exchange, of: symbol),
                                    symbol: alpacaSymbol(symbol), name: snapshot.info.name, status: trading ? "active" : "inactive",
                                    tradable: trading && (snapshot.info.assetClass != .crypto || rules.allowCrypto))
            if snapshot.info.assetClass == .crypto {
                asset.assetClass = "crypto"
                asset.fractionable = true
                asset.marginable = false
                asset.shortable = false
                asset.easyToBorrow = false
                asset.minTradeIncrement = Lot.crypto.description
            } else {
                asset.fractionable = rules.fractionalShares
            }
            return asset
        }
    }

    /// Alpaca's clock: live, the exchange's; for a replay, its date a minute before the close
    /// (orders placed now fill on that session, as the replay game fills them), the market open
    /// unless the date is a day the exchange is closed (a replay holding coins counts every day).
    static func clockDTO(_ clock: PortfolioClock, now: Date) -> AlpacaClock {
        let calendar = tradingCalendar(clock)
        let instant: Date, isOpen: Bool
        if let date = clock.date {
            instant = marketInstant(SessionDate(date))
            isOpen = calendar.isTradingDay(SessionDate(date))
        } else {
            instant = now
            isOpen = calendar.isOpen(at: now)
        }
        return AlpacaClock(timestamp: newYorkTime(instant), isOpen: isOpen, nextOpen: newYorkTime(calendar.nextOpen(after: instant)),
                           nextClose: newYorkTime(calendar.nextClose(after: instant)), bullpenClock: clock.date == nil ? "live" : "replay")
    }

    /// The exchange calendar as a portfolio on `clock` knows it: a replay does not know the
    /// unscheduled closures after its date (9/11, Hurricane Sandy).
    static func tradingCalendar(_ clock: PortfolioClock) -> TradingCalendar {
        TradingCalendar(closuresKnownThrough: clock.date.map(SessionDate.init))
    }

    static let newYorkStyle = Date.ISO8601FormatStyle(timeZone: TradingCalendar.newYork)

    /// An instant in New York time with its offset, as Alpaca's clock writes it.
    static func newYorkTime(_ instant: Date) -> String { instant.formatted(newYorkStyle) }

    static func calendar(from start: SessionDate, through end: SessionDate, clock: PortfolioClock) -> [AlpacaCalendarDay] {
        let calendar = tradingCalendar(clock)
        return calendar.tradingDays(from: start, through: end).map { date in
            let early = calendar.isEarlyClose(date)
            // Settlement is one trading day later (T+1).
            return AlpacaCalendarDay(date: date.description, open: "09:30", close: early ? "13:00" : "16:00",
                                     settlementDate: calendar.nextTradingDay(after: date).description)
        }
    }

    // MARK: Activities

    static let nonTradeTypes = ["FEE", "CSD", "DIV", "SPLIT", "OPEXC", "OPEXP", "OPASN", "MA"]
    static let activityTypes = Set(["FILL"] + nonTradeTypes)

    /// The journal of the current period as Alpaca's activities, newest first, with when each happened.
    /// On a replay, an activity's time is the market's (its price's session), not the wall clock's.
    static func activities(_ caller: KeyCaller, replay: Bool, store: BullpenStore) async throws -> [(activity: AlpacaActivity, at: Date)] {
        let journal = try await store.journal(of: caller.portfolio, owner: caller.user, periods: .current)
        let orders = Dictionary(try await orders(of: caller, open: nil, store: store).map { ($0.id, $0) }) { first, _ in first }
        var filled: [OrderID: Quantity] = [:]
        var result: [(activity: AlpacaActivity, at: Date)] = []
        let stamp = DateFormatter()
        stamp.locale = Locale(identifier: "en_US_POSIX")
        stamp.timeZone = TimeZone(identifier: "UTC")
        stamp.dateFormat = "yyyyMMddHHmmssSSS"
        for entry in journal {   // oldest first: fills add up per order
            let at = replay ? marketTime(entry.priceAsOf ?? entry.createdAt) : entry.createdAt
            let id = "\(stamp.string(from: at))::\(entry.id)"
            let account = caller.portfolio.description
            if entry.kind == .trade, let symbol = entry.symbol, let side = entry.side, let orderID = entry.orderID {
                var activity = AlpacaActivity(id: id, accountId: account, activityType: "FILL")
                let quantity = entry.quantityDelta.magnitude
                let cumulative = (filled[orderID] ?? 0) + quantity
                filled[orderID] = cumulative
                let order = orders[orderID]
                let leaves = max(.zero, (order?.quantity ?? cumulative) - cumulative)
                activity.transactionTime = at
                activity.type = leaves > 0 ? "partial_fill" : "fill"
                activity.price = entry.price?.perShare(of: symbol).decimalString
                activity.qty = quantity.decimalString
                activity.side = side.rawValue
                activity.symbol = alpacaSymbol(symbol)
                activity.leavesQty = leaves.decimalString
                activity.cumQty = cumulative.decimalString
                activity.orderId = orderID.description
                activity.orderStatus = leaves > 0 ? "partially_filled" : (order?.status.rawValue ?? "filled")
                result.append((activity, at))
                continue
            }
            let type: String
            switch entry.kind {
            case .trade, .commission, .borrowFee: type = "FEE"
            case .grant: type = "CSD"
            case .dividend: type = "DIV"
            case .split: type = "SPLIT"
            case .exercise: type = "OPEXC"
            case .expiry: type = "OPEXP"
            case .assignment: type = "OPASN"
            case .marginCall, .marginMet: type = "MA"
            }
            var activity = AlpacaActivity(id: id, accountId: account, activityType: type)
            activity.date = (entry.priceAsOf.map(SessionDate.init) ?? TradingCalendar.sessionDate(at: entry.createdAt)).description
            activity.netAmount = entry.cashDelta.decimalString
            activity.symbol = entry.symbol.map(alpacaSymbol)
            activity.qty = entry.quantityDelta == 0 ? nil : entry.quantityDelta.decimalString
            activity.status = "executed"
            activity.description = switch entry.kind {
            case .grant: "Top-up of virtual cash"
            case .commission: "Commission"
            case .borrowFee: "Borrow fee on a short position"
            case .dividend: "Cash dividend"
            case .split: "Stock split"
            case .exercise: "Option exercised"
            case .expiry: "Option expired"
            case .assignment: "Option assigned"
            case .marginCall: "Margin call"
            case .marginMet: "Margin call met"
            case .trade: "Trade"
            }
            result.append((activity, at))
        }
        return result.reversed()
    }

    // MARK: Portfolio history

    /// The equity curve in Alpaca's shape: one point a session (stamped at its New York
    /// midnight), profit and loss against the first point kept.
    static func history(_ points: [EquityCurve.Point], startingCash: Money, period: DateComponents?, start: SessionDate?,
                        end: SessionDate?) -> AlpacaPortfolioHistory {
        var kept = points.filter { point in (end.map { point.date <= $0 } ?? true) && (start.map { point.date >= $0 } ?? true) }
        if start == nil, let last = kept.last?.date {
            let components = period ?? DateComponents(month: 1)
            let lastDate = TradingCalendar.instant(last, 12, 0)
            if let from = Calendar(identifier: .gregorian).date(byAdding: components.negated, to: lastDate) {
                kept = kept.filter { $0.date >= SessionDate(from) }
            }
        }
        let base = kept.first?.equity ?? startingCash
        return AlpacaPortfolioHistory(
            timestamp: kept.map { Int64(TradingCalendar.instant($0.date, 0, 0).timeIntervalSince1970) },
            equity: kept.map { AlpacaJSON.number($0.equity.decimalString) ?? 0 },
            profitLoss: kept.map { AlpacaJSON.number(($0.equity - base).decimalString) ?? 0 },
            profitLossPct: kept.map { AlpacaJSON.number(ratio(($0.equity - base).cents, of: base.cents)) },
            baseValue: AlpacaJSON.number(base.decimalString) ?? 0, baseValueAsof: kept.first?.date.description, timeframe: "1D")
    }

    // MARK: Watchlists

    /// Symbols listed as of the key's clock (Alpaca refuses a watchlist with an unknown one: 422;
    /// on a replay, a company listed later is unknown).
    static func listedSymbols(_ texts: [String], caller: KeyCaller, req: Request) async throws -> [Symbol] {
        let source = try req.bullpen.requireMarketData()
        let clock = try await clock(caller, req: req)
        var result: [Symbol] = []
        for text in texts {
            guard let symbol = symbol(text), try await listed(symbol, source: source, clock: clock) else {
                throw APIError(.validationFailed, "asset not found: \(text)")
            }
            result.append(symbol)
        }
        return result
    }

    /// Whether `symbol` is listed as of `clock` (on a replay: it has a price by then).
    static func listed(_ symbol: Symbol, source: any MarketDataSource, clock: PortfolioClock) async throws -> Bool {
        guard try await source.asset(symbol) != nil else { return false }
        if clock == .live { return true }
        return try await source.quote(symbol, asOf: clock) != nil
    }

    /// A watchlist with its assets as of the key's clock (on a replay, those listed later are left out).
    static func watchlist(_ list: WatchlistRecord, caller: KeyCaller, req: Request) async throws -> AlpacaWatchlist {
        let source = try req.bullpen.requireMarketData()
        let clock = try await clock(caller, req: req)
        var assets: [AlpacaAsset] = []
        for symbol in list.symbols {
            guard let info = try await source.asset(symbol), try await listed(symbol, source: source, clock: clock) else { continue }
            assets.append(AlpacaAsset(id: assetID(symbol), exchange: exchange(info.exchange), symbol: alpacaSymbol(symbol), name: info.name,
                                      status: "active", tradable: true))
        }
        return AlpacaWatchlist(id: list.id.uuidString.lowercased(), accountId: caller.portfolio.description, name: list.name,
                               createdAt: list.createdAt, assets: assets)
    }
}

extension AlpacaOrder {
    /// `order` in Alpaca's shape. On a replay its times are the market's: placed on its session
    /// (at the clock's time, a minute before the close), filled when its price was.
    init(_ order: OrderRecord, replay: Bool) {
        let symbol = order.symbol
        var created = order.createdAt, filled = order.filledAt, updated = order.updatedAt ?? order.filledAt ?? order.createdAt
        if replay {
            // A working order knows the session it was placed on; one that filled at once, its price's.
            created = (order.placedOn ?? order.pricing.map { SessionDate($0.asOf) }).map(AlpacaMapping.marketInstant) ?? order.createdAt
            filled = order.filledAt == nil ? nil : order.pricing.map { AlpacaMapping.marketTime($0.asOf) } ?? created
            let ended = order.status == .expired ? order.lastSession.map(AlpacaMapping.marketInstant) : nil
            updated = max(created, filled ?? ended ?? created)
        }
        self.init(id: order.id.description, clientOrderId: order.clientOrderID ?? order.id.description, createdAt: created,
                  updatedAt: updated, assetId: AlpacaMapping.assetID(symbol), symbol: AlpacaMapping.alpacaSymbol(symbol),
                  assetClass: AlpacaMapping.assetClass(symbol), qty: order.quantity.decimalString, filledQty: order.filledQuantity.decimalString,
                  type: order.type.rawValue, side: order.side.rawValue, timeInForce: order.terms.timeInForce.rawValue,
                  status: order.status.rawValue)
        filledAt = filled
        filledAvgPrice = order.filledQuantity > 0 ? order.fillPrice?.perShare(of: symbol).decimalString : nil
        limitPrice = order.terms.limit?.decimalString
        stopPrice = order.terms.stop?.decimalString
        switch order.terms.trail {
        case .price(let amount)?: trailPrice = amount.decimalString
        case .percent(let basisPoints)?: trailPercent = FixedPoint.format(basisPoints, scale: 2)
        case nil: break
        }
        hwm = order.waterMark?.decimalString
        switch order.status {
        case .canceled: canceledAt = updated
        case .expired: expiredAt = updated
        case .rejected: failedAt = updated
        case .replaced: replacedAt = updated
        case .new, .partiallyFilled, .filled: break
        }
        expiresAt = order.expiresAt
        replacedBy = order.replacedByID?.description
        replaces = order.replacesID?.description
        bullpenReason = order.reason
        bullpenPriceNote = order.fillNote ?? order.pricing?.explanation
    }
}

private extension DateComponents {
    var negated: DateComponents {
        var copy = DateComponents()
        copy.day = day.map { -$0 }
        copy.weekOfYear = weekOfYear.map { -$0 }
        copy.month = month.map { -$0 }
        copy.year = year.map { -$0 }
        return copy
    }
}
