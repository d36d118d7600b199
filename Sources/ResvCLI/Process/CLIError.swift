import Foundation

/// Failures of the command line itself (as opposed to the backend).
public enum CLIError: Error, Sendable, LocalizedError {
    /// An environment setting has a value that cannot be used.
    case invalidSetting(String, String, String)
    /// `--from` is after `--to`.
    case emptyRange(from: String, to: String)
    /// `resv wait` reached its timeout first: the reservation, the status waited for, the one it has.
    case waitTimedOut(String, wanted: String, has: String, seconds: String)
    /// `resv wait` for a status the reservation can no longer reach: it was cancelled or has expired.
    case waitCannotSucceed(String, wanted: String, has: String)
    /// `repl` typed at the REPL's own prompt.
    case nestedRepl
    /// An input file (`reserve --batch`) that cannot be read.
    case unreadableInput(String, String)
    /// A file `resv import` reads that is not of its format (not UTF-8, not a calendar, not
    /// resv's CSV, over the size read): the file, the line, what is wrong there.
    case notImportable(String, line: Int, String)
    /// Some lines of a batch are invalid, so nothing was reserved.
    case batchRejected(invalid: Int, total: Int)
    /// Every line of a batch is valid, but some do not fit what is booked, so nothing was reserved.
    case batchRefused(refused: Int, total: Int)
    /// A series (`reserve --every`) with visits refused for room: none booked.
    case seriesRefused(refused: Int, total: Int)
    /// The config file is not a JSON object of settings.
    case invalidConfig(String, String)
    /// The config file holds a token and others may read it.
    case insecureConfig(String)
    /// A server is chosen but no token belongs to its origin: the origin, and why a token
    /// that is set (RESV_TOKEN for another server) was not given to it.
    case notLoggedIn(String, withheld: String?)
    /// A token would cross the network in clear: http:// to a host that is not this machine.
    case tokenInClear(String)
    /// `login` or `logout` without a server named anywhere.
    case noServerToLogIn(String)
    /// `login` read no token (an empty line, or the end of the input).
    case noTokenGiven
    /// The config file cannot be written.
    case unwritableConfig(String, String)
    /// Another resv held the config file's lock for longer than the lock wait (RESV_LOCK_TIMEOUT).
    case configLocked(String, seconds: Double)
    /// `--offline` without a server to have cached.
    case offlineNeedsServer
    /// `whoami` on a JSON file store, which has no users.
    case noServerUser
    /// A config key that does not exist.
    case unknownSetting(String)
    /// A token given where it would show in `ps` or shell history.
    case tokenOnCommandLine
    /// `config get` of a setting that has no value.
    case settingNotSet(String)
    /// A reservation id the cache of a server does not hold, read because the server
    /// cannot be reached (its reason) or with `--offline` (nil): the truth is unknown.
    case notCached(String, age: String, unreachable: String?)
    /// A change the server could not be reached for, without `--queue`: why, and the verb.
    case unreachableChange(String, verb: String)
    /// A typed date that has passed (as shown at the landmark); with the id of the reservation `modify` would move.
    case pastDate(String, moving: String?)
    /// A store named by hand (flag, environment, config file) in a folder that does not exist.
    case noStoreFolder(String, folder: String, from: String)
    /// `undo` (`redo`) would take back places that are taken now (the capacity refusal's words).
    case undoRefused(String, redo: Bool = false)
    /// A profile (`--profile`, RESV_PROFILE, the config file's `"profile"`) the config file does not have.
    case unknownProfile(String, String, known: [String])

    /// `resv import` without --strict booked what it could and left this many events out (counted above).
    case importIncomplete(notBooked: Int, dryRun: Bool)
    /// `resv import --strict` on a server: more events than one batch (all or nothing) holds.
    case importTooLarge(events: Int, limit: Int)
    /// `resv sync`: the server refused this many queued changes (kept in the outbox).
    case outboxRefused(Int)
    /// `resv outbox drop`: no queued change, or several, match the id.
    case noQueuedChange(String, matches: Int)
    /// `sync` and `outbox` work on a server's outbox; the file store has none.
    case outboxNeedsServer
    /// `calendar` asks a server for its subscription URL; the file store serves none.
    case calendarNeedsServer

    /// `--jq` without libjq.so.1 (dlerror's words).
    case jqNotInstalled(String)
    /// `--jq`'s program does not compile (jq's messages).
    case jqDoesNotCompile(String)
    /// `--jq`'s program failed on the output (jq's message): `.foo` of an array, `error`, `halt_error`.
    case jqFailed(String)
    /// jq could not read resv's own JSON output (a bug).
    case jqUnreadableOutput(String)

