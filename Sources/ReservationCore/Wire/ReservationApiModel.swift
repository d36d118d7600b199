import Foundation

/// A reservation as a server or a store file holds it: untrusted and stringly typed.
public struct ReservationApiModel: Sendable, Hashable, Codable {
    public var id: String
    public var landmarkId: String?
    public var date: String?
    public var partySize: Int?
    public var status: String?
    public var note: String?
    public var createdAt: String?
    public var updatedAt: String?
    public var version: Int?
    /// A hold's end (status `held` or `expired`).
    public var expiresAt: String?
    /// A waitlisted reservation's order of joining, and the status it is promoted to.
    public var waitlistOrder: Int?
    public var requestedStatus: String?
    /// Never stored: a server's count of a waitlisted reservation's place on its day's list.
    public var waitlistPosition: Int?
    /// The series (a UUID) the reservation was booked in, if any.
    public var series: String?

    /// A record of the five fields every reservation has (each may be missing from an
    /// untrusted one); the others are set one by one.
    public init(id: String, landmarkId: String?, date: String?, partySize: Int?, status: String?) {
        self.id = id
        self.landmarkId = landmarkId
        self.date = date
        self.partySize = partySize
        self.status = status
    }

    /// The wire form of a domain reservation: the one mapping this way (`Reservation(_:catalog:)`
    /// is the other), a line per field.
    public init(_ reservation: Reservation) {
        self.init(
            id: reservation.id.description, landmarkId: reservation.landmark.id.description,
            date: DateTime.format(reservation.date), partySize: reservation.partySize,
            status: reservation.status.rawValue)
        note = reservation.note
        createdAt = reservation.createdAt.map(DateTime.format)
        updatedAt = reservation.updatedAt.map(DateTime.format)
        version = reservation.version
        expiresAt = reservation.expiresAt.map(DateTime.format)
        waitlistOrder = reservation.waitlistOrder
        requestedStatus = reservation.requestedStatus?.rawValue
        waitlistPosition = reservation.waitlistPosition
        series = reservation.series?.description
    }
}

// Reading one untrusted element at a time: a wrong type or a missing id rejects
// that element only, never the whole list.

extension ReservationApiModel {
    /// Decodes one element; a wrong type or a missing id rejects this element only.
    public init(json: JSONValue) throws(RejectionReason) {
        guard case .object(let fields) = json else {
            throw .malformed("expected an object, found \(json.typeName)")
        }
        // One pass over the fields instead of a hashed lookup per field; they are
        // then checked in a fixed order, so the reason given never depends on hashing.
        var idValue: JSONValue?
        var landmarkId: JSONValue?
        var date: JSONValue?
        var partySize: JSONValue?
        var status: JSONValue?
        var note: JSONValue?
        var createdAt: JSONValue?
        var updatedAt: JSONValue?
        var version: JSONValue?
        var expiresAt: JSONValue?
        var waitlistOrder: JSONValue?
        var requestedStatus: JSONValue?
        var waitlistPosition: JSONValue?
        var series: JSONValue?
        for (key, value) in fields {
            switch key {
            case "id": idValue = value
            case "landmarkId": landmarkId = value
            case "date": date = value
            case "partySize": partySize = value
            case "status": status = value
            case "note": note = value
            case "createdAt": createdAt = value
            case "updatedAt": updatedAt = value
            case "version": version = value
            case "expiresAt": expiresAt = value
            case "waitlistOrder": waitlistOrder = value
            case "requestedStatus": requestedStatus = value
            case "waitlistPosition": waitlistPosition = value
            case "series": series = value
            default: break
            }
        }
        guard let idValue, idValue != .null else { throw .malformed("id is missing") }
        guard case .string(let id) = idValue else { throw .malformed("id is \(idValue.typeName), not a string") }
        self.init(
            id: id, landmarkId: try Self.string(landmarkId, "landmarkId"), date: try Self.string(date, "date"),
            partySize: try Self.integer(partySize, "partySize"), status: try Self.string(status, "status"))
        // Stores older than notes may hold a "note" of their own shape: not ours, kept, not a rejection.
        if case .string(let text)? = note { self.note = text }
        self.createdAt = try Self.string(createdAt, "createdAt")
        self.updatedAt = try Self.string(updatedAt, "updatedAt")
        self.version = try Self.integer(version, "version")
        self.expiresAt = try Self.string(expiresAt, "expiresAt")
        self.waitlistOrder = try Self.integer(waitlistOrder, "waitlistOrder")
        self.requestedStatus = try Self.string(requestedStatus, "requestedStatus")
        self.waitlistPosition = try Self.integer(waitlistPosition, "waitlistPosition")
        self.series = try Self.string(series, "series")
    }

    private static func string(_ value: JSONValue?, _ key: String) throws(RejectionReason) -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let value)?: return value
        case let other?: throw .malformed("\(key) is \(other.typeName), not a string")
        }
    }

    private static func integer(_ value: JSONValue?, _ key: String) throws(RejectionReason) -> Int? {
        switch value {
        case nil, .null?: return nil
        case .integer(let value)?:
            guard let int = Int(exactly: value) else { throw .malformed("\(key) \(value) is out of range") }
            return int
        case .double(let value)?:
            guard let int = Int(exactly: value) else { throw .malformed("\(key) \(value) is not a whole number") }
            return int
        case .number(let text)?:
            throw .malformed("\(key) \(text.count > 24 ? text.prefix(24) + "…" : text) is out of range")
        case let other?: throw .malformed("\(key) is \(other.typeName), not a number")
        }
    }

    /// The record as JSON, for writing to a store.
    public var json: JSONValue {
        var fields: [String: JSONValue] = ["id": .string(id)]
        if let landmarkId { fields["landmarkId"] = .string(landmarkId) }
        if let date { fields["date"] = .string(date) }
        if let partySize { fields["partySize"] = .integer(Int64(partySize)) }
        if let status { fields["status"] = .string(status) }
        if let note { fields["note"] = .string(note) }
        if let createdAt { fields["createdAt"] = .string(createdAt) }
        if let updatedAt { fields["updatedAt"] = .string(updatedAt) }
        if let version { fields["version"] = .integer(Int64(version)) }
        if let expiresAt { fields["expiresAt"] = .string(expiresAt) }
        if let waitlistOrder { fields["waitlistOrder"] = .integer(Int64(waitlistOrder)) }
        if let requestedStatus { fields["requestedStatus"] = .string(requestedStatus) }
        if let waitlistPosition { fields["waitlistPosition"] = .integer(Int64(waitlistPosition)) }
        if let series { fields["series"] = .string(series) }
        return .object(fields)
    }
}

