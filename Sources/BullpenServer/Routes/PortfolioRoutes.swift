import BullpenAPI
import BullpenCore
import BullpenStore
import Foundation
import Vapor

/// Portfolios and their positions and equity history. Every route checks that the caller owns
/// the portfolio; someone else's portfolio is "not found", exactly like one that does not exist.
struct PortfolioRoutes: RouteCollection {
    static let startingCashRange = Money(dollars: 100)...Money(dollars: 10_000_000)

    func boot(routes: any RoutesBuilder) throws {
        let portfolios = routes.grouped("portfolios")
        portfolios.get(use: list)
        portfolios.post(use: create)
        let one = portfolios.grouped(":id")
        one.get(use: show)
        one.patch(use: update)
        one.delete(use: delete)
        one.post("reset", use: reset)
        one.get("positions", use: positions)
        one.get("history", use: history)
        one.post("advance", use: advance)
        one.post("end", use: end)
        one.get("report", use: report)
    }

    @Sendable func list(req: Request) async throws -> Response {
        let caller = try await req.caller()
        var result: [PortfolioDTO] = []
        for portfolio in try await req.bullpen.store.portfolios(owner: caller.user) {
            result.append(try await summary(portfolio.id, req: req, owner: caller.user))
        }
        return try jsonResponse(PortfolioList(portfolios: result))
    }

    @Sendable func create(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let body = try req.decodeJSON(CreatePortfolioRequest.self)
        var startingCash = BullpenStore.firstPortfolio.startingCash
        if let text = body.startingCash {
            guard let amount = Money(parsing: text), Self.startingCashRange.contains(amount) else {
                throw APIError(.invalidStartingCash, "Starting cash must be an amount from 100.00 to 10000000.00.")
            }
            startingCash = amount
        }
        let portfolio: PortfolioRecord
        var realism = PortfolioRules()
        try realism.setRealism(volumeCap: body.volumeCapPercent, slippage: body.slippagePercent, field: "")
        if body.shortSelling == true { realism.margin = .standard }
        realism.fractionalShares = body.fractionalShares ?? false
        if let replay = body.replay {
            portfolio = try await req.bullpen.replay().create(owner: caller.user, name: body.name, startingCash: startingCash,
                                                               request: replay, optionWriting: body.optionWriting ?? false, realism: realism)
        } else {
            guard let name = body.name else { throw APIError.validation("The field 'name' is required.") }
            var rules = realism
            rules.optionWriting = body.optionWriting ?? false
            portfolio = try await req.bullpen.store.createPortfolio(owner: caller.user, name: try Names.validate(name, of: "Portfolio"),
                                                                    startingCash: startingCash, rules: rules)
        }
        let response = try jsonResponse(try await summary(portfolio.id, req: req, owner: caller.user), status: .created)
        response.headers.replaceOrAdd(name: .location, value: "/api/v1/portfolios/\(portfolio.id)")
        return response
    }

    @Sendable func show(req: Request) async throws -> Response {
        let caller = try await req.caller()
        return try jsonResponse(try await summary(try req.portfolioID(), req: req, owner: caller.user))
    }

    @Sendable func update(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let id = try req.portfolioID()
        let body = try req.decodeJSON(UpdatePortfolioRequest.self)
        let visibility = try body.visibility.map { text in
            guard let value = PortfolioVisibility(rawValue: text) else {
                throw APIError.validation("visibility is private, public (holdings as weights) or full (amounts too).")
            }
            return value
        }
        if let name = body.name {
            _ = try await req.bullpen.store.renamePortfolio(id, owner: caller.user, to: try Names.validate(name, of: "Portfolio"))
        }
        if let visibility {
            try await req.bullpen.store.setVisibility(id, owner: caller.user, to: visibility)
            if visibility != .private { await req.bullpen.notifier.record(.sharedPortfolio, for: caller.user) }
        }
        return try jsonResponse(try await summary(id, req: req, owner: caller.user))
    }

    @Sendable func delete(req: Request) async throws -> Response {
        let caller = try await req.caller()
        try await req.bullpen.store.deletePortfolio(try req.portfolioID(), owner: caller.user)
        return Response(status: .noContent)
    }

    @Sendable func reset(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let id = try req.portfolioID()
        try await req.bullpen.portfolios.reset(id, owner: caller.user)
        return try jsonResponse(try await summary(id, req: req, owner: caller.user))
    }

    @Sendable func positions(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let valued = try await req.bullpen.portfolios.valued(try req.portfolioID(), owner: caller.user)
        return try jsonResponse(PositionList(positions: await req.positionDTOs(valued.valuation, clock: valued.state.portfolio.clock)))
    }

