import BullpenAPI
import BullpenCore
import BullpenMarketData
import BullpenStore
import Foundation
import Vapor

/// Alpaca's trading API (v2) at `/alpaca/v2`, for bots written against Alpaca's paper trading:
/// authenticated by an API key (`APCA-API-KEY-ID`, `APCA-API-SECRET-KEY`), which speaks for one
/// portfolio. Every route translates to the native services (the same ledger, rules, pricing and
/// clock): nothing here decides a trade. For a replay portfolio the clock is the replay's.
struct AlpacaTradingRoutes: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        let v2 = routes.grouped("alpaca", "v2")
        v2.get("account", use: account)
        v2.get("account", "activities", use: activities)
        v2.get("account", "activities", ":activityType", use: activities)
        v2.get("account", "portfolio", "history", use: portfolioHistory)
        v2.get("orders", use: listOrders)
        v2.post("orders", use: placeOrder)
        v2.delete("orders", use: cancelAll)
        v2.get("orders:by_client_order_id", use: orderByClientID)
        v2.get("orders", ":orderId", use: oneOrder)
        v2.patch("orders", ":orderId", use: replaceOrder)
        v2.delete("orders", ":orderId", use: cancelOrder)
        v2.get("positions", use: positions)
        v2.delete("positions", use: closeAll)
        v2.get("positions", ":symbol", use: onePosition)
        v2.delete("positions", ":symbol", use: closePosition)
        // A coin's pair as clients send it, unescaped: /v2/positions/BTC/USD.
        v2.get("positions", ":symbol", ":quote", use: onePosition)
        v2.delete("positions", ":symbol", ":quote", use: closePosition)
        v2.get("assets", use: assets)
        v2.get("assets", ":symbol", use: oneAsset)
        v2.get("assets", ":symbol", ":quote", use: oneAsset)
        v2.get("clock", use: clock)
        v2.get("calendar", use: calendar)
        v2.get("watchlists", use: watchlists)
        v2.post("watchlists", use: createWatchlist)
        v2.get("watchlists", ":watchlistId", use: oneWatchlist)
        v2.put("watchlists", ":watchlistId", use: updateWatchlist)
        v2.post("watchlists", ":watchlistId", use: addToWatchlist)
        v2.delete("watchlists", ":watchlistId", use: deleteWatchlist)
        v2.delete("watchlists", ":watchlistId", ":symbol", use: removeFromWatchlist)
        routes.get("alpaca", "openapi.yaml", use: AlpacaUnsupportedRoutes.contract)
        let bullpen = routes.grouped("alpaca", "bullpen")
        bullpen.post("advance", use: advance)
    }

    // MARK: Account

    @Sendable func account(req: Request) async throws -> Response {
        let caller = try await req.keyCaller()
        let (state, valuation) = try await req.bullpen.portfolios.valued(caller.portfolio, owner: caller.user)
        let portfolio = state.portfolio
        // The cash no working order or short's collateral holds (the reserve counts both).
        let buyingPower = valuation.cash - valuation.reservedCash
        var requirement = Money.zero
        if let rule = portfolio.rules.margin, !state.book.shorts.isEmpty {
            requirement = Margin.status(of: state.book, prices: AlpacaMapping.prices(valuation), rule: rule).requirement
        }
        let long = valuation.positions.filter { $0.marketValue.cents > 0 }.reduce(Money.zero) { $0 + $1.marketValue }
        let short = valuation.positions.filter { $0.marketValue.cents < 0 }.reduce(Money.zero) { $0 + $1.marketValue }
        var dto = AlpacaAccount(
            id: portfolio.id.description, accountNumber: AlpacaMapping.accountNumber(portfolio.id),
            buyingPower: max(buyingPower, .zero).decimalString, cash: valuation.cash.decimalString,
            equity: valuation.equity.decimalString, lastEquity: (valuation.equity - valuation.dayChange).decimalString,
            longMarketValue: long.decimalString, shortMarketValue: short.decimalString,
            maintenanceMargin: requirement.decimalString, multiplier: portfolio.rules.margin == nil ? "1" : "2",
            tradingBlocked: portfolio.closedAt != nil || portfolio.replay?.ended == true,
            shortingEnabled: portfolio.rules.margin != nil, createdAt: portfolio.createdAt, portfolioName: portfolio.name,
            replayDate: portfolio.clock.date.map { SessionDate($0).description })
        dto.cryptoStatus = portfolio.rules.allowCrypto ? "ACTIVE" : "INACTIVE"
        return try alpacaJSON(dto)
    }

    // MARK: Orders

    @Sendable func placeOrder(req: Request) async throws -> Response {
        let caller = try await req.tradingKeyCaller()
        let body = try req.decodeJSON(AlpacaOrderRequest.self)
        let native = try AlpacaMapping.placeRequest(body)
        try await req.bullpen.takeOrder(by: caller.user)
        var request = try OrderRoutes.orderRequest(native)
        request.symbol = try await AlpacaMapping.listedCoin(request.symbol, req: req) ?? request.symbol
        // buy_to_close and sell_to_close only close: never past the position, into the other side.
        request.reduceOnly = body.positionIntent?.hasSuffix("_to_close") == true
        let outcome: BullpenStore.OrderOutcome
        do {
            (outcome, _) = try await req.bullpen.portfolios.placeOrder(request, in: caller.portfolio, owner: caller.user, idempotency: nil)
        } catch let error where APIError(error).code == .notListedYet {
            // A replay's bot is not told that a company will exist: it does not, yet.
            throw APIError.unknownSymbol(AlpacaMapping.alpacaSymbol(request.symbol))
        }
        guard case .executed(let order, let book) = outcome else { throw APIError(.internalError, "The order was not placed.") }
        BullpenMetrics.order(side: native.side, outcome: order.status.rawValue)
        OrderRoutes.announce(order, book: book, user: caller.user, req: req)
        return try alpacaJSON(AlpacaOrder(order, replay: try await isReplay(caller, req)))
    }

    @Sendable func listOrders(req: Request) async throws -> Response {
        let caller = try await req.keyCaller()
        let status = req.query[String.self, at: "status"] ?? "open"
        let open: Bool?
        switch status {
        case "open": open = true
        case "closed": open = false
        case "all": open = nil
        default: throw APIError.validation("status must be open, closed or all.")
        }
        let limit = try req.integer("limit", default: 50, range: 1...500)
        let after = try AlpacaQuery.instant(req, "after"), until = try AlpacaQuery.instant(req, "until")
        let ascending = try AlpacaQuery.direction(req, "direction") == "asc"
        _ = try AlpacaQuery.flag(req, "nested")
        let side = try req.query[String.self, at: "side"].map { text in
            guard let side = OrderSide(rawValue: text) else { throw APIError.validation("side must be buy or sell.") }
            return side
        }
        let symbols = try AlpacaQuery.symbols(req, required: false)
        let replay = try await isReplay(caller, req)
        // Times compared as shown: a replay's are the market's.
        var orders = try await allOrders(caller, open: open, req: req).filter { order in
            (side.map { order.side == $0 } ?? true) && (symbols.map { $0.contains(order.symbol) } ?? true)
        }.map { AlpacaOrder($0, replay: replay) }.filter { order in
            (after.map { order.createdAt > $0 } ?? true) && (until.map { order.createdAt < $0 } ?? true)
        }
        // Newest first, as stored; the limit takes from that end, as Alpaca's does for its direction.
        if ascending { orders.reverse() }
        return try alpacaJSON(Array(orders.prefix(limit)))
    }

    @Sendable func oneOrder(req: Request) async throws -> Response {
        let caller = try await req.keyCaller()
        _ = try AlpacaQuery.flag(req, "nested")
        let order = try await req.bullpen.store.order(try OrderRoutes.orderID(req), in: caller.portfolio, owner: caller.user)
        return try alpacaJSON(AlpacaOrder(order, replay: try await isReplay(caller, req)))
    }

    @Sendable func orderByClientID(req: Request) async throws -> Response {
        let caller = try await req.keyCaller()
        guard let id = req.query[String.self, at: "client_order_id"], !id.isEmpty else {
            throw APIError.validation("client_order_id is required.")
        }
        guard let order = try await allOrders(caller, open: nil, req: req).first(where: { $0.clientOrderID == id }) else {
            throw APIError.notFound("Order")
        }
        return try alpacaJSON(AlpacaOrder(order, replay: try await isReplay(caller, req)))
    }

    @Sendable func replaceOrder(req: Request) async throws -> Response {
        let caller = try await req.tradingKeyCaller()
        let orderID = try OrderRoutes.orderID(req)
        let body = try req.decodeJSON(AlpacaReplaceRequest.self)
        let old = try await req.bullpen.store.order(orderID, in: caller.portfolio, owner: caller.user)
        guard old.status.isOpen else { throw StoreError.orderNotOpen(status: old.status.rawValue) }
        var native = OrderRoutes.merged(old, with: try AlpacaMapping.replaceRequest(body, old: old))
        native.clientOrderId = body.clientOrderId
        let request = try OrderRoutes.orderRequest(native)
        let (_, new) = try await req.bullpen.portfolios.replaceOrder(orderID, with: request, in: caller.portfolio, owner: caller.user)
        return try alpacaJSON(AlpacaOrder(new, replay: try await isReplay(caller, req)))
    }

    /// 204 once cancelled; 422 when the order already filled, expired or was cancelled.
    @Sendable func cancelOrder(req: Request) async throws -> Response {
        let caller = try await req.tradingKeyCaller()
        let orderID = try OrderRoutes.orderID(req)
        let order = try await req.bullpen.store.order(orderID, in: caller.portfolio, owner: caller.user)
        guard order.status.isOpen else { throw StoreError.orderNotOpen(status: order.status.rawValue) }
        _ = try await req.bullpen.store.cancelOrder(orderID, in: caller.portfolio, owner: caller.user)
        return Response(status: .noContent)
    }

    /// Cancels every working order: 207 with each cancel's own status, as Alpaca answers.
    @Sendable func cancelAll(req: Request) async throws -> Response {
        let caller = try await req.tradingKeyCaller()
        let results = try await cancelOpenOrders(caller, req: req)
        return try alpacaJSON(results, status: .multiStatus)
    }

    /// Cancels each working order; one that filled or ended meanwhile gets its own status (422).
    private func cancelOpenOrders(_ caller: KeyCaller, req: Request) async throws -> [AlpacaCancelResult] {
        var results: [AlpacaCancelResult] = []
        let replay = try await isReplay(caller, req)
        for order in try await allOrders(caller, open: true, req: req) {
            do {
                let cancelled = try await req.bullpen.store.cancelOrder(order.id, in: caller.portfolio, owner: caller.user)
                results.append(AlpacaCancelResult(id: order.id.description, status: 200, body: AlpacaOrder(cancelled, replay: replay)))
            } catch {
                let status = AlpacaErrors.alpacaCode(APIError(error), method: .DELETE).status
                results.append(AlpacaCancelResult(id: order.id.description, status: status, body: nil))
            }
        }
        return results
    }

    private func isReplay(_ caller: KeyCaller, _ req: Request) async throws -> Bool {
        try await AlpacaMapping.clock(caller, req: req).date != nil
    }

    private func allOrders(_ caller: KeyCaller, open: Bool?, req: Request) async throws -> [OrderRecord] {
        try await AlpacaMapping.orders(of: caller, open: open, store: req.bullpen.store)
    }

    // MARK: Positions

    @Sendable func positions(req: Request) async throws -> Response {
        let caller = try await req.keyCaller()
        return try alpacaJSON(try await AlpacaMapping.positions(caller, req: req))
    }

    @Sendable func onePosition(req: Request) async throws -> Response {
        let caller = try await req.keyCaller()
        let wanted = AlpacaMapping.pathText(req)
        guard let position = try await AlpacaMapping.positions(caller, req: req).first(where: { Self.names(wanted, $0) })
        else { throw APIError(.notFound, "There is no position in \(wanted).") }
        return try alpacaJSON(position)
    }

    /// Closes a position (all of it, `qty` shares or a `percentage`) with a market order.
    @Sendable func closePosition(req: Request) async throws -> Response {
        let caller = try await req.tradingKeyCaller()
        let wanted = AlpacaMapping.pathText(req)
        let qty = req.query[String.self, at: "qty"], percentage = req.query[String.self, at: "percentage"]
        if qty != nil, percentage != nil { throw APIError.validation("Give qty or percentage, not both.") }
        guard let position = try await AlpacaMapping.positions(caller, req: req).first(where: { Self.names(wanted, $0) }),
              let held = Quantity(parsing: position.qty)
        else { throw APIError(.notFound, "There is no position in \(wanted).") }
        var quantity = held.magnitude
        if let qty {
            let value = try AlpacaMapping.quantity(qty)
            guard value <= quantity else { throw APIError(.insufficientShares, "The position holds \(quantity) shares, fewer than \(value).") }
            quantity = value
        } else if let percentage {
            // Any number of decimals (Alpaca takes them); rounded down to the lot the portfolio trades in.
            guard percentage.range(of: "^[0-9]{1,3}(\\.[0-9]{1,9})?$", options: .regularExpression) != nil,
                  let percent = FixedPoint.parse(percentage, scale: 9), percent > 0, percent <= 100_000_000_000 else {
                throw APIError.validation("percentage must be above 0 and at most 100.")
            }
            let rules = try await req.bullpen.store.portfolioForPricing(caller.portfolio, owner: caller.user).rules
            let lot = position.assetClass == "crypto" ? Lot.crypto : Symbol(position.symbol).map { rules.lot(for: $0) } ?? .whole
            quantity = percent == 100_000_000_000 ? quantity : quantity.scaled(by: percent, over: 100_000_000_000, lot: lot)
            guard quantity > .zero else {
                throw APIError(.quantityOutOfRange, "That percentage is less than the smallest amount this portfolio trades (\(lot)).")
            }
        }
        try await req.bullpen.takeOrder(by: caller.user)
        let order = try await close(position.symbol, quantity: quantity, short: held < .zero, caller: caller, req: req)
        return try alpacaJSON(order)
    }

    /// Closes every position with market orders (after cancelling the working orders when
    /// `cancel_orders` is true): 207 with each position's order or refusal.
    @Sendable func closeAll(req: Request) async throws -> Response {
        let caller = try await req.tradingKeyCaller()
        let cancelFirst = try AlpacaQuery.flag(req, "cancel_orders") == true
        try await req.bullpen.takeOrder(by: caller.user)   // one request, one order's worth of the rate limit
        if cancelFirst { _ = try await cancelOpenOrders(caller, req: req) }
        var results: [AlpacaCloseResult] = []
        for position in try await AlpacaMapping.positions(caller, req: req) {
            guard let held = Quantity(parsing: position.qty), held != .zero else { continue }
            do {
                let order = try await close(position.symbol, quantity: held.magnitude, short: held < .zero, caller: caller, req: req)
                results.append(AlpacaCloseResult(symbol: position.symbol, status: 200, order: order, failure: nil))
            } catch {
                let apiError = APIError(error)
                let (status, code) = AlpacaErrors.alpacaCode(apiError, method: .DELETE)
                results.append(AlpacaCloseResult(symbol: position.symbol, status: status, order: nil,
                                                  failure: AlpacaFailure(code: code, message: apiError.message)))
            }
        }
        return try alpacaJSON(results, status: .multiStatus)
    }

    /// A market order that only closes: checked when it executes, so that two closes at once
    /// never sell into a short (or buy into a long).
    private func close(_ symbol: String, quantity: Quantity, short: Bool, caller: KeyCaller, req: Request) async throws -> AlpacaOrder {
        let native = PlaceOrderRequest(symbol: AlpacaMapping.nativeSymbol(symbol), side: short ? "buy" : "sell", quantity: quantity.wire)
        var request = try OrderRoutes.orderRequest(native)
        request.reduceOnly = true
        let (outcome, _) = try await req.bullpen.portfolios.placeOrder(request, in: caller.portfolio, owner: caller.user, idempotency: nil)
        guard case .executed(let order, let book) = outcome else { throw APIError(.internalError, "The order was not placed.") }
        OrderRoutes.announce(order, book: book, user: caller.user, req: req)
        return AlpacaOrder(order, replay: try await isReplay(caller, req))
    }

    // MARK: Assets, clock, calendar

    @Sendable func assets(req: Request) async throws -> Response {
        let caller = try await req.keyCaller()
        let status = req.query[String.self, at: "status"], assetClass = req.query[String.self, at: "asset_class"]
        let exchange = req.query[String.self, at: "exchange"]
        if let status, status != "active", status != "inactive" { throw APIError.validation("status must be active or inactive.") }
        _ = req.query[String.self, at: "attributes"]
        // US stocks and coins (no options here); an inactive asset is one not listed by the clock's date.
        guard status != "inactive" else { return try alpacaJSON([AlpacaAsset]()) }
        let portfolio = try await req.bullpen.store.portfolioForPricing(caller.portfolio, owner: caller.user)
        var list = try await AlpacaMapping.assets(asOf: portfolio.clock, rules: portfolio.rules, req: req)
        if let assetClass { list = list.filter { $0.assetClass == assetClass } }
        if let exchange { list = list.filter { $0.exchange == exchange } }
        return try alpacaJSON(list)
    }

    @Sendable func oneAsset(req: Request) async throws -> Response {
        let caller = try await req.keyCaller()
        let wanted = AlpacaMapping.pathText(req)
        let portfolio = try await req.bullpen.store.portfolioForPricing(caller.portfolio, owner: caller.user)
        let target = AlpacaMapping.symbol(wanted).map(AlpacaMapping.alpacaSymbol)
        guard let asset = try await AlpacaMapping.assets(asOf: portfolio.clock, rules: portfolio.rules, req: req)
            .first(where: { $0.symbol == target || $0.id == wanted.lowercased()
                || ($0.assetClass == "crypto" && $0.symbol.replacingOccurrences(of: "/", with: "") == wanted.uppercased()) })
        else { throw APIError(.notFound, "asset not found: \(wanted)") }
        return try alpacaJSON(asset)
    }

    @Sendable func clock(req: Request) async throws -> Response {
        let caller = try await req.keyCaller()
        return try alpacaJSON(AlpacaMapping.clockDTO(try await AlpacaMapping.clock(caller, req: req), now: req.bullpen.time.now()))
    }

    @Sendable func calendar(req: Request) async throws -> Response {
        let caller = try await req.keyCaller()
        let clock = try await AlpacaMapping.clock(caller, req: req)
        let today = clock.date.map(SessionDate.init) ?? TradingCalendar.sessionDate(at: req.bullpen.time.now())
        let start = try AlpacaQuery.day(req, "start") ?? today
        let end = try AlpacaQuery.day(req, "end") ?? start.adding(days: 30)
        _ = req.query[String.self, at: "date_type"]
        guard start <= end else { throw APIError(.invalidDates, "start must not be after end.") }
        guard start.distance(to: end) <= 366 * 20 else { throw APIError(.invalidDates, "Ask for at most twenty years at a time.") }
        return try alpacaJSON(AlpacaMapping.calendar(from: start, through: end, clock: clock))
    }

    // MARK: Activities and history

    @Sendable func activities(req: Request) async throws -> Response {
        let caller = try await req.keyCaller()
        var types = req.parameters.get("activityType").map { [$0] }
            ?? req.query[String.self, at: "activity_types"].map { $0.split(separator: ",").map(String.init) }
        if let category = req.query[String.self, at: "category"] {
            guard category == "trade_activity" || category == "non_trade_activity" else {
                throw APIError.validation("category must be trade_activity or non_trade_activity.")
            }
            if types != nil { throw APIError.validation("Give activity_types or category, not both.") }
            types = category == "trade_activity" ? ["FILL"] : AlpacaMapping.nonTradeTypes
        }
        if let unknown = types?.first(where: { !AlpacaMapping.activityTypes.contains($0) }) {
            throw APIError.validation("'\(unknown)' is not an activity type.")
        }
        let date = try AlpacaQuery.day(req, "date")
        let after = try AlpacaQuery.instant(req, "after"), until = try AlpacaQuery.instant(req, "until")
        let ascending = try AlpacaQuery.direction(req, "direction") == "asc"
        let pageSize = try req.integer("page_size", default: 100, range: 1...100)
        let replay = try await isReplay(caller, req)
        var list = try await AlpacaMapping.activities(caller, replay: replay, store: req.bullpen.store).filter { item in
            (types.map { $0.contains(item.activity.activityType) } ?? true)
                && (date.map { TradingCalendar.sessionDate(at: item.at) == $0 } ?? true)
                && (after.map { item.at > $0 } ?? true) && (until.map { item.at < $0 } ?? true)
        }.map(\.activity)
        if ascending { list.reverse() }
        if let token = req.query[String.self, at: "page_token"] {
            guard let index = list.firstIndex(where: { $0.id == token }) else { throw APIError.invalidCursor }
            list = Array(list[(index + 1)...])
        }
        return try alpacaJSON(Array(list.prefix(pageSize)))
    }

    @Sendable func portfolioHistory(req: Request) async throws -> Response {
        let caller = try await req.keyCaller()
        let timeframe = req.query[String.self, at: "timeframe"] ?? "1D"
        guard timeframe == "1D" else {
            throw APIError(.notSupported, "Bullpen keeps one equity point a session: timeframe must be 1D.")
        }
        for name in ["intraday_reporting", "pnl_reset", "cashflow_types"] { _ = req.query[String.self, at: name] }
        _ = try AlpacaQuery.flag(req, "extended_hours")
        let period = try req.query[String.self, at: "period"].map(AlpacaQuery.period)
        let start = try AlpacaQuery.instant(req, "start").map(SessionDate.init)
        let end = try (AlpacaQuery.day(req, "date_end") ?? AlpacaQuery.instant(req, "end").map(SessionDate.init))
        let record = try await req.bullpen.store.portfolioForPricing(caller.portfolio, owner: caller.user)
        let curve: (startingCash: Money, points: [EquityCurve.Point])
        if case .replay = record.clock {
            curve = try await req.bullpen.replay().curve(caller.portfolio, owner: caller.user)
        } else {
            curve = try await req.bullpen.portfolios.equityCurve(caller.portfolio, owner: caller.user)
        }
        return try alpacaJSON(AlpacaMapping.history(curve.points, startingCash: curve.startingCash, period: period,
                                                    start: start, end: end))
    }

    // MARK: Watchlists (a player's watchlists, under every key of theirs)

    @Sendable func watchlists(req: Request) async throws -> Response {
        let caller = try await req.keyCaller()
        let lists = try await req.bullpen.store.watchlists(owner: caller.user)
        return try alpacaJSON(lists.map { AlpacaWatchlist(id: $0.id.uuidString.lowercased(), accountId: caller.portfolio.description,
                                                          name: $0.name, createdAt: $0.createdAt, assets: nil) })
    }

    @Sendable func createWatchlist(req: Request) async throws -> Response {
        let caller = try await req.tradingKeyCaller()
        let body = try req.decodeJSON(AlpacaWatchlistRequest.self)
        guard let name = body.name else { throw APIError.validation("name is required.") }
        let symbols = try await AlpacaMapping.listedSymbols(body.symbols ?? [], caller: caller, req: req)
        guard Set(symbols).count <= BullpenStore.maxSymbolsPerWatchlist else {
            throw StoreError.watchlistFull(limit: BullpenStore.maxSymbolsPerWatchlist)
        }
        let list = try await req.bullpen.store.createWatchlist(owner: caller.user, name: try Names.validate(name, of: "Watchlist"))
        let filled: WatchlistRecord
        do {
            filled = try await req.bullpen.store.replaceWatchlist(list.id, name: nil, symbols: symbols, owner: caller.user)
        } catch {
            try? await req.bullpen.store.deleteWatchlist(list.id, owner: caller.user)   // all or nothing
            throw error
        }
        return try alpacaJSON(try await AlpacaMapping.watchlist(filled, caller: caller, req: req))
    }

    @Sendable func oneWatchlist(req: Request) async throws -> Response {
        let caller = try await req.keyCaller()
        let list = try await req.bullpen.store.watchlist(try WatchlistRoutes.id(req, "watchlistId"), owner: caller.user)
        return try alpacaJSON(try await AlpacaMapping.watchlist(list, caller: caller, req: req))
    }

    @Sendable func updateWatchlist(req: Request) async throws -> Response {
        let caller = try await req.tradingKeyCaller()
        let id = try WatchlistRoutes.id(req, "watchlistId")
        let body = try req.decodeJSON(AlpacaWatchlistRequest.self)
        let name = try body.name.map { try Names.validate($0, of: "Watchlist") }
        var symbols: [Symbol]?
        if let texts = body.symbols { symbols = try await AlpacaMapping.listedSymbols(texts, caller: caller, req: req) }
        let list = try await req.bullpen.store.replaceWatchlist(id, name: name, symbols: symbols, owner: caller.user)
        return try alpacaJSON(try await AlpacaMapping.watchlist(list, caller: caller, req: req))
    }

    @Sendable func addToWatchlist(req: Request) async throws -> Response {
        let caller = try await req.tradingKeyCaller()
        let id = try WatchlistRoutes.id(req, "watchlistId")
        let body = try req.decodeJSON(AlpacaWatchlistSymbol.self)
        _ = try await req.bullpen.store.watchlist(id, owner: caller.user)
        let symbol = try await AlpacaMapping.listedSymbols([body.symbol], caller: caller, req: req)[0]
        let list = try await req.bullpen.store.addToWatchlist(id, symbol: symbol, owner: caller.user)
        return try alpacaJSON(try await AlpacaMapping.watchlist(list, caller: caller, req: req))
    }

    @Sendable func deleteWatchlist(req: Request) async throws -> Response {
        let caller = try await req.tradingKeyCaller()
        try await req.bullpen.store.deleteWatchlist(try WatchlistRoutes.id(req, "watchlistId"), owner: caller.user)
        return Response(status: .noContent)
    }

    @Sendable func removeFromWatchlist(req: Request) async throws -> Response {
        let caller = try await req.tradingKeyCaller()
        let symbol = try AlpacaMapping.pathSymbol(req)
        let list = try await req.bullpen.store.removeFromWatchlist(try WatchlistRoutes.id(req, "watchlistId"), symbol: symbol,
                                                                   owner: caller.user)
        return try alpacaJSON(try await AlpacaMapping.watchlist(list, caller: caller, req: req))
    }

    // MARK: Bullpen's own

    /// Moves a replay portfolio on by `days` sessions or `to` a date, as the native advance does.
    @Sendable func advance(req: Request) async throws -> Response {
        let caller = try await req.tradingKeyCaller()
        let body = try req.decodeJSON(AlpacaAdvanceRequest.self)
        var target: SessionDate?
        if let text = body.to {
            guard let date = SessionDate(iso: text) else { throw APIError(.invalidAdvance, "'to' must be a date like 2009-05-01.") }
            target = date
        }
        let replay = try req.bullpen.replay()
        let moved = try await replay.advance(caller.portfolio, owner: caller.user, days: body.days, to: target)
        await replay.checkAchievements(caller.portfolio, owner: caller.user, from: moved.from, to: moved.to,
                                       endOfData: moved.endOfData, notifier: req.bullpen.notifier)
        let equity = moved.snapshots.last?.equity ?? .zero
        let clock = AlpacaMapping.clockDTO(.replay(moved.to.date), now: req.bullpen.time.now())
        return try alpacaJSON(AlpacaAdvanceResult(from: moved.from.description, to: moved.to.description, days: moved.days,
                                                  endOfData: moved.endOfData, message: moved.message,
                                                  equity: equity.decimalString, clock: clock))
    }

    /// Whether a position is the one a path names: its symbol in Alpaca's form or in any case, or its asset id.
    /// Whether `wanted` (a symbol in Alpaca's form or the native one, a coin's pair with or
    /// without its slash, or an asset id) names `position`.
    static func names(_ wanted: String, _ position: AlpacaPosition) -> Bool {
        position.symbol == AlpacaMapping.symbol(wanted).map(AlpacaMapping.alpacaSymbol) || position.assetId == wanted.lowercased()
            || (position.assetClass == "crypto" && position.symbol.replacingOccurrences(of: "/", with: "") == wanted.uppercased())
    }
}

/// Encodes an Alpaca answer (snake-case keys).
func alpacaJSON<T: Encodable>(_ value: T, status: HTTPResponseStatus = .ok, plain: Bool = false) throws -> Response {
    var headers = HTTPHeaders()
    headers.contentType = .json
    let data = try (plain ? AlpacaJSON.plainEncoder : AlpacaJSON.encoder).encode(value)
    return Response(status: status, headers: headers, body: .init(data: data))
}
