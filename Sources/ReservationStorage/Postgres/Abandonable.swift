import Synchronization

/// Runs `work` in a task of its own and waits for its result, unless the caller is
/// cancelled first: then the caller stops waiting at once (`CancellationError`) and the
/// work is cancelled and left to end by itself.
///
/// For PostgreSQL: a statement sent on a connection the database is dropping (its
/// primary killed, or demoted in a switchover) can wait for an answer that never comes,
/// and postgres-nio does not end it on cancellation. A request waiting on it would wait
/// for ever, and hold the server's graceful shutdown; with this, the request is answered
/// (503, `DatabaseGate`) when the probe finds the database gone or the pool moved.
public func abandonable<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
    let waiter = Waiter<T>()
    // One task: the work ends the wait itself (whichever of it and the cancel comes first wins).
    let task = Task {
        do {
            waiter.end(with: .success(try await work()))
        } catch {
            waiter.end(with: .failure(error))
        }
    }
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            waiter.wait(continuation)
        }
    } onCancel: {
        task.cancel()
        waiter.end(with: .failure(CancellationError()))
    }
}

/// The one continuation of `abandonable`, resumed once: by the result or by the cancel.
private final class Waiter<T: Sendable>: Sendable {
    private enum State {
        case before
        case waiting(CheckedContinuation<T, any Error>)
        case ended(Result<T, any Error>?)
    }
    private let state = Mutex<State>(.before)

    /// Keeps the continuation, or resumes it at once if it ended before it waited.
    func wait(_ continuation: CheckedContinuation<T, any Error>) {
        let ended = state.withLock { state -> Result<T, any Error>?? in
            guard case .ended(let result) = state else {
                state = .waiting(continuation)
                return .none
            }
            state = .ended(nil)
            return .some(result)
        }
        guard let ended else { return }
        continuation.resume(with: ended ?? .failure(CancellationError()))
    }

    func end(with result: Result<T, any Error>) {
        let continuation = state.withLock { state -> CheckedContinuation<T, any Error>? in
            switch state {
            case .before:
                state = .ended(result)
                return nil
            case .waiting(let continuation):
                state = .ended(nil)
                return continuation
            case .ended:
                return nil
            }
        }
        continuation?.resume(with: result)
    }
}

extension ServerStore {
    /// The store with every call `abandonable`: a caller cancelled stops waiting at once.
    func abandoningOnCancel() -> ServerStore {
        var store = self
        let (list, get, parties, waitlists) = (list, get, parties, waitlists)
        let (storedResponse, transact, transactDay) = (storedResponse, transact, transactDay)
        let (history, purgeKeys) = (history, purgeKeys)
        let (changes, newestChange, positionAfter) = (changes, newestChange, positionAfter)
        store.list = { user in try await abandonable { try await list(user) } }
        store.get = { user, id in try await abandonable { try await get(user, id) } }
        store.parties = { landmark, from, to, now in
            try await abandonable { try await parties(landmark, from, to, now) }
        }
        store.waitlists = { days in try await abandonable { try await waitlists(days) } }
        store.storedResponse = { user, key in try await abandonable { try await storedResponse(user, key) } }
        store.transact = { user, catalog, key, work in
            try await abandonable { try await transact(user, catalog, key, work) }
        }
        if let transactDay {
            store.transactDay = { day, catalog, requests, more in
                try await abandonable { try await transactDay(day, catalog, requests, more) }
            }
        }
        store.history = { user, id, limit in try await abandonable { try await history(user, id, limit) } }
        store.purgeKeys = { date in try await abandonable { try await purgeKeys(date) } }
        store.changes = { user, after, limit in try await abandonable { try await changes(user, after, limit) } }
        store.newestChange = { user in try await abandonable { try await newestChange(user) } }
        store.positionAfter = { user, sequence in try await abandonable { try await positionAfter(user, sequence) } }
        store.tokens = tokens.abandoningOnCancel()
        store.calendars = calendars.abandoningOnCancel()
        return store
    }
}

extension TokenStore {
    /// The token calls `abandonable`, as `ServerStore.abandoningOnCancel`'s.
    func abandoningOnCancel() -> TokenStore {
        var tokens = self
        let (create, grant, list, revoke, touch, name, ping) = (create, grant, list, revoke, touch, name, ping)
        tokens.create = { token in try await abandonable { try await create(token) } }
        tokens.grant = { hash in try await abandonable { try await grant(hash) } }
        tokens.list = { try await abandonable { try await list() } }
        tokens.revoke = { user, id in try await abandonable { try await revoke(user, id) } }
        tokens.touch = { hash, date in try await abandonable { try await touch(hash, date) } }
        tokens.name = { user in try await abandonable { try await name(user) } }
        tokens.ping = { try await abandonable { try await ping() } }
        return tokens
    }
}
