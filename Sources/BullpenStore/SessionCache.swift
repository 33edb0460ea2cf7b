import BullpenCore
import Foundation
import Synchronization

/// The sessions known to be active, so that an access-token check does not read the database on
/// every request. A revocation through this store removes its sessions at once; a revocation by
/// another server instance arrives as a notification (see ``RevocationListener``). An entry is
/// trusted for `lifetime` only, after which the database is asked again; while notifications
/// are not heard (the listener is connecting, or the database cannot send them) the shorter
/// `unheardLifetime` bounds how long a revocation elsewhere can go unseen.
final class SessionCache: Sendable {
    private struct Entry {
        var user: UserID
        var remembered: ContinuousClock.Instant
    }

    private let entries = Mutex<[SessionID: Entry]>([:])
    private let hearing = Atomic<Bool>(false)
    let lifetime: Duration
    let unheardLifetime: Duration

    init(lifetime: Duration, unheardLifetime: Duration? = nil) {
        self.lifetime = lifetime
        self.unheardLifetime = unheardLifetime ?? lifetime
    }

    /// How long an entry is trusted now.
    var currentLifetime: Duration { hearing.load(ordering: .relaxed) ? lifetime : unheardLifetime }

    func owner(of session: SessionID) -> UserID? {
        let lifetime = currentLifetime
        return entries.withLock { entries in
            guard let entry = entries[session] else { return nil }
            guard entry.remembered + lifetime > .now else {
                entries[session] = nil
                return nil
            }
            return entry.user
        }
    }

    func remember(_ session: SessionID, user: UserID) {
        entries.withLock { entries in
            if entries.count > 100_000 { entries.removeAll(keepingCapacity: true) }
            entries[session] = Entry(user: user, remembered: .now)
        }
    }

    func forget(_ session: SessionID) {
        entries.withLock { _ = $0.removeValue(forKey: session) }
    }

    /// Forgets every session of `user` but `keeping`.
    func forget(user: UserID, keeping: SessionID? = nil) {
        entries.withLock { entries in
            entries = entries.filter { $0.value.user != user || $0.key == keeping }
        }
    }

    /// Whether revocations elsewhere are heard as they happen. Starting to hear forgets
    /// everything, since a revocation may have been missed while not listening.
    func hearsRevocations(_ hears: Bool) {
        if hears { entries.withLock { $0.removeAll(keepingCapacity: true) } }
        hearing.store(hears, ordering: .relaxed)
    }

    var isHearingRevocations: Bool { hearing.load(ordering: .relaxed) }

    /// Applies a revocation notice (see ``Revocation``).
    func apply(_ revocation: Revocation) {
        switch revocation {
        case .session(let session): forget(session)
        case .user(let user, let keeping): forget(user: user, keeping: keeping)
        }
    }
}

/// A revocation, as one instance tells the others (the payload of a PostgreSQL notification).
enum Revocation: Sendable, Equatable {
    case session(SessionID)
    case user(UserID, keeping: SessionID?)

    var payload: String {
        switch self {
        case .session(let session): "session \(session.uuid.uuidString)"
        case .user(let user, let keeping): "user \(user.uuid.uuidString)" + (keeping.map { " \($0.uuid.uuidString)" } ?? "")
        }
    }

    init?(payload: String) {
        let words = payload.split(separator: " ").map(String.init)
        switch (words.first, words.count) {
        case ("session", 2):
            guard let id = UUID(uuidString: words[1]) else { return nil }
            self = .session(SessionID(id))
        case ("user", 2), ("user", 3):
            guard let id = UUID(uuidString: words[1]) else { return nil }
            var keeping: SessionID?
            if words.count == 3 {
                guard let kept = UUID(uuidString: words[2]) else { return nil }
                keeping = SessionID(kept)
            }
            self = .user(UserID(id), keeping: keeping)
        default:
            return nil
        }
    }
}
