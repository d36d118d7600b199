import FilePrimitives
import Foundation
import ReservationCore
import ReservationHTTP

#if canImport(Glibc)
    import Glibc
#endif

/// The config file: a JSON object of settings (`resv config set` writes it).
/// Its top-level settings are the default profile; `"profiles"` holds named
/// ones (`{"work": {"server": …, "token": …}}`) and `"profile"` the one in
/// use. Keys it does not know are kept. One holding a token anywhere must be
/// private to its owner, or it is refused.
struct ConfigFile: Sendable {
    let url: URL
    var fields: [String: JSONValue]

    /// The name that means the top level: never a key of `"profiles"`.
    static let defaultProfile = "default"
    /// Keys of the top level that are no setting.
    static let profileKeys = ["profile", "profiles", "servers"]
    /// The settings a server's entry of `"servers"` may hold.
    static let serverKeys = ["token", "cacert"]

    /// A profile name: letters, digits, `.`, `_` and `-` (it is typed, completed and shown in messages).
    static func checkProfileName(_ name: String) throws(CLIError) {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        guard !name.isEmpty, name.count <= 64, name.allSatisfy(allowed.contains) else {
            throw .invalidSetting("profile", name, "a name of up to 64 letters, digits, '.', '_' or '-'")
        }
    }

    /// The named profiles' settings.
    var profiles: [String: [String: JSONValue]] {
        guard case .object(let profiles)? = fields["profiles"] else { return [:] }
        return profiles.compactMapValues { value in
            if case .object(let settings) = value { return settings }
            return nil
        }
    }

    /// The profile the file chooses (`"profile"`), if any.
    var chosenProfile: String? {
        if case .string(let name)? = fields["profile"], !name.isEmpty { return name }
        return nil
    }

