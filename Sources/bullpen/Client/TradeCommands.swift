import ArgumentParser
import BullpenClient
import Foundation

extension TimeInForce: ExpressibleByArgument {}

/// `buy` and `sell`: the preview first, then the order once confirmed.
struct TradeOptions: ParsableArguments {
    @Argument(help: "The symbol, e.g. AAPL.") var symbol: String
    @Argument(help: "Shares: whole, or a fraction (0.25) where the portfolio allows fractional shares.") var quantity: String?
    @Option(help: "Trade this many dollars' worth instead of a quantity (e.g. 250): as much as it buys.") var amount: String?
    @Option(help: "A limit price: the order works until the price reaches it.") var limit: String?
    @Option(help: "A stop price: a market (or with --limit, a limit) order once the price reaches it.") var stop: String?
    @Option(name: .customLong("time-in-force"), help: "day, gtc, ioc, fok, opg or cls.") var timeInForce: TimeInForce?
    @Option(help: "The portfolio's name or id (Main when left out).") var portfolio: String?
    @Flag(name: .shortAndLong, help: "Place it without asking.") var yes = false

    func validate() throws {
        switch (quantity, amount) {
        case (nil, nil): throw ValidationError("give a quantity of shares, or --amount in dollars")
        case (_?, _?): throw ValidationError("give a quantity or --amount, not both")
        case (let text?, nil):
            guard let value = Self.decimal(text, places: 8), value > 0 else {
                throw ValidationError("the quantity must be a number of shares above zero, like 10 or 0.25, not '\(text)'")
            }
        case (nil, let text?):
            guard let value = Self.decimal(text, places: 2), value > 0 else {
                throw ValidationError("--amount must be dollars above zero, like 250 or 99.50, not '\(text)'")
            }
        }
        for (name, value) in [("--limit", limit), ("--stop", stop)] {
            if let value, Self.price(value) == nil { throw ValidationError("\(name) must be a price such as 12.50, not '\(value)'") }
        }
    }

    static func price(_ text: String) -> Decimal? { decimal(text, places: 4) }

    /// `text` as a decimal with at most `places` decimal places, read by its digits.
    static func decimal(_ text: String, places: Int) -> Decimal? {
        guard text.range(of: "^[0-9]+(\\.[0-9]{1,\(places)})?$", options: .regularExpression) != nil else { return nil }
        return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
    }

    func request(_ side: OrderSide) -> OrderRequest {
        let limitPrice = limit.flatMap(Self.price), stopPrice = stop.flatMap(Self.price)
        let type: OrderType = switch (limitPrice, stopPrice) {
        case (nil, nil): .market
        case (_, nil): .limit
        case (nil, _): .stop
        default: .stopLimit
        }
        return OrderRequest(symbol: symbol.uppercased(), side: side, quantity: quantity.flatMap { Self.decimal($0, places: 8) } ?? 0,
                            type: type, timeInForce: timeInForce, limitPrice: limitPrice, stopPrice: stopPrice,
                            notional: amount.flatMap { Self.decimal($0, places: 2) })
    }

    func trade(_ side: OrderSide, options: ClientOptions, output: OutputOptions) async throws {
        try await runClient {
            let (client, _, _) = try await options.client()
            let chosen = try await choosePortfolio(client, portfolio)
            let order = request(side)
            let preview = try await client.preview(order, in: chosen.id)
            if !output.json || !yes {
                let verb = side == .buy ? "Buy" : "Sell"
                FileHandle.standardError.write(Data("""
                \(Terminal.bold("\(verb) \(preview.quantity) \(order.symbol)")) in \(chosen.name)\(preview.summary.map { ": \($0)" } ?? "")
                  Price     \(Format.money(preview.price))  \(Terminal.dim(preview.priceNote ?? ""))
                  \(side == .buy ? "Cost    " : "Proceeds") \(Format.money(preview.total)) (commission \(Format.money(preview.commission)))
                  Cash      \(Format.money(preview.cashBefore)) → \(Format.money(preview.cashAfter))

                """.utf8))
            }
            if let problem = preview.problems.first {
                for other in preview.problems.dropFirst() { Terminal.warn("bullpen: \(other.message) (\(other.code))") }
                throw BullpenError.api(status: 422, code: .init(rawValue: problem.code), message: problem.message, retryAfter: nil)
            }
            guard yes || Terminal.confirm("Place this order?") else {
                Terminal.warn("Not placed.")
                return
            }
            let placed = try await client.placeOrder(order, in: chosen.id)
            if output.json { return try printJSON(placed) }
            switch placed.status {
            case .filled:
                print("\(side == .buy ? "Bought" : "Sold") \(placed.filledQuantity) \(placed.symbol) at \(Format.money(placed.fillPrice ?? 0)): "
                    + "\(Format.signedMoney(placed.cashDelta)) cash.")
            case .new, .partiallyFilled:
                print("Working: \(placed.summary ?? "\(placed.type.rawValue) order \(placed.id)") (\(placed.id))")
            default:
                print("Order \(placed.status.rawValue): \(placed.reason ?? "")")
            }
        }
    }
}

struct Buy: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Buy shares (shows the preview and asks unless --yes).")
    @OptionGroup var options: ClientOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var trade: TradeOptions
    func run() async throws { try await trade.trade(.buy, options: options, output: output) }
}

struct Sell: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Sell shares (shows the preview and asks unless --yes).")
    @OptionGroup var options: ClientOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var trade: TradeOptions
    func run() async throws { try await trade.trade(.sell, options: options, output: output) }
}
