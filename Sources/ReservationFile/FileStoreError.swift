import Foundation

/// Every failure of the JSON file store; each message names the file.
public enum FileStoreError: Error, Sendable, LocalizedError {
    /// The file is not valid JSON, or not shaped like a store. It is never overwritten.
    case corrupt(path: String, detail: String)
    /// The file was written by a newer resv. It is never overwritten.
    case unsupportedVersion(path: String, version: Int64, supported: Int)
    /// The file exists but cannot be read, or is not a file (a directory, a FIFO, a device).
    case unreadable(path: String, reason: String)
    /// The file is larger than the store size limit; it was not read, and is never overwritten.
    case tooLarge(path: String, bytes: Int, limit: Int)
    /// A change would make the store larger than the store size limit: refused, nothing written.
    case wouldBeTooLarge(path: String, bytes: Int, limit: Int)
    /// A step of the atomic write failed, or the store's mode forbids writing it; the old file is untouched.
    case unwritable(path: String, step: String, reason: String)
    /// A file the store needs (its lock, a link on its path, its journal) belongs to a user
    /// resv does not trust: never used, and the store left unchanged.
    case foreign(path: String, file: String)
    /// Another process held the store's lock for longer than the bound.
    case lockTimeout(path: String, seconds: Double)

    /// The store could be read, but not written now: a read then shows what a write would record.
    var forbidsWriting: Bool {
        switch self {
        case .unwritable, .wouldBeTooLarge, .foreign, .lockTimeout: true
        case .corrupt, .unsupportedVersion, .unreadable, .tooLarge: false
        }
    }

    public var errorDescription: String? {
        switch self {
        case .corrupt(let path, let detail):
            "\(path) is not a valid resv store (\(detail)); it was left unchanged: fix or move it"
        case .unsupportedVersion(let path, let version, let supported):
            "\(path) has store version \(version), newer than this resv understands (\(supported)); it was left unchanged: upgrade resv"
        case .unreadable(let path, let reason):
            "cannot read \(path): \(reason)"
        case .tooLarge(let path, let bytes, let limit):
            "\(path) is \(Self.size(bytes)), more than the \(Self.size(limit)) resv reads; it was left unchanged: "
                + "set RESV_MAX_STORE_BYTES to a larger number of bytes to read it"
        case .wouldBeTooLarge(let path, let bytes, let limit):
            "this change would make \(path) \(Self.size(bytes)), more than the \(Self.size(limit)) resv reads; "
                + "nothing was changed: set RESV_MAX_STORE_BYTES to a larger number of bytes to allow it"
        case .unwritable(let path, let step, let reason):
            "cannot write \(path) (\(step): \(reason)); the store was left unchanged"
        case .foreign(let path, let file):
            "refusing to use \(path): \(file), not you or root; the store was left unchanged"
        case .lockTimeout(let path, let seconds):
            "another resv holds the store \(path) (waited \(Self.format(seconds)) s); try again"
        }
    }

    /// "300 MiB (314572800 bytes)", or "900 bytes".
    private static func size(_ bytes: Int) -> String {
        let units = [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")]
        guard let (unit, name) = units.first(where: { bytes >= $0.0 }) else { return "\(bytes) bytes" }
        return "\(format(Double(bytes) / Double(unit))) \(name) (\(bytes) bytes)"
    }

    /// Whole numbers without a fraction, others to one decimal.
    private static func format(_ number: Double) -> String {
        number == number.rounded() ? String(Int(number)) : String(format: "%.1f", number)
    }
}
