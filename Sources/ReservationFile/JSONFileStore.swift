import FilePrimitives
import Foundation
import ReservationCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The JSON file backend's storage: lock-free reads of whole files, and
/// read-modify-writes under an exclusive lock with an atomic, durable write.
///
/// A store that is a symbolic link is written through: the lock, the
/// temporary file and the rename happen beside the file at the end of the
/// links, so the links stay links.
public struct JSONFileStore: Sendable {
    /// The largest store read by default: 256 MiB, about 1.2 million reservations.
    public static let defaultMaxBytes = 256 << 20

    public let url: URL
    /// How long a change waits for another process's lock before giving up.
    public var lockTimeout: Duration
    /// The largest store file read; a larger one is refused before it is read.
    public var maxBytes: Int

    public init(url: URL, lockTimeout: Duration = .seconds(5), maxBytes: Int = Self.defaultMaxBytes) {
        self.url = url
        self.lockTimeout = lockTimeout
        self.maxBytes = maxBytes
    }

    var path: String { url.path }

    /// Reads the store; a missing file is an empty store. Rename-based writes
    /// mean a reader sees the old file or the new one, never a torn one.
    func read() throws(FileStoreError) -> StoreDocument {
        try load(StoreFile.resolvingLinks(path, storePath: path).path).document
    }

    /// The document in the file at `file` (the store, or where its links
    /// end), and the file's status when there is one.
    private func load(_ file: String) throws(FileStoreError) -> (document: StoreDocument, info: stat?) {
        guard let (data, info) = try StoreFile.read(file, limit: maxBytes, storePath: path) else {
            return (StoreDocument(), nil)
        }
        if Self.isBlank(data) { return (StoreDocument(), info) }
        return (try StoreDocument(data: data, path: path), info)
    }

    /// The reservations and catalog as they are now, read without a lock.
    public func snapshot() throws(FileStoreError) -> ReservationSnapshot {
        let file = try StoreFile.resolvingLinks(path, storePath: path).path
        guard let (data, _) = try StoreFile.read(file, limit: maxBytes, storePath: path), !Self.isBlank(data) else {
            return StoreDocument().ledger.snapshot
        }
        return try StoreDocument.snapshot(data: data, path: path)
    }

    /// What the store reads at `now`, with no server to end holds: the holds
    /// that have ended are recorded expired, with the promotions they make, in
    /// one locked write as a write records them (docs/contracts.md, "JSON file store");
    /// a store that cannot be written is shown so without recording. A store
    /// without an ended hold is read without the lock. Also when the next live
    /// hold ends, for a wait to look again then.
    public func settledSnapshot(at now: Date) async throws -> (snapshot: ReservationSnapshot, nextHoldEnd: Date?) {
        var snapshot = try snapshot()
        if snapshot.reservations.contains(where: { Reservation.holdEnded($0.status, expiresAt: $0.expiresAt, at: now) })
        {
            do {
                snapshot = try await update { transaction in
                    try await Booking.expireHolds(now: now, limit: .max, in: transaction)
                    return transaction.ledger.snapshot
                }
            } catch let error as FileStoreError where error.forbidsWriting {
                var ledger = try read().ledger
                _ = try await ledger.apply { try await Booking.expireHolds(now: now, limit: .max, in: $0) }
                snapshot = ledger.snapshot
            }
        }
        let nextHoldEnd = snapshot.reservations.lazy.filter { $0.status == .held }.compactMap(\.expiresAt)
            .filter { $0 > now }.min()
        return (snapshot.settled(at: now, countPositions: true), nextHoldEnd)
    }

    /// The store's catalog, last change and older history, its records read past.
    func header() throws(FileStoreError) -> StoreDocument {
        let file = try StoreFile.resolvingLinks(path, storePath: path).path
        guard let (data, _) = try StoreFile.read(file, limit: maxBytes, storePath: path), !Self.isBlank(data) else {
            return StoreDocument()
        }
        return try StoreDocument.header(data: data, path: path)
    }