    public var errorDescription: String? {
        switch self {
        case .invalidSetting(let name, let value, let expected):
            "\(name)='\(value.quoted())' is invalid: expected \(expected)"
        case .emptyRange(let from, let to):
            "--from \(from) is after --to \(to): nothing can match"
        case .nestedRepl:
            "already in the REPL"
        case .noStoreFolder(let path, let folder, let source):
            "the store \(path.quoted()) (\(source)) is in no folder: \(folder.quoted()) does not exist; "
                + "create it first (mkdir -p) or check the path"
        case .undoRefused(let full, false):
            "cannot undo your last command: the places it would take back are taken now (\(full)); nothing changed"
        case .undoRefused(let full, true):
            "cannot redo your last undo: the places it would take back are taken now (\(full)); nothing changed"
        case .pastDate(let shown, nil):
            "\(shown) is in the past: a new reservation needs a future date"
        case .pastDate(let shown, let id?):
            "\(shown) is in the past: the new date of reservation \(id) must be in the future"
        case .unreadableInput(let path, let reason):
            "cannot read \(path): \(reason)"
        case .notImportable(let path, let line, let reason):
            "cannot import \(path): line \(line): \(reason); nothing was reserved"
        case .batchRejected(let invalid, let total):
            "\(invalid) of \(total) \(total == 1 ? "request is" : "requests are") invalid: nothing was reserved"
        case .batchRefused(let refused, let total):
            "\(refused) of \(total) \(total == 1 ? "request was" : "requests were") refused: nothing was reserved"
        case .seriesRefused(let refused, let total):
            "\(refused) of the series' \(total) visit\(total == 1 ? "" : "s") \(refused == 1 ? "was" : "were") refused: "
                + "nothing was reserved"
        case .invalidConfig(let path, let why):
            "the config file \(path) is invalid: \(why)"
        case .insecureConfig(let path):
            "the config file \(path) holds a token but others can read it: run 'chmod 600 \(path)'"
        case .notLoggedIn(let origin, let withheld):
            "not logged in to \(origin): run 'resv login \(origin)' (an admin makes a token with "
                + "'resv-server token create')" + (withheld.map { "; \($0)" } ?? "")
        case .tokenInClear(let origin):
            "refusing to send the token to \(origin) over plain http, where anyone on the way can read it: "
                + "use https:// (resv-server serve --tls-cert FILE --tls-key FILE); http:// carries a token "
                + "only to this machine (127.0.0.1, ::1, localhost)"
        case .noServerToLogIn(let command):
            "no server to \(command): name one ('resv \(command) https://resv.example.com') or set RESV_SERVER"
        case .noTokenGiven:
            "no token was given: paste the token 'resv-server token create' printed, or pipe it in"
        case .unwritableConfig(let path, let why):
            "cannot write the config file \(path): \(why)"
        case .configLocked(let path, let seconds):
            "another resv holds the config file \(path) (waited \(String(format: "%g", seconds)) s); nothing was changed; try again"
        case .noServerUser:
            "the JSON file store has no users: whoami asks a server (--server, RESV_SERVER) whose token is whose"
        case .offlineNeedsServer:
            "--offline reads a server's cached answers, but no server is configured (--server, RESV_SERVER)"
        case .unknownSetting(let key):
            "'\(key.quoted())' is not a setting: use one of \(SettingKey.allCases.map(\.rawValue).joined(separator: ", "))"
        case .notCached(let text, let age, let unreachable?):
            "\(unreachable); its answers cached \(age) have no reservation matching '\(text.quoted())'"
        case .unreachableChange(let why, let verb):
            "\(why); nothing was changed: with --queue the \(verb) waits in the outbox and is sent when the "
                + "server is reached"
        case .notCached(let text, let age, nil):
            "--offline: the server's answers cached \(age) have no reservation matching '\(text.quoted())'; "
                + "run without --offline to ask the server"
        case .settingNotSet(let key):
            "\(key) is not set (flag, environment or config file)"
        case .unknownProfile(let name, let path, let known):
            "no profile '\(name.quoted())' in \(path): "
                + (known.isEmpty
                    ? "make it with 'resv config set server URL --profile \(name)'"
                    : "use \((known + [ConfigFile.defaultProfile]).joined(separator: ", ")), or make it with 'resv config set KEY VALUE --profile \(name)'")
        case .waitTimedOut(let id, let wanted, let has, let seconds):
            "reservation \(id) is still \(has), not \(wanted), after \(seconds) s"
        case .waitCannotSucceed(let id, let wanted, let has):
            "reservation \(id) is \(has): it can no longer become \(wanted); stopped waiting"
        case .importTooLarge(let events, let limit):
            "the file has \(events) events to book, more than one batch on a server holds (\(limit) events): "
                + "--strict books all or nothing in one batch; without it they are sent in batches; nothing was reserved"
        case .importIncomplete(let count, let dryRun):
            "\(count) event\(count == 1 ? "" : "s") \(dryRun ? "would not be" : count == 1 ? "was not" : "were not") booked "
                + "(named above), the rest \(dryRun ? "would be" : "were"): --strict imports all or nothing"
        case .outboxRefused(let count):
            count == 0
                ? "the outbox holds changes the server refused: 'resv outbox' lists them, 'resv outbox drop ID' drops one"
                : "the server refused \(count) queued change\(count == 1 ? "" : "s"); kept in 'resv outbox' until dropped"
        case .noQueuedChange(let text, let matches):
            matches == 0
                ? "no queued change matches '\(text.quoted())' ('resv outbox' lists them)"
                : "'\(text.quoted())' matches \(matches) queued changes: give more of the id"
        case .calendarNeedsServer:
            "a calendar subscription is served by a resv-server (--server, RESV_SERVER); for the JSON file store, "
                + "export one with 'resv list --format ics'"
        case .outboxNeedsServer:
            "the outbox holds changes queued for a server (--server, RESV_SERVER): the JSON file store needs none"
        case .jqNotInstalled(let reason):
            "--jq needs libjq (on Debian and Ubuntu: apt-get install libjq1): \(reason)"
        case .jqDoesNotCompile(let messages):
            "--jq: " + Self.jqMessage(messages)
        case .jqFailed(let message):
            "jq: " + Self.jqMessage(message)
        case .jqUnreadableOutput(let message):
            "jq cannot read resv's output (a bug): \(message)"
        case .tokenOnCommandLine:
            "a token on the command line would show in 'ps' and your shell history: run 'resv config set token' and type it, or pipe it in"
        }
    }

    /// jq's messages on one line: its "jq: error: " and the "jq: 1 compile error" count left out.
    private static func jqMessage(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !($0.hasPrefix("jq: ") && $0.hasSuffix("compile error")) }
            .map { $0.hasPrefix("jq: error: ") ? String($0.dropFirst(11)) : $0 }
            .joined(separator: " ")
    }
}
