import Foundation

/// Where the core gets the current time. Injected so that every rule can be tested at a pinned instant.
public protocol TimeSource: Sendable {
    func now() -> Date
}

/// Where the core gets fresh identifiers. Injected so that tests can pin them.
public protocol IDSource: Sendable {
    func makeUUID() -> UUID
}

extension IDSource {
    public func make<Entity>(_: TypedID<Entity>.Type = TypedID<Entity>.self) -> TypedID<Entity> {
        TypedID(makeUUID())
    }
}

/// The machine's clock.
public struct SystemTimeSource: TimeSource {
    public init() {}
    public func now() -> Date { Date() }
}

/// Random version-4 UUIDs.
public struct RandomIDSource: IDSource {
    public init() {}
    public func makeUUID() -> UUID { UUID() }
}

/// A clock that starts at `start` and runs `speed` times faster than real time: for watching a
/// simulated session go by in minutes (demos, stream benchmarks, tests).
public struct AcceleratedTimeSource: TimeSource {
    public let start: Date
    public let speed: Double
    private let origin = ContinuousClock.now

    public init(start: Date, speed: Double) {
        self.start = start
        self.speed = speed
    }

    public func now() -> Date {
        let elapsed = ContinuousClock.now - origin
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return start.addingTimeInterval(seconds * speed)
    }
}