    /// The equity curve of the current period, one point a session, with the S&P 500 (or the demo
    /// index) scaled to the same starting value. At most about 500 points.
    @Sendable func history(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let id = try req.portfolioID()
        // A replay's curve comes from the equity stored as it advanced.
        if case .replay = try await req.bullpen.store.portfolioForPricing(id, owner: caller.user).clock {
            let curve = try await req.bullpen.replay().curve(id, owner: caller.user)
            return try jsonResponse(EquityHistoryDTO(startingCash: curve.startingCash, points: curve.points))
        }
        let curve = try await req.bullpen.portfolios.equityCurve(id, owner: caller.user)
        return try jsonResponse(EquityHistoryDTO(startingCash: curve.startingCash, points: curve.points))
    }

    /// Moves a replay portfolio's clock forward (see ``ReplayService/advance(_:owner:days:to:)``).
    @Sendable func advance(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let id = try req.portfolioID()
        let body = try req.decodeJSON(AdvanceRequest.self)
        var target: SessionDate?
        if let text = body.to {
            guard let date = SessionDate(iso: text) else { throw APIError(.invalidAdvance, "'to' must be a date like 2009-05-01.") }
            target = date
        }
        let replay = try req.bullpen.replay()
        let moved = try await replay.advance(id, owner: caller.user, days: body.days, to: target)
        await replay.checkAchievements(id, owner: caller.user, from: moved.from, to: moved.to, endOfData: moved.endOfData,
                                       notifier: req.bullpen.notifier)
        let before = moved.snapshots.first?.equity ?? .zero, after = moved.snapshots.last?.equity ?? .zero
        var dto = AdvanceDTO(
            from: moved.from.description, to: moved.to.description, days: moved.days, endOfData: moved.endOfData,
            message: moved.message, equityBefore: before.decimalString, equityAfter: after.decimalString,
            change: (after - before).decimalString, changePercent: (after - before).percent(of: before)?.decimalString,
            benchmarkChangePercent: moved.benchmarkChange?.decimalString,
            holdings: moved.holdings.map(HoldingChangeDTO.init),
            portfolio: try await summary(id, req: req, owner: caller.user))
        dto.settlements = moved.settlements.map(OptionSettlementDTO.init)
        dto.dayCount = moved.counting == .sessions ? "sessions" : "calendar"
        return try jsonResponse(dto)
    }

    /// Ends a replay: no more orders or advances; the report is final.
    @Sendable func end(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let id = try req.portfolioID()
        try await req.bullpen.replay().end(id, owner: caller.user)
        await req.bullpen.notifier.record(.replayEnded, for: caller.user)
        return try jsonResponse(try await summary(id, req: req, owner: caller.user))
    }

    @Sendable func report(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let result = try await req.bullpen.replay().report(try req.portfolioID(), owner: caller.user)
        return try jsonResponse(ReplayReportDTO(result))
    }

    private func summary(_ id: PortfolioID, req: Request, owner: UserID) async throws -> PortfolioDTO {
        let valued = try await req.bullpen.portfolios.valued(id, owner: owner)
        var dto = PortfolioDTO(valued.state.portfolio, valuation: valued.valuation, marketData: req.bullpen.marketDataStatus,
                               book: valued.state.book)
        // How its advance counts days (without market data, as sessions: nothing can advance then).
        if case .replay = valued.state.portfolio.clock {
            let coins = (try? await req.bullpen.replay().coins(among: [valued.state])) ?? []
            dto.clock.dayCount = ReplayService.dayCount(valued.state, coins: coins) == .sessions ? "sessions" : "calendar"
        }
        return dto
    }
}

extension Request {
    /// The positions of `valuation` on the wire, with each company's name and, for a contract,
    /// the underlying's price as of `clock` and whether the contract is in the money there.
    func positionDTOs(_ valuation: Valuation, clock: PortfolioClock) async -> [PositionDTO] {
        var result: [PositionDTO] = []
        for position in valuation.positions {
            let symbol = position.position.symbol
            let asset = try? await bullpen.marketData?.asset(symbol)
            var dto = PositionDTO(position, name: asset?.name)
            if asset?.assetClass == .crypto { dto.assetClass = AssetClass.crypto.rawValue }
            if let contract = symbol.option, let spot = try? await bullpen.marketData?.quote(contract.underlying, asOf: clock)?.price {
                dto.underlyingPrice = spot.decimalString
                dto.inTheMoney = contract.intrinsic(at: spot).ticks > 0
            }
            result.append(dto)
        }
        return result
    }
}
