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
    func read() throws(StoreError) -> StoreDocument {
        try load(path).document
    }

    /// The document in the file at `file` (the store, or where its links
    /// end), and the file's status when there is one.
    private func load(_ file: String) throws(StoreError) -> (document: StoreDocument, info: stat?) {
        guard let (data, info) = try StoreFile.read(file, limit: maxBytes, storePath: path) else {
            return (StoreDocument(), nil)
        }
        // A file someone created empty (touch) is an empty store, not a corrupt one.
        if data.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return (StoreDocument(), info) }
        return (try StoreDocument(data: data, path: path), info)
    }

    /// The reservations and catalog as they are now, read without a lock.
    public func snapshot() throws(StoreError) -> ReservationSnapshot {
        try read().ledger.snapshot
    }

    /// Runs `body` on the freshly read ledger while holding the store's lock,
    /// and writes the result when the records changed. Nothing is reported as
    /// done before the new file is durable. Cancelling the task (Ctrl-C) while
    /// it waits for the lock, or before the write, changes nothing.
    func update<T>(_ body: (inout ReservationLedger) throws -> T) async throws -> T {
        let (file, existing) = try StoreFile.resolvingLinks(path, storePath: path)
        // Before any lock file is made beside it: a directory or a device is no store.
        if let existing { try StoreFile.requireStoreFile(existing, storePath: path) }
        let directory = StoreFile.directory(of: file)
        try ensureDirectory(directory)
        let lock = try await FileLock.acquire(path: file + ".lock", storePath: path, timeout: lockTimeout)
        defer { lock.release() }
        removeAbandonedTemporaryFiles(of: file)
        var (document, info) = try load(file)
        let result = try body(&document.ledger)
        if document.ledger.revision > 0 {
            try Task.checkCancellation()
            if let info { try StoreFile.requireWritable(info, path: file, storePath: path) }
            // Only the permission bits the user gave: never setuid, setgid or sticky.
            try write(document.encoded(), to: file, mode: info.map { $0.st_mode & 0o777 } ?? 0o600)
        }
        return result
    }

    private func ensureDirectory(_ directory: String) throws(StoreError) {
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

    /// Temporary files are only made while holding the lock, so one found by
    /// the lock's holder was left by a writer that died (`kill -9`, power
    /// loss) before renaming it. It never held the only copy of anything.
    /// Only what resv can have made goes: a regular file (by `lstat`: never a
    /// link's target) of this user with exactly such a name.
    private func removeAbandonedTemporaryFiles(of file: String) {
        let directory = StoreFile.directory(of: file)
        let prefix = "." + StoreFile.name(of: file) + Self.temporaryMark
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for name in names where name.hasPrefix(prefix) && name.count == prefix.count + 6 {
            let candidate = directory + "/" + name
            var info = stat()
            guard lstat(candidate, &info) == 0, StoreFile.isRegular(info), info.st_uid == geteuid() else { continue }
            unlink(candidate)
        }
    }

    /// Temporary file in the same directory as `file`, fsync, rename over
    /// `file`, fsync the directory. mkstemp creates the temporary file with
    /// O_EXCL, so it never opens a link someone put there.
    private func write(_ data: Data, to file: String, mode: mode_t) throws(StoreError) {
        let directory = StoreFile.directory(of: file)
        let prefix = directory + "/." + StoreFile.name(of: file) + Self.temporaryMark
        var template = Array((prefix + "XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw failure("creating a temporary file in \(directory)") }
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var renamed = false
        defer {
            if !renamed { unlink(temporary) }
        }
        do {
            defer { close(fd) }
            guard fchmod(fd, mode) == 0 else { throw failure("setting the mode of \(temporary)") }
            let failedWrite = data.withUnsafeBytes { buffer -> Bool in
                var offset = 0
                while offset < buffer.count {
                    let written = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        return true
                    }
                    offset += written
                }
                return false
            }
            if failedWrite { throw failure("writing \(temporary)") }
            guard fsync(fd) == 0 else { throw failure("syncing \(temporary)") }
        }
        guard rename(temporary, file) == 0 else { throw failure("renaming \(temporary) over the store") }
        renamed = true
        let directoryFD = open(directory, O_RDONLY | O_DIRECTORY)
        guard directoryFD >= 0 else { throw failure("opening \(directory) to sync it") }
        defer { close(directoryFD) }
        guard fsync(directoryFD) == 0 else { throw failure("syncing \(directory)") }
    }

    private func failure(_ step: String) -> StoreError {
        .unwritable(path: path, step: step, reason: errnoDescription(errno))
    }

    /// A file error as the system names it ("No such file or directory"), not Foundation's prose.
    public static func describe(_ error: any Error) -> String {
        if let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError,
            underlying.domain == NSPOSIXErrorDomain
        {
            return errnoDescription(Int32(underlying.code))
        }
        if let cocoa = error as? CocoaError {
            switch cocoa.code {
            case .fileReadNoPermission, .fileWriteNoPermission: return errnoDescription(EACCES)
            case .fileReadNoSuchFile, .fileNoSuchFile: return errnoDescription(ENOENT)
            case .fileWriteOutOfSpace: return errnoDescription(ENOSPC)
            case .fileWriteVolumeReadOnly: return errnoDescription(EROFS)
            default: break
            }
        }
        return error.localizedDescription
    }
}

/// An exclusive `flock` on a sidecar file that is never renamed, so every
/// process locks the same inode whatever happens to the store itself.
struct FileLock {
    private let fd: Int32

    private init(fd: Int32) { self.fd = fd }

    /// Takes the lock, waiting at most `timeout`. The wait is a blocking
    /// `flock`, not a polling loop: the kernel wakes waiters as the lock is
    /// released, so a process that has waited long is not overtaken by one
    /// that happened to poll at the right moment. The timeout and the task's
    /// cancellation interrupt the blocked call (see `InterruptibleCall`).
    static func acquire(path: String, storePath: String, timeout: Duration) async throws -> FileLock {
        let fd = try open(path, storePath: storePath)
        if flock(fd, LOCK_EX | LOCK_NB) == 0 { return FileLock(fd: fd) }
        let call = InterruptibleCall()
        let deadline = DispatchWorkItem { call.interrupt(.timedOut) }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout.seconds, execute: deadline)
        defer { deadline.cancel() }
        let outcome = await withTaskCancellationHandler {
            call.run { flock(fd, LOCK_EX) == 0 ? 0 : errno }
        } onCancel: {
            call.interrupt(.cancelled)
        }
        switch outcome {
        case .done(0):
            return FileLock(fd: fd)
        case .done(let error):
            let reason = errnoDescription(error)
            close(fd)
            throw StoreError.unwritable(path: storePath, step: "locking \(path)", reason: reason)
        case .interrupted(.timedOut):
            close(fd)
            throw StoreError.lockTimeout(path: storePath, seconds: timeout.seconds)
        case .interrupted(.cancelled):
            close(fd)
            throw CancellationError()
        }
    }

    /// Opens (or creates) the lock file, never through a symbolic link
    /// (O_NOFOLLOW), and only if it is a regular file: a link planted there
    /// could make resv create or lock any file its user may write.
    private static func open(_ path: String, storePath: String) throws(StoreError) -> Int32 {
        let step = "opening the lock file \(path)"
        // O_NONBLOCK: a FIFO put in its place must not hold the open up.
        let fd = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o600)
        var info = stat()
        guard fd >= 0 else {
            let error = errno
            // ELOOP for a link, EISDIR for a directory, ENXIO for a socket: say what it is.
            if lstat(path, &info) == 0, !StoreFile.isRegular(info) {
                throw .unwritable(path: storePath, step: step, reason: notARegularFile(info))
            }
            throw .unwritable(path: storePath, step: step, reason: errnoDescription(error))
        }
        guard fstat(fd, &info) == 0 else {
            let reason = errnoDescription(errno)
            close(fd)
            throw .unwritable(path: storePath, step: step, reason: reason)
        }
        guard StoreFile.isRegular(info) else {
            close(fd)
            throw .unwritable(path: storePath, step: step, reason: notARegularFile(info))
        }
        return fd
    }

    private static func notARegularFile(_ info: stat) -> String {
        StoreFile.isLink(info)
            ? "it is a symbolic link, which resv never follows there; remove it"
            : "it is \(StoreFile.kind(info)), not a regular file; remove it"
    }

    func release() {
        flock(fd, LOCK_UN)
        close(fd)
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
