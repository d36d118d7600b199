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
            switch error {
            case .invalidDate, .dateInPast, .invalidPartySize, .invalidInitialStatus, .unknownLandmark,
                .ambiguousLandmark, .invalidReservationID, .invalidRequestField, .batchRejected, .invalidDays:
                return usage
            case .unexpectedCount:
                return dataError
            case .reservationNotFound, .ambiguousReservationID, .noCapacity, .cannotConfirmCancelled,
                .unimplemented:
                return refused
            }
        case let error as StoreError:
            switch error {
            case .corrupt, .unsupportedVersion, .tooLarge: return dataError
            case .unreadable: return unavailable
            case .unwritable: return cannotWrite
            case .lockTimeout: return temporary
            }
        case let error as CLIError:
            switch error {
            case .invalidSetting, .emptyRange, .nestedRepl, .unreadableInput, .batchRejected, .invalidConfig,
                .offlineNeedsServer, .noServerUser, .unknownSetting, .tokenOnCommandLine, .unknownProfile:
                return usage
            case .insecureConfig, .noToken: return notAuthorised
            case .settingNotSet, .batchRefused: return refused
            case .unwritableConfig: return cannotWrite
            }
        case let error as HTTPBackendError:
            switch error {
            case .unavailable, .serverError, .nothingCached: return unavailable
            case .notAuthorised: return notAuthorised
            case .rateLimited: return temporary
            case .badResponse, .invalidReservation: return dataError
            case .offlineChange, .offlineAvailability: return usage
            case .refused(let status, _): return [400, 413, 422].contains(status) ? usage : refused
            }
        default:
            return refused
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
