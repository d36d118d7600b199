import Foundation
import ReservationCore
import ReservationHTTP

/// Where a setting's value came from: a flag beats the environment, which
/// beats the config file, which beats the default.
enum SettingSource: String, Sendable {
    case flag
    case environment
    case configFile = "config file"
    case defaultValue = "default"
}

extension SettingSource {
    var rank: Int {
        switch self {
        case .flag: 3
        case .environment: 2
        case .configFile: 1
        case .defaultValue: 0
        }
    }
}

struct Setting: Sendable, Equatable {
    var value: String
    var source: SettingSource
    /// The config file's profile the value was read from; nil for its top level and other sources.
    var profile: String? = nil

    /// "config file, profile work", "environment", …, for `config list`.
    var origin: String { profile.map { "\(source.rawValue), profile \($0)" } ?? source.rawValue }
}

/// The keys of the config file, with their environment variables.
enum SettingKey: String, CaseIterable, Sendable {
    case store, server, token, connectTimeout, requestTimeout, queue

    var environment: String {
        switch self {
        case .store: "RESV_STORE"
        case .server: "RESV_SERVER"
        case .token: "RESV_TOKEN"
        case .connectTimeout: "RESV_CONNECT_TIMEOUT"
        case .requestTimeout: "RESV_REQUEST_TIMEOUT"
        case .queue: "RESV_QUEUE"
        }
    }

    /// The key a person typed (`config get|set|unset KEY`); any other word is `unknownSetting`.
    static func named(_ text: String) throws(CLIError) -> SettingKey {
        guard let key = SettingKey(rawValue: text) else { throw .unknownSetting(text) }
        return key
    }

    /// "store, server, token, connectTimeout or requestTimeout": the keys, as help names them.
    static var spoken: String {
        let names = allCases.map(\.rawValue)
        return names.dropLast().joined(separator: ", ") + " or " + names[names.count - 1]
    }

    /// Checks a value before `config set` writes it.
    func validate(_ value: String) throws(CLIError) {
        switch self {
        case .server:
            guard SettingValue.serverURL(value) != nil else {
                throw .invalidSetting(rawValue, URL.redacting(value), SettingValue.serverURLRule)
            }
        case .connectTimeout, .requestTimeout:
            guard SettingValue.seconds(value) != nil else {
                throw .invalidSetting(rawValue, value, SettingValue.secondsRule)
            }
        case .store:
            guard !value.isEmpty else { throw .invalidSetting(rawValue, value, "a non-empty value") }
            // A NUL cannot be in a path: the system would see a shorter one (a file named up to it).
            guard !value.utf8.contains(0) else {
                throw .invalidSetting(
                    rawValue, value.replacingOccurrences(of: "\0", with: "\\0"), "a path without a NUL character")
            }
        case .token:
            guard HeaderValue.isValid(value, longest: HeaderValue.longestToken) else {
                throw .invalidSetting(rawValue, "****", Self.tokenExpectation)  // never shown, even when wrong
            }
        case .queue:
            guard SettingValue.truth(value) != nil else {
                throw .invalidSetting(rawValue, value, SettingValue.truthRule)
            }
        }
    }

    /// What a token must be: it goes into a header, where a line break would start another.
    static let tokenExpectation = "a token of \(HeaderValue.tokenRule)"
}

/// Every setting resolved: flag > environment > config file > default.
struct Settings: Sendable {
    /// The server, when it is named at a higher (or the same) layer than the store.
    var chosenServer: Setting? {
        guard let server else { return nil }
        return server.source.rank >= store.source.rank ? server : nil
    }

    var configPath: URL
    /// The profile in use: its name (`default` for the config file's top level) and where that came from.
    var profile: Setting
    var store: Setting
    var server: Setting?
    /// The token of the server's origin, and nothing else's (`credentials(for:in:profile:cacertFlag:)`).
    var token: Setting?
    /// The CA certificates to verify the server's with (`--cacert`, else the config file's for its origin).
    var cacert: Setting?
    /// Why a token that is set was not given to this server, for the message that none was.
    var withheldToken: String?
    /// The token as written (RESV_TOKEN, the profile's, the top level's), sent or not: what
    /// `config get token` and `config list` show, as `****`.
    var writtenToken: Setting?
    var connectTimeout: Setting
    var requestTimeout: Setting
    /// Whether a change the server cannot be reached for is kept in the outbox (`--queue`).
    var queue: Setting

