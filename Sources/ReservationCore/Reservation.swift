import Foundation

/// A booked visit. Every field is present and valid: values come only from
/// the mapping of a `ReservationApiModel` or from a backend creating one.
public struct Reservation: Sendable, Hashable, Identifiable {
    /// A reservation's identity; distinct from a landmark's so the two cannot be swapped.
    public typealias ID = EntityID<Reservation>

    public enum Status: String, Sendable, Hashable, CaseIterable, Codable {
        case pending, confirmed, cancelled

        /// Pending and confirmed reservations are active; cancelled ones are history.
        public var isActive: Bool { self != .cancelled }
    }

    public let id: ID
    public let landmark: Landmark
    public let date: Date
    public let partySize: Int
    public let status: Status
    /// Free text the user attached, at most `noteLimit` characters; nil when none.
    public let note: String?
    /// When the reservation was made and last changed, in whole seconds; nil in
    /// records written before these were kept (a server's rows always have them).
    public let createdAt: Date?
    public let updatedAt: Date?
    /// Grows by one with every change; 1 when created, and for records written
    /// before versions were kept (they count as never changed since).
    public let version: Int

    /// The longest note, in characters: a line or two, not a document.
    public static let noteLimit = 500

    /// The documented party sizes (DESIGN.md): 1 to 10,000, on every path and in the
    /// mapping. The bound also keeps every sum of party sizes far from overflowing.
    public static let partySizes: ClosedRange<Int> = 1...10_000

    public init(
        id: ID, landmark: Landmark, date: Date, partySize: Int, status: Status, note: String? = nil,
        createdAt: Date? = nil, updatedAt: Date? = nil, version: Int = 1
    ) {
        self.id = id
        self.landmark = landmark
        self.date = date
        self.partySize = partySize
        self.status = status
        self.note = note
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.version = version
    }

    /// The same reservation with another status (the same version: see `changed`).
    public func with(status: Status) -> Reservation {
        Reservation(
            id: id, landmark: landmark, date: date, partySize: partySize, status: status, note: note,
            createdAt: createdAt, updatedAt: updatedAt, version: version)
    }

    /// This reservation after one change made at `now`: the next version.
    public func changed(
        landmark: Landmark? = nil, date: Date? = nil, partySize: Int? = nil, status: Status? = nil,
        note: String?? = .none, at now: Date
    ) -> Reservation {
        Reservation(
            id: id, landmark: landmark ?? self.landmark, date: date ?? self.date, partySize: partySize ?? self.partySize,
            status: status ?? self.status, note: note ?? self.note, createdAt: createdAt,
            updatedAt: Timestamp.whole(now), version: version + 1)
    }

    /// Whether `note` may be stored: at most `noteLimit` characters.
    public static func isValidNote(_ note: String) -> Bool { note.count <= noteLimit }
}

/// Times of records are kept in whole seconds, as they are written.
public enum Timestamp {
    public static func whole(_ date: Date) -> Date {
        Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
    }
}

extension EntityID where Entity == Reservation {
    /// The first eight hex digits, enough to name a reservation in most stores.
    public var short: String { String(description.prefix(8)) }
}

extension Collection where Element == Reservation {
    /// Reservations that are not cancelled.
    public var active: [Reservation] { filter { $0.status.isActive } }
    public var pending: [Reservation] { filter { $0.status == .pending } }
    public var confirmed: [Reservation] { filter { $0.status == .confirmed } }
    public var cancelled: [Reservation] { filter { $0.status == .cancelled } }

    /// Sorted by date, then by id so equal dates keep a stable order.
    public var sortedByDate: [Reservation] {
        // Sorting small keys and gathering once moves each reservation (and its
        // landmark's fields) once instead of at every step of the sort.
        let reservations = Array(self)
        var keys = reservations.indices.map { (date: reservations[$0].date, id: reservations[$0].id, index: $0) }
        keys.sort { ($0.date, $0.id) < ($1.date, $1.id) }
        return keys.map { reservations[$0.index] }
    }
}

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

    public init(
        id: String, landmarkId: String?, date: String?, partySize: Int?, status: String?, note: String? = nil,
        createdAt: String? = nil, updatedAt: String? = nil, version: Int? = nil
    ) {
        self.id = id
        self.landmarkId = landmarkId
        self.date = date
        self.partySize = partySize
        self.status = status
        self.note = note
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.version = version
    }

    /// The wire form of a domain reservation.
    public init(_ reservation: Reservation) {
        self.init(
            id: reservation.id.description, landmarkId: reservation.landmark.id.description,
            date: DateTime.format(reservation.date), partySize: reservation.partySize,
            status: reservation.status.rawValue, note: reservation.note,
            createdAt: reservation.createdAt.map(DateTime.format), updatedAt: reservation.updatedAt.map(DateTime.format),
            version: reservation.version
        )
    }
}

/// The body of a create: what a client asks a backend to book.
public struct CreateReservationRequest: Sendable, Hashable, Codable {
    public var landmarkId: String
    public var date: String
    public var partySize: Int
    /// Optional on the wire; a backend books `confirmed` when absent.
    public var status: String?

    public init(landmarkId: String, date: String, partySize: Int, status: String? = nil) {
        self.landmarkId = landmarkId
        self.date = date
        self.partySize = partySize
        self.status = status
    }
}

extension CreateReservationRequest {
    /// The request as JSON, as it goes to a server; an absent status is left out.
    public var json: JSONValue {
        var fields: [String: JSONValue] = [
            "landmarkId": .string(landmarkId), "date": .string(date), "partySize": .integer(Int64(partySize)),
        ]
        if let status { fields["status"] = .string(status) }
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
        self.init(landmarkId: landmarkId, date: date, partySize: partySize, status: try text("status"))
    }
}
