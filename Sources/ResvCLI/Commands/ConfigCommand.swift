import ArgumentParser
import Foundation
import ReservationCore
import ReservationHTTP

/// `resv config`: the settings, where each comes from, and the config file.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Show and change settings (store, server, token, timeouts).",
        discussion: """
            A setting comes from a flag, else the environment (RESV_STORE, RESV_SERVER, RESV_TOKEN, \
            RESV_CONNECT_TIMEOUT, RESV_REQUEST_TIMEOUT), else the config file, else its default. \
            'set' and 'unset' change the config file; the token is never printed.
            """,
        subcommands: [List.self, Get.self, Set.self, Unset.self, Path.self],
        defaultSubcommand: List.self)

    /// Only `--config` matters here: where the file is.
    struct FileOptions: ParsableArguments {
        @Option(
            help: ArgumentHelp(
                "The config file (default: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).",
                valueName: "path"),
            completion: .file(extensions: ["json"]))
        var config: String?
    }

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
            abstract: "Every setting, its value and where it comes from (the token, and a server's password, as ****).")

        @OptionGroup var file: FileOptions
        @Flag(help: "Print JSON: {key: {value, source}}.")
        var json = false

        func run(in context: CommandContext) async throws {
            let settings = try context.settings(store: nil, server: nil, config: file.config)
            var rows: [(SettingKey, Setting)] = []
            for key in SettingKey.allCases {
                if let setting = settings.setting(key) { rows.append((key, setting)) }
            }
            if json {
                var fields: [String: JSONValue] = [:]
                for (key, setting) in rows {
                    fields[key.rawValue] = .object([
                        "value": .string(ConfigCommand.shown(key, setting)), "source": .string(setting.source.rawValue),
                    ])
                }
                context.output.write(
                    String(decoding: JSONValue.object(fields).encoded(pretty: true), as: UTF8.self) + "\n")
                return
            }
            let width = rows.map(\.0.rawValue.count).max() ?? 0
            for (key, setting) in rows {
                let name = key.rawValue.padding(toLength: width, withPad: " ", startingAt: 0)
                context.output.write("\(name)  \(ConfigCommand.shown(key, setting))  (\(setting.source.rawValue))\n")
            }
            let backend =
                settings.chosenServer.map { "server \(URL.redacting($0.value))" } ?? "file \(settings.store.value)"
            context.say("using the \(backend); config file \(settings.configPath.path)")
        }
    }

    struct Get: ResvCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print one setting's value (the token, and a server's password, as ****).")

        @Argument(help: "store, server, token, connectTimeout or requestTimeout.")
        var key: String
        @OptionGroup var file: FileOptions

        func run(in context: CommandContext) async throws {
            guard let key = SettingKey(rawValue: key) else { throw CLIError.unknownSetting(self.key) }
            guard let setting = try context.settings(store: nil, server: nil, config: file.config).setting(key) else {
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
                """)

        @Argument(help: "store, server, token, connectTimeout or requestTimeout.")
        var key: String
        @Argument(help: "The value (not for token: it is read from stdin).")
        var value: String?
        @OptionGroup var file: FileOptions

        func run(in context: CommandContext) async throws {
            guard let key = SettingKey(rawValue: key) else { throw CLIError.unknownSetting(self.key) }
            let newValue: String
            if key == .token {
                guard value == nil else { throw CLIError.tokenOnCommandLine }
                newValue = try readSecretLine(prompt: "token: ", context: context)
            } else {
                guard let value else { throw CLIError.invalidSetting(key.rawValue, "", "a value after the key") }
                newValue = key == .store && !value.isEmpty ? context.absolutePath(value) : value
            }
            try key.validate(newValue)
            var config = try ConfigFile.load(context.configURL(flag: file.config))
            config.fields[key.rawValue] = .string(newValue)
            try config.save()
            context.say("set \(key.rawValue) in \(config.url.path)")
        }
    }

    struct Unset: ResvCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a setting from the config file.")

        @Argument(help: "store, server, token, connectTimeout or requestTimeout.")
        var key: String
        @OptionGroup var file: FileOptions

        func run(in context: CommandContext) async throws {
            guard let key = SettingKey(rawValue: key) else { throw CLIError.unknownSetting(self.key) }
            var config = try ConfigFile.load(context.configURL(flag: file.config))
            guard config.fields.removeValue(forKey: key.rawValue) != nil else {
                context.say("\(key.rawValue) was not set in \(config.url.path)")
                return
            }
            try config.save()
            context.say("unset \(key.rawValue) in \(config.url.path)")
        }
    }

    struct Path: ResvCommand {
        static let configuration = CommandConfiguration(abstract: "Print the config file's path.")
        @OptionGroup var file: FileOptions

        func run(in context: CommandContext) async throws {
            context.output.write(context.configURL(flag: file.config).path + "\n")
        }
    }
}

/// One line from stdin; on a terminal, prompted on stderr and typed without echo.
func readSecretLine(prompt: String, context: CommandContext) throws -> String {
    let terminal = isatty(STDIN_FILENO) == 1
    var saved = termios()
    if terminal {
        context.messages.write(prompt)
        tcgetattr(STDIN_FILENO, &saved)
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(STDIN_FILENO, TCSANOW, &silent)
    }
    defer {
        if terminal {
            tcsetattr(STDIN_FILENO, TCSANOW, &saved)
            context.messages.write("\n")
        }
    }
    let line = readLine(strippingNewline: true)?.trimmingCharacters(in: .whitespaces) ?? ""
    guard !line.isEmpty else { throw CLIError.invalidSetting("token", "", "a token on stdin") }
    return line
}
