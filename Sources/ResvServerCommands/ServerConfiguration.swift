import Foundation
import ReservationCore
import ReservationStorage
import ResvReference

/// resv-server's configuration file and environment: every `serve` option as a key of a
/// JSON object (named as the long flag: `database`, `port`, `tls-cert`, …) and as an
/// environment variable (`RESV_SERVER_` and the key in capitals, `-` as `_`). A flag wins
/// over the environment, which wins over the file. The values that apply are added to the
/// command line as the flags they stand for, so each is then read and checked as its flag is.
///
/// The file is `--config FILE`, else `RESV_SERVER_CONFIG`, else the context's default
/// (`/etc/resv-server/config.json` in the process) when it exists. The whole file is
/// checked before anything starts: not JSON, not an object, an unknown key, a value of
/// the wrong type, a port outside 1-65535 or a database URL that does not parse is one
/// line naming the file and the key, exit 78; a file named that cannot be read, 66.
enum ServerConfiguration {
    /// What a key's value must be.
    enum Kind: Equatable {
        case text
        case path
        case database
        case port
        /// A whole number in the range.
        case count(ClosedRange<Int>)
        /// A number in the range, its lowest bound excluded unless `lowestIncluded`.
        case number(ClosedRange<Double>, lowestIncluded: Bool)
        case flag
        case choice([String])
    }

    /// Every key, as the long flag of `serve` it stands for.
    static let keys: [(name: String, kind: Kind)] = [
        ("database", .database),
        ("host", .text),
        ("port", .port),
        ("log-level", .choice(LogLevel.allCases.map(\.rawValue))),
        ("landmarks", .path),
        ("request-timeout", .number(0...86_400, lowestIncluded: false)),
        ("idle-timeout", .number(0...86_400, lowestIncluded: false)),
        ("rate-limit", .number(0...1_000_000, lowestIncluded: false)),
        ("max-holds-per-user", .count(0...1_000_000)),
        ("no-metrics", .flag),
        ("tls-cert", .path),
        ("tls-key", .path),
        ("state-directory", .path),
        ("token-recheck", .number(0...1, lowestIncluded: true)),
    ]

    /// The file resv-server reads when no other is named and it exists.
    static let defaultFile = "/etc/resv-server/config.json"

    /// A configuration that cannot be used: the line to say, and the exit status.
    struct Failure: Error {
        var line: String
        var status: Int32
    }

    /// The environment variable of `key`.
    static func variable(_ key: String) -> String {
        "RESV_SERVER_" + key.uppercased().replacingOccurrences(of: "-", with: "_")
    }

    /// `arguments` with the settings of the file and the environment added as flags, for
    /// the command they name: every key for `serve`, `database` for the `token` commands,
    /// `database` and `landmarks` for the `user` commands;
    /// unchanged for anything else (help, the version, completion scripts).
    static func arguments(
        _ arguments: [String], environment: [String: String], defaultFile: String?
    ) throws(Failure) -> [String] {
        let end = arguments.firstIndex(of: "--") ?? arguments.endIndex
        let options = arguments[..<end]
        let words = options.filter { !$0.hasPrefix("-") }
        if options.contains(where: { ["-h", "--help", "--version"].contains($0) })
            || options.contains(where: { $0.hasPrefix("--generate-completion-script") }) || words.first == "help"
        {
            return arguments
        }
        let applies: Set<String>
        switch words.first {
        case "serve": applies = Set(keys.map(\.name))
        case "token": applies = ["database"]
        case "user": applies = ["database", "landmarks"]
        default: return arguments
        }
        let given = Set(
            options.compactMap { option -> String? in
                guard option.hasPrefix("--") else { return nil }
                return String(option.dropFirst(2).prefix { $0 != "=" })
            })
        let fileValues = try file(named: configFile(options, environment: environment, defaultFile: defaultFile))
        var added: [String] = []
        for (name, kind) in keys where applies.contains(name) && !given.contains(name) {
            let value: String?
            if let text = environment[variable(name)] {
                value = try checked(text: text, kind: kind, key: name, source: "the environment's \(variable(name))")
            } else if let fileValues, let json = fileValues.values[name] {
                value = try checked(json: json, kind: kind, key: name, source: fileValues.path)
            } else {
                value = nil
            }
            guard let value else { continue }
            added.append(kind == .flag ? "--\(name)" : "--\(name)=\(value)")
        }
        var result = arguments
        result.insert(contentsOf: added, at: end)
        return result
    }

    /// The file named by `--config`, else `RESV_SERVER_CONFIG`, else the default when it
    /// exists; nil when none applies. A file named that is missing is a failure (66).
    static func configFile(
        _ options: ArraySlice<String>, environment: [String: String], defaultFile: String?
    ) throws(Failure) -> String? {
        var named: String?
        for (index, option) in zip(options.indices, options) {
            if option == "--config", options.index(after: index) < options.endIndex {
                named = options[options.index(after: index)]
            } else if option.hasPrefix("--config=") {
                named = String(option.dropFirst("--config=".count))
            }
        }
        if let named = named ?? environment[variable("config")] {
            return named.isEmpty ? nil : named
        }
        guard let defaultFile, FileManager.default.fileExists(atPath: defaultFile) else { return nil }
        return defaultFile
    }

