import Foundation

/// Failures of the command line itself (as opposed to the backend).
public enum CLIError: Error, Sendable, LocalizedError {
    /// An environment setting has a value that cannot be used.
    case invalidSetting(String, String, String)
    /// `--from` is after `--to`.
    case emptyRange(from: String, to: String)
    /// `repl` typed at the REPL's own prompt.
    case nestedRepl
    /// An input file (`reserve --batch`) that cannot be read.
    case unreadableInput(String, String)
    /// Some lines of a batch are invalid, so nothing was reserved.
    case batchRejected(invalid: Int, total: Int)

    public var errorDescription: String? {
        switch self {
        case .invalidSetting(let name, let value, let expected):
            "\(name)='\(value)' is invalid: expected \(expected)"
        case .emptyRange(let from, let to):
            "--from \(from) is after --to \(to): nothing can match"
        case .nestedRepl:
            "already in the REPL"
        case .unreadableInput(let path, let reason):
            "cannot read \(path): \(reason)"
        case .batchRejected(let invalid, let total):
            "\(invalid) of \(total) \(total == 1 ? "request is" : "requests are") invalid: nothing was reserved"
        }
    }
}
