import Foundation
import ReservationCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The JSON file backend's storage: lock-free reads of whole files, and
/// read-modify-writes under an exclusive lock with an atomic, durable write.
public struct JSONFileStore: Sendable {
    public let url: URL
    /// How long a change waits for another process's lock before giving up.
    public var lockTimeout: Duration

    public init(url: URL, lockTimeout: Duration = .seconds(5)) {
        self.url = url
        self.lockTimeout = lockTimeout
    }

    var path: String { url.path }
    var lockPath: String { path + ".lock" }

    /// Reads the store; a missing file is an empty store. Rename-based writes
    /// mean a reader sees the old file or the new one, never a torn one.
    func read() throws(StoreError) -> StoreDocument {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile {
            return StoreDocument()
        } catch {
            if !FileManager.default.fileExists(atPath: path) { return StoreDocument() }
            throw .unreadable(path: path, reason: Self.describe(error))
        }
        // A file someone created empty (touch) is an empty store, not a corrupt one.
        if data.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return StoreDocument() }
        return try StoreDocument(data: data, path: path)
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
        try ensureDirectory()
        let lock = try await FileLock.acquire(path: lockPath, storePath: path, timeout: lockTimeout)
        defer { lock.release() }
        removeAbandonedTemporaryFiles()
        var document = try read()
        let result = try body(&document.ledger)
        if document.ledger.revision > 0 {
            try Task.checkCancellation()
            try write(document.encoded())
        }
        return result
    }

    private func ensureDirectory() throws(StoreError) {
        let directory = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .unwritable(path: path, step: "creating \(directory.path)", reason: Self.describe(error))
        }
    }

    /// The prefix of this store's temporary files: `.reservations.json.` and six random characters.
    private var temporaryPrefix: String { "." + url.lastPathComponent + "." }

    /// Temporary files are only made while holding the lock, so one found by
    /// the lock's holder was left by a writer that died (`kill -9`, power
    /// loss) before renaming it. It never held the only copy of anything.
    private func removeAbandonedTemporaryFiles() {
        let directory = url.deletingLastPathComponent()
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        for name in names where name.hasPrefix(temporaryPrefix) && name.count == temporaryPrefix.count + 6 {
            unlink(directory.appendingPathComponent(name).path)
        }
    }

    /// Temporary file in the same directory, fsync, rename over the store, fsync the directory.
    private func write(_ data: Data) throws(StoreError) {
        let directory = url.deletingLastPathComponent().path
        var template = Array((directory + "/" + temporaryPrefix + "XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw failure("creating a temporary file in \(directory)") }
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var renamed = false
        defer {
            if !renamed { unlink(temporary) }
        }
        do {
            defer { close(fd) }
            var mode: mode_t = 0o600
            var info = stat()
            if stat(path, &info) == 0 { mode = info.st_mode & 0o7777 }
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
        guard rename(temporary, path) == 0 else { throw failure("renaming \(temporary) over the store") }
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
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw StoreError.unwritable(
                path: storePath, step: "opening the lock file \(path)", reason: errnoDescription(errno))
        }
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

    func release() {
        flock(fd, LOCK_UN)
        close(fd)
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
