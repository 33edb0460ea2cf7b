import Foundation

/// What a lesson's "try it" button starts: something in the app where the lesson's idea can be
/// tried at once. The server resolves each against the market data at hand (a well-known company,
/// a scenario's replay), so that every action works on the real pack and on the demo exchange.
public enum TryAction: Sendable, Hashable {
    /// A well-known company's page.
    case openStock
    /// A well-known company's option chain.
    case openOptions
    /// The trade sheet of a well-known company with a limit order ready.
    case firstLimitOrder
    /// The Market screen.
    case openMarket
    /// The public leagues.
    case joinPublicLeague
    /// A replay of a scenario (its id, as ``Scenario`` names it in the market data).
    case startScenario(String)

    /// `open-stock`, `start-scenario:dotcom-bubble`, ...; nil for anything else.
    public init?(parsing text: String) {
        switch text {
        case "open-stock": self = .openStock
        case "open-options": self = .openOptions
        case "first-limit-order": self = .firstLimitOrder
        case "open-market": self = .openMarket
        case "join-public-league": self = .joinPublicLeague
        default:
            guard text.hasPrefix("start-scenario:"), text.count > 15 else { return nil }
            self = .startScenario(String(text.dropFirst(15)))
        }
    }

    public var description: String {
        switch self {
        case .openStock: "open-stock"
        case .openOptions: "open-options"
        case .firstLimitOrder: "first-limit-order"
        case .openMarket: "open-market"
        case .joinPublicLeague: "join-public-league"
        case .startScenario(let id): "start-scenario:\(id)"
        }
    }
}

/// One multiple-choice question: exactly one right choice, and why it is right.
public struct QuizQuestion: Sendable, Hashable {
    public var prompt: String
    public var choices: [String]
    public var correct: Int
    public var explanation: String
}

/// A lesson as written in the repository (`Learn/lessons/NN-id.md`): a Markdown body, read in 3 to
/// 5 minutes, and a quiz of 3 to 5 questions. See `Learn/FORMAT.md`.
public struct Lesson: Sendable, Hashable, Identifiable {
    public var id: String
    public var title: String
    public var minutes: Int
    public var tryAction: TryAction?
    public var tryLabel: String?
    /// Glossary terms the lesson explains.
    public var terms: [String]
    /// The lesson's text, Markdown, without the quiz.
    public var body: String
    public var quiz: [QuizQuestion]

