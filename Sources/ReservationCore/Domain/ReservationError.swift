import Foundation

extension DateTime {
    /// Parses a date a user or client gave; a refusal is the reservation layer's `invalidDate`.
    public static func parseInput(_ text: String) throws(ReservationError) -> Date {
        do { return try parse(text) } catch { throw .invalidDate(error) }
    }
}

/// Every failure of the reservation layer, the same for every backend.
public enum ReservationError: Error, Sendable, LocalizedError {
    /// A date the user typed or sent did not parse.
    case invalidDate(DateParseError)
    /// A new reservation must be in the future.
    case dateInPast(Date)
    /// Party sizes are whole numbers above zero.
    case invalidPartySize(Int)
    /// A new reservation starts pending or confirmed, never cancelled.
    case invalidInitialStatus(String)
    /// No landmark has this id, id prefix or name.
    case unknownLandmark(String)
    /// No landmark matches; these names are the closest to what was typed.
    case unknownLandmarkSuggesting(String, [String])
    /// A landmark id prefix or name matches several landmarks.
    case ambiguousLandmark(String, [Landmark])
    /// A reservation id or prefix that is not hex digits, or too short.
    case invalidReservationID(String)
    /// No reservation has this id or prefix.
    case reservationNotFound(String)
    /// An id prefix matches several reservations.
    case ambiguousReservationID(String, [Reservation])
    /// The landmark is full on that day.
    case noCapacity(Landmark, day: String, requested: Int, booked: Int)
    /// The landmark is closed on that day (`resv admin close`), for this reason.
    case closed(Landmark, day: String, reason: String)
    /// The landmark is retired (`resv admin landmark retire`): it takes no new bookings.
    case retired(Landmark)
    /// A capacity lowered, or a day closed, below the places taken, without saying what happens
    /// to the parties over: `over` places in all, on these days.
    case placesOver(Landmark, over: Int, days: [String])
    /// A cancelled reservation cannot be confirmed.
    case cannotConfirmCancelled(Reservation)
    /// A cancelled reservation cannot be modified.
    case cannotModifyCancelled(Reservation)
    /// The reservation changed since it was read: its version is no longer the one expected.
    case versionMismatch(Reservation.ID, expected: Int, current: Int?)
    /// A reservation id a client made (docs/contracts.md "Offline") that already names
    /// another booking: another user's, or this user's made by a different request.
    case reservationIDInUse(Reservation.ID)
    /// A note longer than `Reservation.noteLimit` characters (its length).
    case invalidNote(Int)
    /// A note holding a NUL character, which not every engine can keep.
    case noteWithNUL
    /// A modify that names nothing to change.
    case nothingToModify
    /// `undo` found no command of this user left to take back.
    case nothingToUndo
    /// `undo` cannot take the command back: this reservation changed after it.
    case undoConflict(Reservation.ID, command: String)
    /// `undo` cannot take the command back: this reservation would be active
    /// again on a date that has passed (a move back to an old day, a cancel after its day).
    case undoInPast(Reservation.ID, Date, command: String)
    /// `redo` found no undo to take back: none since the user's last change, or every one redone.
    case nothingToRedo
    /// `redo` cannot take the undo back: this reservation changed after it.
    case redoConflict(Reservation.ID, undo: String)
    /// `redo` cannot take the undo back: this reservation would be active again
    /// on a date that has passed.
    case redoInPast(Reservation.ID, Date, undo: String)
    /// A day or a range of days (for availability) that is not usable.
    case invalidDays(String)
    /// A request field is missing or of the wrong type.
    case invalidRequestField(String, String)
    /// Some requests of a batch were refused, so none was booked. Each failure
    /// carries the request's index in the batch.
    case batchRejected([BatchFailure], total: Int)
    /// A backend answered a different number of reservations than requested.
    case unexpectedCount(expected: Int, got: Int)
    /// A hold (as given: `25h`, `0s`) outside 1 s to 24 h.
    case invalidHold(String)
    /// A request asked both to hold places and to wait for them.
    case holdWithWaitlist
    /// A series (`reserve --every`) that cannot be booked as asked: why.
    case invalidSeries(String)
    /// No reservation of the user is in a series this id or prefix (as typed) names.
    case seriesNotFound(String)
    /// A series prefix (as typed) that names more than one series.
    case ambiguousSeries(String, [Reservation.SeriesID])
    /// The hold ended before it was confirmed.
    case holdExpired(Reservation)
    /// The user already holds `limit` live holds (a server's cap).
    case tooManyHolds(limit: Int)
    /// A waitlisted reservation is confirmed by its promotion, not by the user.
    case cannotConfirmWaitlisted(Reservation)
    /// A check-in or a no-show of a reservation whose status is neither pending nor confirmed
    /// (held, waitlisted, cancelled, expired, or the other of the two).
    case cannotAttend(Reservation, as: Reservation.Status)
    /// A second check-in (or no-show) of a reservation: when the first was recorded.
    case alreadyAttended(Reservation)
    /// A no-show marked before the visit's time.
    case visitAhead(Reservation)
    /// A change feed's cursor that is not one of this backend's for this user (as given).
    case invalidCursor(String)
    /// A change feed's cursor from before the history kept (or from a history since replaced).
    case cursorExpired
    /// A `ReservationService.unimplemented` endpoint was called.
    case unimplemented(String)
    /// A refusal a server explained with its code and its words (the same words
    /// the file backend prints for the same failure, as the server writes them
    /// from this type).
    case refusedByServer(ErrorCode, String)

