import BullpenAPI
import BullpenCore
import BullpenMarketData
import BullpenTestSupport
import Foundation
import NIOHTTP1
import Testing
@testable import BullpenServer

/// Learn: the lessons in the repository, their quizzes and the glossary, over HTTP.
@Suite("Lessons, quizzes and the glossary")
struct LearnAPITests {
    /// Every lesson reads, renders and has a fair quiz; the figures of plain language per lesson
    /// are printed (Flesch reading ease: 60 to 70 is plain English, higher is easier).
    @Test func everyLessonRendersWithAQuizAndPlainWords() throws {
        let catalog = try LearnRoutes.catalog()
        #expect(catalog.lessons.count >= 12)
        for entry in catalog.lessons {
            let lesson = entry.lesson
            print("lesson \(lesson.id): \(entry.words) words, \(lesson.minutes) min, reading ease \(String(format: "%.1f", entry.readability)), \(lesson.quiz.count) questions")
            #expect(entry.html.contains("<p>") && !entry.html.contains("<script"), "\(lesson.id) renders")
            #expect(entry.readability >= 50, "\(lesson.id): reading ease \(entry.readability)")
            // 3 to 5 minutes of reading at 150 to 250 words a minute.
            #expect((450...1_000).contains(entry.words), "\(lesson.id): \(entry.words) words")
            #expect((3...5).contains(lesson.quiz.count))
            for question in lesson.quiz {
                #expect(question.choices.indices.contains(question.correct) && Set(question.choices).count == question.choices.count,
                        "\(lesson.id): \(question.prompt)")
                #expect(!question.explanation.isEmpty)
            }
            #expect(lesson.tryAction == nil || lesson.tryLabel?.isEmpty == false)
        }
        // The achievement for every quiz asks for as many as there are.
        let all = try #require(Achievement.named("all-lessons"))
        #expect(all.rule == .quizzesPassed(atLeast: catalog.lessons.count))
        // The glossary covers every lesson's terms, and each term's lesson exists.
        let terms = Set(catalog.glossary.map { $0.term.lowercased() })
        #expect(catalog.lessons.allSatisfy { $0.lesson.terms.allSatisfy { terms.contains($0.lowercased()) } })
    }

    /// The format's rules: a quiz with two right answers, one without a quiz, an unknown action.
    @Test func brokenLessonsAreRefusedWithTheirLine() {
        let head = "---\nid: sample\ntitle: Sample\nminutes: 3\nterms: stock\n---\n\nSome text here.\n\n## Quiz\n\n"
        let question = "### Which?\n\n- [x] A\n- [ ] B\n- [ ] C\n\n> Because.\n\n"
        #expect((try? Lesson.parse(head + question + question + question, file: "01-sample.md"))?.quiz.count == 3)
        let twoRight = "### Which?\n\n- [x] A\n- [x] B\n- [ ] C\n\n> Because.\n\n"
        #expect(throws: Lesson.Problem.self) { try Lesson.parse(head + twoRight + question + question, file: "x.md") }
        #expect(throws: Lesson.Problem.self) { try Lesson.parse(head.replacingOccurrences(of: "## Quiz\n\n", with: ""), file: "x.md") }
        #expect(throws: Lesson.Problem.self) { try Lesson.parse(head + question + question, file: "x.md") }
        let unknown = head.replacingOccurrences(of: "terms: stock", with: "terms: stock\ntry: fly-to-the-moon\ntry-label: Go")
        #expect(throws: Lesson.Problem.self) { try Lesson.parse(unknown + question + question + question, file: "x.md") }
        do {
            _ = try Lesson.parse(head + twoRight + question + question, file: "x.md")
        } catch {
            #expect(error.line == 12 && error.message.contains("exactly one"), "\(error)")
        }
        let lesson = try? Lesson.parse(head + question + question + question, file: "01-sample.md")
        #expect(lesson?.grade([0, 0, 1]).passed == false && lesson?.grade([0, 0, 0]).passed == true)
        #expect(lesson?.grade([0, nil, 0]).correct == 2)
    }

    /// Reading, answering (wrong answers explained, retakes, the best kept), the achievement, the
    /// glossary; bad answers are refused.
    @Test func aPlayerReadsALessonAndPassesItsQuiz() async throws {
        try await withServer(demo: true) { server in
            let player = try await server.register()
            let start = try await server.send(.GET, "/api/v1/learn/lessons", token: player.accessToken).decode(LessonListDTO.self)
            #expect(start.total >= 12 && start.read == 0 && start.passed == 0 && start.lessons[0].id == "what-is-a-stock")
            let reply = try await server.send(.GET, "/api/v1/learn/lessons/bid-and-ask", token: player.accessToken)
            try #require(reply.status == 200, "\(reply.text)")
            let lesson = try reply.decode(LessonDTO.self)
            #expect(lesson.html.contains("<h2>") || lesson.html.contains("<p>"))
            #expect(lesson.previous == "how-an-order-fills" && lesson.next == "diversification")
            #expect(!lesson.terms.isEmpty && lesson.terms.allSatisfy { $0.lesson == "bid-and-ask" || !$0.definition.isEmpty })
            let written = try #require(try LearnRoutes.catalog().entry("bid-and-ask")).lesson.terms.map { $0.lowercased() }
            #expect(lesson.terms.map { $0.term.lowercased() } == written && lesson.terms.allSatisfy { !$0.definition.isEmpty })
            #expect(!reply.text.contains("\"correct\""), "the quiz is sent without its answers")
            let read = try await server.send(.GET, "/api/v1/learn/lessons", token: player.accessToken).decode(LessonListDTO.self)
            #expect(read.read == 1 && read.lessons.first { $0.id == "bid-and-ask" }?.read == true)

            let catalog = try LearnRoutes.catalog()
            let quiz = try #require(catalog.entry("bid-and-ask")).lesson.quiz
            let path = "/api/v1/learn/lessons/bid-and-ask/quiz"
            // All wrong: graded, explained, stored, not passed.
            let wrong = quiz.map { ($0.correct + 1) % $0.choices.count }
            let failed = try await server.send(.POST, path, token: player.accessToken, json: QuizAnswersRequest(answers: wrong)).decode(QuizResultDTO.self)
            #expect(failed.correct == 0 && !failed.passed && failed.answers.allSatisfy { !$0.right && !$0.explanation.isEmpty })
            #expect(failed.answers.map(\.correct) == quiz.map(\.correct) && failed.progress.attempts == 1)
            // All right: passed; then a worse retake keeps the best score and the pass.
            let passed = try await server.send(.POST, path, token: player.accessToken, json: QuizAnswersRequest(answers: quiz.map(\.correct)))
                .decode(QuizResultDTO.self)
            #expect(passed.passed && passed.correct == quiz.count && passed.progress.passed && passed.progress.attempts == 2)
            let retake = try await server.send(.POST, path, token: player.accessToken, json: QuizAnswersRequest(answers: wrong)).decode(QuizResultDTO.self)
            #expect(!retake.passed && retake.progress.passed && retake.progress.bestCorrect == quiz.count && retake.progress.attempts == 3)
            _ = try await server.waitForAchievement(player, "first-lesson")

            // Refused: too few answers, a choice out of range, an unknown field, a blank (it would give its answer away), an unknown lesson.
            for body in [#"{"answers":[0]}"#, #"{"answers":[9,0,0,0]}"#, #"{"answers":[0,0,0,0],"cheat":true}"#, #"{"answers":"all"}"#,
                         #"{"answers":[0,null,0,0]}"#] {
                let bad = try await server.send(.POST, path, token: player.accessToken, body: body)
                #expect(bad.status == 400, "\(body): \(bad.status) \(bad.text)")
            }
            let missing = try await server.send(.GET, "/api/v1/learn/lessons/astrology", token: player.accessToken)
            #expect(missing.status == 404 && missing.errorCode == "not_found")
            // Another player's progress is their own.
            let other = try await server.register()
            #expect(try await server.send(.GET, "/api/v1/learn/lessons", token: other.accessToken).decode(LessonListDTO.self).passed == 0)

            let glossary = try await server.send(.GET, "/api/v1/learn/glossary").decode(GlossaryDTO.self)
            let ask = try #require(glossary.terms.first { $0.term == "Ask" })
            #expect(ask.lesson == "bid-and-ask" && ask.lessonTitle == "The bid and the ask" && glossary.terms.count >= 30)
            #expect(glossary.terms.map { $0.term.lowercased() } == glossary.terms.map { $0.term.lowercased() }.sorted())
        }
    }

    /// The guided first run over HTTP: a new account's run starts with it; finding is marked by the
    /// app, buying counts by itself (here an order through the API), seeing the portfolio finishes it;
    /// steps out of order, a skipped run, and bad bodies are refused; started again, only a new
    /// purchase counts.
    @Test func aNewPlayersFirstRun() async throws {
        try await withServer { server in
            let player = try await server.register()
            let token = player.accessToken
            func run() async throws -> FirstRunDTO {
                try await server.send(.GET, "/api/v1/learn/first-run", token: token).decode(FirstRunDTO.self)
            }
            func step(_ name: String) async throws -> TestServer.Reply {
                try await server.send(.POST, "/api/v1/learn/first-run/steps/\(name)", token: token)
            }
            let fresh = try await run()
            #expect(fresh.status == "active" && fresh.next == "find" && fresh.startedAt != nil && fresh.finishedAt == nil)
            #expect(fresh.steps.map(\.id) == ["find", "buy", "see"] && fresh.steps.allSatisfy { !$0.done })
            #expect(fresh.steps.map(\.title) == ["Find a company", "Buy a share", "See it in your portfolio"])

            // Seeing the portfolio before buying, or marking the purchase, is refused; an unknown step is not found.
            let early = try await step("see")
            #expect(early.status == 409 && early.errorCode == "first_run_step_out_of_order", "\(early.text)")
            let claimed = try await step("buy")
            #expect(claimed.status == 400 && claimed.errorCode == "validation_failed")
            #expect(try await step("dance").status == 404)

            let found = try await step("find").decode(FirstRunDTO.self)
            #expect(found.next == "buy" && found.steps.map(\.done) == [true, false, false])
            #expect(try await step("find").decode(FirstRunDTO.self) == found, "a step marked again changes nothing")

            // A purchase through the API counts (the app is not the only way to buy); a sale would not.
            let bought = try await server.order(player, "buy", ExactNumber("1"), "MSFT")
            try #require(bought.status == 201, "\(bought.text)")
            try await server.expectBalanced(player, player.mainPortfolio)
            let afterBuying = try await run()
            #expect(afterBuying.next == "see" && afterBuying.steps.map(\.done) == [true, true, false])

            let finished = try await step("see").decode(FirstRunDTO.self)
            #expect(finished.status == "finished" && finished.next == nil && finished.finishedAt != nil && finished.steps.allSatisfy(\.done))
            #expect(try await step("see").decode(FirstRunDTO.self).status == "finished")
            // Skipping a finished run keeps it finished.
            let kept = try await server.send(.PUT, "/api/v1/learn/first-run", token: token, json: FirstRunUpdateRequest(status: "skipped"))
            #expect(try kept.decode(FirstRunDTO.self).status == "finished")

            // Started again from Help: every step to do, and the earlier purchase no longer counts.
            let again = try await server.send(.PUT, "/api/v1/learn/first-run", token: token, json: FirstRunUpdateRequest(status: "active"))
                .decode(FirstRunDTO.self)
            #expect(again.status == "active" && again.next == "find" && again.steps.allSatisfy { !$0.done })
            #expect(again.startedAt! >= fresh.startedAt!, "the API's dates are whole seconds")
            #expect(try await server.order(player, "sell", ExactNumber("1"), "MSFT").status == 201)
            #expect(try await run().steps.map(\.done) == [false, false, false], "a sale is not a purchase")
            // Buying without the app's search marks the company found too.
            #expect(try await server.order(player, "buy", ExactNumber("2"), "MSFT").status == 201)
            #expect(try await run().next == "see")
            try await server.expectBalanced(player, player.mainPortfolio)

            // Skipped: its steps are refused until it starts again.
            let skipped = try await server.send(.PUT, "/api/v1/learn/first-run", token: token, json: FirstRunUpdateRequest(status: "skipped"))
            #expect(try skipped.decode(FirstRunDTO.self).status == "skipped")
            #expect(try await run().next == nil)
            let refused = try await step("see")
            #expect(refused.status == 409 && refused.errorCode == "first_run_not_active")

            // Bad bodies: a status that cannot be set, an unknown field, no status.
            for body in [#"{"status":"finished"}"#, #"{"status":"active","step":"see"}"#, #"{}"#, #"{"status":1}"#] {
                let bad = try await server.send(.PUT, "/api/v1/learn/first-run", token: token, body: body)
                #expect(bad.status == 400, "\(body): \(bad.status) \(bad.text)")
            }
            #expect(try await run().status == "skipped")
            // Another player's run is their own.
            let other = try await server.register()
            #expect(try await server.send(.GET, "/api/v1/learn/first-run", token: other.accessToken).decode(FirstRunDTO.self).next == "find")
        }
    }

    /// Every "try it" action works against the real pack and the demo exchange: its company
    /// exists, its replay can be created.
    @Test(arguments: ReplayMarket.available)
    func everyTryItWorks(market: ReplayMarket) async throws {
        try await withServer(source: try await market.source()) { server in
            let player = try await server.register()
            for entry in try LearnRoutes.catalog().lessons where entry.lesson.tryAction != nil {
                let lesson = try await server.send(.GET, "/api/v1/learn/lessons/\(entry.lesson.id)", token: player.accessToken).decode(LessonDTO.self)
                let tryIt = try #require(lesson.tryIt, "\(entry.lesson.id)")
                #expect(tryIt.action == entry.lesson.tryAction?.description && tryIt.label == entry.lesson.tryLabel)
                if let replay = tryIt.replay {
                    let made = try await server.send(.POST, "/api/v1/portfolios", token: player.accessToken,
                                                     json: CreatePortfolioRequest(name: "\(entry.lesson.id)", replay: replay))
                    #expect(made.status == 201, "\(market) \(entry.lesson.id): \(made.text)")
                    let portfolio = try made.decode(PortfolioDTO.self)
                    #expect(portfolio.clock.mode == "replay")
                    #expect(try await server.send(.DELETE, "/api/v1/portfolios/\(portfolio.id)", token: player.accessToken).status < 300)
                } else {
                    let link = try #require(tryIt.link, "\(market) \(entry.lesson.id) has nothing to open")
                    if link.hasPrefix("#/stock/") {
                        let symbol = link.dropFirst(8).split(separator: "/")[0]
                        let asset = try await server.send(.GET, "/api/v1/assets/\(symbol)", token: player.accessToken)
                        #expect(asset.status == 200, "\(market) \(link)")
                        if link.hasSuffix("/options") {
                            #expect(try await server.send(.GET, "/api/v1/options/\(symbol)/chain").status == 200, "\(market) \(link)")
                        }
                    } else {
                        #expect(["#/market", "#/leagues"].contains(link))
                    }
                }
            }
        }
    }
}
