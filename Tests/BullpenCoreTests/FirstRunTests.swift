import BullpenCore
import Foundation
import Testing

/// The guided first run's rules: the order of its steps, what buying implies, skipping and finishing.
@Suite("First run")
struct FirstRunTests {
    let start = Date(timeIntervalSince1970: 1_790_000_000)

    @Test func stepsGoInOrderAndBuyingMeansFound() throws {
        let run = FirstRun.started(at: start)
        #expect(run.status == .active && run.next(bought: false) == .find && run.done(bought: false).isEmpty)
        // Bought without the search (a link, the CLI): the company was found.
        #expect(run.done(bought: true) == [.find, .buy] && run.next(bought: true) == .see)
        #expect(run.marking(.see, bought: false, at: start) == .failure(.outOfOrder(.see, first: .buy)))
        #expect(run.marking(.buy, bought: true, at: start) == .failure(.doneByBuying))

        let found = try run.marking(.find, bought: false, at: start + 60).get()
        #expect(found.foundAt == start + 60 && found.next(bought: false) == .buy)
        #expect(try found.marking(.find, bought: false, at: start + 120).get() == found, "the first time is kept")

        let finished = try found.marking(.see, bought: true, at: start + 180).get()
        #expect(finished.status == .finished && finished.finishedAt == start + 180 && finished.next(bought: true) == nil)
        #expect(finished.done(bought: false) == Set(FirstRunStep.allCases), "a finished run stays done after a sale")
        #expect(try finished.marking(.find, bought: false, at: start + 240).get() == finished)
        #expect(finished.skipping(at: start + 240) == finished, "skipping a finished run changes nothing")
    }

    @Test func neverStartedOrSkippedRunsTakeNoSteps() {
        let never = FirstRun()
        #expect(never.status == .available && never.next(bought: true) == nil)
        #expect(never.marking(.find, bought: false, at: start) == .failure(.notRunning(.available)))
        let skipped = FirstRun.started(at: start).skipping(at: start + 1)
        #expect(skipped.status == .skipped && skipped.next(bought: false) == nil)
        #expect(skipped.marking(.find, bought: false, at: start + 2) == .failure(.notRunning(.skipped)))
        // Started again: every step to do, skipped no more.
        let again = FirstRun.started(at: start + 3)
        #expect(again.status == .active && again.skippedAt == nil && again.foundAt == nil)
    }
}