    /// A file someone created empty (touch) is an empty store, not a corrupt one.
    private static func isBlank(_ data: Data) -> Bool {
        data.allSatisfy { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
    }

    /// Runs `body` on the freshly read ledger while holding the store's lock,
    /// and writes the result when the records changed. Nothing is reported as
    /// done before the new file is durable. Cancelling the task (Ctrl-C) while
    /// it waits for the lock, or before the write, changes nothing.
    /// What reading the history found along the way: lines it skipped.
    final class HistoryNotes {
        var skipped = 0
    }

    func update<T>(notes: HistoryNotes? = nil, _ body: (LedgerTransaction) async throws -> T) async throws -> T {
        let (file, existing) = try StoreFile.resolvingLinks(path, storePath: path)
        // Before any lock file is made beside it: a directory or a device is no store.
        if let existing { try StoreFile.requireStoreFile(existing, storePath: path) }
        let directory = AtomicFile.directory(of: file)
        try ensureDirectory(directory)
        let lock = try await lock(file + ".lock", trusting: existing.map { [$0.st_uid] } ?? [])
        defer { lock.release() }
        // Temporary files are only made while holding the lock, so one found by the
        // lock's holder was left by a writer that died (kill -9, power loss) before
        // renaming it. It never held the only copy of anything.
        AtomicFile.removeAbandoned(of: file, mark: Self.temporaryMark)
        var (document, info) = try load(file)
        let journal = Journal(storeFile: file, storePath: path)
        let committed = document
        let result = try await document.ledger.apply(
            lastCommand: { try Self.lastCommand(in: committed, journal: journal, notes: notes) },
            undos: { try Self.undosSinceLastCommand(in: committed, journal: journal, notes: notes) }, body)
        // The rules record their changes in the draft's history; they go to the journal.
        let changes = document.ledger.history
        if document.ledger.revision > 0 || !changes.isEmpty {
            try Task.checkCancellation()
            if let info { try StoreFile.requireWritable(info, path: file, storePath: path) }
            // An older resv's history moves into the journal, whole and first, at this first write.
            let entries = document.legacyHistory + changes
            let previous = document.lastChange
            // A number another program wrote may be at the edge of its type: bad data, never a trap.
            let (last, overflow) = previous.addingReportingOverflow(entries.count)
            guard !overflow else {
                throw FileStoreError.corrupt(
                    path: path, detail: "its lastChange \(previous) leaves no number for another change")
            }
            document.lastChange = last
            document.legacyHistory = []
            let data = document.encoded()
            guard data.count <= maxBytes else {
                throw FileStoreError.wouldBeTooLarge(path: path, bytes: data.count, limit: maxBytes)
            }
            // Only the permission bits the user gave: never setuid, setgid or sticky.
            let mode = info.map { $0.st_mode & 0o777 } ?? 0o600
            // The journal first: a kill before the store's rename leaves lines the store does not count.
            try journal.append(entries, after: previous, mode: mode, owner: info.map { ($0.st_uid, $0.st_gid) })
            do {
                try AtomicFile.write(
                    data, to: file, mode: mode, mark: Self.temporaryMark, owner: info.map { ($0.st_uid, $0.st_gid) })
            } catch {
                throw FileStoreError.unwritable(path: path, step: error.step, reason: error.reason)
            }
        }
        return result
    }

    /// The changes that landed, newest first, to `visit` until it returns false:
    /// an older resv's `history` array (the newest), then the journal from its
    /// end. Returns how many stored changes could not be read, and were skipped.
    @discardableResult
    private static func changes(
        in document: StoreDocument, journal: Journal, _ visit: (HistoryEntry) throws -> Bool
    ) throws -> Int {
        var skipped = 0
        for json in document.legacyHistory.reversed() {
            guard let entry = HistoryEntry(json: json) else {
                skipped += 1
                continue
            }
            guard try visit(entry) else { return skipped }
        }
        skipped += try journal.readBackward(committed: document.lastChange) { _, json in
            guard let entry = HistoryEntry(json: json) else {
                skipped += 1
                return true
            }
            return try visit(entry)
        }
        return skipped
    }

    /// The user's newest command that is neither an undo nor undone (`Undo.lastCommand`'s
    /// rule), read from the end: a command's changes are written together, one after another.
    private static func lastCommand(in document: StoreDocument, journal: Journal, notes: HistoryNotes?) throws
        -> [HistoryEntry]
    {
        var taken = Undo.Taken()
        var found: [HistoryEntry] = []
        notes?.skipped += try changes(in: document, journal: journal) { entry in
            if let command = found.first?.command {
                guard entry.command == command else { return false }
                found.append(entry)
                return true
            }
            if Undo.isUndoable(entry, taken: &taken) { found.append(entry) }
            return true
        }
        return found.reversed()
    }

    /// The undos' and redos' changes (and the system's among them) after the user's newest
    /// other change, oldest first (`BookingTransaction.undosSinceLastCommand`), read from the end.
    private static func undosSinceLastCommand(in document: StoreDocument, journal: Journal, notes: HistoryNotes?)
        throws -> [HistoryEntry]
    {
        var found: [HistoryEntry] = []
        notes?.skipped += try changes(in: document, journal: journal) { entry in
            guard entry.change == .undone || entry.change == .redone || entry.change.isSystem else { return false }
            found.append(entry)
            return true
        }
        return found.reversed()
    }

    /// The changes after change number `sequence`, oldest first, each with its
    /// number, read from the journal's end back to it; and the number of the
    /// newest change. With no `sequence`, none (a feed starts from now).
    /// `cursorExpired` when the store's history is shorter than `sequence`
    /// (the store was replaced by an older one, or another store).
    public func changes(after sequence: Int?) throws -> (changes: [(sequence: Int, entry: HistoryEntry)], newest: Int) {
        let (file, _) = try StoreFile.resolvingLinks(path, storePath: path)
        let document = try header()
        guard let sequence else { return ([], document.lastChange) }
        guard sequence <= document.lastChange else { throw ReservationError.cursorExpired }
        var found: [(sequence: Int, entry: HistoryEntry)] = []
        try Journal(storeFile: file, storePath: path).readBackward(committed: document.lastChange) { number, json in
            guard number > sequence else { return false }
            if let entry = HistoryEntry(json: json) { found.append((number, entry)) }
            return true
        }
        return (found.reversed(), document.lastChange)
    }

    /// What changes when the store is written (it is renamed into place): its
    /// file's identity, size and time of change. Cheap to poll; nil when there is no file.
    public func stamp() -> [Int]? {
        guard let (file, _) = try? StoreFile.resolvingLinks(path, storePath: path) else { return nil }
        var info = stat()
        guard stat(file, &info) == 0 else { return nil }
        return [
            Int(info.st_dev), Int(info.st_ino), Int(info.st_size), Int(info.st_mtim.tv_sec), Int(info.st_mtim.tv_nsec),
        ]
    }

    /// The changes, newest first: every one, or one reservation's; the newest `limit` when given.
    /// Reads the journal from its end, and no further than the answer needs.
    public func history(of id: Reservation.ID?, limit: Int?) throws -> [HistoryEntry] {
        var found: [HistoryEntry] = []
        try history(of: id, limit: limit) {
            found.append($0)
            return true
        }
        return found
    }

    /// `history(of:limit:)` a change at a time, as the journal is read; returns
    /// how many stored changes could not be read (and were skipped).
    @discardableResult
    public func history(of id: Reservation.ID?, limit: Int?, _ visit: (HistoryEntry) throws -> Bool) throws -> Int {
        let (file, _) = try StoreFile.resolvingLinks(path, storePath: path)
        let document = try header()
        let wanted = max(0, limit ?? .max)
        guard wanted > 0 else { return 0 }
        var count = 0
        return try Self.changes(in: document, journal: Journal(storeFile: file, storePath: path)) { entry in
            guard id == nil || entry.reservationID == id else { return true }
            guard try visit(entry) else { return false }
            count += 1
            return count < wanted
        }
    }

    private func ensureDirectory(_ directory: String) throws(FileStoreError) {
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .unwritable(path: path, step: "creating \(directory)", reason: Self.describe(error))
        }
    }

