import BullpenAPI
import Foundation
import NIOWebSocket
import Synchronization
import Vapor

/// Stopping without dropping what already arrived. On SIGTERM the server does not close its
/// connections at once (a request written on a keep-alive connection just before would be reset
/// unread): it starts draining. Streams are closed with 1001 (going away), `/health` answers 503
/// so that a load balancer sends no more, every request that arrives is still answered, and only
/// when none has been in flight for ``quiet`` (or ``ServerConfiguration/shutdownGrace`` has
/// passed) does Vapor stop accepting and close the connections, each after its last answer.
final class Drain: Sendable {
    /// How long no request may have been in flight before the connections are closed: long
    /// enough for requests already in the sockets' buffers to be read.
    static let quiet: Duration = .milliseconds(500)

    private struct State {
        var draining = false
        var inFlight = 0
        var lastActivity = ContinuousClock.now
        var answeredWhileDraining = 0
    }
    private let state = Mutex(State())

    var isDraining: Bool { state.withLock { $0.draining } }

    func started() {
        state.withLock {
            $0.inFlight += 1
            $0.lastActivity = .now
        }
    }

    func finished() {
        state.withLock {
            $0.inFlight -= 1
            $0.lastActivity = .now
            if $0.draining { $0.answeredWhileDraining += 1 }
        }
    }

    /// From now on the server is going away.
    func begin() { state.withLock { $0.draining = true } }

    /// Returns when no request has been in flight for ``quiet`` (not before `minimum`, the time a
    /// load balancer takes to see `/health` fail and stop sending), or after `limit`, with the
    /// number of requests answered since ``begin()`` and how many were still in flight.
    func waitUntilQuiet(minimum: Duration = .zero, limit: Duration) async -> (answered: Int, unfinished: Int) {
        let started = ContinuousClock.now
        let deadline = started + max(limit, minimum)
        while true {
            let (idle, snapshot) = state.withLock { state in
                (state.inFlight == 0 && ContinuousClock.now - state.lastActivity >= Self.quiet,
                 (state.answeredWhileDraining, state.inFlight))
            }
            if (idle && ContinuousClock.now - started >= minimum) || ContinuousClock.now >= deadline { return snapshot }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }
}

/// Counts the requests in flight for ``Drain``; first in the chain, so it sees every request.
struct DrainMiddleware: AsyncMiddleware {
    let drain: Drain

    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        drain.started()
        defer { drain.finished() }
        return try await next.respond(to: request)
    }
}

extension Application {
    private struct DrainKey: StorageKey { typealias Value = Drain }

    /// This application's shutdown state.
    var drain: Drain {
        if let drain = storage[DrainKey.self] { return drain }
        let drain = Drain()
        storage[DrainKey.self] = drain
        return drain
    }

    /// Drains (see ``Drain``), then stops the HTTP server. Returns what the drain answered.
    @discardableResult
    public func drainAndStop(delay: Duration = .zero, grace: Duration) async -> (answered: Int, unfinished: Int) {
        drain.begin()
        await quoteHub?.closeAll(code: .goingAway)
        let result = await drain.waitUntilQuiet(minimum: delay, limit: grace)
        await stopServing()
        return result
    }
}

extension APIError {
    static var shuttingDown: APIError {
        APIError(.shuttingDown, "This server is shutting down; another one will answer (retry shortly).",
                 headers: ["Retry-After": "1"])
    }
}
