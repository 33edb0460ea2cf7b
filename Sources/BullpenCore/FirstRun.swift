import Foundation

/// A step of the guided first run, in order: find a company, buy a share, see it in the portfolio.
public enum FirstRunStep: String, Sendable, Hashable, CaseIterable {
    /// Open a company's page, found through the search.
    case find
    /// Buy a share of something: done by the purchase itself, in any of the player's portfolios.
    case buy
    /// Open the portfolio, where the share now shows.
    case see

    /// The step's title as the app shows it.
    public var title: String {
        switch self {
        case .find: "Find a company"
        case .buy: "Buy a share"
        case .see: "See it in your portfolio"
        }
    }
}

/// The guided first run of a new player: three steps, skippable, and taken again from Help.
///
/// What is stored is when things happened; which steps are done also depends on whether the player
/// bought anything since the run started (`bought`), which the store reads from the fills, so that a
/// purchase made anywhere (the web app, the CLI, a bot) counts.
public struct FirstRun: Sendable, Hashable {
    public enum Status: String, Sendable, Hashable {
        /// Never started: an account from before the first run existed. Help offers it.
        case available
        /// Running: the app shows its next step.
        case active
        /// The player skipped it; Help starts it again.
        case skipped
        /// All three steps done.
        case finished
    }

    /// Why a step cannot be marked.
    public enum Refusal: Error, Sendable, Hashable {
        /// The run is not going on (never started, or skipped).
        case notRunning(Status)
        /// `step` needs `first` done before it.
        case outOfOrder(FirstRunStep, first: FirstRunStep)
        /// The buy step is done by buying, not by saying so.
        case doneByBuying
    }

    /// When the run (last) started; nil when it never did.
    public var startedAt: Date?
    public var foundAt: Date?
    public var seenAt: Date?
    public var skippedAt: Date?
    public var finishedAt: Date?

    public init(startedAt: Date? = nil, foundAt: Date? = nil, seenAt: Date? = nil, skippedAt: Date? = nil, finishedAt: Date? = nil) {
        self.startedAt = startedAt; self.foundAt = foundAt; self.seenAt = seenAt; self.skippedAt = skippedAt
        self.finishedAt = finishedAt
    }

    /// A run starting (again) at `now`: every step to do.
    public static func started(at now: Date) -> FirstRun { FirstRun(startedAt: now) }

    public var status: Status {
        if finishedAt != nil { return .finished }
        if skippedAt != nil { return .skipped }
        return startedAt == nil ? .available : .active
    }

    /// The steps done, given whether the player bought since the run started. Buying means the
    /// company was found, whichever way.
    public func done(bought: Bool) -> Set<FirstRunStep> {
        if finishedAt != nil { return Set(FirstRunStep.allCases) }
        var done = Set<FirstRunStep>()
        if foundAt != nil || bought { done.insert(.find) }
        if bought { done.insert(.buy) }
        if seenAt != nil { done.insert(.see) }
        return done
    }

    /// The step to take now, while the run goes on.
    public func next(bought: Bool) -> FirstRunStep? {
        guard status == .active else { return nil }
        let done = done(bought: bought)
        return FirstRunStep.allCases.first { !done.contains($0) }
    }

    /// The run with `step` done at `now`. Marking a step done before changes nothing; seeing the
    /// portfolio after buying finishes the run.
    public func marking(_ step: FirstRunStep, bought: Bool, at now: Date) -> Result<FirstRun, Refusal> {
        if step == .buy { return .failure(.doneByBuying) }
        if status == .finished { return .success(self) }
        guard status == .active else { return .failure(.notRunning(status)) }
        var run = self
        run.foundAt = run.foundAt ?? now
        if step == .see {
            guard bought else { return .failure(.outOfOrder(.see, first: .buy)) }
            run.seenAt = now
            run.finishedAt = now
        }
        return .success(run)
    }

    /// The run skipped at `now`; a finished run stays finished.
    public func skipping(at now: Date) -> FirstRun {
        guard status != .finished else { return self }
        var run = self
        run.skippedAt = now
        return run
    }
}
