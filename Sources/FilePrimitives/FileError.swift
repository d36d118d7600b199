import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A step of a file operation that failed, and the system's reason for it
/// ("renaming … over …: No space left on device"); each caller names the file
/// in its own words (the store, the config file).
public struct FileError: Error, Sendable, Equatable {
    public let step: String
    public let reason: String

    public init(step: String, reason: String) {
        self.step = step
        self.reason = reason
    }

    /// The step, with `errno`'s description as the reason.
    static func system(_ step: String, _ code: Int32 = errno) -> FileError {
        FileError(step: step, reason: describe(code))
    }

    /// An errno as the system names it ("No such file or directory").
    public static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }
}

/// What `lstat`/`fstat` say a path is.
public enum FileKind {
    public static func isLink(_ info: stat) -> Bool { info.st_mode & S_IFMT == S_IFLNK }
    public static func isRegular(_ info: stat) -> Bool { info.st_mode & S_IFMT == S_IFREG }
    public static func isDirectory(_ info: stat) -> Bool { info.st_mode & S_IFMT == S_IFDIR }

    /// What a file that is not a regular one is, as messages name it: "a directory".
    public static func name(_ info: stat) -> String {
        switch info.st_mode & S_IFMT {
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO (named pipe)"
        case S_IFSOCK: "a socket"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFLNK: "a symbolic link"
        default: "not a regular file"
        }
    }
}

/// Writes on a descriptor.
public enum FileDescriptor {
    /// Writes all of `buffer`, again after a short write or EINTR; nil when done, else the errno.
    public static func writeAll(_ descriptor: Int32, _ buffer: UnsafeRawBufferPointer) -> Int32? {
        var offset = 0
        while offset < buffer.count {
            let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += written
        }
        return nil
    }
}