    /// The value and source of one key, for `config get` and `config list`.
    func setting(_ key: SettingKey) -> Setting? {
        switch key {
        case .store: store
        case .server: server
        case .token: token ?? writtenToken
        case .connectTimeout: connectTimeout
        case .requestTimeout: requestTimeout
        case .queue: queue
        }
    }

    /// `queue` as a truth value (`true`/`false`, `yes`/`no`, `1`/`0`, `on`/`off`).
    func queues() throws(CLIError) -> Bool {
        guard let truth = SettingValue.truth(queue.value) else {
            throw .invalidSetting(
                queue.source == .environment ? SettingKey.queue.environment : SettingKey.queue.rawValue, queue.value,
                SettingValue.truthRule)
        }
        return truth
    }

    /// The token, when it can go into a header as it is.
    func checkedToken() throws(CLIError) -> String? {
        guard let token else { return nil }
        guard HeaderValue.isValid(token.value, longest: HeaderValue.longestToken) else {
            throw .invalidSetting(
                token.source == .environment ? SettingKey.token.environment : SettingKey.token.rawValue, "****",
                SettingKey.tokenExpectation)
        }
        return token.value
    }

    func seconds(_ setting: Setting, _ key: SettingKey) throws(CLIError) -> Double {
        guard let seconds = SettingValue.seconds(setting.value) else {
            throw .invalidSetting(
                setting.source == .environment ? key.environment : key.rawValue, setting.value,
                SettingValue.secondsRule)
        }
        return seconds
    }
}

/// The one check of each kind of setting value, wherever it comes from (a flag,
/// the environment, `config set`, the config file).
enum SettingValue {
    /// A server: an http:// or https:// URL with a host.
    static func serverURL(_ text: String) -> URL? {
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
            url.host?.isEmpty == false
        else { return nil }
        return url
    }

    static let serverURLRule = "an http:// or https:// URL"

    /// A number of seconds: finite, above 0 (or 0 too, where waiting not at all means something).
    static func seconds(_ text: String, allowingZero: Bool = false) -> Double? {
        guard let seconds = Double(text), seconds.isFinite, allowingZero ? seconds >= 0 : seconds > 0 else {
            return nil
        }
        return seconds
    }

    static let secondsRule = "a number of seconds above 0"

    /// A truth value: true/false, yes/no, on/off, 1/0, in any case.
    static func truth(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "true", "yes", "on", "1": true
        case "false", "no", "off", "0": false
        default: nil
        }
    }

    static let truthRule = "true or false"
}

extension CommandContext {
    /// The config file: `--config`, else RESV_CONFIG, else `$XDG_CONFIG_HOME/resv/config.json`.
    func configURL(flag: String?) -> URL {
        if let flag, !flag.isEmpty { return URL(fileURLWithPath: flag) }
        if let path = environment["RESV_CONFIG"], !path.isEmpty { return URL(fileURLWithPath: path) }
        return xdgHome("XDG_CONFIG_HOME", ".config").appendingPathComponent("resv/config.json")
    }

    /// How long to wait for the lock of the store or the config file: RESV_LOCK_TIMEOUT, else 5 s.
    func lockTimeout() throws(CLIError) -> Duration {
        guard let text = environment["RESV_LOCK_TIMEOUT"] else { return .seconds(5) }
        guard let seconds = SettingValue.seconds(text, allowingZero: true) else {
            throw .invalidSetting("RESV_LOCK_TIMEOUT", text, "a number of seconds")
        }
        // A day is as good as forever here, and 1e300 seconds would not fit a duration.
        return .milliseconds(Int((min(seconds, 86_400) * 1000).rounded()))
    }

