import BullpenCore
import Foundation

/// A stretch of market history worth living through: where a replay starts, what it is about,
/// and the stocks it hands the player. Each has a list of real companies (the data pack and the
/// live providers) and one of the demo exchange's companies, whose history follows the same
/// regimes.
public struct Scenario: Sendable, Hashable {
    public enum Kind: String, Sendable, CaseIterable {
        case bubble, bull, bear, crash, recovery
    }

    public var id: String
    public var name: String
    public var kind: Kind
    /// What happened, for a learner: a few sentences, no figures from the future.
    public var description: String
    public var start: SessionDate
    /// When the regime ended (the replay may go on past it).
    public var end: SessionDate
    public var realSymbols: [Symbol]
    public var demoSymbols: [Symbol]

    /// The symbols this scenario uses on `source`.
    public func symbols(on source: any MarketDataSource) -> [Symbol] {
        source.isSimulated ? demoSymbols : realSymbols
    }

    /// The scenarios, oldest first: the data of this file.
    public static let all: [Scenario] = [
        Scenario(
            id: "nineties-bull", name: "The 1990s bull market", kind: .bull,
            description: "January 1995. Inflation is low, the internet is arriving in offices and homes, and companies that make software and chips are growing fast. Stocks have had a dull year. You start with a basket of technology leaders and household names: will you hold on, or take profits early?",
            start: SessionDate(year: 1995, month: 1, day: 3), end: SessionDate(year: 1999, month: 12, day: 31),
            real: ["MSFT", "INTC", "CSCO", "GE", "WMT", "KO", "PG", "JNJ"],
            demo: ["HMCR", "VTSW", "BLTN", "CPKB", "GRFW", "CLWT", "GFAE", "IBBC"]),
        Scenario(
            id: "dotcom-bubble", name: "The dot-com bubble", kind: .bubble,
            description: "October 1999. Anything with \".com\" in its name seems to double in weeks; people quit their jobs to trade internet stocks, and the experts say this time is different. You hold the era's favourite internet and technology names. Ride the mania, but watch the prices against what these companies earn.",
            start: SessionDate(year: 1999, month: 10, day: 1), end: SessionDate(year: 2000, month: 3, day: 24),
            real: ["CSCO", "ORCL", "QCOM", "AMZN", "EBAY", "JNPR", "VRSN", "INTC"],
            demo: ["HMCR", "VTSW", "QFSC", "BLTN", "CBWV", "NMBR", "SKLM", "PRLT"]),
        Scenario(
            id: "dotcom-bust", name: "The dot-com bust", kind: .bear,
            description: "March 2000. The technology index has just made a record high. Money-losing internet companies are running out of cash, and interest rates are rising. You hold the same high flyers the market loves. How much of a fall would you sit through, and where would you hide?",
            start: SessionDate(year: 2000, month: 3, day: 24), end: SessionDate(year: 2002, month: 10, day: 9),
            real: ["CSCO", "ORCL", "AMZN", "EBAY", "INTC", "MSFT", "QCOM", "JNPR"],
            demo: ["HMCR", "VTSW", "QFSC", "BLTN", "CBWV", "NMBR", "SKLM", "MRBB"]),
        Scenario(
            id: "financial-crisis", name: "The 2008 financial crisis", kind: .bear,
            description: "October 2007. Stocks are at a record high, but house prices have started to fall and some mortgage lenders have failed. Banks hold mortgage securities nobody can value. You hold big banks, an insurer and an industrial giant with a finance arm. Read the news as it comes, day by day.",
            start: SessionDate(year: 2007, month: 10, day: 9), end: SessionDate(year: 2009, month: 3, day: 9),
            real: ["C", "BAC", "AIG", "JPM", "GS", "MS", "WFC", "GE"],
            demo: ["IBBC", "MRDI", "FXGC", "STWT", "OKHP", "GFAE", "CSPR", "HBLP"]),
        Scenario(
            id: "recovery-2009", name: "The 2009–2013 recovery", kind: .recovery,
            description: "March 2009. The market has lost more than half its value, unemployment is climbing, and many people have sold everything. Banks and carmakers are on government support. You hold some of the most beaten-down names. Is this the bottom? Nobody knows yet.",
            start: SessionDate(year: 2009, month: 3, day: 9), end: SessionDate(year: 2013, month: 12, day: 31),
            real: ["BAC", "C", "F", "AAPL", "AMZN", "GE", "JPM", "FCX"],
            demo: ["IBBC", "FXGC", "RDKM", "HMCR", "PLMV", "GFAE", "SLDM", "TDWL"]),
        Scenario(
            id: "covid-crash", name: "The 2020 crash and rebound", kind: .crash,
            description: "February 2020. Stocks are at a record high. A new virus is spreading abroad; few expect it to matter to markets. Within weeks, cities will lock down. You hold airlines' and travel's neighbours, banks, oil, and technology. Crashes are fast: decide what you will do before you need to.",
            start: SessionDate(year: 2020, month: 2, day: 19), end: SessionDate(year: 2020, month: 8, day: 31),
            real: ["DIS", "BAC", "XOM", "JPM", "AAPL", "AMZN", "TSLA", "MSFT"],
            demo: ["TDWL", "IBBC", "BSRP", "NGLP", "HMCR", "PLMV", "RDKM", "VTSW"]),
    ]

    public static func named(_ id: String) -> Scenario? { all.first { $0.id == id } }

    init(id: String, name: String, kind: Kind, description: String, start: SessionDate, end: SessionDate,
         real: [String], demo: [String]) {
        self.id = id
        self.name = name
        self.kind = kind
        self.description = description
        self.start = start
        self.end = end
        realSymbols = real.compactMap(Symbol.init)
        demoSymbols = demo.compactMap(Symbol.init)
    }

    /// The scenario's symbols that trade on its start date on `source` (no later price is asked).
    public func tradableSymbols(on source: any MarketDataSource) async throws -> [Symbol] {
        let quotes = try await source.quotes(symbols(on: source), asOf: .replay(start.date))
        return symbols(on: source).filter { symbol in
            guard let quote = quotes[symbol] else { return false }
            return quote.trading && quote.session == start
        }
    }

    /// The scenarios `source` can play: their start within its history and at least one of
    /// their stocks trading then.
    public static func available(on source: any MarketDataSource) async throws -> [(scenario: Scenario, symbols: [Symbol])] {
        guard let range = await source.replayRange() else { return [] }
        var result: [(Scenario, [Symbol])] = []
        for scenario in all where range.contains(scenario.start) {
            let symbols = try await scenario.tradableSymbols(on: source)
            if !symbols.isEmpty { result.append((scenario, symbols)) }
        }
        return result
    }
}
