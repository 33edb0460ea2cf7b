import BullpenCore
import FluentKit
import FluentSQL
import Foundation
import Logging
import NIOPosix
import PostgresKit
import Synchronization

/// On PostgreSQL, where several server instances share the sessions: hears the revocations the
/// other instances make (logout, a reused refresh token, a password change, a deleted account),
/// which they announce with `NOTIFY` on ``channel`` in the transaction that revokes, and forgets
/// those sessions from this instance's ``SessionCache`` at once. While it is not connected, the
/// cache trusts its entries for a few seconds only. It holds one connection of its own and
/// reconnects after a failure.
final class RevocationListener: Sendable {
    static let channel = "bullpen_revocations"

    private let configuration: PostgresConnection.Configuration
    private let sessions: SessionCache
    private let logger: Logger
    private let state = Mutex<(task: Task<Void, Never>?, connection: PostgresConnection?, stopped: Bool)>((nil, nil, false))

    init(url: String, sessions: SessionCache, logger: Logger) throws {
        configuration = try SQLPostgresConfiguration(url: url).coreConfiguration
        self.sessions = sessions
        self.logger = logger
    }

    /// Starts listening unless it already does (or was stopped); called when sessions are first
    /// checked, so that a store that never checks one (a migration, a tool) opens no connection.
    func start() {
        state.withLock { state in
            guard state.task == nil, !state.stopped else { return }
            state.task = Task { [self] in await run() }
        }
    }

    func stop() async {
        let (task, connection) = state.withLock { state in
            state.stopped = true
            return (state.task, state.connection)
        }
        task?.cancel()
        try? await connection?.close()
        await task?.value
    }

    private var stopped: Bool { state.withLock { $0.stopped } || Task.isCancelled }

    private func run() async {
        var failures = 0
        while !stopped {
            do {
                let connection = try await PostgresConnection.connect(
                    on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration, id: 0, logger: logger)
                let keep = state.withLock { state in
                    if !state.stopped { state.connection = connection }
                    return !state.stopped
                }
                guard keep else {
                    try? await connection.close()
                    return
                }
                defer { sessions.hearsRevocations(false) }
                try await connection.listen(on: Self.channel) { notifications in
                    sessions.hearsRevocations(true)
                    failures = 0
                    for try await notification in notifications {
                        if let revocation = Revocation(payload: notification.payload) {
                            sessions.apply(revocation)
                        } else {
                            logger.warning("unreadable revocation notice", metadata: ["payload": "\(notification.payload)"])
                        }
                    }
                }
                try? await connection.close()
            } catch {
                if !stopped {
                    logger.warning("revocation listener lost its connection",
                                   metadata: ["error": "\(String(reflecting: error))"])
                }
            }
            sessions.hearsRevocations(false)
            state.withLock { $0.connection = nil }
            failures += 1
            try? await Task.sleep(for: .milliseconds(min(5_000, 200 * failures)))
        }
    }
}

extension BullpenStore {
    /// Tells the other instances (on PostgreSQL; delivered when `database`'s transaction commits)
    /// that sessions were revoked.
    func announce(_ revocation: Revocation, on database: any Database) async throws {
        guard !backend.isSQLite else { return }
        try await sql(database).raw("SELECT pg_notify(\(bind: RevocationListener.channel), \(bind: revocation.payload))").run()
    }
}
