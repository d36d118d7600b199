import FilePrimitives
import Foundation
import ReservationCore

/// The changes made while a server could not be reached (`--queue`), kept
/// until the server has answered each (docs/contracts.md, "Offline"). One file
/// per server and user, `$XDG_STATE_HOME/resv/outbox/<fingerprint>.json`, in the
/// state folder, as a cache may be cleared at any time and this holds the only
/// copy of a request. Whose a token is, the server says (`GET /whoami`, at the
/// first contact or `resv login`), and resv writes it down beside the outbox
/// (`<token fingerprint>.user`, the token itself never written): a new token of the
/// same user opens the same outbox, another user's never does. A token whose user
/// is not known yet (it has not reached its server) queues in a file of its own,
/// moved into its user's when the user is learned.
/// Written as a store is: under a lock file, atomically, fsynced, 0600; a file
/// another user made (or a folder of its path) is refused, never read.
///
/// `{"outbox": 1, "server": URL, "items": [item, …]}`, items in the order they
/// were queued; each an object (`OutboxItem`), kept as read, so an item this
/// resv cannot read (a newer resv's) is kept and reported, not lost.
public struct Outbox: Sendable {
    public let path: String
    public let server: URL
    /// The user the token belongs to, when known: the outbox is theirs on this server.
    public let user: String?
    /// The token's own file, where it queues while its user is unknown.
    let tokenPath: String
    /// Where the token's user is written down.
    let userPath: String

    /// The outbox of one server and one user (the token's): a change is only ever sent as the one who made it.
    public init(stateHome: URL, baseURL: URL, token: String?) {
        server = baseURL
        let folder = stateHome.appendingPathComponent("resv/outbox").path
        let identity = ResponseCache.fingerprint(baseURL.absoluteString + "\n" + (token ?? ""))
        tokenPath = folder + "/\(identity).json"
        userPath = folder + "/\(identity).user"
        user = Self.writtenUser(at: userPath)
        path = user.map { Self.path(in: folder, server: baseURL, user: $0) } ?? tokenPath
    }

    private init(_ outbox: Outbox, user: String) {
        server = outbox.server
        tokenPath = outbox.tokenPath
        userPath = outbox.userPath
        self.user = user
        path = Self.path(in: AtomicFile.directory(of: outbox.tokenPath), server: outbox.server, user: user)
    }

    private static func path(in folder: String, server: URL, user: String) -> String {
        folder + "/" + ResponseCache.fingerprint(server.absoluteString + "\nuser " + user) + ".json"
    }

