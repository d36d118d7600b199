import Foundation

/// Every failure of the JSON file store; each message names the file.
public enum StoreError: Error, Sendable, LocalizedError {
    /// The file is not valid JSON, or not shaped like a store. It is never overwritten.
    case corrupt(path: String, detail: String)
    /// The file was written by a newer resv. It is never overwritten.
    case unsupportedVersion(path: String, version: Int64, supported: Int)
    /// The file exists but cannot be read.
    case unreadable(path: String, reason: String)
    /// A step of the atomic write failed; the old file is untouched.
    case unwritable(path: String, step: String, reason: String)
    /// Another process held the store's lock for longer than the bound.
    case lockTimeout(path: String, seconds: Double)

    public var errorDescription: String? {
        switch self {
        case .corrupt(let path, let detail):
            "\(path) is not a valid resv store (\(detail)); it was left unchanged: fix or move it"
        case .unsupportedVersion(let path, let version, let supported):
            "\(path) has store version \(version), newer than this resv understands (\(supported)); it was left unchanged: upgrade resv"
        case .unreadable(let path, let reason):
            "cannot read \(path): \(reason)"
        case .unwritable(let path, let step, let reason):
            "cannot write \(path) (\(step): \(reason)); the store was left unchanged"
        case .lockTimeout(let path, let seconds):
            "another resv holds the store \(path) (waited \(Self.format(seconds)) s); try again"
        }
    }

    private static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(format: "%.1f", seconds)
    }
}

func errnoDescription(_ code: Int32) -> String {
    String(cString: strerror(code))
}
