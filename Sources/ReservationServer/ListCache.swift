import Hummingbird
import ReservationStorage
import Synchronization

/// Each user's `GET /reservations` body, kept from one change of theirs to the
/// next, so a list read many times is rendered once. Only for a store this
/// process alone writes (SQLite, under its server lock): every change goes
/// through `invalidate`, so a kept body is never older than the data.
///
/// A read that raced a change must not put back the old body: each user has a
/// generation, taken before the read and checked when the body is kept.
final class ListCache: Sendable {
    private struct Entry {
        var generation: UInt64 = 0
        var body: ByteBuffer?
    }

    private let entries = Mutex<[UserID: Entry]>([:])

    /// The kept body, or the generation to pass to `keep` after reading the store.
    func lookup(_ user: UserID) -> Result<ByteBuffer, Generation> {
        entries.withLock { entries in
            let entry = entries[user] ?? Entry()
            if let body = entry.body { return .success(body) }
            return .failure(Generation(value: entry.generation))
        }
    }

    /// Keeps `body` unless the user's reservations changed since `generation` was taken.
    func keep(_ body: ByteBuffer, for user: UserID, readAt generation: Generation) {
        entries.withLock { entries in
            guard (entries[user]?.generation ?? 0) == generation.value else { return }
            entries[user, default: Entry()].body = body
        }
    }

    /// Forgets the user's body: call after a change of theirs is committed.
    func invalidate(_ user: UserID) {
        entries.withLock { entries in
            entries[user, default: Entry()].generation &+= 1
            entries[user]?.body = nil
        }
    }

    struct Generation: Error {
        let value: UInt64
    }
}