/// The body of a create: what a client asks a backend to book.
public struct CreateReservationRequest: Sendable, Hashable, Codable {
    public var landmarkId: String
    public var date: String
    public var partySize: Int
    /// Optional on the wire; a backend books `confirmed` when absent.
    public var status: String?
    /// Optional: free text kept with the reservation.
    public var note: String?
    /// Optional: hold the places this many seconds (status `held`).
    public var hold: Int?
    /// Optional: when the day is full, join its waitlist instead of being refused.
    public var waitlist: Bool?
    /// Optional, `POST /reservations` only: the id the client made for the booking
    /// (docs/contracts.md, "Offline"), so sending it again books nothing twice.
    public var id: String?
    /// Optional: the series (a UUID the client made) the booking belongs to (`reserve --every`).
    public var series: String?

    public init(
        landmarkId: String, date: String, partySize: Int, status: String? = nil, note: String? = nil,
        hold: Int? = nil, waitlist: Bool? = nil, id: String? = nil, series: String? = nil
    ) {
        self.id = id
        self.series = series
        self.landmarkId = landmarkId
        self.date = date
        self.partySize = partySize
        self.status = status
        self.note = note
        self.hold = hold
        self.waitlist = waitlist
    }
}

extension CreateReservationRequest {
    /// The request as JSON, as it goes to a server; an absent status is left out.
    public var json: JSONValue {
        var fields: [String: JSONValue] = [
            "landmarkId": .string(landmarkId), "date": .string(date), "partySize": .integer(Int64(partySize)),
        ]
        if let status { fields["status"] = .string(status) }
        if let note { fields["note"] = .string(note) }
        if let hold { fields["hold"] = .integer(Int64(hold)) }
        if waitlist == true { fields["waitlist"] = .bool(true) }
        if let id { fields["id"] = .string(id) }
        if let series { fields["series"] = .string(series) }
        return .object(fields)
    }

    /// Reads a request from untrusted JSON, naming the field at fault.
    public init(json: JSONValue) throws(ReservationError) {
        guard case .object = json else {
            throw .invalidRequestField("the request", "must be a JSON object, not \(json.typeName)")
        }
        func text(_ field: String) throws(ReservationError) -> String? {
            switch json[field] {
            case nil, .null?: return nil
            case .string(let value)?: return value
            case let other?: throw .invalidRequestField(field, "must be a string, not \(other.typeName)")
            }
        }
        guard let landmarkId = try text("landmarkId") else { throw .invalidRequestField("landmarkId", "is missing") }
        guard let date = try text("date") else { throw .invalidRequestField("date", "is missing") }
        let partySize: Int
        switch json["partySize"] {
        case nil, .null?: throw .invalidRequestField("partySize", "is missing")
        case .integer(let value)?:
            guard let exact = Int(exactly: value) else { throw .invalidRequestField("partySize", "is out of range") }
            partySize = exact
        case .number?: throw .invalidRequestField("partySize", "is out of range")
        case let other?: throw .invalidRequestField("partySize", "must be a whole number, not \(other.typeName)")
        }
        var hold: Int?
        switch json["hold"] {
        case nil, .null?: break
        case .integer(let value)?: hold = Int(exactly: value) ?? (value < 0 ? Int.min : Int.max)
        case .double(let value)? where value.isFinite && value == value.rounded():
            hold = value < Double(Int.min) ? Int.min : value > Double(Int.max) ? Int.max : Int(value)
        case .number?, .double?: hold = Int.max
        case let other?: throw .invalidRequestField("hold", "must be a whole number of seconds, not \(other.typeName)")
        }
        var waitlist: Bool?
        switch json["waitlist"] {
        case nil, .null?: break
        case .bool(let value)?: waitlist = value
        case let other?: throw .invalidRequestField("waitlist", "must be true or false, not \(other.typeName)")
        }
        self.init(
            landmarkId: landmarkId, date: date, partySize: partySize, status: try text("status"),
            note: try text("note"),
            hold: hold, waitlist: waitlist, id: try text("id"), series: try text("series"))
    }
}

extension ReservationApiModel {
    /// When a `held` record's hold ends; nil for any other record, or one whose `expiresAt` is no date.
    public var holdEnd: Date? {
        guard status == Reservation.Status.held.rawValue, let text = expiresAt else { return nil }
        return try? DateTime.parse(text)
    }

    /// As it reads at `now`: a hold that has ended is `expired`, whether or not
    /// its expiry has been recorded yet (`Reservation.settled(at:)` for a stored record).
    public func settled(at now: Date) -> ReservationApiModel {
        guard let raw = status, let status = Reservation.Status(rawValue: raw),
            Reservation.holdEnded(status, expiresAt: holdEnd, at: now)
        else { return self }
        var record = self
        record.status = Reservation.Status.expired.rawValue
        return record
    }
}
