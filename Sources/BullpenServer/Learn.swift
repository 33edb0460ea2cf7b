import BullpenAPI
import BullpenCore
import BullpenMarketData
import BullpenStore
import Foundation
import Ink
import Vapor

/// The lessons and the glossary (`Learn/lessons/*.md`, `Learn/glossary.md`), read once from the
/// resources, checked against each other and rendered to HTML with Ink. A lesson that breaks the
/// format (see `Learn/FORMAT.md`) stops the server at start, naming the file and line.
struct LearnCatalog: Sendable {
    struct Entry: Sendable {
        var lesson: Lesson
        var html: String
        /// Flesch reading ease of the lesson's text.
        var readability: Double
        var words: Int
    }

    let lessons: [Entry]
    let glossary: [GlossaryTerm]

    /// The catalog in the resources, read on first use.
    static let shared: Result<LearnCatalog, ConfigurationError> = {
        guard let directory = Bundle.module.url(forResource: "Learn", withExtension: nil) else {
            return .failure(ConfigurationError(problems: ["the Learn resources are missing"]))
        }
        return Result { try LearnCatalog(directory: directory) }.mapError { error in
            error as? ConfigurationError ?? ConfigurationError(problems: ["\(error)"])
        }
    }()

    init(directory: URL) throws {
        let files = try FileManager.default.contentsOfDirectory(at: directory.appendingPathComponent("lessons"), includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "md" }.sorted { $0.lastPathComponent < $1.lastPathComponent }
        var problems: [String] = []
        var entries: [Entry] = []
        let parser = MarkdownParser()
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            do {
                let lesson = try Lesson.parse(text, file: file.lastPathComponent)
                let name = file.deletingPathExtension().lastPathComponent
                if name.drop(while: { $0.isNumber }) != "-" + lesson.id {
                    problems.append("\(file.lastPathComponent): the file is named NN-\(lesson.id).md after its id")
                }
                if lesson.body.contains("<") { problems.append("\(file.lastPathComponent): no HTML in a lesson, Markdown only") }
                if case .startScenario(let id)? = lesson.tryAction, Scenario.named(id) == nil {
                    problems.append("\(file.lastPathComponent): there is no scenario '\(id)' (see Scenario.all)")
                }
                let words = lesson.body.split { !$0.isLetter && !$0.isNumber && $0 != "'" }.count
                entries.append(Entry(lesson: lesson, html: parser.html(from: lesson.body),
                                     readability: Readability.fleschReadingEase(lesson.body), words: words))
            } catch {
                problems.append(error.description)
            }
        }
        let glossaryFile = directory.appendingPathComponent("glossary.md")
        var glossary: [GlossaryTerm] = []
        do {
            glossary = try GlossaryTerm.parse(try String(contentsOf: glossaryFile, encoding: .utf8), file: "glossary.md")
        } catch let error as Lesson.Problem {
            problems.append(error.description)
        }
        let ids = entries.map(\.lesson.id)
        if Set(ids).count != ids.count { problems.append("two lessons have the same id") }
        let known = Set(glossary.map { $0.term.lowercased() })
        if known.count != glossary.count { problems.append("glossary.md: a term is defined twice") }
        for entry in entries {
            for term in entry.lesson.terms where !known.contains(term.lowercased()) {
                problems.append("\(entry.lesson.id): the term '\(term)' is not in glossary.md")
            }
        }
        for term in glossary where !ids.contains(term.lesson) {
            problems.append("glossary.md: '\(term.term)' names the lesson '\(term.lesson)', which does not exist")
        }
        guard problems.isEmpty else { throw ConfigurationError(problems: problems) }
        lessons = entries
        self.glossary = glossary.sorted { $0.term.lowercased() < $1.term.lowercased() }
    }

    func entry(_ id: String) -> Entry? { lessons.first { $0.lesson.id == id } }

    func title(of id: String) -> String { entry(id)?.lesson.title ?? id }

    func glossaryDTO(_ term: GlossaryTerm) -> GlossaryEntryDTO {
        GlossaryEntryDTO(term: term.term, definition: term.definition, lesson: term.lesson, lessonTitle: title(of: term.lesson))
    }
}

/// What a "try it" action opens with the market data at hand: a well-known company of it, a
/// scenario's replay (or, where the data lack the scenario's stocks, a replay from its start with
/// random stocks of that day).
enum TryItResolver {
    /// The companies a lesson opens, the first listed and trading; else the first stock that is.
    static let favourites = ["MSFT", "AAPL", "KO", "IBM"].compactMap(Symbol.init)

    static func featured(_ source: any MarketDataSource) async throws -> Symbol? {
        let quotes = try await source.quotes(favourites, asOf: .live)
        if let found = favourites.first(where: { quotes[$0]?.trading == true }) { return found }
        for asset in try await source.listing() where asset.assetClass == .usEquity {
            if try await source.quote(asset.symbol, asOf: .live)?.trading == true { return asset.symbol }
        }
        return nil
    }

    static func resolve(_ action: TryAction, label: String, source: (any MarketDataSource)?) async throws -> TryItDTO {
        var dto = TryItDTO(action: action.description, label: label)
        switch action {
        case .openMarket: dto.link = "#/market"
        case .joinPublicLeague: dto.link = "#/leagues"
        case .openStock, .openOptions, .firstLimitOrder:
            guard let source, let symbol = try await featured(source) else { break }
            let path = "#/stock/" + symbol.rawValue
            dto.link = action == .openStock ? path : action == .openOptions ? path + "/options" : path + "/limit"
        case .startScenario(let id):
            guard let source, let scenario = Scenario.named(id), let range = await source.replayRange(),
                  range.contains(scenario.start) else { break }
            dto.name = scenario.name
            // Its own stocks where the data have them (what Scenario.available asks, for this one only).
            dto.replay = try await scenario.tradableSymbols(on: source).isEmpty
                ? ReplayRequest(start: scenario.start.description, holdings: "random") : ReplayRequest(scenario: id)
        }
        return dto
    }
}