    /// `~` and `~/…` with `$HOME`, as a shell would (Foundation asks the user database).
    func expandingHome(_ path: String) -> String {
        guard path == "~" || path.hasPrefix("~/") else { return path }
        let home = environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path
        return home + path.dropFirst()
    }

    /// An absolute path for a file named on the command line, for a config file that
    /// outlives the folder it was set from.
    func absolutePath(_ path: String) -> String {
        let expanded = expandingHome(path)
        if expanded.hasPrefix("/") { return URL(fileURLWithPath: expanded).standardizedFileURL.path }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(expanded)
            .standardizedFileURL.path
    }

    /// `$NAME` when it is an absolute path, else `~/fallback` (the XDG rule).
    func xdgHome(_ name: String, _ fallback: String) -> URL {
        if let path = environment[name], path.hasPrefix("/") { return URL(fileURLWithPath: path) }
        let home = environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path
        return URL(fileURLWithPath: home).appendingPathComponent(fallback)
    }

    /// Resolves every setting for `options`.
    func settings(_ options: BackendOptions) throws(CLIError) -> Settings {
        try settings(
            store: options.store, server: options.server, profile: options.profile, config: options.config,
            cacert: options.cacert)
    }

    /// The token and CA file for `server`, found by its origin (docs/contracts.md, "Trust"): a token
    /// goes only to the origin it was kept for. RESV_TOKEN belongs to RESV_SERVER's server (else the
    /// config file's, the profile's first); a `"servers"` entry to its key; a `token` written beside
    /// a `server` (in a profile or at the top level, as resv wrote them before) to that server.
    func credentials(for server: Setting?, in file: ConfigFile, profile: String?, cacertFlag: String?)
        -> (token: Setting?, cacert: Setting?, withheld: String?)
    {
        let origin = server.flatMap { SettingValue.serverURL($0.value) }.flatMap(ServerOrigin.init(_:))
        let fileServer = profile.flatMap { file.string(.server, profile: $0) } ?? file.string(.server)
        var cacert: Setting? = nil
        if let cacertFlag, !cacertFlag.isEmpty {
            cacert = Setting(value: absolutePath(cacertFlag), source: .flag)
        } else if let path = environment["RESV_CACERT"], !path.isEmpty {
            cacert = Setting(value: absolutePath(path), source: .environment)
        } else if let origin, let path = file.server(origin, "cacert") {
            cacert = Setting(value: expandingHome(path), source: .configFile)
        }
        var withheld: String? = nil
        if let token = environment[SettingKey.token.environment], !token.isEmpty {
            let owner = environment[SettingKey.server.environment].flatMap { $0.isEmpty ? nil : $0 } ?? fileServer
            let ownerOrigin = owner.flatMap(SettingValue.serverURL).flatMap(ServerOrigin.init(_:))
            if let origin, ownerOrigin == origin {
                return (Setting(value: token, source: .environment), cacert, nil)
            }
            withheld =
                ownerOrigin.map { "RESV_TOKEN is sent only to \($0)" }
                ?? "RESV_TOKEN is sent only to RESV_SERVER's server, and none is set"
        }
        guard let origin else { return (nil, cacert, withheld) }
        if let token = file.server(origin, "token") {
            return (Setting(value: token, source: .configFile), cacert, nil)
        }
        // Tokens written beside a server: the profile's, then the top level's.
        let places: [String?] = profile == nil ? [nil] : [profile, nil]
        for place in places {
            guard let token = file.string(.token, profile: place) else { continue }
            let owner = place.flatMap { file.string(.server, profile: $0) } ?? file.string(.server)
            if owner.flatMap(SettingValue.serverURL).flatMap(ServerOrigin.init(_:)) == origin {
                return (Setting(value: token, source: .configFile, profile: place), cacert, nil)
            }
        }
        return (nil, cacert, withheld)
    }

