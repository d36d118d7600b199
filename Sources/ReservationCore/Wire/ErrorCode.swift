/// The machine-readable `code` of an error on the wire
/// (`{"error": true, "reason": "…", "code": "noCapacity"}`): one vocabulary for
/// the server and the client, defined once here, so a failure gets the same
/// message and the same exit code whichever backend met it.
///
/// Codes are stable: add, never rename. A client that meets a code it does not
/// know (a newer server) falls back on the HTTP status.
public enum ErrorCode: String, Sendable, CaseIterable {
    // The reservation layer's refusals (`ReservationError.code`).
    case invalidDate
    case dateInPast
    case invalidPartySize
    case invalidStatus
    case unknownLandmark
    case ambiguousLandmark
    case invalidReservationId
    case reservationNotFound
    case ambiguousReservationId
    case noCapacity
    /// The landmark is closed that day (`resv admin close`); the reason is in the message.
    case closed
    /// The landmark is retired (`resv admin landmark retire`): no new bookings there.
    case retired
    /// An add of a landmark whose id the catalog has (`resv admin landmark set` changes it).
    case landmarkExists
    case cannotConfirmCancelled
    case cannotModifyCancelled
    case versionMismatch
    case invalidNote
    case nothingToUndo
    case undoConflict
    case undoInPast
    case nothingToRedo
    case invalidDays
    case invalidRequest
    case batchRejected
    case invalidHold
    case holdExpired
    case tooManyHolds
    case cannotConfirmWaitlisted
    /// A check-in or no-show of a reservation that is not pending or confirmed.
    case cannotAttend
    /// A second check-in or no-show (the message says when the first was).
    case alreadyAttended
    /// A no-show before the visit's time.
    case visitAhead
    case invalidCursor
    case cursorExpired
    // The protocol's.
    /// No calendar subscription at this address (`GET /calendar/{secret}.ics`).
    case calendarNotFound
    case invalidJSON
    case bodyTooLarge
    case idempotencyKeyReused
    case reservationIdInUse
    /// A keyed change sent after its client settled the key as not made (`POST /settle`): never made.
    case keySettled
    case unauthorized
    case forbidden
    case noRoute
    case rateLimited
    case internalError
    case invalidResponse
    /// The server is up but cannot reach its database (503 with Retry-After).
    case databaseUnavailable
    /// The database kept breaking the request's transaction (deadlocks, serialization
    /// failures) past the server's retries: 503 with Retry-After, safe to send again.
    case serverBusy

    /// What kind of failure a code is; each kind has one exit code (docs/contracts.md, "Exit codes").
    public enum Kind: Sendable, Equatable {
        /// The request itself is wrong: a bad date, party size, landmark, body (64).
        case invalidInput
        /// A valid request the data refuses: no such id, no room (1).
        case refused
        /// No token, a wrong one, or not allowed (77).
        case notAuthorised
        /// Try again later (75).
        case temporary
        /// The backend cannot do this: it failed, or lacks the route (69).
        case unavailable
        /// An answer that is not what the contract says (65).
        case badData
    }

    public var kind: Kind {
        switch self {
        case .invalidDate, .dateInPast, .invalidPartySize, .invalidStatus, .unknownLandmark, .ambiguousLandmark,
            .invalidReservationId, .invalidDays, .invalidRequest, .batchRejected, .invalidJSON, .bodyTooLarge,
            .idempotencyKeyReused, .reservationIdInUse, .invalidNote, .invalidHold, .invalidCursor:
            .invalidInput
        case .reservationNotFound, .ambiguousReservationId, .noCapacity, .closed, .retired, .landmarkExists,
            .cannotConfirmCancelled,
            .cannotModifyCancelled, .versionMismatch, .nothingToUndo, .undoConflict, .undoInPast, .nothingToRedo,
            .holdExpired,
            .tooManyHolds, .cannotConfirmWaitlisted, .cannotAttend, .alreadyAttended, .visitAhead, .cursorExpired,
            .calendarNotFound, .keySettled:
            .refused
        case .unauthorized, .forbidden:
            .notAuthorised
        case .rateLimited, .serverBusy:
            .temporary
        case .noRoute, .internalError, .databaseUnavailable:
            .unavailable
        case .invalidResponse:
            .badData
        }
    }
}

extension ReservationError {
    /// This error's code on the wire.
    public var code: ErrorCode {
        switch self {
        case .invalidDate: .invalidDate
        case .dateInPast: .dateInPast
        case .invalidPartySize: .invalidPartySize
        case .invalidInitialStatus: .invalidStatus
        case .unknownLandmark, .unknownLandmarkSuggesting: .unknownLandmark
        case .ambiguousLandmark: .ambiguousLandmark
        case .invalidReservationID: .invalidReservationId
        case .reservationNotFound, .seriesNotFound: .reservationNotFound
        case .ambiguousReservationID, .ambiguousSeries: .ambiguousReservationId
        case .noCapacity, .placesOver: .noCapacity
        case .closed: .closed
        case .retired: .retired
        case .cannotConfirmCancelled: .cannotConfirmCancelled
        case .cannotModifyCancelled: .cannotModifyCancelled
        case .versionMismatch: .versionMismatch
        case .reservationIDInUse: .reservationIdInUse
        case .invalidNote, .noteWithNUL: .invalidNote
        case .nothingToModify: .invalidRequest
        case .nothingToUndo: .nothingToUndo
        case .undoConflict, .redoConflict: .undoConflict
        case .undoInPast, .redoInPast: .undoInPast
        case .nothingToRedo: .nothingToRedo
        case .invalidDays: .invalidDays
        case .invalidRequestField, .invalidSeries: .invalidRequest
        case .batchRejected: .batchRejected
        case .invalidHold, .holdWithWaitlist: .invalidHold
        case .holdExpired: .holdExpired
        case .tooManyHolds: .tooManyHolds
        case .cannotConfirmWaitlisted: .cannotConfirmWaitlisted
        case .cannotAttend: .cannotAttend
        case .alreadyAttended: .alreadyAttended
        case .visitAhead: .visitAhead
        case .invalidCursor: .invalidCursor
        case .cursorExpired: .cursorExpired
        case .unexpectedCount: .invalidResponse
        case .unimplemented: .internalError
        case .refusedByServer(let code, _): code
        }
    }
}
