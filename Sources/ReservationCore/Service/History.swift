import Foundation

/// One change of a reservation, as the history keeps it: when, what kind,
/// the reservation's wire record before and after, and the command it was part
/// of (every change of one command shares its id, so an undo can take back the
/// command as one step). Kept in the same atomic write as the change itself.
public struct HistoryEntry: Sendable, Hashable {
    public enum Change: String, Sendable, Hashable, CaseIterable {
        case created, modified, confirmed, cancelled, undone
        /// `resv checkin` and `resv noshow` (docs/contracts.md, "Check-in and no-shows").
        case checkedIn = "checked-in"
        case noShow = "no-show"
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
    /// On a server, who made the change: the user and the public id of their token (never the token).
    /// Absent from entries written before actors were kept, from the system's changes, and on the file
    /// store, whose changes are all its owner's.
    public var actor: HistoryActor?
    /// Why the change was made, when it was not the owner's own: a day closed or its
    /// capacity lowered (`closed: rockfall`). Absent from older entries.
    public var reason: String?

    public init(
        at: Date, change: Change, reservationID: Reservation.ID, before: ReservationApiModel?,
        after: ReservationApiModel, command: String, user: String? = nil, undoes: String? = nil,
        actor: HistoryActor? = nil,
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
        self.actor = actor
        self.reason = reason
    }

    /// The actor to name beside the change, when it is not the owner (`user`): nil for the owner's own
    /// changes, the system's, and entries without an actor.
    public var otherActor: HistoryActor? {
        guard let actor, actor.user != user else { return nil }
        return actor
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
        if let actor { fields["actor"] = actor.json }
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
            undoes: undoes, actor: json["actor"].flatMap(HistoryActor.init(json:)), reason: reason)
    }
}

/// Who made a change on a server: the user's name and their token's public id
/// (`resv-server token list` shows it), never the token or its hash.
public struct HistoryActor: Sendable, Hashable {
    public var user: String
    public var token: String?

    public init(user: String, token: String? = nil) {
        self.user = user
        self.token = token
    }

    /// `{"user": NAME, "token": ID}`, the token left out when unknown.
    public var json: JSONValue {
        var fields: [String: JSONValue] = ["user": .string(user)]
        if let token { fields["token"] = .string(token) }
        return .object(fields)
    }

    /// Reads a stored actor; nil when it is not one.
    public init?(json: JSONValue) {
        guard case .string(let user)? = json["user"] else { return nil }
        var token: String?
        if case .string(let id)? = json["token"] { token = id }
        self.init(user: user, token: token)
    }
}
