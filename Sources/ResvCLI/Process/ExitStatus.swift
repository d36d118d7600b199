import ArgumentParser
import Foundation
import ReservationCore
import ReservationFile
import ReservationHTTP
import ResvReference

/// Which exit code each error gets, chosen in this one place.
extension ExitStatus {
    /// The exit code for an error a command threw.
    static func code(for error: any Error) -> Int32 {
        switch error {
        case let error as ReservationError:
            // By its wire code: a server's refusal and the same failure met by a file
            // store get the same exit code.
            return code(for: error.code)
        case let error as FileStoreError:
            switch error {
            case .corrupt, .unsupportedVersion, .tooLarge: return dataError
            case .unreadable: return unavailable
            case .unwritable, .wouldBeTooLarge, .foreign: return cannotWrite
            case .lockTimeout: return temporary
            }
        case let error as BatchError:
            return code(for: error.error)
        case let error as SyncStopped:
            return code(for: error.error)
        case let error as CLIError:
            switch error {
            case .invalidSetting, .emptyRange, .nestedRepl, .unreadableInput, .batchRejected, .invalidConfig,
                .offlineNeedsServer, .noServerUser, .unknownSetting, .tokenOnCommandLine, .unknownProfile, .pastDate,
                .importTooLarge:
                return usage
            case .insecureConfig, .notLoggedIn: return notAuthorised
            case .tokenInClear, .noServerToLogIn, .noTokenGiven: return usage
            case .settingNotSet, .batchRefused, .seriesRefused, .waitTimedOut, .waitCannotSucceed, .undoRefused,
                .outboxRefused, .importIncomplete,
                .noQueuedChange:
                return refused
            case .outboxNeedsServer, .calendarNeedsServer: return usage
            // The program is the user's input, whether jq refuses it at once or on the output.
            case .jqDoesNotCompile, .jqFailed: return usage
            case .jqNotInstalled: return unavailable
            case .jqUnreadableOutput: return internalError
            case .unwritableConfig, .noStoreFolder: return cannotWrite
            case .notCached, .unreachableChange: return unavailable
            case .configLocked: return temporary
            case .notImportable: return dataError
            }
        case let error as HTTPBackendError:
            switch error {
            case .unavailable, .serverError, .nothingCached, .missingRoute, .untrusted, .notMade: return unavailable
            case .outcomeUnknown: return temporary
            case .databaseUnavailable: return code(for: ErrorCode.databaseUnavailable)
            case .serverBusy: return code(for: ErrorCode.serverBusy)
            case .notAuthorised: return notAuthorised
            case .rateLimited: return temporary
            case .badResponse, .invalidReservation: return dataError
            case .offlineChange, .offlineAvailability: return usage
            case .refused(let status, _): return [400, 413, 422].contains(status) ? usage : refused
            }
        case let error as OutboxError:
            switch error {
            case .notJSON, .tooLarge: return dataError
            case .unreadable: return unavailable
            case .unwritable, .foreign, .writableByOthers: return cannotWrite
            }
        case let error as ExitCode:
            return error.rawValue
        case is ValidationError, is DateParseError:
            return usage
        case is JSONSyntaxError:
            return dataError
        default:
            // Every error resv throws has its code above: one that reaches here is a bug.
            return internalError
        }
    }

    /// The `code` of an error printed as JSON (`--json`, `--format ndjson`): the
    /// server's code where the failure has one, the same for a store file; else
    /// a word for what the exit code says (`statusCode(for:)`).
    static func errorCode(for error: any Error) -> String {
        switch error {
        case let error as ReservationError: return error.code.rawValue
        case let error as HTTPBackendError:
            switch error {
            case .notAuthorised(_, let status, _):
                return (status == 403 ? ErrorCode.forbidden : ErrorCode.unauthorized).rawValue
            case .rateLimited: return ErrorCode.rateLimited.rawValue
            case .missingRoute: return ErrorCode.noRoute.rawValue
            case .databaseUnavailable: return ErrorCode.databaseUnavailable.rawValue
            case .serverBusy: return ErrorCode.serverBusy.rawValue
            case .badResponse, .invalidReservation: return ErrorCode.invalidResponse.rawValue
            default: break
            }
        case let error as FileStoreError:
            if case .corrupt = error { return ErrorCode.invalidJSON.rawValue }
        case is BatchError:
            return ErrorCode.batchRejected.rawValue
        case let error as SyncStopped:
            return errorCode(for: error.error)
        case is JSONSyntaxError:
            return ErrorCode.invalidJSON.rawValue
        case CLIError.pastDate:
            return ErrorCode.dateInPast.rawValue
        case CLIError.undoRefused:
            return ErrorCode.noCapacity.rawValue
        default:
            break
        }
        return statusCode(for: code(for: error))
    }

    /// The `code` of a failure that has no server code, by its exit code.
    static func statusCode(for status: Int32) -> String {
        switch status {
        case refused: "refused"
        case usage: ErrorCode.invalidRequest.rawValue
        case dataError: "invalidData"
        case unavailable: "unavailable"
        case cannotWrite: "cannotWrite"
        case cannotWriteOutput: "cannotWriteOutput"
        case temporary: "temporary"
        case notAuthorised: ErrorCode.unauthorized.rawValue
        case interrupted: "interrupted"
        default: ErrorCode.internalError.rawValue
        }
    }

    /// The exit code of each kind of wire error code, the one table both backends go through.
    static func code(for code: ErrorCode) -> Int32 {
        switch code.kind {
        case .invalidInput: usage
        case .refused: refused
        case .notAuthorised: notAuthorised
        case .temporary: temporary
        case .unavailable: unavailable
        case .badData: dataError
        }
    }

    /// The one-line message for an error a command threw.
    static func message(for error: any Error) -> String {
        let text = (error as? LocalizedError)?.errorDescription ?? "\(error)"
        return oneLine(text)
    }

    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: " ")
    }
}
