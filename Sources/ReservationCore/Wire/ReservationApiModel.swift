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
            createdAt: reservation.createdAt.map(DateTime.format),
            updatedAt: reservation.updatedAt.map(DateTime.format),
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
    /// Optional: free text kept with the reservation.
    public var note: String?

    public init(landmarkId: String, date: String, partySize: Int, status: String? = nil, note: String? = nil) {
        self.landmarkId = landmarkId
        self.date = date
        self.partySize = partySize
        self.status = status
        self.note = note
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
        self.init(
            landmarkId: landmarkId, date: date, partySize: partySize, status: try text("status"), note: try text("note")
        )
    }
}
