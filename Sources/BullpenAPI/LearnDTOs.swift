import Foundation

/// How a player did on a lesson's quiz so far.
public struct QuizProgressDTO: Codable, Sendable, Hashable {
    public var questions: Int
    public var attempts: Int
    /// The best score, out of `questions`; 0 before any attempt.
    public var bestCorrect: Int
    public var passed: Bool
    public var passedAt: Date?
    public init(questions: Int, attempts: Int, bestCorrect: Int, passed: Bool, passedAt: Date?) {
        self.questions = questions; self.attempts = attempts; self.bestCorrect = bestCorrect; self.passed = passed
        self.passedAt = passedAt
    }
}

/// A lesson in the list.
public struct LessonSummaryDTO: Codable, Sendable, Hashable {
    public var id: String
    public var title: String
    public var minutes: Int
    public var read: Bool
    public var quiz: QuizProgressDTO
    public init(id: String, title: String, minutes: Int, read: Bool, quiz: QuizProgressDTO) {
        self.id = id; self.title = title; self.minutes = minutes; self.read = read; self.quiz = quiz
    }
}

/// `GET /api/v1/learn/lessons`: every lesson in order, with the player's progress.
public struct LessonListDTO: Codable, Sendable, Hashable {
    public var lessons: [LessonSummaryDTO]
    /// Lessons read and quizzes passed, of `total`.
    public var read: Int
    public var passed: Int
    public var total: Int
    public init(lessons: [LessonSummaryDTO], read: Int, passed: Int, total: Int) {
        self.lessons = lessons; self.read = read; self.passed = passed; self.total = total
    }
}

/// A glossary entry.
public struct GlossaryEntryDTO: Codable, Sendable, Hashable {
    public var term: String
    public var definition: String
    /// The lesson that explains it.
    public var lesson: String
    public var lessonTitle: String
    public init(term: String, definition: String, lesson: String, lessonTitle: String) {
        self.term = term; self.definition = definition; self.lesson = lesson; self.lessonTitle = lessonTitle
    }
}

/// `GET /api/v1/learn/glossary`.
public struct GlossaryDTO: Codable, Sendable, Hashable {
    public var terms: [GlossaryEntryDTO]
    public init(terms: [GlossaryEntryDTO]) { self.terms = terms }
}

/// A quiz question without its answer.
public struct QuizQuestionDTO: Codable, Sendable, Hashable {
    public var prompt: String
    public var choices: [String]
    public init(prompt: String, choices: [String]) { self.prompt = prompt; self.choices = choices }
}

/// What a lesson's "try it" button does, resolved for the market data at hand.
public struct TryItDTO: Codable, Sendable, Hashable {
    /// `open-stock`, `open-options`, `first-limit-order`, `open-market`, `join-public-league` or
    /// `start-scenario:<id>`.
    public var action: String
    public var label: String
    /// The screen it opens (`#/stock/MSFT`), or nil for a replay to create first.
    public var link: String?
    /// For a replay: the body of `POST /api/v1/portfolios` that starts it, and its suggested name.
    public var replay: ReplayRequest?
    public var name: String?
    public init(action: String, label: String, link: String? = nil, replay: ReplayRequest? = nil, name: String? = nil) {
        self.action = action; self.label = label; self.link = link; self.replay = replay; self.name = name
    }
}

/// `GET /api/v1/learn/lessons/{id}`: the lesson rendered, its terms, its quiz (no answers).
public struct LessonDTO: Codable, Sendable, Hashable {
    public var id: String
    public var title: String
    public var minutes: Int
    /// The lesson's text as HTML, rendered on the server from its Markdown.
    public var html: String
    public var terms: [GlossaryEntryDTO]
    public var quiz: [QuizQuestionDTO]
    public var tryIt: TryItDTO?
    public var progress: QuizProgressDTO
    public var previous: String?
    public var next: String?
    public init(id: String, title: String, minutes: Int, html: String, terms: [GlossaryEntryDTO], quiz: [QuizQuestionDTO],
                tryIt: TryItDTO?, progress: QuizProgressDTO, previous: String?, next: String?) {
        self.id = id; self.title = title; self.minutes = minutes; self.html = html; self.terms = terms; self.quiz = quiz
        self.tryIt = tryIt; self.progress = progress; self.previous = previous; self.next = next
    }
}

/// `POST /api/v1/learn/lessons/{id}/quiz`: one choice per question, in order, every question answered.
public struct QuizAnswersRequest: Codable, Sendable, Hashable, RequestBody {
    public enum CodingKeys: String, CodingKey, CaseIterable { case answers }
    public var answers: [Int]
    public init(answers: [Int]) { self.answers = answers }
}

/// One question's outcome.
public struct QuizAnswerDTO: Codable, Sendable, Hashable {
    public var chosen: Int
    public var correct: Int
    public var right: Bool
    public var explanation: String
    public init(chosen: Int, correct: Int, right: Bool, explanation: String) {
        self.chosen = chosen; self.correct = correct; self.right = right; self.explanation = explanation
    }
}

/// The quiz's outcome, stored; retakes are allowed and the best score is kept.
public struct QuizResultDTO: Codable, Sendable, Hashable {
    public var correct: Int
    public var total: Int
    public var passed: Bool
    /// The share of right answers a pass needs, in percent.
    public var passPercent: Int
    public var answers: [QuizAnswerDTO]
    public var progress: QuizProgressDTO
    public init(correct: Int, total: Int, passed: Bool, passPercent: Int, answers: [QuizAnswerDTO], progress: QuizProgressDTO) {
        self.correct = correct; self.total = total; self.passed = passed; self.passPercent = passPercent; self.answers = answers
        self.progress = progress
    }
}

/// A step of the guided first run.
public struct FirstRunStepDTO: Codable, Sendable, Hashable {
    /// `find`, `buy` or `see`, in that order.
    public var id: String
    public var title: String
    public var done: Bool
    public init(id: String, title: String, done: Bool) { self.id = id; self.title = title; self.done = done }
}

/// `GET /api/v1/learn/first-run`: the guided first run (find a company, buy a share, see it in the portfolio).
public struct FirstRunDTO: Codable, Sendable, Hashable {
    /// `available` (never started), `active`, `skipped` or `finished`.
    public var status: String
    public var steps: [FirstRunStepDTO]
    /// The step to take now, while the run is active.
    public var next: String?
    public var startedAt: Date?
    public var finishedAt: Date?
    public init(status: String, steps: [FirstRunStepDTO], next: String?, startedAt: Date?, finishedAt: Date?) {
        self.status = status; self.steps = steps; self.next = next; self.startedAt = startedAt; self.finishedAt = finishedAt
    }
}

/// `PUT /api/v1/learn/first-run`: `active` starts it (again) from its first step, `skipped` skips it.
public struct FirstRunUpdateRequest: Codable, Sendable, Hashable, RequestBody {
    public enum CodingKeys: String, CodingKey, CaseIterable { case status }
    public var status: String
    public init(status: String) { self.status = status }
}
