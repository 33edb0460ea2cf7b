import ArgumentParser
import BullpenClient
import Foundation

struct Portfolios: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Your portfolios with their equity and return.")

    @OptionGroup var options: ClientOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await runClient {
            let (client, _, _) = try await options.client()
            let all = try await client.portfolios()
            if output.json { return try printJSON(all) }
            var table = Table([.init(title: "Name"), .init(title: "Kind"), .init(title: "Equity", right: true),
                               .init(title: "Cash", right: true), .init(title: "Return", right: true),
                               .init(title: "Today", right: true)])
            for portfolio in all {
                let kind = portfolio.isReplay ? "replay \(portfolio.date ?? "")" : portfolio.leagueId == nil ? "live" : "league"
                table.add([.init(portfolio.name), .init(kind), .init(Format.money(portfolio.equity)),
                           .init(Format.money(portfolio.cash)),
                           .signed(Format.percent(portfolio.totalReturnPercent), portfolio.totalReturnPercent),
                           .signed(Format.signedMoney(portfolio.dayChange), portfolio.dayChange)])
            }
            print(table.render())
        }
    }
}

struct ShowPortfolio: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "portfolio",
                                                    abstract: "A portfolio's holdings with their value and profit, and its totals.")

    @OptionGroup var options: ClientOptions
    @OptionGroup var output: OutputOptions
    @Argument(help: "Its name or id (your Main portfolio when left out).") var name: String?

    /// `--json`: the portfolio and its positions, as the API answers them.
    struct Both: Encodable {
        var portfolio: Portfolio
        var positions: [Position]
    }

    func run() async throws {
        try await runClient {
            let (client, _, _) = try await options.client()
            let portfolio = try await choosePortfolio(client, name)
            let positions = try await client.positions(in: portfolio.id)
            if output.json { return try printJSON(Both(portfolio: portfolio, positions: positions)) }
            let clock = portfolio.isReplay ? "replay on \(portfolio.date ?? "?")" : "live"
            print("\(Terminal.bold(portfolio.name)) (\(clock))\(portfolio.simulated ? Terminal.dim("  demo market, simulated prices") : "")")
            print("Equity \(Terminal.bold(Format.money(portfolio.equity)))   Cash \(Format.money(portfolio.cash))"
                + (portfolio.availableCash.map { $0 != portfolio.cash ? " (\(Format.money($0)) free)" : "" } ?? "")
                + "   Return " + Terminal.signed("\(Format.signedMoney(portfolio.totalReturn)) \(Format.percent(portfolio.totalReturnPercent))", portfolio.totalReturn)
                + "   Today " + Terminal.signed(Format.signedMoney(portfolio.dayChange), portfolio.dayChange))
            guard !positions.isEmpty else {
                print("\nNo holdings yet: `bullpen buy SYMBOL QUANTITY`.")
                return
            }
            var table = Table([.init(title: "Symbol"), .init(title: "Qty", right: true), .init(title: "Avg cost", right: true),
                               .init(title: "Price", right: true), .init(title: "Value", right: true),
                               .init(title: "P&L", right: true), .init(title: "P&L %", right: true), .init(title: "Today", right: true)])
            for position in positions {
                table.add([.init(position.symbol + (position.trading ? "" : " (ended)")), .init("\(position.quantity)"),
                           .init(Format.money(position.averageCost)), .init(position.lastPrice.map(Format.money) ?? ""),
                           .init(Format.money(position.marketValue)),
                           .signed(Format.signedMoney(position.unrealizedPnl), position.unrealizedPnl),
                           .signed(Format.percent(position.unrealizedPnlPercent), position.unrealizedPnl),
                           .signed(position.dayChange.map(Format.signedMoney) ?? "", position.dayChange ?? 0)])
            }
            let pnl = positions.reduce(Decimal(0)) { $0 + $1.unrealizedPnl }
            let today = positions.reduce(Decimal(0)) { $0 + ($1.dayChange ?? 0) }
            table.footer = [.init("Total"), "", "", "", .init(Format.money(portfolio.marketValue)),
                            .signed(Format.signedMoney(pnl), pnl), "", .signed(Format.signedMoney(today), today)]
            print("")
            print(table.render())
        }
    }
}

struct Orders: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "A portfolio's orders, newest first.")

    @OptionGroup var options: ClientOptions
    @OptionGroup var output: OutputOptions
    @Option(help: "The portfolio's name or id (Main when left out).") var portfolio: String?
    @Flag(help: "Only the orders still working.") var open = false
    @Option(help: "How many (1 to 500).") var limit = 50

    func run() async throws {
        try await runClient {
            let (client, _, _) = try await options.client()
            let chosen = try await choosePortfolio(client, portfolio)
            let orders = try await client.orders(in: chosen.id, filter: open ? .open : .all, limit: limit)
            if output.json { return try printJSON(orders) }
            guard !orders.isEmpty else { return print(open ? "No working orders." : "No orders yet.") }
            var table = Table([.init(title: "Placed"), .init(title: "Side"), .init(title: "Qty", right: true), .init(title: "Symbol"),
                               .init(title: "Type"), .init(title: "Status"), .init(title: "Price", right: true),
                               .init(title: "Cash", right: true)])
            for order in orders {
                let price = order.fillPrice ?? order.limitPrice ?? order.stopPrice
                table.add([.init(Format.time(order.createdAt)), .init(order.side.rawValue), .init("\(order.quantity)"),
                           .init(order.symbol), .init(order.type.rawValue.replacingOccurrences(of: "_", with: " ")),
                           .init(order.status.rawValue.replacingOccurrences(of: "_", with: " ")),
                           .init(price.map(Format.money) ?? ""), .signed(Format.signedMoney(order.cashDelta), order.cashDelta)])
            }
            print(table.render())
        }
    }
}

struct History: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "A portfolio's journal: trades, fees, dividends, splits.")

    @OptionGroup var options: ClientOptions
    @OptionGroup var output: OutputOptions
    @Option(help: "The portfolio's name or id (Main when left out).") var portfolio: String?
    @Flag(help: "The whole journal as CSV, as the server writes it.") var csv = false

    func validate() throws {
        if csv && output.json { throw ValidationError("--csv and --json cannot be given together") }
    }

    func run() async throws {
        try await runClient {
            let (client, _, _) = try await options.client()
            let chosen = try await choosePortfolio(client, portfolio)
            if csv { return print(try await client.activitiesCSV(in: chosen.id), terminator: "") }
            var activities: [Activity] = []
            var cursor: String?
            repeat {
                let page = try await client.activities(in: chosen.id, limit: 500, cursor: cursor)
                activities += page.activities
                cursor = page.nextCursor
            } while cursor != nil && activities.count < 100_000
            if output.json { return try printJSON(activities) }
            guard !activities.isEmpty else { return print("Nothing yet.") }
            var table = Table([.init(title: "Date"), .init(title: "Type"), .init(title: "Symbol"), .init(title: "Qty", right: true),
                               .init(title: "Price", right: true), .init(title: "Amount", right: true),
                               .init(title: "Realized", right: true)])
            for activity in activities {
                table.add([.init(activity.date ?? Format.time(activity.createdAt)), .init(activity.type.replacingOccurrences(of: "_", with: " ")),
                           .init(activity.symbol ?? ""), .init(activity.quantity == 0 ? "" : "\(activity.quantity)"),
                           .init(activity.price.map(Format.money) ?? ""), .signed(Format.signedMoney(activity.amount), activity.amount),
                           .signed(activity.realizedPnl.map(Format.signedMoney) ?? "", activity.realizedPnl ?? 0)])
            }
            print(table.render())
        }
    }
}