    /// What follows the store's name in its temporary files' names:
    /// `.reservations.json.resv-tmp.` and mkstemp's six characters.
    private static let temporaryMark = ".resv-tmp."

    /// The store's lock, within `lockTimeout`; its failures in the store's words.
    private func lock(_ lockPath: String, trusting: Set<uid_t>) async throws -> FileLock {
        do {
            return try await FileLock.acquire(lockPath, timeout: lockTimeout, trusting: trusting)
        } catch FileLock.Failure.foreign(let foreign) {
            throw FileStoreError.foreign(path: path, file: foreign.description)
        } catch FileLock.Failure.timedOut {
            throw FileStoreError.lockTimeout(path: path, seconds: lockTimeout.seconds)
        } catch FileLock.Failure.file(let error) {
            throw FileStoreError.unwritable(path: path, step: error.step, reason: error.reason)
        }
    }

    /// A file error as the system names it ("No such file or directory"), not Foundation's prose.
    public static func describe(_ error: any Error) -> String {
        if let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError,
            underlying.domain == NSPOSIXErrorDomain
        {
            return FileError.describe(Int32(underlying.code))
        }
        if let cocoa = error as? CocoaError {
            switch cocoa.code {
            case .fileReadNoPermission, .fileWriteNoPermission: return FileError.describe(EACCES)
            case .fileReadNoSuchFile, .fileNoSuchFile: return FileError.describe(ENOENT)
            case .fileWriteOutOfSpace: return FileError.describe(ENOSPC)
            case .fileWriteVolumeReadOnly: return FileError.describe(EROFS)
            default: break
            }
        }
        return error.localizedDescription
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
