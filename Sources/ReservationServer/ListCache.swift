import Foundation
import Hummingbird
import ReservationStorage
import Synchronization

/// Each user's `GET /reservations` body, kept from one change to the next, so
/// a list read many times is rendered once. Only for a store this process
/// alone writes (SQLite, under its server lock): every change goes through
/// `invalidate`, so a kept body is never older than the data. A change may
/// touch other users' reservations (a promotion from a waitlist, an ended
/// hold, a waitlist position), so every change forgets every user's body.
///
/// A read that raced a change must not put back the old body: a generation is
/// taken before the read and checked when the body is kept.
final class ListCache: Sendable {
    private struct State {
        var generation: UInt64 = 0
        var bodies: [UserID: (body: ByteBuffer, until: Date?)] = [:]
    }

    private let state = Mutex(State())

    /// The kept body, still true at `now`, or the generation to pass to `keep` after reading the store.
    func lookup(_ user: UserID, at now: Date) -> Result<ByteBuffer, Generation> {
        state.withLock { state in
            if let kept = state.bodies[user], kept.until.map({ now < $0 }) ?? true { return .success(kept.body) }
            return .failure(Generation(value: state.generation))
        }
    }

    /// Keeps `body` unless anything changed since `generation` was taken; with
    /// `until`, only until then (when a hold in it ends, and so reads otherwise).
    func keep(_ body: ByteBuffer, for user: UserID, readAt generation: Generation, until: Date? = nil) {
        state.withLock { state in
            guard state.generation == generation.value else { return }
            state.bodies[user] = (body, until)
        }
    }

    /// Forgets every body: call after a change is committed.
    func invalidate() {
        state.withLock { state in
            state.generation &+= 1
            state.bodies = [:]
        }
    }

    struct Generation: Error {
        let value: UInt64
    }
}
