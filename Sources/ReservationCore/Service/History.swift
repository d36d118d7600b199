import Foundation

/// One change of a reservation, as the history keeps it: when, what kind,
/// the reservation's wire record before and after, and the command it was part
/// of (every change of one command shares its id, so an undo can take back the
/// command as one step). Kept in the same atomic write as the change itself.
public struct HistoryEntry: Sendable, Hashable {
    public enum Change: String, Sendable, Hashable, CaseIterable {
        case created, modified, confirmed, cancelled, undone
        /// A redo's change: an undo's change taken back.
        case redone
        /// The system's changes, never a user's command: a waitlisted
        /// reservation given places, a hold that ended.
        case promoted, expired

        /// Whether the system made this change (an undo never takes one back).
        public var isSystem: Bool { self == .promoted || self == .expired }
    }

    public var at: Date
    public var change: Change
    public var reservationID: Reservation.ID
    /// The record before the change; nil for `created`.
    public var before: ReservationApiModel?
    public var after: ReservationApiModel
    /// The command this change belongs to.
    public var command: String
    /// On a server, the user who made it.
    public var user: String?
    /// For an `undone` change: the command it took back; for a `redone` change: the undo it took back.
    public var undoes: String?
    /// Why the change was made, when it was not the owner's own: a day closed or its
    /// capacity lowered (`closed: rockfall`). Absent from older entries.
    public var reason: String?

    public init(
        at: Date, change: Change, reservationID: Reservation.ID, before: ReservationApiModel?,
        after: ReservationApiModel, command: String, user: String? = nil, undoes: String? = nil,
        reason: String? = nil
    ) {
        self.at = at
        self.change = change
        self.reservationID = reservationID
        self.before = before
        self.after = after
        self.command = command
        self.user = user
        self.undoes = undoes
        self.reason = reason
    }

    /// The entry as stored and as `resv log --json` prints it.
    public var json: JSONValue {
        var fields: [String: JSONValue] = [
            "at": .string(DateTime.format(at)), "change": .string(change.rawValue),
            "reservationId": .string(reservationID.description), "after": after.json, "command": .string(command),
        ]
        if let before { fields["before"] = before.json }
        if let user { fields["user"] = .string(user) }
        if let undoes { fields["undoes"] = .string(undoes) }
        if let reason { fields["reason"] = .string(reason) }
        return .object(fields)
    }

    /// Reads a stored entry; nil when it is not one (an entry of a newer resv, a damaged one).
    public init?(json: JSONValue) {
        guard case .string(let atText)? = json["at"], let at = try? DateTime.parse(atText),
            case .string(let changeText)? = json["change"], let change = Change(rawValue: changeText),
            case .string(let idText)? = json["reservationId"], let id = Reservation.ID(idText),
            let afterJSON = json["after"], let after = try? ReservationApiModel(json: afterJSON),
            case .string(let command)? = json["command"]
        else { return nil }
        var before: ReservationApiModel?
        if let beforeJSON = json["before"], beforeJSON != .null {
            guard let parsed = try? ReservationApiModel(json: beforeJSON) else { return nil }
            before = parsed
        }
        var user: String?
        if case .string(let name)? = json["user"] { user = name }
        var undoes: String?
        if case .string(let undone)? = json["undoes"] { undoes = undone }
        var reason: String?
        if case .string(let why)? = json["reason"] { reason = why }
        self.init(
            at: at, change: change, reservationID: id, before: before, after: after, command: command, user: user,
            undoes: undoes, reason: reason)
    }
}
