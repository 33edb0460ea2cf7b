import BullpenAPI
import BullpenCore
import BullpenMarketData
import BullpenStore
@testable import BullpenServer
import BullpenTestSupport
import Foundation
import NIOHTTP1
import Testing

extension TestServer {
    func chain(_ symbol: String, asOf: String, expiration: String? = nil) async throws -> OptionChainDTO {
        let reply = try await send(.GET, "/api/v1/options/\(symbol)/chain?asOf=\(asOf)" + (expiration.map { "&expiration=\($0)" } ?? ""))
        try #require(reply.status == 200, "chain: \(reply.text)")
        return try reply.decode(OptionChainDTO.self)
    }

    func optionOrder(_ player: Player, _ portfolio: String, _ side: String, _ quantity: Int64, _ symbol: String) async throws -> Reply {
        try await send(.POST, "/api/v1/portfolios/\(portfolio)/orders", token: player.accessToken,
                       body: #"{"symbol":"\#(symbol)","side":"\#(side)","quantity":\#(quantity),"instrument":"option"}"#)
    }

    func exercise(_ player: Player, _ portfolio: String, _ symbol: String, _ contracts: Int64) async throws -> Reply {
        try await send(.POST, "/api/v1/portfolios/\(portfolio)/options/\(symbol)/exercise", token: player.accessToken,
                       body: #"{"contracts":\#(contracts)}"#)
    }

    func activities(_ player: Player, _ portfolio: String) async throws -> [ActivityDTO] {
        try await send(.GET, "/api/v1/portfolios/\(portfolio)/activities?limit=100", token: player.accessToken)
            .decode(ActivityPage.self).activities
    }
}

/// Options on the real pack: chains as of replay dates, buying at the ask and selling at the bid,
/// exercising, and expiry while a replay advances or when the live clock passes the close.
@Suite("Options API", .enabled(if: RealPack.available))
struct OptionAPITests {
    static func source() async throws -> any MarketDataSource { try await ReplayMarket.pack.source() }

    func cents(_ text: String) -> Int64 { Money(parsing: text)!.cents }
    func ticks(_ text: String) -> Int64 { Price(parsing: text)!.ticks }

    /// The call and put of the chain's first strike at or above the spot (in the money for the put).
    func atTheMoney(_ chain: OptionChainDTO) throws -> OptionStrikeDTO {
        let spot = try #require(Price(parsing: chain.model.spot))
        return try #require(chain.strikes.first { Price(parsing: $0.strike)! >= spot })
    }

    @Test func chainsAreListedAsOfTheClockAroundHolidays() async throws {
        try await withServer(source: try await Self.source()) { server in
            // Good Friday 2025 was the third Friday of April: that monthly expires on Thursday the 17th.
            let chain = try await server.chain("AAPL", asOf: "2025-03-20")
            #expect(chain.expirations.contains("2025-04-17") && !chain.expirations.contains("2025-04-18"))
            #expect(chain.expirations.first == "2025-03-21" && chain.expiration == "2025-03-21")
            #expect(chain.expirations.contains("2025-06-20") && chain.expirations.last == "2026-03-20")
            // The spot is the close of that day, from the pack's own file: no look-ahead.
            let close = try #require(try PackFile.closes("AAPL").first { $0.date == "2025-03-20" }).close
            #expect(Price(parsing: chain.model.spot) == Price(parsing: close) && chain.model.asOf == "2025-03-20")
            #expect(chain.model.description.contains("Modelled prices, not real quotes"))
            // Ten strikes or so either side, each on the increment of its level ($5 to $200, $10
            // above); the two either side of the spot are near the money.
            #expect((20...21).contains(chain.strikes.count) && chain.strikes.filter(\.nearTheMoney).count == 2)
            #expect(chain.strikes.allSatisfy { cents($0.strike) % (cents($0.strike) > 20_000 ? 1_000 : 500) == 0 })
            #expect(chain.strikes.contains { $0.strike == "195.00" } && chain.strikes.contains { $0.strike == "310.00" })
            for row in chain.strikes {
                for quote in [row.call, row.put] {
                    #expect(ticks(quote.bid) < ticks(quote.ask) && ticks(quote.bid) <= ticks(quote.mid) && ticks(quote.mid) <= ticks(quote.ask))
                    #expect(quote.contract.expiration == "2025-03-21" && quote.daysToExpiration == 1)
                }
                #expect(row.call.contract.type == "call" && row.put.contract.type == "put")
            }
            // A later expiration, asked by name; one not listed is refused.
            let april = try await server.chain("aapl", asOf: "2025-03-20", expiration: "2025-04-17")
            #expect(april.strikes.first?.call.daysToExpiration == 28)
            let bad = try await server.send(.GET, "/api/v1/options/AAPL/chain?asOf=2025-03-20&expiration=2025-04-18")
            #expect(bad.status == 422 && bad.errorCode == "invalid_expiration")
            let malformed = try await server.send(.GET, "/api/v1/options/AAPL/chain?expiration=soon")
            #expect(malformed.status == 422 && malformed.errorCode == "invalid_expiration")
            let unknown = try await server.send(.GET, "/api/v1/options/NOPE/chain")
            #expect(unknown.status == 404 && unknown.errorCode == "unknown_symbol")
            let stray = try await server.send(.GET, "/api/v1/options/AAPL/chain?strike=200")
            #expect(stray.status == 400 && stray.errorCode == "unknown_parameter")

            // The contract: padded or not, its quote and history never past the clock.
            let symbol = try #require(april.strikes.first).call.contract.symbol
            let padded = symbol.replacingOccurrences(of: " ", with: "%20")
            let detail = try await server.send(.GET, "/api/v1/options/contracts/\(padded)?asOf=2025-03-20").decode(OptionContractDetailDTO.self)
            #expect(detail.listed && !detail.expired && detail.quote?.ask == april.strikes.first?.call.ask)
            #expect(detail.history.last?.date == "2025-03-20" && detail.history.first.map { $0.date >= "2024-04-17" } == true)
            #expect(detail.payoff.count == 41 && detail.payoff.first?.profit == "-" + (Money(cents: cents(detail.quote!.ask) * 100).decimalString))
            let later = try await server.send(.GET, "/api/v1/options/contracts/\(detail.contract.positionSymbol)?asOf=2025-05-01")
                .decode(OptionContractDetailDTO.self)
            #expect(later.expired && !later.listed && later.quote == nil && later.history.last?.date == "2025-04-17")
            let nonsense = try await server.send(.GET, "/api/v1/options/contracts/AAPL")
            #expect(nonsense.status == 404 && nonsense.errorCode == "unknown_symbol")
        }
    }

    @Test func contractsBuyAtTheAskAndSellAtTheBid() async throws {
        try await withServer(source: try await Self.source()) { server in
            let player = try await server.register()
            let replay = try await server.createReplay(player, #"{"startingCash":"10000.00","replay":{"start":"2020-01-02"}}"#)
            let chain = try await server.chain("AAPL", asOf: "2020-01-02", expiration: "2020-01-17")
            let call = try atTheMoney(chain).call
            let preview = try await server.send(.POST, "/api/v1/portfolios/\(replay.id)/orders/preview", token: player.accessToken,
                                                body: #"{"symbol":"\#(call.contract.symbol)","side":"buy","quantity":2}"#)
                .decode(OrderPreviewDTO.self)
            #expect(preview.price == call.ask && preview.problems.isEmpty && preview.option?.multiplier == 100)
            #expect(cents(preview.total) == cents(call.ask) * 200 && preview.priceNote?.contains("Bought at the ask") == true)

            let bought = try await server.optionOrder(player, replay.id, "buy", 2, call.contract.symbol)
            try #require(bought.status == 201, "\(bought.text)")
            let order = try bought.decode(OrderDTO.self)
            #expect(order.fillPrice == call.ask && order.priceSource == "model" && cents(order.notional) == cents(call.ask) * 200)
            #expect(order.priceNote?.contains("AAPL at $\(chain.model.spot) as of 2020-01-02") == true)
            // The first run's "buy a share" is not done by a contract.
            let run = try await server.send(.GET, "/api/v1/learn/first-run", token: player.accessToken).decode(FirstRunDTO.self)
            #expect(run.status == "active" && run.next == "find" && run.steps.map(\.done) == [false, false, false])
            let sold = try await server.optionOrder(player, replay.id, "sell", 1, call.contract.positionSymbol).decode(OrderDTO.self)
            #expect(sold.fillPrice == call.bid && cents(sold.realizedPnl) == (cents(call.bid) - cents(call.ask)) * 100)
            let after = try await server.portfolio(player, replay.id)
            #expect(cents(after.cash) == 1_000_000 - cents(call.ask) * 200 + cents(call.bid) * 100)
            let positions = try await server.send(.GET, "/api/v1/portfolios/\(replay.id)/positions", token: player.accessToken)
                .decode(PositionList.self).positions
            #expect(positions.count == 1 && positions[0].quantity == 1 && positions[0].option?.strike == call.contract.strike)
            #expect(positions[0].averageCost == call.ask && positions[0].lastPrice == call.mid)
            #expect(cents(positions[0].marketValue) == ticks(call.mid))   // 100 shares of mid, in cents
            try await server.expectBalanced(player, replay.id)

            // Selling more than held, buying a strike the chain does not list, a mismatched instrument.
            let oversell = try await server.optionOrder(player, replay.id, "sell", 2, call.contract.positionSymbol)
            #expect(oversell.status == 422 && oversell.errorCode == "insufficient_contracts")
            let odd = try await server.optionOrder(player, replay.id, "buy", 1, "AAPL200117C00073250")
            #expect(odd.status == 422 && odd.errorCode == "contract_not_listed")
            let mismatch = try await server.send(.POST, "/api/v1/portfolios/\(replay.id)/orders", token: player.accessToken,
                                                 body: #"{"symbol":"AAPL","side":"buy","quantity":1,"instrument":"option"}"#)
            #expect(mismatch.status == 400 && mismatch.errorCode == "validation_failed")
            let expired = try await server.optionOrder(player, replay.id, "buy", 1, "AAPL191220C00070000")
            #expect(expired.status == 422 && expired.errorCode == "option_expired")
            try await server.expectBalanced(player, replay.id)
        }
    }

    @Test func exercisingNeedsTheCashOrTheShares() async throws {
        try await withServer(source: try await Self.source()) { server in
            let player = try await server.register()
            let poor = try await server.createReplay(player, #"{"startingCash":"2000.00","replay":{"start":"2020-01-02"}}"#)
            let chain = try await server.chain("AAPL", asOf: "2020-01-02", expiration: "2020-01-17")
            let deep = try #require(chain.strikes.first)   // the lowest strike: the call deep in the money
            let highest = try #require(chain.strikes.last)  // the highest: the call far out of the money
            // Just in the money, and affordable: the call below the spot, the put above it.
            let spot = try #require(Price(parsing: chain.model.spot))
            let below = try #require(chain.strikes.last { Price(parsing: $0.strike)! < spot }).call
            let above = try #require(chain.strikes.first { Price(parsing: $0.strike)! > spot }).put
            for symbol in [below.contract.symbol, above.contract.symbol] {
                let reply = try await server.optionOrder(player, poor.id, "buy", 1, symbol)
                try #require(reply.status == 201, "\(reply.text)")
            }
            let noCash = try await server.exercise(player, poor.id, below.contract.positionSymbol, 1)
            #expect(noCash.status == 422 && noCash.errorCode == "insufficient_funds")
            // The preview says so before, as a problem, and changes nothing.
            let refused = try await server.send(.POST, "/api/v1/portfolios/\(poor.id)/options/\(below.contract.positionSymbol)/exercise/preview",
                                                token: player.accessToken, body: #"{"contracts":1}"#).decode(ExercisePreviewDTO.self)
            #expect(refused.settlement == nil && refused.problems.map(\.code) == ["insufficient_funds"] && refused.held == 1)
            #expect(refused.cashAfter == refused.cashBefore)
            let noShares = try await server.exercise(player, poor.id, above.contract.positionSymbol, 1)
            #expect(noShares.status == 422 && noShares.errorCode == "insufficient_shares")
            let tooMany = try await server.exercise(player, poor.id, below.contract.positionSymbol, 2)
            #expect(tooMany.status == 422 && tooMany.errorCode == "insufficient_contracts")
            let notHeld = try await server.exercise(player, poor.id, highest.call.contract.positionSymbol, 1)
            #expect(notHeld.status == 422 && notHeld.errorCode == "insufficient_contracts")
            try await server.expectBalanced(player, poor.id)

            let rich = try await server.createReplay(player, #"{"startingCash":"100000.00","replay":{"start":"2020-01-02"}}"#)
            #expect(try await server.optionOrder(player, rich.id, "buy", 2, deep.call.contract.symbol).status == 201)
            #expect(try await server.optionOrder(player, rich.id, "buy", 1, highest.call.contract.symbol).status == 201)
            let outOfTheMoney = try await server.exercise(player, rich.id, highest.call.contract.positionSymbol, 1)
            #expect(outOfTheMoney.status == 422 && outOfTheMoney.errorCode == "out_of_the_money")
            let before = try await server.portfolio(player, rich.id)
            let preview = try await server.send(.POST, "/api/v1/portfolios/\(rich.id)/options/\(deep.call.contract.positionSymbol)/exercise/preview",
                                                token: player.accessToken, body: #"{"contracts":1}"#).decode(ExercisePreviewDTO.self)
            #expect(preview.problems.isEmpty && preview.settlement?.shares == 100 && preview.cashBefore == before.cash)
            #expect(cents(preview.cashAfter) == cents(before.cash) - cents(deep.strike) * 100)
            #expect(preview.settlement?.message.contains("bought 100 shares of AAPL") == true)
            let reply = try await server.exercise(player, rich.id, deep.call.contract.symbol.replacingOccurrences(of: " ", with: "%20"), 1)
            try #require(reply.status == 200, "\(reply.text)")
            let exercised = try reply.decode(OptionSettlementDTO.self)
            #expect(exercised.outcome == "exercised" && !exercised.automatic && exercised.shares == 100 && exercised.date == "2020-01-02")
            #expect(cents(exercised.cashDelta) == -cents(deep.strike) * 100 && exercised.underlyingPrice == chain.model.spot)
            let after = try await server.portfolio(player, rich.id)
            #expect(cents(after.cash) == cents(before.cash) - cents(deep.strike) * 100)
            let positions = try await server.send(.GET, "/api/v1/portfolios/\(rich.id)/positions", token: player.accessToken)
                .decode(PositionList.self).positions
            let shares = try #require(positions.first { $0.symbol == "AAPL" })
            // The shares cost the strike plus the premium of the contract exercised.
            #expect(shares.quantity == 100 && cents(shares.costBasis) == (cents(deep.strike) + cents(deep.call.ask)) * 100)
            #expect(positions.first { $0.symbol == deep.call.contract.positionSymbol }?.quantity == 1)
            let rows = try await server.activities(player, rich.id).filter { $0.type == "option_exercise" }
            #expect(rows.count == 2 && rows.contains { $0.symbol == "AAPL" && $0.price == deep.strike && $0.quantity == 100 })
            try await server.expectBalanced(player, rich.id)
        }
    }

    /// Covered calls and cash-secured puts, where the portfolio allows writing: the cover is held
    /// back, a written contract bought back realizes its premium, and expiry assigns the rest.
    @Test func writtenContractsAreCoveredBoughtBackAndAssigned() async throws {
        try await withServer(source: try await Self.source()) { server in
            let player = try await server.register()
            let chain = try await server.chain("AAPL", asOf: "2020-01-02", expiration: "2020-01-17")
            let low = try #require(chain.strikes.first), high = try #require(chain.strikes.last)
            let deepCall = low.call    // in the money at expiry: assigned
            let deepPut = high.put     // likewise
            let farPut = low.put       // far out of the money: bought back

            let plain = try await server.createReplay(player, #"{"startingCash":"100000.00","replay":{"start":"2020-01-02"}}"#)
            let refused = try await server.optionOrder(player, plain.id, "sell", 1, deepCall.contract.symbol)
            #expect(refused.status == 422 && refused.errorCode == "option_writing_not_allowed")

            let replay = try await server.createReplay(
                player, #"{"startingCash":"100000.00","optionWriting":true,"replay":{"start":"2020-01-02"}}"#)
            #expect(replay.rules.optionWriting == true && plain.rules.optionWriting == false)
            let uncovered = try await server.optionOrder(player, replay.id, "sell", 1, deepCall.contract.symbol)
            #expect(uncovered.status == 422 && uncovered.errorCode == "option_not_covered")
            #expect(try await server.order(player, "buy", 100, "AAPL", portfolio: replay.id).status == 201)
            let written = try await server.optionOrder(player, replay.id, "sell", 1, deepCall.contract.symbol)
            try #require(written.status == 201, "\(written.text)")
            #expect(try written.decode(OrderDTO.self).fillPrice == deepCall.bid)
            // The 100 shares now cover the call: none can be sold, and a second call is naked.
            let committed = try await server.order(player, "sell", 1, "AAPL", portfolio: replay.id)
            #expect(committed.status == 422 && committed.errorCode == "shares_committed")
            let second = try await server.optionOrder(player, replay.id, "sell", 1, deepCall.contract.symbol)
            #expect(second.status == 422 && second.errorCode == "option_not_covered")
            for put in [deepPut, farPut] {
                let reply = try await server.optionOrder(player, replay.id, "sell", 1, put.contract.symbol)
                try #require(reply.status == 201, "\(reply.text)")
            }
            let positions = try await server.send(.GET, "/api/v1/portfolios/\(replay.id)/positions", token: player.accessToken)
                .decode(PositionList.self).positions
            let short = try #require(positions.first { $0.symbol == deepCall.contract.positionSymbol })
            #expect(short.quantity == -1 && short.marketValue.hasPrefix("-") && cents(short.costBasis) == -cents(deepCall.bid) * 100)
            #expect(short.inTheMoney == true && short.underlyingPrice == chain.model.spot)
            #expect(positions.first { $0.symbol == farPut.contract.positionSymbol }?.inTheMoney == false)
            // Buying back the far put at the ask realizes the premium received less what it cost.
            let back = try await server.optionOrder(player, replay.id, "buy", 1, farPut.contract.positionSymbol)
            try #require(back.status == 201, "\(back.text)")
            #expect(cents(try back.decode(OrderDTO.self).realizedPnl) == (cents(farPut.bid) - cents(farPut.ask)) * 100)
            let tooMany = try await server.optionOrder(player, replay.id, "buy", 2, deepPut.contract.positionSymbol)
            #expect(tooMany.status == 422 && tooMany.errorCode == "insufficient_contracts")
            try await server.expectBalanced(player, replay.id)

            let before = try await server.portfolio(player, replay.id)
            let moved = try await server.advance(player, replay.id, #"{"days":15}"#)
            try #require(moved.status == 200, "\(moved.text)")
            let settlements = try #require(try moved.decode(AdvanceDTO.self).settlements)
            #expect(settlements.map(\.outcome) == ["assigned", "assigned"] && settlements.allSatisfy { $0.date == "2020-01-17" })
            // The call delivered 100 shares at its strike, the put bought 100 at its strike.
            let after = try await server.portfolio(player, replay.id)
            #expect(cents(after.cash) == cents(before.cash) + cents(low.strike) * 100 - cents(high.strike) * 100)
            let rows = try await server.activities(player, replay.id).filter { $0.type == "option_assignment" }
            // Dated by the replay's session, not by the wall clock.
            #expect(rows.allSatisfy { $0.date == "2020-01-17" })
            #expect(rows.count == 4 && rows.contains { $0.symbol == "AAPL" && $0.price == high.strike && $0.quantity == 100 })
            let held = try await server.send(.GET, "/api/v1/portfolios/\(replay.id)/positions", token: player.accessToken)
                .decode(PositionList.self).positions
            #expect(held.map(\.symbol) == ["AAPL"] && held[0].quantity == 100)
            // The put's shares cost its strike less the premium it brought.
            #expect(cents(held[0].costBasis) == (cents(high.strike) - cents(deepPut.bid)) * 100)
            try await server.expectBalanced(player, replay.id)
            // The report's only closed trade is the buy back (writing opened, the assignments settled).
            #expect(try await server.send(.POST, "/api/v1/portfolios/\(replay.id)/end", token: player.accessToken).status == 200)
            let report = try await server.send(.GET, "/api/v1/portfolios/\(replay.id)/report", token: player.accessToken)
                .decode(ReplayReportDTO.self)
            let worst = try #require(report.worstTrade)
            #expect(worst == report.bestTrade && worst.side == "buy" && worst.quantity == 1 && worst.price == farPut.ask)
            #expect(worst.option?.title == farPut.contract.title && cents(worst.realizedPnl) == (cents(farPut.bid) - cents(farPut.ask)) * 100)
        }
    }

    /// One advance over two expirations: each settles at its own close, in order; the books balance.
    @Test func expiriesWhileAReplayAdvances() async throws {
        try await withServer(source: try await Self.source()) { server in
            let player = try await server.register()
            let replay = try await server.createReplay(player, #"{"startingCash":"12000.00","replay":{"start":"2020-01-02"}}"#)
            let weekly = try await server.chain("AAPL", asOf: "2020-01-02", expiration: "2020-01-10")
            let monthly = try await server.chain("AAPL", asOf: "2020-01-02", expiration: "2020-01-17")
            let call = try #require(weekly.strikes.first).call        // deep in the money: exercised (the cash covers 100 shares)
            let put = try #require(monthly.strikes.first).put         // far out of the money: worthless
            let cashCall = try #require(monthly.strikes.dropFirst().first).call  // in the money, but no cash left: settled in cash
            for symbol in [call.contract.symbol, put.contract.symbol, cashCall.contract.symbol] {
                let reply = try await server.optionOrder(player, replay.id, "buy", 1, symbol)
                try #require(reply.status == 201, "\(reply.text)")
            }
            let moved = try await server.advance(player, replay.id, #"{"days":20}"#)
            try #require(moved.status == 200, "\(moved.text)")
            let advance = try moved.decode(AdvanceDTO.self)
            let settlements = try #require(advance.settlements)
            #expect(settlements.map(\.date) == ["2020-01-10", "2020-01-17", "2020-01-17"])
            #expect(settlements.map(\.outcome) == ["exercised", "expired_worthless", "cash_settled"] ||
                    settlements.map(\.outcome) == ["exercised", "cash_settled", "expired_worthless"])
            #expect(settlements.allSatisfy { $0.automatic } && advance.message.contains("3 option positions expired"))
            // Holdings moved over the advance show a contract's prices per share, with its terms.
            let putRow = try #require(advance.holdings.first { $0.symbol == put.contract.positionSymbol })
            #expect(putRow.priceBefore == put.mid && putRow.option?.type == "put")
            // Each settled at the close of its own expiration day, from the pack's file.
            let closes = Dictionary(try PackFile.closes("AAPL").map { ($0.date, $0.close) }, uniquingKeysWith: { a, _ in a })
            for settlement in settlements { #expect(Price(parsing: settlement.underlyingPrice) == Price(parsing: closes[settlement.date]!)) }
            let settledCash = try #require(settlements.first { $0.outcome == "cash_settled" })
            let intrinsic = ticks(closes["2020-01-17"]!) - ticks(cashCall.contract.strike)
            #expect(cents(settledCash.cashDelta) == intrinsic)   // 100 shares' worth, in cents
            let rows = try await server.activities(player, replay.id)
            #expect(rows.filter { $0.type == "option_exercise" }.count == 2 && rows.filter { $0.type == "option_expiry" }.count == 2)
            let positions = try await server.send(.GET, "/api/v1/portfolios/\(replay.id)/positions", token: player.accessToken)
                .decode(PositionList.self).positions
            #expect(positions.map(\.symbol) == ["AAPL"] && positions[0].quantity == 100)
            try await server.expectBalanced(player, replay.id)
            // The equity stored for each day matches the valuation now.
            let summary = try await server.portfolio(player, replay.id)
            #expect(summary.equity == advance.equityAfter)
        }
    }

    /// Live portfolios: the closing job settles what expired by the last closed session.
    @Test func theClosingJobSettlesLiveExpiries() async throws {
        let source = try await Self.source()
        try await withServer(source: source) { server in
            let player = try await server.register()
            let last = try #require(await source.replayRange()?.upperBound)
            let chain = try await server.chain("AAPL", asOf: last.description, expiration: last.description)
            let call = try #require(chain.strikes.first).call
            let put = try #require(chain.strikes.first).put
            for symbol in [call.contract.symbol, put.contract.symbol] {
                let reply = try await server.optionOrder(player, player.mainPortfolio, "buy", 1, symbol)
                try #require(reply.status == 201, "\(reply.text)")
            }
            let before = try await server.portfolio(player, player.mainPortfolio)
            let job = ClosingEquityJob(store: server.store, source: OptionMarketData.wrapping(source), logger: TestServer.quietLogger)
            #expect(try await job.expireOptions(through: last.adding(days: -1)) == 0)
            #expect(try await job.expireOptions(through: last) == 2)
            #expect(try await job.expireOptions(through: last) == 0)
            let after = try await server.portfolio(player, player.mainPortfolio)
            #expect(cents(after.cash) == cents(before.cash) - cents(call.contract.strike) * 100)
            let rows = try await server.activities(player, player.mainPortfolio)
            #expect(rows.contains { $0.type == "option_exercise" && $0.symbol == "AAPL" } && rows.contains { $0.type == "option_expiry" })
            try await server.expectBalanced(player, player.mainPortfolio)
        }
    }

    @Test func leaguesTradeStocksOnlyUnlessTheirRulesAllowOptions() async throws {
        try await withServer(source: try await Self.source()) { server in
            let owner = try await server.register()
            let stocks = try await server.createLeague(owner, #"{"name":"Stocks","visibility":"private"}"#)
            #expect(stocks.rules.allowOptions == false)
            let chain = try await server.chain("AAPL", asOf: "2026-02-20")
            let symbol = try atTheMoney(chain).call.contract.symbol
            let refused = try await server.optionOrder(owner, try #require(stocks.myPortfolioId), "buy", 1, symbol)
            #expect(refused.status == 422 && refused.errorCode == "instrument_not_allowed")
            let options = try await server.createLeague(owner, #"{"name":"Options","visibility":"private","rules":{"allowOptions":true}}"#)
            #expect(options.rules.allowOptions)
            let allowed = try await server.optionOrder(owner, try #require(options.myPortfolioId), "buy", 1, symbol)
            #expect(allowed.status == 201, "\(allowed.text)")
            try await server.expectBalanced(owner, try #require(options.myPortfolioId))
            // Writing is a rule of its own, off unless asked for, and only with options.
            #expect(!options.rules.allowOptionWriting)
            let put = try atTheMoney(chain).put.contract.symbol
            let notWriting = try await server.optionOrder(owner, try #require(options.myPortfolioId), "sell", 1, put)
            #expect(notWriting.status == 422 && notWriting.errorCode == "option_writing_not_allowed")
            let lonely = try await server.send(.POST, "/api/v1/leagues", token: owner.accessToken,
                                               body: #"{"name":"Writers","visibility":"private","rules":{"allowOptionWriting":true}}"#)
            #expect(lonely.status == 400 && lonely.errorCode == "validation_failed")
            let writers = try await server.createLeague(
                owner, #"{"name":"Writers","visibility":"private","rules":{"allowOptions":true,"allowOptionWriting":true}}"#)
            #expect(writers.rules.allowOptionWriting)
            let written = try await server.optionOrder(owner, try #require(writers.myPortfolioId), "sell", 1, put)
            #expect(written.status == 201, "\(written.text)")
            try await server.expectBalanced(owner, try #require(writers.myPortfolioId))
        }
    }
}
