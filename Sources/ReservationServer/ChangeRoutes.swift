import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import ReservationCore
import ReservationStorage
import Synchronization

/// `GET /changes?after=CURSOR&wait=SECONDS`: the caller's own changes after a
/// cursor, oldest first, as a long poll (docs/contracts.md, "Watching changes").
/// Behind a token but not the rate limit: a watcher asks again at each
/// change or after each wait, and holds a connection meanwhile (which the
/// connection limits count).
struct ChangeRoutes: Sendable {
    let store: ServerStore
    /// Reads shared by the polls of one user at one cursor (many watchers of one user).
    let reads = FeedReads()

    /// The longest a poll waits, in seconds.
    static let maxWait = 60.0
    /// The most changes one answer carries: a watcher far behind asks again at once.
    static let pageSize = 1_000

    var endpoints: RouteCollection<AuthenticatedContext> {
        RouteCollection(context: AuthenticatedContext.self).get("/changes", use: changes)
    }

    @Sendable func changes(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        let user = context.user
        var wait = 0.0
        if let text = request.uri.queryParameters.get("wait") {
            guard let seconds = Double(String(text)), seconds.isFinite, (0...Self.maxWait).contains(seconds) else {
                throw APIError(
                    .badRequest, .invalidRequest,
                    "wait '\(text.prefix(64))' is not a number of seconds from 0 to \(Int(Self.maxWait))")
            }
            wait = seconds
        }
        guard let text = request.uri.queryParameters.get("after").map({ String($0) }) else {
            // No cursor: nothing yet, and the cursor of now.
            let page = ChangePage(changes: [], cursor: cursor(user, try await store.newestChange(user)))
            return .json(status: .ok, body: [UInt8](page.json.encoded()))
        }
        let after = try await position(of: text, for: user)
        let deadline = ContinuousClock.now.advanced(by: .milliseconds(Int(wait * 1000)))
        // A poll ended by the server's stop: no changes, the cursor it asked with (the watcher
        // asks again elsewhere or later and misses nothing). The database is not asked again:
        // a cancelled task's calls end at once (see `abandonable`).
        let stopped = {
            Response.json(status: .ok, body: [UInt8](ChangePage(changes: [], cursor: text).json.encoded()))
        }
        while true {
            let mark = store.signal.mark(user)
            let read: FeedReads.Read
            do {
                read = try await reads.read(user, after: after, mark: mark) { try await self.read(user, after: after) }
            } catch  where Task.isCancelled {
                return stopped()
            }
            let remaining = ContinuousClock.now.duration(to: deadline)
            if read.found || remaining <= .zero || Task.isCancelled {
                return .json(status: .ok, body: read.body)
            }
            await store.signal.wait(user, since: mark, for: remaining)
        }
    }

    /// The answer to a poll at `after` as the database is now: the page's body, and whether it holds changes.
    private func read(_ user: UserID, after: Int64) async throws -> FeedReads.Read {
        let found = try await store.changes(user, after, Self.pageSize)
        // A cursor from past this database's history: it was replaced, or restored from an older copy.
        if found.isEmpty, after > (try await store.newestChange(user)) {
            throw APIError(ReservationError.cursorExpired)
        }
        let page = ChangePage(
            changes: found.map { FeedChange(cursor: cursor(user, $0.sequence), entry: $0.entry) },
            cursor: cursor(user, found.last?.sequence ?? after))
        return FeedReads.Read(body: ByteBuffer(bytes: page.json.encoded()), found: !found.isEmpty)
    }

    /// `p<number>.<16 hex digits>`: the number of the user's change (their
    /// n-th, in commit order), signed with the database's key for this user,
    /// so a cursor is good only for its user and its database.
    func cursor(_ user: UserID, _ position: Int64) -> String {
        "p\(position).\(signature(user, "p\(position)"))"
    }

    func signature(_ user: UserID, _ number: String) -> String {
        let code = HMAC<SHA256>.authenticationCode(
            for: Array("\(user.rawValue):\(number)".utf8), using: SymmetricKey(data: store.cursorKey))
        return Hex.string(Array(code.prefix(8)))
    }

    /// The position a cursor this database signed for this user stands at;
    /// `invalidCursor` for anything else. A cursor of a server before schema 7,
    /// `s<history.seq>.<signature>`, stands just after that row's change.
    func position(of text: String, for user: UserID) async throws -> Int64 {
        let refusal = APIError(ReservationError.invalidCursor(text))
        guard ChangeCursor.isPlausible(text), let kind = text.first, kind == "p" || kind == "s" else { throw refusal }
        let parts = text.dropFirst().split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let number = Int64(parts[0]), number >= 0, String(number) == parts[0] else {
            throw refusal
        }
        // Compared whole, in constant time. The old cursors signed the bare number.
        let expected = Array(signature(user, kind == "p" ? "p\(number)" : "\(number)").utf8)
        let given = Array(parts[1].utf8)
        guard given.count == expected.count, zip(given, expected).reduce(0, { $0 | ($1.0 ^ $1.1) }) == 0 else {
            throw refusal
        }
        return kind == "p" ? number : try await store.positionAfter(user, number)
    }
}

/// One read of the database for every poll of a user at the same cursor while
/// nothing rang for that user (the `ChangeSignal` mark is the same): a
/// thousand watchers of one user cost one query a change, not a thousand.
/// Polls that come while the read is under way wait for it.
final class FeedReads: Sendable {
    struct Read: Sendable {
        let body: ByteBuffer
        let found: Bool
    }

    private struct Key: Hashable {
        let user: UserID
        let after: Int64
    }

    private let reads = Mutex<[Key: (mark: ChangeSignal.Mark, task: Task<Read, any Error>)]>([:])

    func read(
        _ user: UserID, after: Int64, mark: ChangeSignal.Mark, _ body: @escaping @Sendable () async throws -> Read
    ) async throws -> Read {
        let key = Key(user: user, after: after)
        let task = reads.withLock { reads in
            if let kept = reads[key], kept.mark == mark { return kept.task }
            // Another cursor of this user, or an older mark: what was kept is no longer the answer.
            if reads.count > 10_000 { reads = [:] }
            reads = reads.filter { $0.key.user != user }
            let task = Task { try await body() }
            reads[key] = (mark, task)
            return task
        }
        do {
            // A poll answered without the read (its request ended: the database gone, the pool
            // moved) stops waiting for it, which may never end; the read is not kept for others.
            return try await abandonable { try await task.value }
        } catch {
            reads.withLock { reads in
                if reads[key]?.mark == mark { reads[key] = nil }
            }
            throw error
        }
    }
}
