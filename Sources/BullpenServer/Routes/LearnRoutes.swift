import BullpenAPI
import BullpenCore
import BullpenStore
import Foundation
import Vapor

/// Learn: `GET /api/v1/learn/lessons` (every lesson with the player's progress),
/// `GET /api/v1/learn/lessons/{id}` (one rendered, its quiz without answers; opening it counts as
/// reading it), `POST /api/v1/learn/lessons/{id}/quiz` (graded and stored; retakes allowed) and
/// `GET /api/v1/learn/glossary` (public), and the guided first run: `GET /api/v1/learn/first-run`,
/// `PUT /api/v1/learn/first-run` (start it again, or skip it) and
/// `POST /api/v1/learn/first-run/steps/{step}` (a step taken in the app; buying is read from the fills).
struct LearnRoutes: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        let learn = routes.grouped("learn")
        learn.get("lessons", use: lessons)
        learn.get("lessons", ":lessonId", use: lesson)
        learn.post("lessons", ":lessonId", "quiz", use: quiz)
        learn.get("glossary", use: glossary)
        learn.get("first-run", use: firstRun)
        learn.put("first-run", use: changeFirstRun)
        learn.post("first-run", "steps", ":step", use: firstRunStep)
    }

    static func catalog() throws -> LearnCatalog {
        switch LearnCatalog.shared {
        case .success(let catalog): return catalog
        case .failure(let error): throw APIError(.internalError, "The lessons could not be read: \(error.problems.joined(separator: "; "))")
        }
    }

    static func progress(_ lesson: Lesson, _ stored: LessonProgress?) -> QuizProgressDTO {
        QuizProgressDTO(questions: lesson.quiz.count, attempts: stored?.attempts ?? 0, bestCorrect: stored?.bestCorrect ?? 0,
                        passed: stored?.passedAt != nil, passedAt: stored?.passedAt)
    }

    static func entry(_ req: Request, _ catalog: LearnCatalog) throws -> LearnCatalog.Entry {
        let id = req.parameters.get("lessonId") ?? ""
        guard let entry = catalog.entry(id) else { throw APIError(.notFound, "There is no lesson '\(id)': GET /api/v1/learn/lessons lists them.") }
        return entry
    }

    @Sendable func lessons(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let catalog = try Self.catalog()
        let stored = try await req.bullpen.store.learnProgress(owner: caller.user)
        let list = catalog.lessons.map { entry in
            LessonSummaryDTO(id: entry.lesson.id, title: entry.lesson.title, minutes: entry.lesson.minutes,
                             read: stored[entry.lesson.id]?.readAt != nil, quiz: Self.progress(entry.lesson, stored[entry.lesson.id]))
        }
        return try jsonResponse(LessonListDTO(lessons: list, read: list.filter(\.read).count, passed: list.filter(\.quiz.passed).count,
                                              total: list.count))
    }

    @Sendable func lesson(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let catalog = try Self.catalog()
        let entry = try Self.entry(req, catalog)
        let lesson = entry.lesson
        let stored = try await req.bullpen.store.markLessonRead(lesson.id, owner: caller.user)
        // The lesson reads whatever the market data do: a try-it they cannot resolve has nothing to open.
        var tryIt: TryItDTO?
        if let action = lesson.tryAction, let label = lesson.tryLabel {
            tryIt = (try? await TryItResolver.resolve(action, label: label, source: req.bullpen.marketData))
                ?? TryItDTO(action: action.description, label: label)
        }
        let index = catalog.lessons.firstIndex { $0.lesson.id == lesson.id }!
        let terms = lesson.terms.compactMap { term in catalog.glossary.first { $0.term.lowercased() == term.lowercased() } }
        return try jsonResponse(LessonDTO(
            id: lesson.id, title: lesson.title, minutes: lesson.minutes, html: entry.html, terms: terms.map(catalog.glossaryDTO),
            quiz: lesson.quiz.map { QuizQuestionDTO(prompt: $0.prompt, choices: $0.choices) }, tryIt: tryIt,
            progress: Self.progress(lesson, stored),
            previous: index > 0 ? catalog.lessons[index - 1].lesson.id : nil,
            next: index + 1 < catalog.lessons.count ? catalog.lessons[index + 1].lesson.id : nil))
    }

    @Sendable func quiz(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let catalog = try Self.catalog()
        let lesson = try Self.entry(req, catalog).lesson
        let answers = try req.decodeJSON(QuizAnswersRequest.self).answers
        guard answers.count == lesson.quiz.count else {
            throw APIError.validation("answers must have one entry per question: \(lesson.quiz.count), each a choice's index.")
        }
        for (index, answer) in answers.enumerated() where !lesson.quiz[index].choices.indices.contains(answer) {
            throw APIError.validation("answers[\(index)] must be a choice from 0 to \(lesson.quiz[index].choices.count - 1).")
        }
        let result = lesson.grade(answers)
        let stored = try await req.bullpen.store.recordQuiz(lesson.id, result: result, owner: caller.user)
        if result.passed {
            // The lessons of the catalog only: progress on a lesson since removed does not count.
            let passed = try await req.bullpen.store.learnProgress(owner: caller.user).values
                .filter { $0.passedAt != nil && catalog.entry($0.lesson) != nil }.count
            await req.bullpen.notifier.record(.quizzesPassed(passed), for: caller.user)
        }
        let details = lesson.quiz.enumerated().map { index, question in
            QuizAnswerDTO(chosen: answers[index], correct: question.correct, right: result.right[index], explanation: question.explanation)
        }
        return try jsonResponse(QuizResultDTO(correct: result.correct, total: result.total, passed: result.passed,
                                              passPercent: Lesson.passPercent, answers: details, progress: Self.progress(lesson, stored)))
    }

    @Sendable func glossary(req: Request) async throws -> Response {
        let catalog = try Self.catalog()
        return try jsonResponse(GlossaryDTO(terms: catalog.glossary.map(catalog.glossaryDTO)))
    }

    static func firstRunDTO(_ state: FirstRunState) -> FirstRunDTO {
        let done = state.run.done(bought: state.bought)
        return FirstRunDTO(status: state.run.status.rawValue,
                           steps: FirstRunStep.allCases.map { FirstRunStepDTO(id: $0.rawValue, title: $0.title, done: done.contains($0)) },
                           next: state.run.next(bought: state.bought)?.rawValue, startedAt: state.run.startedAt,
                           finishedAt: state.run.finishedAt)
    }

    @Sendable func firstRun(req: Request) async throws -> Response {
        let caller = try await req.caller()
        return try jsonResponse(Self.firstRunDTO(try await req.bullpen.store.firstRun(owner: caller.user)))
    }

    @Sendable func changeFirstRun(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let store = req.bullpen.store
        switch try req.decodeJSON(FirstRunUpdateRequest.self).status {
        case FirstRun.Status.active.rawValue: return try jsonResponse(Self.firstRunDTO(try await store.startFirstRun(owner: caller.user)))
        case FirstRun.Status.skipped.rawValue: return try jsonResponse(Self.firstRunDTO(try await store.skipFirstRun(owner: caller.user)))
        default: throw APIError.validation("status must be active (start the first run from its first step) or skipped.")
        }
    }

    @Sendable func firstRunStep(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let name = req.parameters.get("step") ?? ""
        guard let step = FirstRunStep(rawValue: name) else {
            throw APIError(.notFound, "There is no step '\(name)': the first run's steps are find, buy and see.")
        }
        switch try await req.bullpen.store.markFirstRun(step, owner: caller.user) {
        case .success(let state): return try jsonResponse(Self.firstRunDTO(state))
        case .failure(.doneByBuying):
            throw APIError.validation("The buy step is done by buying a share, in any portfolio: it cannot be marked.")
        case .failure(.notRunning(let status)):
            throw APIError(.firstRunNotActive, status == .skipped
                ? "The first run was skipped: PUT status active on /api/v1/learn/first-run starts it again."
                : "The first run has not started: PUT status active on /api/v1/learn/first-run starts it.")
        case .failure(.outOfOrder(let step, let first)):
            throw APIError(.firstRunStepOutOfOrder, "The step '\(step.rawValue)' comes after '\(first.rawValue)': \(first.title.lowercased()) first.")
        }
    }
}
