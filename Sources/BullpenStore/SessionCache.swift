import BullpenCore
import Foundation
import Synchronization

/// The sessions known to be active, so that an access-token check does not read the database on
/// every request. A revocation through this store removes its sessions at once; an entry is
/// trusted for `lifetime` only, after which the database is asked again (that is how a
/// revocation by another server instance reaches this one).
final class SessionCache: Sendable {
    private struct Entry {
        var user: UserID
        var until: ContinuousClock.Instant
    }

    private let entries = Mutex<[SessionID: Entry]>([:])
    let lifetime: Duration

    init(lifetime: Duration) {
        self.lifetime = lifetime
    }

    func owner(of session: SessionID) -> UserID? {
        entries.withLock { entries in
            guard let entry = entries[session] else { return nil }
            guard entry.until > .now else {
                entries[session] = nil
                return nil
            }
            return entry.user
        }
    }

    func remember(_ session: SessionID, user: UserID) {
        entries.withLock { entries in
            if entries.count > 100_000 { entries.removeAll(keepingCapacity: true) }
            entries[session] = Entry(user: user, until: .now + lifetime)
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
}