    /// The user written down for a token: only from a file of this user's (or root's) that
    /// no one else may write; anything else is as if none were written.
    private static func writtenUser(at path: String) -> String? {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_mode & 0o022 == 0,
            status.st_size <= 4096, Ownership.foreign(path, folders: 3) == nil,
            let data = FileManager.default.contents(atPath: path)
        else { return nil }
        let user = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .newlines)
        return user.isEmpty || user.contains("\n") ? nil : user
    }

    /// This token's outbox once the server has said whose the token is: `user`'s, written
    /// down for the next runs, with what the token queued while its user was unknown moved
    /// into it (written there before it leaves the token's file: a crash between leaves a
    /// change in both, which its id and key make safe to send twice).
    public func belonging(to user: String) async throws -> Outbox {
        guard !user.isEmpty, !user.contains("\n") else { return self }
        if self.user == user { return self }
        let owned = Outbox(self, user: user)
        try Self.makeFolder(AtomicFile.directory(of: tokenPath), for: userPath)
        if FileManager.default.fileExists(atPath: tokenPath) {
            let unowned = Outbox(path: tokenPath, server: server)
            try await unowned.update { items in
                let moving = items
                guard !moving.isEmpty else { return }
                try await owned.update { target in target.append(contentsOf: moving.filter { !target.contains($0) }) }
                items.removeAll()
            }
        }
        do {
            try AtomicFile.write(Data((user + "\n").utf8), to: userPath, mode: 0o600)
        } catch {
            throw OutboxError.unwritable(userPath, "\(error.step): \(error.reason)")
        }
        return owned
    }

    /// Whether any outbox file (of any server, token or user) is in the folder: when none
    /// is, no token's user need be learned to find its changes.
    var anyQueued: Bool {
        let folder = AtomicFile.directory(of: tokenPath)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.contains { $0.hasSuffix(".json") }
    }

    /// An outbox at `path` as it is (the token's file, to move its items).
    private init(path: String, server: URL) {
        self.path = path
        self.server = server
        tokenPath = path
        userPath = path
        user = nil
    }

    /// The largest outbox read: 16 MiB, some 30,000 queued changes. A larger file is
    /// none this resv wrote; it is left as it is rather than read into memory.
    public static let largest = 16 << 20

    /// The items, oldest first, read without the lock (a reader sees a whole file,
    /// old or new); none when there is no file.
    public func items() throws(OutboxError) -> [OutboxItem] {
        if let foreign = Ownership.foreign(path, folders: 3) { throw .foreign(foreign) }
        try checkNotWritableByOthers()
        // A FIFO or a device would block or never end, a huge file fill the memory: refused first.
        var status = stat()
        if stat(path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFREG else { throw .notJSON(path) }
            guard status.st_size <= Self.largest else { throw .tooLarge(path, Int(status.st_size)) }
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile {
            return []
        } catch {
            throw .unreadable(path, error.localizedDescription)
        }
        return try Self.items(from: data, path: path)
    }

    /// The items of an outbox file's bytes (what `items()` read from `path`).
    static func items(from data: Data, path: String) throws(OutboxError) -> [OutboxItem] {
        guard case .object(let fields)? = try? JSONValue.parse(data), case .array(let items)? = fields["items"] else {
            throw .notJSON(path)
        }
        return items.map(OutboxItem.init(json:))
    }

    /// A file or folder others may write could hold a change another user put there, which
    /// resv would send with this user's token: refused before any item is read, as ssh
    /// refuses a key file others can write (the file and its folder, `resv/outbox`).
    func checkNotWritableByOthers() throws(OutboxError) {
        for (place, what) in [(path, "file"), (AtomicFile.directory(of: path), "folder")] {
            var status = stat()
            guard lstat(place, &status) == 0, status.st_mode & 0o022 != 0 else { continue }
            throw .writableByOthers(place, what)
        }
    }

    /// Makes `folder` (the user's alone, 0700) where it is missing, for the file `path`,
    /// and refuses a `path` another user made, or a folder of it.
    private static func makeFolder(_ folder: String, for path: String) throws {
        do {
            try FileManager.default.createDirectory(
                atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw OutboxError.unwritable(path, error.localizedDescription)
        }
        if let foreign = Ownership.foreign(path, folders: 3) { throw OutboxError.foreign(foreign) }
    }

    /// Runs `body` on the items with the file locked (other resv processes wait),
    /// and writes back what it leaves, durably, when it changed them.
    public func update<T>(_ body: (inout [OutboxItem]) async throws -> T) async throws -> T {
        try Self.makeFolder(AtomicFile.directory(of: path), for: path)
        let lock: FileLock
        do {
            lock = try await FileLock.acquire(path + ".lock", timeout: .seconds(60))
        } catch FileLock.Failure.foreign(let foreign) {
            throw OutboxError.foreign(foreign)
        } catch let failure as FileLock.Failure {
            throw OutboxError.unwritable(path + ".lock", "\(failure)")
        }
        defer { lock.release() }
        let before = try items()
        var items = before
        let result = try await body(&items)
        if items != before { try write(items) }
        return result
    }

    /// Writes `items` in place of the file (with the lock held).
    func write(_ items: [OutboxItem]) throws(OutboxError) {
        let document = JSONValue.object([
            "outbox": .integer(1), "server": .string(server.redacted), "items": .array(items.map(\.json)),
        ])
        do {
            try AtomicFile.write(document.encoded(), to: path, mode: 0o600)
        } catch {
            throw .unwritable(path, "\(error.step): \(error.reason)")
        }
    }
}

/// Why the outbox could not be used; each names the file.
public enum OutboxError: Error, Sendable, LocalizedError {
    /// The file is not an outbox (not JSON, or no `items`): never overwritten.
    case notJSON(String)
    /// The file is larger than `Outbox.largest` (its size): never read, never overwritten.
    case tooLarge(String, Int)
    case unreadable(String, String)
    case unwritable(String, String)
    /// Another user made the file, or a folder of its path.
    case foreign(Ownership.Foreign)
    /// The file or its folder (which it names) may be written by group or others: never read.
    case writableByOthers(String, String)

    public var errorDescription: String? {
        switch self {
        case .notJSON(let path):
            "the outbox \(path) is not an outbox file (JSON with \"items\"); it is left as it is: "
                + "move it aside to queue again"
        case .tooLarge(let path, let bytes):
            "the outbox \(path) has \(bytes) bytes, more than \(Outbox.largest) an outbox holds; it is left as it is: "
                + "move it aside to queue again"
        case .unreadable(let path, let why): "cannot read the outbox \(path): \(why)"
        case .unwritable(let path, let why): "cannot write the outbox \(path): \(why)"
        case .foreign(let foreign): "not using the outbox: \(foreign.description), not you or root"
        case .writableByOthers(let path, let what):
            "not using the outbox: its \(what) \(path) may be written by other users, who could queue a change "
                + "sent with your token; nothing in it was read or sent (run 'chmod go-w \(path)' if only you wrote it)"
        }
    }
}

/// One queued change, kept as the JSON it is stored as. A reserve's `id` is the
/// reservation's (made here, sent to the server as its `id`); a cancel's,
/// confirm's or modify's is its own, `reservation` the one it changes.
public struct OutboxItem: Sendable, Equatable {
    public enum Kind: String, Sendable { case reserve, cancel, confirm, modify }

    public private(set) var json: JSONValue

    public init(json: JSONValue) { self.json = json }

    init(
        kind: Kind, id: String, reservation: String, key: String?, queuedAt: Date, request: JSONValue? = nil,
        version: Int? = nil
    ) {
        var fields: [String: JSONValue] = [
            "id": .string(id), "kind": .string(kind.rawValue), "reservation": .string(reservation),
            "queuedAt": .string(DateTime.format(queuedAt)),
        ]
        if let key { fields["key"] = .string(key) }
        if let request { fields["request"] = request }
        if let version { fields["version"] = .integer(Int64(version)) }
        json = .object(fields)
    }

    private func text(_ field: String) -> String? {
        if case .string(let text)? = json[field] { text } else { nil }
    }

    public var id: String { text("id") ?? "" }
    /// Nil for an item this resv cannot read (another kind, a field missing): kept, reported, not sent.
    public var kind: Kind? {
        guard let kind = text("kind").flatMap(Kind.init(rawValue:)), reservationID != nil else { return nil }
        switch kind {
        case .reserve: return request.map { _ in kind }
        case .modify: return request.map { _ in kind }
        case .cancel, .confirm: return kind
        }
    }
    public var reservationID: Reservation.ID? { text("reservation").flatMap(Reservation.ID.init) }
    public var key: String? { text("key") }
    public var queuedAt: Date? { text("queuedAt").flatMap { try? DateTime.parse($0) } }
    /// A reserve's body (`CreateReservationRequest` with its `id`); a modify's fields.
    public var request: JSONValue? {
        if case .object? = json["request"] { json["request"] } else { nil }
    }
    /// The version a change of a server reservation was made against (`If-Match`).
    public var version: Int? {
        if case .integer(let version)? = json["version"] { Int(exactly: version) } else { nil }
    }
    /// Set before it is first sent: the server may have it, so it can no longer simply be dropped.
    public var sent: Bool { json["sent"] == .bool(true) }
    /// The server's refusal, kept until dropped.
    public var refusal: (code: String, message: String)? {
        guard case .object(let refused)? = json["refused"], case .string(let message)? = refused["message"] else {
            return nil
        }
        if case .string(let code)? = refused["code"] { return (code, message) }
        return ("refused", message)
    }

    mutating func set(_ field: String, _ value: JSONValue?) {
        guard case .object(var fields) = json else { return }
        fields[field] = value
        json = .object(fields)
    }

    mutating func markSent() { set("sent", .bool(true)) }

    mutating func refuse(code: String, message: String) {
        set("refused", .object(["code": .string(code), "message": .string(message)]))
    }
}