    /// Why a lesson file cannot be read, with its line.
    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        public var file: String
        public var line: Int
        public var message: String
        public var description: String { "\(file):\(line): \(message)" }
    }

    /// A quiz passes with at least this share of right answers (3 of 4, 4 of 5).
    public static let passPercent = 75

    /// Reads a lesson file. Every rule of the format is checked here: a file that breaks one is
    /// refused with its line, never half-read.
    public static func parse(_ text: String, file: String) throws(Problem) -> Lesson {
        let lines = text.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        func problem(_ line: Int, _ message: String) -> Problem { Problem(file: file, line: line, message: message) }
        guard lines.first == "---", let end = lines.dropFirst().firstIndex(of: "---") else {
            throw problem(1, "a lesson starts with its front matter between two --- lines")
        }
        var fields: [String: String] = [:]
        for (offset, line) in lines[1..<end].enumerated() where !line.trimmingCharacters(in: .whitespaces).isEmpty {
            guard let colon = line.firstIndex(of: ":") else { throw problem(offset + 2, "expected 'name: value'") }
            let key = String(line[..<colon]).trimmingCharacters(in: .whitespaces)
            guard fields[key] == nil else { throw problem(offset + 2, "'\(key)' is given twice") }
            fields[key] = String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
        }
        let known: Set<String> = ["id", "title", "minutes", "try", "try-label", "terms"]
        if let unknown = fields.keys.first(where: { !known.contains($0) }) { throw problem(1, "unknown field '\(unknown)'") }
        guard let id = fields["id"], !id.isEmpty, id.allSatisfy({ $0.isLowercase || $0.isNumber || $0 == "-" }) else {
            throw problem(1, "id is required: lowercase words joined by dashes")
        }
        guard let title = fields["title"], !title.isEmpty else { throw problem(1, "title is required") }
        guard let minutes = fields["minutes"].flatMap(Int.init), (3...5).contains(minutes) else {
            throw problem(1, "minutes must be 3, 4 or 5")
        }
        var action: TryAction?
        if let text = fields["try"] {
            guard let parsed = TryAction(parsing: text) else { throw problem(1, "unknown try action '\(text)'") }
            guard fields["try-label"]?.isEmpty == false else { throw problem(1, "a try action needs its try-label") }
            action = parsed
        }
        let terms = (fields["terms"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !terms.isEmpty else { throw problem(1, "terms is required: the glossary terms the lesson explains") }

        let rest = Array(lines[(end + 1)...])
        guard let quizStart = rest.firstIndex(of: "## Quiz") else { throw problem(end + 2, "the quiz is missing: a '## Quiz' section ends the lesson") }
        let body = rest[..<quizStart].joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !body.isEmpty else { throw problem(end + 2, "the lesson has no text") }
        var quiz: [QuizQuestion] = []
        var current: (line: Int, prompt: String, choices: [String], correct: [Int], explanation: [String])?
        func finish() throws(Problem) {
            guard let question = current else { return }
            guard (3...4).contains(question.choices.count) else { throw problem(question.line, "a question has 3 or 4 choices") }
            guard question.correct.count == 1 else { throw problem(question.line, "a question has exactly one right choice, marked [x]") }
            let explanation = question.explanation.joined(separator: " ").trimmingCharacters(in: .whitespaces)
            guard !explanation.isEmpty else { throw problem(question.line, "a question needs a '>' paragraph explaining its answer") }
            quiz.append(QuizQuestion(prompt: question.prompt, choices: question.choices, correct: question.correct[0], explanation: explanation))
            current = nil
        }
        for (offset, raw) in rest[(quizStart + 1)...].enumerated() {
            let number = end + quizStart + offset + 3
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty { continue }
            if line.hasPrefix("### ") {
                try finish()
                current = (number, String(line.dropFirst(4)).trimmingCharacters(in: .whitespaces), [], [], [])
            } else if line.hasPrefix("- [ ] ") || line.hasPrefix("- [x] ") {
                guard current != nil, current!.explanation.isEmpty else { throw problem(number, "a choice belongs under a ### question, before its explanation") }
                if line.hasPrefix("- [x] ") { current!.correct.append(current!.choices.count) }
                current!.choices.append(String(line.dropFirst(6)).trimmingCharacters(in: .whitespaces))
            } else if line.hasPrefix(">") {
                guard current != nil, !current!.choices.isEmpty else { throw problem(number, "an explanation follows a question's choices") }
                current!.explanation.append(String(line.dropFirst()).trimmingCharacters(in: .whitespaces))
            } else {
                throw problem(number, "the quiz holds only ### questions, - [ ] / - [x] choices and > explanations")
            }
        }
        try finish()
        guard (3...5).contains(quiz.count) else { throw problem(end + quizStart + 2, "a quiz has 3 to 5 questions") }
        return Lesson(id: id, title: title, minutes: minutes, tryAction: action, tryLabel: action == nil ? nil : fields["try-label"],
                      terms: terms, body: body, quiz: quiz)
    }

    /// How a set of answers (one choice index per question, in order; nil for a question left
    /// blank) does on this lesson's quiz.
    public func grade(_ answers: [Int?]) -> QuizResult {
        let right = quiz.indices.map { index in answers.indices.contains(index) && answers[index] == quiz[index].correct }
        let correct = right.filter { $0 }.count
        return QuizResult(correct: correct, total: quiz.count, right: right,
                          passed: correct * 100 >= quiz.count * Self.passPercent)
    }
}

/// A quiz's outcome: which answers were right, and whether it passed.
public struct QuizResult: Sendable, Hashable {
    public var correct: Int
    public var total: Int
    public var right: [Bool]
    public var passed: Bool

    public init(correct: Int, total: Int, right: [Bool], passed: Bool) {
        self.correct = correct; self.total = total; self.right = right; self.passed = passed
    }
}

/// One glossary entry: a term, its definition in a sentence or two, and the lesson that explains it.
public struct GlossaryTerm: Sendable, Hashable {
    public var term: String
    public var lesson: String
    public var definition: String

    /// Reads `glossary.md`: `### Term`, a line `lesson: id`, then the definition.
    public static func parse(_ text: String, file: String) throws(Lesson.Problem) -> [GlossaryTerm] {
        var terms: [GlossaryTerm] = []
        var current: (line: Int, term: String, lesson: String?, definition: [String])?
        func finish() throws(Lesson.Problem) {
            guard let entry = current else { return }
            guard let lesson = entry.lesson else { throw Lesson.Problem(file: file, line: entry.line, message: "a term needs 'lesson: id'") }
            let definition = entry.definition.joined(separator: " ").trimmingCharacters(in: .whitespaces)
            guard !definition.isEmpty else { throw Lesson.Problem(file: file, line: entry.line, message: "a term needs its definition") }
            terms.append(GlossaryTerm(term: entry.term, lesson: lesson, definition: definition))
            current = nil
        }
        for (offset, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("### ") {
                try finish()
                current = (offset + 1, String(line.dropFirst(4)).trimmingCharacters(in: .whitespaces), nil, [])
            } else if line.hasPrefix("lesson:"), current != nil, current!.lesson == nil, current!.definition.isEmpty {
                current!.lesson = String(line.dropFirst(7)).trimmingCharacters(in: .whitespaces)
            } else if !line.isEmpty, !line.hasPrefix("#") {
                guard current != nil else { throw Lesson.Problem(file: file, line: offset + 1, message: "text before the first ### term") }
                current!.definition.append(line)
            }
        }
        try finish()
        return terms
    }
}

/// How easy a text is to read.
public enum Readability {
    /// Flesch reading ease of Markdown text: 206.835 − 1.015 × words per sentence − 84.6 ×
    /// syllables per word. 60 to 70 is plain English; higher is easier. A sentence ends at . ! or ?;
    /// a heading, a list item and a paragraph end one too, but a line wrapped inside a paragraph
    /// does not. Syllables are counted by vowel groups (a silent final e dropped), as such tools do.
    public static func fleschReadingEase(_ text: String) -> Double {
        let words = text.split { !$0.isLetter && !$0.isNumber && $0 != "'" }.map { $0.lowercased() }.filter { $0.contains(where: \.isLetter) }
        guard !words.isEmpty else { return 0 }
        // Blocks: paragraphs, and each heading or list item on its own.
        var blocks: [String] = [], current = ""
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            let starts = line.hasPrefix("#") || line.hasPrefix("- ") || line.hasPrefix("* ") || line.first?.isNumber == true && line.contains(". ")
            if line.isEmpty || starts { blocks.append(current); current = "" }
            current += " " + line
        }
        blocks.append(current)
        var sentences = 0
        for block in blocks where block.contains(where: \.isLetter) {
            let ends = block.split(whereSeparator: { ".!?".contains($0) }).filter { $0.contains(where: \.isLetter) }.count
            sentences += max(1, ends)
        }
        sentences = max(1, sentences)
        let syllables = words.reduce(0) { $0 + syllableCount($1) }
        return 206.835 - 1.015 * Double(words.count) / Double(sentences) - 84.6 * Double(syllables) / Double(words.count)
    }

    static func syllableCount(_ word: String) -> Int {
        let vowels: Set<Character> = ["a", "e", "i", "o", "u", "y"]
        var count = 0, previous = false
        for character in word {
            let vowel = vowels.contains(character)
            if vowel, !previous { count += 1 }
            previous = vowel
        }
        if word.hasSuffix("e"), !word.hasSuffix("le"), count > 1 { count -= 1 }
        return max(1, count)
    }
}