    public var errorDescription: String? {
        switch self {
        case .invalidDate(let error):
            return error.errorDescription
        case .dateInPast(let date):
            return "\(DateTime.format(date)) is in the past: a new reservation needs a future date"
        case .invalidPartySize(let size):
            return "party size \(size) is invalid: it must be from 1 to 10,000"
        case .invalidInitialStatus(let status):
            return "a new reservation cannot be '\(status.quoted())': use pending or confirmed"
        case .unknownLandmark(let text):
            return "no landmark matches '\(text.quoted())' (see 'resv landmarks')"
        case .unknownLandmarkSuggesting(let text, let names):
            let options = names.map { "'\($0)'" }.joined(separator: " or ")
            return "no landmark matches '\(text.quoted())': did you mean \(options)? (see 'resv landmarks')"
        case .ambiguousLandmark(let text, let candidates):
            let names = candidates.map { "\($0.id.description.prefix(8)) \($0.name)" }.joined(separator: ", ")
            return "'\(text.quoted())' matches \(candidates.count) landmarks: \(names); give more of the name or id"
        case .invalidReservationID(let text):
            return "'\(text.quoted())' is not a reservation id: give the id or at least its first 4 hex digits"
        case .reservationNotFound(let text):
            return "no reservation matches '\(text.quoted())' (see 'resv list --all')"
        case .ambiguousReservationID(let text, let candidates):
            let list = candidates.sortedByDate.map {
                "\($0.id.short) (\($0.landmark.name), \(DateTime.format($0.date)), \($0.status.rawValue))"
            }
            return
                "'\(text.quoted())' matches \(candidates.count) reservations: \(list.joined(separator: ", ")); give more digits"
        case .noCapacity(let landmark, let day, let requested, let booked):
            let capacity = landmark.capacity ?? 0
            if requested > capacity {
                return "a party of \(requested) is larger than \(landmark.name)'s capacity of \(capacity) a day"
            }
            return "\(landmark.name) is full on \(day): \(booked) of \(capacity) places taken, \(requested) requested"
        case .cannotConfirmCancelled(let reservation) where reservation.status.isAttendance,
            .cannotModifyCancelled(let reservation) where reservation.status.isAttendance:
            return "reservation \(reservation.id.short) is \(reservation.status.rawValue): its visit is recorded "
                + "and does not change ('resv undo' takes the \(reservation.status.rawValue) back); nothing changed"
        case .closed(let landmark, let day, let reason):
            return "\(landmark.name) is closed on \(day): \(reason.quoted(limit: 600))"
        case .retired(let landmark):
            return "\(landmark.name) is retired: it takes no new bookings (those made before are kept)"
        case .placesOver(let landmark, let over, let days):
            let listed = days.prefix(3).joined(separator: ", ") + (days.count > 3 ? " and \(days.count - 3) more" : "")
            return "\(over) \(over == 1 ? "place is" : "places are") over at \(landmark.name) on \(listed); "
                + "nothing changed: give --cancel or --waitlist to say what happens to the parties over"
        case .cannotConfirmCancelled(let reservation):
            return "reservation \(reservation.id.short) is \(reservation.status.rawValue) and cannot be confirmed; "
                + "make a new reservation"
        case .cannotModifyCancelled(let reservation):
            return "reservation \(reservation.id.short) is \(reservation.status.rawValue) and cannot be modified; "
                + "make a new reservation"
        case .invalidHold(let given):
            return "a hold of \(given.quoted()) is out of range: hold from 1s to 24h (e.g. 90s, 10m, 2h)"
        case .holdWithWaitlist:
            return "a reservation is either held (--hold) or waitlisted (--waitlist), not both"
        case .invalidSeries(let why):
            return why
        case .seriesNotFound(let text):
            return "no reservation is in a series matching '\(text.quoted())' "
                + "(give a series' id or one of its visits' ids, as 'resv list' shows them)"
        case .ambiguousSeries(let text, let series):
            return "'\(text.quoted())' matches \(series.count) series: "
                + "\(series.sorted().map(\.short).joined(separator: ", ")); give more digits"
        case .holdExpired(let reservation):
            let end = reservation.expiresAt.map { " at \(DateTime.format($0))" } ?? ""
            return "the hold on reservation \(reservation.id.short) expired\(end) and cannot be confirmed; "
                + "make a new reservation"
        case .tooManyHolds(let limit):
            return "you already hold \(limit) places that have not expired, the most allowed: "
                + "confirm or cancel one first"
        case .cannotConfirmWaitlisted(let reservation):
            return "reservation \(reservation.id.short) is waitlisted: it is confirmed when places free, "
                + "not by confirm (see 'resv show \(reservation.id.short)')"
        case .cannotAttend(let reservation, let status):
            let what = status == .noShow ? "marked a no-show" : "checked in"
            return "reservation \(reservation.id.short) is \(reservation.status.rawValue) and cannot be \(what): "
                + "only a pending or confirmed one can; nothing changed"
        case .alreadyAttended(let reservation):
            let what = reservation.status == .noShow ? "marked a no-show" : "checked in"
            let when = reservation.updatedAt.map { " at \(DateTime.format($0))" } ?? ""
            return "reservation \(reservation.id.short) was already \(what)\(when); nothing changed"
        case .visitAhead(let reservation):
            return "reservation \(reservation.id.short)'s visit is at \(DateTime.format(reservation.date)), "
                + "still ahead: a no-show is marked after it; nothing changed"
        case .invalidCursor(let text):
            return
                "'\(text.quoted(limit: 60))' is not a cursor of this store for you: use one resv watch printed for it"
        case .cursorExpired:
            return "the cursor is older than the history kept: re-read with resv list, then watch from now"
        case .versionMismatch(let id, let expected, let current):
            let now = current.map { ", now \($0)" } ?? ""
            return "reservation \(id.short) changed since it was read (version \(expected)\(now)), nothing changed: "
                + "look at it again ('resv show \(id.short)') and retry"
        case .reservationIDInUse(let id):
            return "reservation id \(id) is already used by another booking; nothing was booked: send it with a new id"
        case .noteWithNUL:
            return "the note holds a NUL character, which cannot be kept: leave it out"
        case .invalidNote(let length):
            return "the note has \(length) characters: at most \(Reservation.noteLimit) are kept"
        case .nothingToModify:
            return "nothing to change: give --date, --party-size, --landmark or --note"
        case .nothingToUndo:
            return "nothing to undo: every change recorded has been undone, or none was made"
        case .undoConflict(let id, let command):
            return "cannot undo command \(command.prefix(8)): reservation \(id.short) changed after it "
                + "(see 'resv log \(id.short)'); nothing changed"
        case .undoInPast(let id, let date, let command):
            return "cannot undo command \(command.prefix(8)): reservation \(id.short) would be active again on "
                + "\(DateTime.format(date)), which has passed; nothing changed"
        case .nothingToRedo:
            return "nothing to redo: no undo since your last change ('resv redo' takes back an undo while nothing "
                + "else changed since)"
        case .redoConflict(let id, let undo):
            return "cannot redo undo \(undo.prefix(8)): reservation \(id.short) changed after it "
                + "(see 'resv log \(id.short)'); nothing changed"
        case .redoInPast(let id, let date, let undo):
            return "cannot redo undo \(undo.prefix(8)): reservation \(id.short) would be active again on "
                + "\(DateTime.format(date)), which has passed; nothing changed"
        case .invalidDays(let problem):
            return problem
        case .invalidRequestField(let field, let problem):
            return "\(field) \(problem.quoted(limit: 600))"
        case .batchRejected(let failures, let total):
            let listed = failures.prefix(3).map { "request \($0.index + 1): \($0.error.localizedDescription)" }
            let more = failures.count > 3 ? "; and \(failures.count - 3) more" : ""
            return "\(failures.count) of \(total) requests refused, nothing reserved: "
                + listed.joined(separator: "; ") + more
        case .unexpectedCount(let expected, let got):
            return "the backend returned \(got) reservations for \(expected) requests"
        case .unimplemented(let endpoint):
            return "\(endpoint) is not implemented"
        case .refusedByServer(_, let reason):
            // A server's words, which quote values of their own: bounded like one.
            return reason.quoted(limit: 600)
        }
    }
}

/// One refused request of a batch: its position (from 0) and why.
public struct BatchFailure: Sendable {
    public let index: Int
    public let error: ReservationError

    public init(index: Int, error: ReservationError) {
        self.index = index
        self.error = error
    }
}