    /// The profile chosen by `--profile`, else RESV_PROFILE, else the config file's `"profile"`;
    /// nil for the top level. One the file does not have is an error.
    func chosenProfile(flag: String?, in file: ConfigFile) throws(CLIError) -> (name: String?, setting: Setting) {
        let setting: Setting
        if let flag, !flag.isEmpty {
            setting = Setting(value: flag, source: .flag)
        } else if let name = environment["RESV_PROFILE"], !name.isEmpty {
            setting = Setting(value: name, source: .environment)
        } else if let name = file.chosenProfile {
            setting = Setting(value: name, source: .configFile)
        } else {
            return (nil, Setting(value: ConfigFile.defaultProfile, source: .defaultValue))
        }
        guard setting.value != ConfigFile.defaultProfile else { return (nil, setting) }
        try ConfigFile.checkProfileName(setting.value)
        guard file.profiles[setting.value] != nil else {
            throw .unknownProfile(setting.value, file.url.path, known: file.profiles.keys.sorted())
        }
        return (setting.value, setting)
    }

    /// Resolves every setting from these flags (nil when not given): flag > environment >
    /// the chosen profile of the config file > its top level > default.
    func settings(
        store storeFlag: String?, server serverFlag: String?, profile profileFlag: String? = nil, config: String?,
        cacert cacertFlag: String? = nil
    )
        throws(CLIError) -> Settings
    {
        let configURL = configURL(flag: config)
        let file = try ConfigFile.load(configURL)
        for key in file.unknownKeys {
            say(
                "resv: warning: \(configURL.path) has a key '\(key.quoted())' that is no setting "
                    + "(\(SettingKey.allCases.map(\.rawValue).joined(separator: ", "))); it is ignored")
        }
        for key in file.malformedServerKeys {
            say(
                "resv: warning: \(configURL.path) keeps settings for '\(key.quoted())', which is no server's origin "
                    + "(https://host:port); they are left as they are and never used")
        }
        let (profile, profileSetting) = try chosenProfile(flag: profileFlag, in: file)
        func resolve(_ key: SettingKey, flag: String?) -> Setting? {
            if let flag, !flag.isEmpty { return Setting(value: flag, source: .flag) }
            if let value = environment[key.environment], !value.isEmpty {
                return Setting(value: value, source: .environment)
            }
            if let profile, let value = file.string(key, profile: profile) {
                return Setting(value: value, source: .configFile, profile: profile)
            }
            return file.string(key).map { Setting(value: $0, source: .configFile) }
        }
        // A store path from the config file must be one, empty included (the others are checked when used).
        if storeFlag?.isEmpty ?? true, environment[SettingKey.store.environment]?.isEmpty ?? true {
            for place in [profile, nil] {
                let settings = place.map { file.profiles[$0] ?? [:] } ?? file.fields
                guard case .string(let value)? = settings[SettingKey.store.rawValue] else { continue }
                do { try SettingKey.store.validate(value) } catch {
                    let owner = place.map { "profile '\($0)': " } ?? ""
                    throw .invalidConfig(configURL.path, owner + (error.errorDescription ?? ""))
                }
                break
            }
        }
        let store =
            resolve(.store, flag: storeFlag).map {
                Setting(value: expandingHome($0.value), source: $0.source, profile: $0.profile)
            }
            ?? Setting(value: defaultStoreURL.path, source: .defaultValue)
        let server = resolve(.server, flag: serverFlag)
        let credentials = credentials(for: server, in: file, profile: profile, cacertFlag: cacertFlag)
        return Settings(
            configPath: configURL,
            profile: profileSetting,
            store: store,
            server: server,
            token: credentials.token,
            cacert: credentials.cacert,
            withheldToken: credentials.withheld,
            writtenToken: resolve(.token, flag: nil),
            connectTimeout: resolve(.connectTimeout, flag: nil) ?? Setting(value: "5", source: .defaultValue),
            requestTimeout: resolve(.requestTimeout, flag: nil) ?? Setting(value: "30", source: .defaultValue),
            queue: resolve(.queue, flag: nil) ?? Setting(value: "false", source: .defaultValue))
    }
}
