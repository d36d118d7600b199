import ArgumentParser
import Foundation
import ReservationCore
import ReservationHTTP

/// `resv config`: the settings, where each comes from, and the config file.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Show and change settings (store, server, token, timeouts, queue) and profiles.",
        discussion: """
            A setting comes from a flag, else the environment (RESV_STORE, RESV_SERVER, RESV_TOKEN, \
            RESV_CONNECT_TIMEOUT, RESV_REQUEST_TIMEOUT, RESV_QUEUE), else the config file, else its default. \
            'set' and 'unset' change the config file; the token is never printed.

            Profiles: the config file's top-level settings are the profile 'default'; \
            {"profiles": {"work": {"server": ..., "token": ...}}} holds others, each with its own store, \
            server and token (a setting a profile lacks comes from the top level, but never the top \
            level's token for a profile's server). The profile in use is --profile, else RESV_PROFILE, \
            else the one 'resv config use' wrote; 'set', 'unset' and 'get' act on it. A profile \
            'unset' leaves empty is removed; 'resv config remove NAME' removes one with its settings.

            Examples:
              resv config
              resv --profile work config set server https://resv.example.com
            """,
        subcommands: [List.self, Get.self, Set.self, Unset.self, Use.self, Remove.self, Path.self],
        defaultSubcommand: List.self)

    /// Where the file is, and which of its profiles.
    struct FileOptions: ParsableArguments {
        @Option(
            help: ArgumentHelp(
                "The profile (default: $RESV_PROFILE, else the one 'resv config use' chose; 'default' is the "
                    + "file's top level).", valueName: "name"),
            completion: ShellCompletion.profileNames)
        var profile: String?

        @OptionGroup var path: ConfigPath
        var config: String? { path.config }

        /// The profile of `file` that `set` and `unset` change (nil: the top level);
        /// a new profile is allowed only when named by `--profile`.
        func profile(in file: ConfigFile, _ context: CommandContext) throws(CLIError) -> String? {
            if let profile, !profile.isEmpty {
                guard profile != ConfigFile.defaultProfile else { return nil }
                try ConfigFile.checkProfileName(profile)
                return profile
            }
            return try context.chosenProfile(flag: nil, in: file).name
        }
    }

    /// `--config`: which file; `remove` and `use` take it alone, the others with `--profile`.
    struct ConfigPath: ParsableArguments {
        @Option(
            help: ArgumentHelp(
                "The config file (default: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).",
                valueName: "path"),
            completion: .file(extensions: ["json"]))
        var config: String?
    }

    /// Refuses a `name` that is not a valid profile name, or not a profile of `file`.
    static func checkExisting(profile name: String, in file: ConfigFile) throws(CLIError) {
        try ConfigFile.checkProfileName(name)
        guard file.profiles[name] != nil else {
            throw .unknownProfile(name, file.url.path, known: file.profiles.keys.sorted())
        }
    }

    /// The setting `get`, `set` and `unset` name: one of `SettingKey`'s, read here only.
    struct KeyArgument: ParsableArguments {
        @Argument(
            help: ArgumentHelp(SettingKey.spoken + "."),
            completion: .list(SettingKey.allCases.map(\.rawValue)))
        var key: String

        func setting() throws(CLIError) -> SettingKey { try SettingKey.named(key) }
    }

    /// Changes the config file `--config` (else RESV_CONFIG, else the usual one) names,
    /// under its lock: `ConfigFile.update`.
    static func update<T>(
        _ config: String?, _ context: CommandContext, _ change: (inout ConfigFile) throws -> T
    ) async throws -> T {
        try await ConfigFile.update(context.configURL(flag: config), lockTimeout: context.lockTimeout(), change)
    }

    /// " (profile work)" after a message about a profile's setting.
    static func inProfile(_ profile: String?) -> String { profile.map { " (profile \($0))" } ?? "" }

    /// A setting as shown: the token as `****`, and so the user name and password of a server URL.
    static func shown(_ key: SettingKey, _ setting: Setting) -> String {
        switch key {
        case .token: "****"
        case .server: URL.redacting(setting.value, with: "****@")
        default: setting.value
        }
    }

    struct List: ResvCommand {
        static let configuration = CommandConfiguration(
            abstract: "Every setting, its value and where it comes from (the token, and a server's password, as ****).",
            discussion: """
                Examples:
                  resv config list
                  resv config list --json | jq -r .store.source
                """)

        @OptionGroup var file: FileOptions
        @Flag(help: "Print JSON: {key: {value, source}}.")
        var json = false

        func run(in context: CommandContext) async throws {
            let settings = try context.settings(store: nil, server: nil, profile: file.profile, config: file.config)
            // The profile first: which one is in use, and why.
            var rows: [(String, String, Setting)] = [("profile", settings.profile.value, settings.profile)]
            for key in SettingKey.allCases {
                if let setting = settings.setting(key) {
                    rows.append((key.rawValue, ConfigCommand.shown(key, setting), setting))
                }
            }
            if json {
                var fields: [String: JSONValue] = [:]
                for (name, shown, setting) in rows {
                    var entry: [String: JSONValue] = [
                        "value": .string(shown), "source": .string(setting.source.rawValue),
                    ]
                    if let profile = setting.profile { entry["profile"] = .string(profile) }
                    fields[name] = .object(entry)
                }
                context.output.write(
                    String(decoding: JSONValue.object(fields).encoded(pretty: true), as: UTF8.self) + "\n")
                return
            }
            let width = rows.map(\.0.count).max() ?? 0
            for (name, shown, setting) in rows {
                let padded = name.padding(toLength: width, withPad: " ", startingAt: 0)
                // A store beside a server in use is not what commands read: said on its line.
                let idle = name == SettingKey.store.rawValue && settings.chosenServer != nil ? "; not in use" : ""
                context.output.write("\(padded)  \(shown)  (\(setting.origin)\(idle))\n")
            }
            let backend =
                settings.chosenServer.map { "server \(URL.redacting($0.value))" } ?? "file \(settings.store.value)"
            context.say(
                "using the \(backend) (profile \(settings.profile.value)); config file \(settings.configPath.path)")
        }
    }

    struct Get: ResvCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print one setting's value (the token, and a server's password, as ****).",
            discussion: """
                Examples:
                  resv config get store
                  resv config get server --profile work
                """)

        @OptionGroup var key: KeyArgument
        @OptionGroup var file: FileOptions

        func run(in context: CommandContext) async throws {
            let key = try key.setting()
            let settings = try context.settings(store: nil, server: nil, profile: file.profile, config: file.config)
            guard let setting = settings.setting(key) else {
                throw CLIError.settingNotSet(key.rawValue)
            }
            context.output.write(ConfigCommand.shown(key, setting) + "\n")
        }
    }

    struct Set: ResvCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a setting to the config file.",
            discussion: """
                The token is read from stdin (one line; typed without echo on a terminal), never from the \
                command line, where 'ps' and shell history would show it. The file is written readable by \
                you only.

                Examples:
                  resv config set store ~/trips.json
                  pass show resv/work | resv config set token --profile work
                """)

        @OptionGroup var key: KeyArgument
        @Argument(help: "The value (not for token: it is read from stdin).")
        var value: String?
        @OptionGroup var file: FileOptions

        func run(in context: CommandContext) async throws {
            let key = try key.setting()
            let newValue: String
            if key == .token {
                guard value == nil else { throw CLIError.tokenOnCommandLine }
                newValue = try readSecretLine(prompt: "token: ", context: context)
            } else {
                guard let value else { throw CLIError.invalidSetting(key.rawValue, "", "a value after the key") }
                newValue = key == .store && !value.isEmpty ? context.absolutePath(value) : value
            }
            try key.validate(newValue)
            let profile = try await ConfigCommand.update(file.config, context) { config in
                let profile = try file.profile(in: config, context)
                config.set(key, newValue, profile: profile)
                return profile
            }
            let path = context.configURL(flag: file.config).path
            context.say("set \(key.rawValue) in \(path)\(ConfigCommand.inProfile(profile))")
        }
    }

    struct Unset: ResvCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a setting from the config file.",
            discussion: """
                Examples:
                  resv config unset requestTimeout
                  resv config unset token --profile work
                """)

        @OptionGroup var key: KeyArgument
        @OptionGroup var file: FileOptions

        /// What unsetting did: nothing (the key was not set), or removed it and perhaps its emptied profile.
        enum Outcome {
            case notSet(profile: String?)
            /// `emptied`: the profile had nothing left and was removed; `chosen`: the file had chosen it.
            case unset(profile: String?, emptied: Bool, chosen: Bool)
        }

        func run(in context: CommandContext) async throws {
            let key = try key.setting()
            let outcome = try await ConfigCommand.update(file.config, context) { config -> Outcome in
                let profile = try file.profile(in: config, context)
                if let profile, config.profiles[profile] == nil {
                    throw CLIError.unknownProfile(profile, config.url.path, known: config.profiles.keys.sorted())
                }
                guard config.string(key, profile: profile) != nil else { return .notSet(profile: profile) }
                config.set(key, nil, profile: profile)
                // A profile with nothing left in it is no profile: it goes, and the file's choice of it.
                guard let profile, config.profiles[profile]?.isEmpty == true else {
                    return .unset(profile: profile, emptied: false, chosen: false)
                }
                return .unset(profile: profile, emptied: true, chosen: config.removeProfile(profile))
            }
            let path = context.configURL(flag: file.config).path
            let profile: String?
            var removed = ""
            switch outcome {
            case .notSet(let unchanged):
                context.say("\(key.rawValue) was not set in \(path)\(ConfigCommand.inProfile(unchanged))")
                return
            case .unset(let changed, let emptied, let chosen):
                profile = changed
                if emptied, let changed {
                    removed =
                        "; profile \(changed) is empty now and was removed" + (chosen ? ", default is in use" : "")
                }
            }
            context.say("unset \(key.rawValue) in \(path)\(ConfigCommand.inProfile(profile))\(removed)")
            if !removed.isEmpty, let profile, context.environment["RESV_PROFILE"] == profile {
                context.say("resv: warning: RESV_PROFILE=\(profile) is set and names the profile removed")
            }
        }
    }

    struct Remove: ResvCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a profile and its settings (its token too) from the config file.",
            discussion: """
                Examples:
                  resv config remove work
                """)

        @Argument(help: "A profile of the config file.", completion: ShellCompletion.profileNames)
        var name: String

        @OptionGroup var path: ConfigPath

        func run(in context: CommandContext) async throws {
            let chosen = try await ConfigCommand.update(path.config, context) { file in
                guard name != ConfigFile.defaultProfile else {
                    throw CLIError.invalidSetting(
                        "profile", name,
                        "a profile under profiles: default is the file's top level (unset its settings)")
                }
                try ConfigCommand.checkExisting(profile: name, in: file)
                return file.removeProfile(name)
            }
            context.say(
                "removed profile \(name) from \(context.configURL(flag: path.config).path)"
                    + (chosen ? "; default is in use now" : ""))
            if let overriding = context.environment["RESV_PROFILE"], overriding == name {
                context.say("resv: warning: RESV_PROFILE=\(name) is set and names the profile removed")
            }
        }
    }

    struct Use: ResvCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a profile the one in use (written to the config file; 'default' is its top level).",
            discussion: """
                Examples:
                  resv config use work
                  resv config use default
                """)

        @Argument(help: "A profile of the config file, or default.", completion: ShellCompletion.profileNames)
        var name: String

        @OptionGroup var path: ConfigPath

        func run(in context: CommandContext) async throws {
            try await ConfigCommand.update(path.config, context) { file in
                if name == ConfigFile.defaultProfile {
                    file.fields["profile"] = nil
                } else {
                    try ConfigCommand.checkExisting(profile: name, in: file)
                    file.fields["profile"] = .string(name)
                }
            }
            context.say("using profile \(name) (\(context.configURL(flag: path.config).path))")
            if let overriding = context.environment["RESV_PROFILE"], !overriding.isEmpty, overriding != name {
                context.say("resv: warning: RESV_PROFILE=\(overriding) is set and comes first")
            }
        }
    }

    struct Path: ResvCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the config file's path.",
            discussion: """
                Examples:
                  resv config path
                  ${EDITOR:-vi} "$(resv config path)"
                """)
        @OptionGroup var file: FileOptions

        func run(in context: CommandContext) async throws {
            context.output.write(context.configURL(flag: file.config).path + "\n")
        }
    }
}

/// One line from the context's input; on a terminal, prompted on stderr and typed without echo.
func readSecretLine(prompt: String, context: CommandContext) throws -> String {
    let terminal = context.input.isTerminal
    if terminal { context.messages.write(prompt) }
    let typed = context.input.readSecretLine()
    if terminal { context.messages.write("\n") }
    let line = typed?.trimmingCharacters(in: .whitespaces) ?? ""
    guard !line.isEmpty else { throw CLIError.invalidSetting("token", "", "a token on stdin") }
    return line
}
