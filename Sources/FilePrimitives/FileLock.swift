import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The one lock resv takes on a file: an exclusive `flock` on a sidecar file
/// that is never renamed, so every process locks the same inode whatever
/// happens to the file it guards. Used by the store, the response cache and
/// the server's single-instance lock. Released by `release()`, or by the
/// kernel when the process ends (a kill -9 leaves no stale lock).
public struct FileLock: Sendable {
    private let descriptor: Int32

    /// Why `acquire` gave up.
    public enum Failure: Error, Sendable, Equatable {
        case timedOut
        case file(FileError)
        /// The lock file belongs to a user resv does not trust: never waited on.
        case foreign(Ownership.Foreign)
    }

    /// Takes the lock, waiting at most `timeout`. The wait is a blocking
    /// `flock`, not a polling loop: the kernel wakes waiters as the lock is
    /// released, so a process that has waited long is not overtaken by one
    /// that happened to poll at the right moment. The timeout and the task's
    /// cancellation (`CancellationError`) interrupt the blocked call
    /// (`InterruptibleCall`).
    ///
    /// A lock file that belongs to another user (but root and `trusting`) is
    /// refused at once: whoever made it could hold it forever.
    public static func acquire(_ path: String, timeout: Duration, trusting: Set<uid_t> = []) async throws -> FileLock {
        let descriptor: Int32
        do { descriptor = try open(path) } catch { throw Failure.file(error) }
        var info = stat()
        if fstat(descriptor, &info) == 0, !Ownership.isTrusted(info.st_uid, also: trusting) {
            close(descriptor)
            throw Failure.foreign(Ownership.Foreign(path: path, owner: info.st_uid, what: "a lock file"))
        }
        if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return FileLock(descriptor: descriptor) }
        let call = InterruptibleCall()
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        let deadline = DispatchWorkItem { call.interrupt(.timedOut) }
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: deadline)
        defer { deadline.cancel() }
        let outcome = await withTaskCancellationHandler {
            call.run { flock(descriptor, LOCK_EX) == 0 ? 0 : errno }
        } onCancel: {
            call.interrupt(.cancelled)
        }
        switch outcome {
        case .done(0):
            return FileLock(descriptor: descriptor)
        case .done(let error):
            close(descriptor)
            throw Failure.file(.system("locking \(path)", error))
        case .interrupted(.timedOut):
            close(descriptor)
            throw Failure.timedOut
        case .interrupted(.cancelled):
            close(descriptor)
            throw CancellationError()
        }
    }

    /// Takes the lock if no one holds it; nil when someone does.
    public static func attempt(_ path: String) throws(FileError) -> FileLock? {
        let descriptor = try open(path)
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            return nil
        }
        return FileLock(descriptor: descriptor)
    }

    /// Takes the lock, waiting as long as it takes (for short critical sections
    /// of cooperating processes, such as a cache update).
    public static func wait(_ path: String) throws(FileError) -> FileLock {
        let descriptor = try open(path)
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                let error = errno
                close(descriptor)
                throw .system("locking \(path)", error)
            }
        }
        return FileLock(descriptor: descriptor)
    }

    public func release() {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    /// Opens (or creates, 0600) the lock file, never through a symbolic link
    /// (O_NOFOLLOW), and only if it is a regular file: a link planted there
    /// could make resv create or lock any file its user may write.
    static func open(_ path: String) throws(FileError) -> Int32 {
        let step = "opening the lock file \(path)"
        // O_NONBLOCK: a FIFO put in its place must not hold the open up.
        let descriptor = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o600)
        var info = stat()
        guard descriptor >= 0 else {
            let error = errno
            // ELOOP for a link, EISDIR for a directory, ENXIO for a socket: say what it is.
            if lstat(path, &info) == 0, !FileKind.isRegular(info) {
                throw FileError(step: step, reason: notARegularFile(info))
            }
            throw .system(step, error)
        }
        guard fstat(descriptor, &info) == 0 else {
            let error = errno
            close(descriptor)
            throw .system(step, error)
        }
        guard FileKind.isRegular(info) else {
            close(descriptor)
            throw FileError(step: step, reason: notARegularFile(info))
        }
        return descriptor
    }

    private static func notARegularFile(_ info: stat) -> String {
        FileKind.isLink(info)
            ? "it is a symbolic link, which resv never follows there; remove it"
            : "it is \(FileKind.name(info)), not a regular file; remove it"
    }
}
