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

/// Version-7 UUIDs (RFC 9562): the millisecond they were made, then 74 random bits. Rows made
/// together get neighbouring keys, so a batch's inserts land on the same few index pages instead
/// of one random page each (what a durable commit has to write).
public struct TimeOrderedIDSource: IDSource {
    public init() {}

    public func makeUUID() -> UUID {
        let milliseconds = UInt64(max(0, Date().timeIntervalSince1970 * 1000))
        var random = SystemRandomNumberGenerator()
        let high = random.next() as UInt64, low = random.next() as UInt64
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> (8 * (5 - UInt64(index)))) }
        bytes[6] = 0x70 | UInt8(truncatingIfNeeded: high & 0x0f)
        bytes[7] = UInt8(truncatingIfNeeded: high >> 8)
        bytes[8] = 0x80 | UInt8(truncatingIfNeeded: low & 0x3f)
        for index in 9..<16 { bytes[index] = UInt8(truncatingIfNeeded: low >> (8 * UInt64(index - 8))) }
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
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
