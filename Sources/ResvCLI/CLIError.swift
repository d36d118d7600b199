import Foundation

/// Failures of the command line itself (as opposed to the backend).
public enum CLIError: Error, Sendable, LocalizedError {
    /// An environment setting has a value that cannot be used.
    case invalidSetting(String, String, String)
    /// `--from` is after `--to`.
    case emptyRange(from: String, to: String)
    /// `repl` typed at the REPL's own prompt.
    case nestedRepl

    public var errorDescription: String? {
        switch self {
        case .invalidSetting(let name, let value, let expected):
            "\(name)='\(value)' is invalid: expected \(expected)"
        case .emptyRange(let from, let to):
            "--from \(from) is after --to \(to): nothing can match"
        case .nestedRepl:
            "already in the REPL"
        }
    }
}