    /// The keys and values of the file at `path`, every one checked; nil without a file.
    static func file(named path: String?) throws(Failure) -> (path: String, values: [String: JSONValue])? {
        guard let path else { return nil }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            let why = FileManager.default.fileExists(atPath: path) ? "cannot be read" : "does not exist"
            throw Failure(line: "the configuration file \(path) \(why)", status: ExitStatus.noInput)
        }
        let fields: [String: JSONValue]
        do {
            guard case .object(let object) = try JSONValue.parse(data) else {
                throw Failure(
                    line: "\(path): not a JSON object of settings ({\"database\": …, \"port\": …})",
                    status: ExitStatus.configuration)
            }
            fields = object
        } catch let error as JSONSyntaxError {
            throw Failure(line: "\(path): not JSON: \(error.detail)", status: ExitStatus.configuration)
        } catch let error as Failure {
            throw error
        } catch {
            throw Failure(line: "\(path): not JSON", status: ExitStatus.configuration)
        }
        let known = Dictionary(uniqueKeysWithValues: keys.map { ($0.name, $0.kind) })
        for key in fields.keys.sorted() {
            guard let kind = known[key] else {
                let shown = UserName.printable(key)
                throw Failure(
                    line: "\(path): unknown key \"\(shown)\" (known: \(keys.map(\.name).joined(separator: ", ")))",
                    status: ExitStatus.configuration)
            }
            _ = try checked(json: fields[key] ?? .null, kind: kind, key: key, source: path)
        }
        return (path, fields)
    }

    /// A file's value as its flag's text, or nil for a flag set to false.
    static func checked(json: JSONValue, kind: Kind, key: String, source: String) throws(Failure) -> String? {
        func wrong(_ expected: String) -> Failure {
            Failure(
                line: "\(source): \(key) must be \(expected), not \(json.typeName)", status: ExitStatus.configuration)
        }
        switch (kind, json) {
        case (.flag, .bool(let value)):
            return value ? "" : nil
        case (.flag, _):
            throw wrong("true or false")
        case (.port, .integer(let value)), (.count, .integer(let value)):
            return try checked(text: String(value), kind: kind, key: key, source: source)
        case (.port, _), (.count, _):
            throw wrong("a whole number")
        case (.number, .integer(let value)):
            return try checked(text: String(value), kind: kind, key: key, source: source)
        case (.number, .double(let value)):
            return try checked(text: String(value), kind: kind, key: key, source: source)
        case (.number, _):
            throw wrong("a number")
        case (_, .string(let text)):
            return try checked(text: text, kind: kind, key: key, source: source)
        default:
            throw wrong("a string")
        }
    }

    /// A bound as it is written: 86400, 0.5.
    static func shown(_ number: Double) -> String {
        number == number.rounded() ? String(Int(number)) : String(number)
    }

    /// A value given as text (the environment's, or a file's string), checked for its kind.
    static func checked(text: String, kind: Kind, key: String, source: String) throws(Failure) -> String? {
        func refuse(_ why: String) -> Failure {
            Failure(line: "\(source): \(key) \(why)", status: ExitStatus.configuration)
        }
        let shown = UserName.printable(text)
        switch kind {
        case .flag:
            switch text.lowercased() {
            case "true", "1", "yes": return ""
            case "false", "0", "no", "": return nil
            default: throw refuse("must be true or false, not '\(shown)'")
            }
        case .port:
            guard let port = Int(text) else { throw refuse("must be a whole number, not '\(shown)'") }
            guard (1...65535).contains(port) else { throw refuse("must be a port from 1 to 65535, not \(port)") }
            return text
        case .count(let range):
            guard let count = Int(text) else { throw refuse("must be a whole number, not '\(shown)'") }
            guard range.contains(count) else {
                throw refuse("must be from \(range.lowerBound) to \(range.upperBound), not \(count)")
            }
            return text
        case .number(let range, let lowestIncluded):
            guard let number = Double(text), number.isFinite else { throw refuse("must be a number, not '\(shown)'") }
            guard range.contains(number), lowestIncluded || number > range.lowerBound else {
                let lowest = "\(lowestIncluded ? "from" : "above") \(Self.shown(range.lowerBound))"
                throw refuse("must be a number \(lowest) to \(Self.shown(range.upperBound)), not \(shown)")
            }
            return text
        case .choice(let choices):
            guard choices.contains(text) else {
                throw refuse("must be one of \(choices.joined(separator: ", ")), not '\(shown)'")
            }
            return text
        case .text, .path:
            guard !text.trimmingCharacters(in: .whitespaces).isEmpty else { throw refuse("must not be empty") }
            return text
        case .database:
            guard !text.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw refuse("must name an SQLite file or a postgres:// URL")
            }
            if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
                do {
                    _ = try PostgresTarget(text)
                } catch {
                    throw Failure(
                        line: "\(source): \(key): \(error.localizedDescription)", status: ExitStatus.configuration)
                }
            } else if let scheme = text.range(of: "://") {
                let name = UserName.printable(String(text[..<scheme.lowerBound]))
                throw Failure(
                    line: "\(source): \(key): '\(shown)' is not a usable database URL: "
                        + "\(name):// is not postgres:// or postgresql://",
                    status: ExitStatus.configuration)
            }
            return text
        }
    }
}
