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
