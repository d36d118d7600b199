import ArgumentParser
import Foundation
import ReservationCore
import ReservationFile

/// The exit codes of DESIGN.md, chosen for every error in this one place.
public enum ExitStatus {
    public static let success: Int32 = 0
    /// Refused: unknown or ambiguous id, no capacity, a forbidden transition.
    public static let refused: Int32 = 1
    /// Usage or invalid input: bad date, party size, unknown landmark (EX_USAGE).
    public static let usage: Int32 = 64
    /// Bad data: a corrupt store, an invalid server response (EX_DATAERR).
    public static let dataError: Int32 = 65
    /// The backend is unavailable (EX_UNAVAILABLE).
    public static let unavailable: Int32 = 69
    /// The store cannot be written (EX_CANTCREAT).
    public static let cannotWrite: Int32 = 73
    /// Temporary failure: lock timeout, rate limit; retry later (EX_TEMPFAIL).
    public static let temporary: Int32 = 75
    /// Not authorised (EX_NOPERM).
    public static let notAuthorised: Int32 = 77

    /// The exit code for an error a command threw.
    static func code(for error: any Error) -> Int32 {
        switch error {
        case let error as ReservationError:
            switch error {
            case .invalidDate, .dateInPast, .invalidPartySize, .invalidInitialStatus, .unknownLandmark,
                .ambiguousLandmark, .invalidReservationID, .invalidRequestField, .batchRejected:
                return usage
            case .unexpectedCount:
                return dataError
            case .reservationNotFound, .ambiguousReservationID, .noCapacity, .cannotConfirmCancelled,
                .unimplemented:
                return refused
            }
        case let error as StoreError:
            switch error {
            case .corrupt, .unsupportedVersion: return dataError
            case .unreadable: return unavailable
            case .unwritable: return cannotWrite
            case .lockTimeout: return temporary
            }
        case let error as CLIError:
            switch error {
            case .invalidSetting, .emptyRange, .nestedRepl, .unreadableInput, .batchRejected: return usage
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