    /// The file's settings; a missing file has none.
    static func load(_ url: URL) throws(CLIError) -> ConfigFile {
        var info = stat()
        guard lstat(url.path, &info) == 0 else {
            if errno == ENOENT { return ConfigFile(url: url, fields: [:]) }
            throw .unreadableInput(url.path, FileError.describe(errno))
        }
        if FileKind.isLink(info), stat(url.path, &info) != 0 {
            // A link to nothing is not "no config": someone meant one to be there.
            let why =
                errno == ELOOP
                ? "its symbolic links loop" : "it is a symbolic link to nothing (\(FileError.describe(errno)))"
            throw .invalidConfig(url.path, why)
        }
        guard !FileKind.isDirectory(info) else { throw .invalidConfig(url.path, "it is a folder, not a file") }
        // A FIFO would block the read, a device never end it: say what it is instead.
        guard FileKind.isRegular(info) else {
            throw .invalidConfig(url.path, "it is \(FileKind.name(info)), not a config file")
        }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw .unreadableInput(url.path, "permission denied")
        }
        let json: JSONValue
        do { json = try JSONValue.parse(data) } catch {
            throw .invalidConfig(url.path, error.detail)
        }
        guard case .object(let fields) = json else {
            throw .invalidConfig(url.path, "expected a JSON object of settings, found \(json.typeName)")
        }
        func checkStrings(_ settings: [String: JSONValue], _ prefix: String) throws(CLIError) {
            for key in SettingKey.allCases {
                switch settings[key.rawValue] {
                case nil, .string?: break
                case let other?:
                    throw .invalidConfig(url.path, "\(prefix)\(key.rawValue) must be a string, not \(other.typeName)")
                }
            }
        }
        try checkStrings(fields, "")
        switch fields["profile"] {
        case nil, .string?: break
        case let other?: throw .invalidConfig(url.path, "profile must be a string, not \(other.typeName)")
        }
        switch fields["profiles"] {
        case nil: break
        case .object(let profiles)?:
            for (name, settings) in profiles {
                guard case .object(let settings) = settings else {
                    throw .invalidConfig(
                        url.path, "profiles.\(name) must be an object of settings, not \(settings.typeName)")
                }
                try checkStrings(settings, "profiles.\(name).")
            }
        case let other?: throw .invalidConfig(url.path, "profiles must be an object of profiles, not \(other.typeName)")
        }
        try checkServers(fields["servers"], url)
        let file = ConfigFile(url: url, fields: fields)
        if file.string(.token) != nil || file.profiles.keys.contains(where: { file.string(.token, profile: $0) != nil })
            || file.servers.values.contains(where: { $0["token"] != nil })
        {
            var info = stat()
            if stat(url.path, &info) == 0, info.st_mode & 0o077 != 0 {
                throw .insecureConfig(url.path)
            }
        }
        return file
    }

    /// `"servers"`: an object of servers, each an object whose token and cacert are strings.
    private static func checkServers(_ value: JSONValue?, _ url: URL) throws(CLIError) {
        switch value {
        case nil: return
        case .object(let servers)?:
            for (origin, entry) in servers {
                let name = "servers.\(origin.quoted())"
                guard case .object(let settings) = entry else {
                    throw .invalidConfig(url.path, "\(name) must be an object (token, cacert), not \(entry.typeName)")
                }
                for key in serverKeys {
                    switch settings[key] {
                    case nil, .string?: break
                    case let other?:
                        throw .invalidConfig(url.path, "\(name).\(key) must be a string, not \(other.typeName)")
                    }
                }
            }
        case let other?: throw .invalidConfig(url.path, "servers must be an object of servers, not \(other.typeName)")
        }
    }

    /// The servers' entries as written, by their keys (`"https://host:443"`).
    var servers: [String: [String: JSONValue]] {
        guard case .object(let servers)? = fields["servers"] else { return [:] }
        return servers.compactMapValues { value in
            if case .object(let settings) = value { return settings }
            return nil
        }
    }

    /// Keys of `"servers"` that name no origin: reported, kept as they are, never used.
    var malformedServerKeys: [String] {
        servers.keys.filter { ServerOrigin($0) == nil }.sorted()
    }

    /// A setting (`token`, `cacert`) kept for `origin`, under whichever key spells it.
    func server(_ origin: ServerOrigin, _ key: String) -> String? {
        // The exact spelling first, so two keys of one origin answer the same way each time.
        let entries = servers.filter { ServerOrigin($0.key) == origin }.sorted { a, b in
            (a.key == origin.description ? 0 : 1, a.key) < (b.key == origin.description ? 0 : 1, b.key)
        }
        for (_, settings) in entries {
            if case .string(let value)? = settings[key], !value.isEmpty { return value }
        }
        return nil
    }

    /// Sets (or with nil removes) a server's setting; every key of that origin is
    /// changed, and an entry left empty removed. Returns whether anything was there before.
    @discardableResult
    mutating func setServer(_ origin: ServerOrigin, _ key: String, _ value: String?) -> Bool {
        var raw: [String: JSONValue] = [:]
        if case .object(let servers)? = fields["servers"] { raw = servers }
        var had = false
        for (name, entry) in raw where ServerOrigin(name) == origin {
            guard case .object(var settings) = entry else { continue }
            had = had || settings[key] != nil
            guard name != origin.description else { continue }
            settings[key] = nil
            raw[name] = settings.isEmpty ? nil : .object(settings)
        }
        var entry: [String: JSONValue] = [:]
        if case .object(let settings)? = raw[origin.description] { entry = settings }
        entry[key] = value.map(JSONValue.string)
        raw[origin.description] = entry.isEmpty ? nil : .object(entry)
        fields["servers"] = raw.isEmpty ? nil : .object(raw)
        return had
    }

    /// Keys that are no setting: kept, and warned about (a typo would otherwise do nothing).
    var unknownKeys: [String] {
        let top = fields.keys.filter { SettingKey(rawValue: $0) == nil && !Self.profileKeys.contains($0) }
        let nested = profiles.flatMap { name, settings in
            settings.keys.filter { SettingKey(rawValue: $0) == nil }.map { "profiles.\(name).\($0)" }
        }
        let kept = servers.flatMap { origin, settings in
            settings.keys.filter { !Self.serverKeys.contains($0) }.map { "servers.\(origin).\($0)" }
        }
        return (top + nested + kept).sorted()
    }

    /// A setting of the top level, or of the named profile.
    func string(_ key: SettingKey, profile: String? = nil) -> String? {
        let settings = profile.map { profiles[$0] ?? [:] } ?? fields
        if case .string(let value)? = settings[key.rawValue], !value.isEmpty { return value }
        return nil
    }

    /// Sets (or with nil removes) a setting of the top level or of a profile, which is made when new.
    mutating func set(_ key: SettingKey, _ value: String?, profile: String?) {
        guard let profile else {
            fields[key.rawValue] = value.map(JSONValue.string)
            return
        }
        var all = profiles
        var settings = all[profile] ?? [:]
        settings[key.rawValue] = value.map(JSONValue.string)
        all[profile] = settings
        fields["profiles"] = .object(all.mapValues(JSONValue.object))
    }

    /// Removes a profile and its settings; when the file chose it, the choice
    /// too (back to `default`). Returns whether the file chose it.
    @discardableResult
    mutating func removeProfile(_ name: String) -> Bool {
        var all = profiles
        all[name] = nil
        fields["profiles"] = all.isEmpty ? nil : .object(all.mapValues(JSONValue.object))
        guard chosenProfile == name else { return false }
        fields["profile"] = nil
        return true
    }

    /// The one way the config file is changed: under its lock (`NAME.lock` beside it, the
    /// store's kind of lock, waited for up to `lockTimeout`), the file is read afresh, `change`
    /// applied to it, and the result written atomically, readable by its owner only (it may
    /// hold a token). Two `resv config` at once both keep their change: neither writes over
    /// what the other read. A change that leaves the settings as they were writes nothing, and
    /// without the file's folder makes none. `change` may run on an empty file first (no
    /// folder), so it must do nothing but change the file and say what it did.
    static func update<T>(
        _ url: URL, lockTimeout: Duration, _ change: (inout ConfigFile) throws -> T
    ) async throws -> T {
        let folder = url.deletingLastPathComponent()
        if !FileManager.default.fileExists(atPath: folder.path) {
            var empty = ConfigFile(url: url, fields: [:])
            let result = try change(&empty)
            if empty.fields.isEmpty { return result }
            do {
                try FileManager.default.createDirectory(
                    at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw CLIError.unwritableConfig(url.path, error.localizedDescription)
            }
        }
        let lock = try await self.lock(url, timeout: lockTimeout)
        defer { lock.release() }
        // Temporary files are made only under the lock: one found now was left by a killed writer.
        AtomicFile.removeAbandoned(of: url.path)
        var file = try load(url)
        let read = file.fields
        let result = try change(&file)
        if file.fields != read { try file.write() }
        return result
    }

    /// The config file's lock, within `timeout`; its failures in the config file's words.
    private static func lock(_ url: URL, timeout: Duration) async throws -> FileLock {
        let path = url.path + ".lock"
        do {
            return try await FileLock.acquire(path, timeout: timeout)
        } catch FileLock.Failure.foreign(let foreign) {
            throw CLIError.unwritableConfig(url.path, foreign.description)
        } catch FileLock.Failure.timedOut {
            let (whole, fraction) = timeout.components
            throw CLIError.configLocked(url.path, seconds: Double(whole) + Double(fraction) / 1e18)
        } catch FileLock.Failure.file(let error) {
            throw CLIError.unwritableConfig(url.path, "\(error.step): \(error.reason)")
        }
    }

    /// Writes the file atomically, readable by its owner only; under the lock (`update`).
    private func write() throws(CLIError) {
        var text = JSONValue.object(fields).encoded(pretty: true)
        text.append(0x0A)
        do {
            try AtomicFile.write(text, to: url.path, mode: 0o600)
        } catch {
            throw .unwritableConfig(url.path, "\(error.step): \(error.reason)")
        }
    }
}
