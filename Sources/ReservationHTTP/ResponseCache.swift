import Foundation
import ReservationCore

/// The last good answers of a server, for reading when it cannot be reached
/// (and for `--offline` and Tab completion, which never use the network).
/// One folder per server and user, under `$XDG_CACHE_HOME/resv/servers/`; the
/// folder's name is a hash of the URL and the token, so the token itself is
/// never written anywhere.
public struct ResponseCache: Sendable {
    public let folder: URL

    public init(cacheHome: URL, baseURL: URL, token: String?) {
        let identity = baseURL.absoluteString + "\n" + (token ?? "")
        folder = cacheHome.appendingPathComponent("resv/servers/\(Self.fingerprint(identity))", isDirectory: true)
    }

    /// What a route answered, and when it was saved.
    public struct Entry: Sendable {
        public let body: Data
        public let saved: Date
    }

    public func load(_ name: String) -> Entry? {
        let url = folder.appendingPathComponent(name + ".json")
        guard let body = try? Data(contentsOf: url),
            let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
            let saved = attributes[.modificationDate] as? Date
        else { return nil }
        return Entry(body: body, saved: saved)
    }

    /// A cached list route's records and when they were saved; nil when absent or not a JSON array.
    public func records(_ name: String) -> (records: [JSONValue], saved: Date)? {
        guard let entry = load(name), case .array(let records)? = try? JSONValue.parse(entry.body) else { return nil }
        return (records, entry.saved)
    }

    /// Saves a body atomically (a whole old file or a whole new one), readable by its owner only.
    /// A cache that cannot be written is not an error: the answer was good.
    public func save(_ name: String, _ body: Data) {
        let manager = FileManager.default
        try? manager.createDirectory(
            at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let url = folder.appendingPathComponent(name + ".json")
        let temporary = folder.appendingPathComponent(".\(name).\(UUID().uuidString).tmp")
        guard manager.createFile(atPath: temporary.path, contents: body, attributes: [.posixPermissions: 0o600])
        else { return }
        if rename(temporary.path, url.path) != 0 { try? manager.removeItem(at: temporary) }
    }

    /// FNV-1a, 64 bits, twice with different seeds: a stable folder name that
    /// does not reveal the token (and needs no cryptography library).
    static func fingerprint(_ text: String) -> String {
        func fnv(_ seed: UInt64) -> UInt64 {
            var hash = seed
            for byte in text.utf8 {
                hash ^= UInt64(byte)
                hash &*= 0x100_0000_01b3
            }
            return hash
        }
        return String(format: "%016llx%016llx", fnv(0xcbf2_9ce4_8422_2325), fnv(0x8422_2325_cbf2_9ce4))
    }
}

/// How a backend uses its cache.
public enum CacheMode: Sendable {
    /// Ask the server; when it cannot be reached, read the cache and call `stale` with its age.
    case fallback(stale: @Sendable (TimeInterval) -> Void)
    /// Never ask the server: read the cache only (`--offline`).
    case offline
}
