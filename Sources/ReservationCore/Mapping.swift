import Foundation

// The one mapping from untrusted API models to domain models. Every record the
// tool reads, from a file or a server, passes through here; a record that fails
// is reported with its reason and never silently dropped or deleted.

/// Why a reservation record does not map to a `Reservation`.
public enum RejectionReason: Error, Sendable, Hashable, CustomStringConvertible {
    /// The element is not an object, or a field has the wrong JSON type.
    case malformed(String)
    case invalidReservationID(String)
    case duplicateReservationID(String)
    case missingLandmarkID
    case invalidLandmarkID(String)
    case unknownLandmark(String)
    /// The landmark exists in the data but itself fails its mapping.
    case invalidLandmark(String, LandmarkRejection)
    case missingDate
    case invalidDate(String)
    case missingPartySize
    case invalidPartySize(Int)
    case missingStatus
    case unknownStatus(String)
    /// A note longer than `Reservation.noteLimit` characters (its length).
    case invalidNote(Int)
    /// `createdAt` or `updatedAt` (the field, the text) is not an ISO 8601 date-time.
    case invalidTimestamp(String, String)
    /// A version below 1.
    case invalidVersion(Int)

    /// A stable key for counting reasons, used in `fetch --json`.
    public var code: String {
        switch self {
        case .malformed: "malformed"
        case .invalidReservationID: "invalidId"
        case .duplicateReservationID: "duplicateId"
        case .missingLandmarkID: "missingLandmarkId"
        case .invalidLandmarkID: "invalidLandmarkId"
        case .unknownLandmark: "unknownLandmark"
        case .invalidLandmark: "invalidLandmark"
        case .missingDate: "missingDate"
        case .invalidDate: "invalidDate"
        case .missingPartySize: "missingPartySize"
        case .invalidPartySize: "invalidPartySize"
        case .missingStatus: "missingStatus"
        case .unknownStatus: "unknownStatus"
        case .invalidNote: "invalidNote"
        case .invalidTimestamp: "invalidTimestamp"
        case .invalidVersion: "invalidVersion"
        }
    }

    /// A short phrase for counts ("3 invalid date").
    public var summary: String {
        switch self {
        case .malformed: "malformed record"
        case .invalidReservationID: "invalid id"
        case .duplicateReservationID: "duplicate id"
        case .missingLandmarkID: "missing landmark id"
        case .invalidLandmarkID: "invalid landmark id"
        case .unknownLandmark: "unknown landmark"
        case .invalidLandmark: "invalid landmark"
        case .missingDate: "missing date"
        case .invalidDate: "invalid date"
        case .missingPartySize: "missing party size"
        case .invalidPartySize: "invalid party size"
        case .missingStatus: "missing status"
        case .unknownStatus: "unknown status"
        case .invalidNote: "note too long"
        case .invalidTimestamp: "invalid timestamp"
        case .invalidVersion: "invalid version"
        }
    }

    public var description: String {
        switch self {
        case .malformed(let detail): "malformed record: \(detail)"
        case .invalidReservationID(let id): "id '\(id)' is not a UUID"
        case .duplicateReservationID(let id): "id \(id) appears more than once"
        case .missingLandmarkID: "landmarkId is missing"
        case .invalidLandmarkID(let id): "landmarkId '\(id)' is not a UUID"
        case .unknownLandmark(let id): "landmark \(id) is not in the catalog"
        case .invalidLandmark(let id, let why): "landmark \(id) is invalid: \(why)"
        case .missingDate: "date is missing"
        case .invalidDate(let text):
            if case .failure(let error) = Result(catching: { () throws(DateParseError) in try DateTime.parse(text) }) {
                "date '\(text)' is invalid: \(error.explanation)"
            } else {
                "date '\(text)' is invalid"
            }
        case .missingPartySize: "partySize is missing"
        case .invalidPartySize(let size): "partySize \(size) is not from 1 to 10000"
        case .missingStatus: "status is missing"
        case .unknownStatus(let status): "status '\(status)' is not pending, confirmed or cancelled"
        case .invalidNote(let length): "note has \(length) characters, more than \(Reservation.noteLimit)"
        case .invalidTimestamp(let field, let text):
            "\(field) '\(text.count > 40 ? text.prefix(40) + "…" : text)' is not an ISO 8601 date-time"
        case .invalidVersion(let version): "version \(version) is not 1 or more"
        }
    }
}

/// Why a landmark record does not map to a `Landmark`.
public enum LandmarkRejection: Error, Sendable, Hashable, CustomStringConvertible {
    case malformed(String)
    case missingID
    case invalidID(String)
    case duplicateID(String)
    case missingName
    case missingLocation
    case missingCategory
    case unknownCategory(String)
    case invalidCapacity(Int)
    case unknownTimeZone(String)

    public var description: String {
        switch self {
        case .malformed(let detail): "malformed landmark: \(detail)"
        case .missingID: "id is missing"
        case .invalidID(let id): "id '\(id)' is not a UUID"
        case .duplicateID(let id): "id \(id) appears more than once"
        case .missingName: "name is missing or blank"
        case .missingLocation: "location is missing or blank"
        case .missingCategory: "category is missing"
        case .unknownCategory(let category): "category '\(category)' is not mountains, lakes or bridges"
        case .invalidCapacity(let capacity): "capacity \(capacity) is not greater than 0"
        case .unknownTimeZone(let zone): "time zone '\(zone)' is not a known IANA zone"
        }
    }
}

/// A record that did not map: where it was, its id if it had one, and why.
public struct RejectedRecord: Sendable, Hashable {
    /// Position of the record in the file or response, from 0.
    public var index: Int
    public var id: String?
    public var reason: RejectionReason

    public init(index: Int, id: String?, reason: RejectionReason) {
        self.index = index
        self.id = id
        self.reason = reason
    }
}

/// A landmark record that did not map.
public struct RejectedLandmark: Sendable, Hashable {
    public var index: Int
    public var id: String?
    public var reason: LandmarkRejection
}

// MARK: - Lenient decoding of one element

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
            default: break
            }
        }
        guard let idValue, idValue != .null else { throw .malformed("id is missing") }
        guard case .string(let id) = idValue else { throw .malformed("id is \(idValue.typeName), not a string") }
        self.init(
            id: id,
            landmarkId: try Self.string(landmarkId, "landmarkId"),
            date: try Self.string(date, "date"),
            partySize: try Self.integer(partySize, "partySize"),
            status: try Self.string(status, "status"),
            // Stores older than notes may hold a "note" of their own shape: not ours, kept, not a rejection.
            note: { if case .string(let text)? = note { text } else { nil } }(),
            createdAt: try Self.string(createdAt, "createdAt"),
            updatedAt: try Self.string(updatedAt, "updatedAt"),
            version: try Self.integer(version, "version")
        )
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
        return .object(fields)
    }
}

extension LandmarkApiModel {
    /// Decodes one landmark element; a wrong type rejects this element only.
    public init(json: JSONValue) throws(LandmarkRejection) {
        guard case .object(let fields) = json else {
            throw .malformed("expected an object, found \(json.typeName)")
        }
        func string(_ key: String) throws(LandmarkRejection) -> String? {
            switch fields[key] {
            case nil, .null?: return nil
            case .string(let value)?: return value
            case let other?: throw .malformed("\(key) is \(other.typeName), not a string")
            }
        }
        var capacity: Int?
        switch fields["capacity"] {
        case nil, .null?: capacity = nil
        case .integer(let value)?: capacity = Int(exactly: value)
        case .double(let value)?: capacity = Int(exactly: value)
        case let other?: throw .malformed("capacity is \(other.typeName), not a number")
        }
        if fields["capacity"].map({ $0 != .null }) == true, capacity == nil {
            throw .malformed("capacity is not a whole number")
        }
        var isFeatured: Bool?
        switch fields["isFeatured"] {
        case nil, .null?: isFeatured = nil
        case .bool(let value)?: isFeatured = value
        case let other?: throw .malformed("isFeatured is \(other.typeName), not a boolean")
        }
        self.init(
            id: try string("id"), name: try string("name"), location: try string("location"),
            description: try string("description"), category: try string("category"), isFeatured: isFeatured,
            imageName: try string("imageName"), capacity: capacity, timeZone: try string("timeZone")
        )
    }

    /// The landmark as JSON; absent fields are left out, as `Encodable` leaves out nil.
    public var json: JSONValue {
        var fields: [String: JSONValue] = [:]
        if let id { fields["id"] = .string(id) }
        if let name { fields["name"] = .string(name) }
        if let location { fields["location"] = .string(location) }
        if let description { fields["description"] = .string(description) }
        if let category { fields["category"] = .string(category) }
        if let isFeatured { fields["isFeatured"] = .bool(isFeatured) }
        if let imageName { fields["imageName"] = .string(imageName) }
        if let capacity { fields["capacity"] = .integer(Int64(capacity)) }
        if let timeZone { fields["timeZone"] = .string(timeZone) }
        return .object(fields)
    }
}

// MARK: - The mapping

extension Landmark {
    /// Maps an API landmark; nil-or-blank name or location and unknown categories are refused.
    public init(_ api: LandmarkApiModel) throws(LandmarkRejection) {
        guard let rawID = api.id else { throw .missingID }
        guard let id = ID(rawID) else { throw .invalidID(rawID) }
        guard let name = api.name?.trimmingCharacters(in: .whitespacesAndNewlines), !name.isEmpty else {
            throw .missingName
        }
        guard let location = api.location?.trimmingCharacters(in: .whitespacesAndNewlines), !location.isEmpty
        else { throw .missingLocation }
        guard let rawCategory = api.category else { throw .missingCategory }
        guard let category = Category(rawValue: rawCategory) else { throw .unknownCategory(rawCategory) }
        if let capacity = api.capacity, capacity <= 0 { throw .invalidCapacity(capacity) }
        var timeZone: TimeZone?
        if let identifier = api.timeZone {
            guard let zone = TimeZone(identifier: identifier) else { throw .unknownTimeZone(identifier) }
            timeZone = zone
        }
        self.init(
            id: id, name: name, location: location, description: api.description ?? "",
            category: category, isFeatured: api.isFeatured ?? false, imageName: api.imageName,
            capacity: api.capacity, timeZone: timeZone
        )
    }
}

extension Reservation {
    /// Maps an API reservation against a catalog; the error says which rule failed.
    public init(_ api: ReservationApiModel, catalog: LandmarkCatalog) throws(RejectionReason) {
        guard let id = ID(api.id) else { throw .invalidReservationID(api.id) }
        guard let rawLandmarkID = api.landmarkId else { throw .missingLandmarkID }
        guard let landmarkID = Landmark.ID(rawLandmarkID) else { throw .invalidLandmarkID(rawLandmarkID) }
        guard let landmark = catalog[landmarkID] else {
            if let why = catalog.rejectedIDs[landmarkID] { throw .invalidLandmark(landmarkID.description, why) }
            throw .unknownLandmark(landmarkID.description)
        }
        guard let rawDate = api.date else { throw .missingDate }
        guard let date = try? DateTime.parse(rawDate) else { throw .invalidDate(rawDate) }
        guard let partySize = api.partySize else { throw .missingPartySize }
        guard Self.partySizes.contains(partySize) else { throw .invalidPartySize(partySize) }
        guard let rawStatus = api.status else { throw .missingStatus }
        guard let status = Status(rawValue: rawStatus) else { throw .unknownStatus(rawStatus) }
        // Records written before notes, times and versions were kept have none:
        // no note, times unknown, version 1 (never changed since versions began).
        if let note = api.note, !Self.isValidNote(note) { throw .invalidNote(note.count) }
        func time(_ text: String?, _ field: String) throws(RejectionReason) -> Date? {
            guard let text else { return nil }
            guard let date = try? DateTime.parse(text) else { throw .invalidTimestamp(field, text) }
            return Timestamp.whole(date)
        }
        let createdAt = try time(api.createdAt, "createdAt")
        let updatedAt = try time(api.updatedAt, "updatedAt")
        let version = api.version ?? 1
        guard version >= 1 else { throw .invalidVersion(version) }
        self.init(
            id: id, landmark: landmark, date: date, partySize: partySize, status: status, note: api.note,
            createdAt: createdAt, updatedAt: updatedAt ?? createdAt, version: version)
    }
}

// MARK: - Whole collections

/// The landmarks of a backend, with those that failed their mapping.
public struct LandmarkCatalog: Sendable {
    public let landmarks: [Landmark]
    public let rejected: [RejectedLandmark]
    private let byID: [Landmark.ID: Landmark]
    /// Landmark ids present in the data whose record failed its mapping.
    let rejectedIDs: [Landmark.ID: LandmarkRejection]

    public init(_ landmarks: [Landmark]) {
        self.landmarks = landmarks
        self.rejected = []
        self.byID = Dictionary(landmarks.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        self.rejectedIDs = [:]
    }

    /// Decodes and maps landmark records leniently, one element at a time.
    public init(records: [JSONValue]) {
        var landmarks: [Landmark] = []
        var rejected: [RejectedLandmark] = []
        var byID: [Landmark.ID: Landmark] = [:]
        var rejectedIDs: [Landmark.ID: LandmarkRejection] = [:]
        for (index, record) in records.enumerated() {
            let rawID: String? = if case .string(let id)? = record["id"] { id } else { nil }
            do throws(LandmarkRejection) {
                let landmark = try Landmark(LandmarkApiModel(json: record))
                guard byID[landmark.id] == nil else { throw .duplicateID(landmark.id.description) }
                byID[landmark.id] = landmark
                landmarks.append(landmark)
            } catch {
                rejected.append(RejectedLandmark(index: index, id: rawID, reason: error))
                if let rawID, let id = Landmark.ID(rawID), byID[id] == nil {
                    rejectedIDs[id] = error
                }
            }
        }
        self.landmarks = landmarks
        self.rejected = rejected
        self.byID = byID
        self.rejectedIDs = rejectedIDs
    }

    public subscript(id: Landmark.ID) -> Landmark? { byID[id] }
}

/// Everything a backend holds at one moment: what maps, and what does not.
public struct ReservationSnapshot: Sendable {
    public let reservations: [Reservation]
    public let rejected: [RejectedRecord]
    public let catalog: LandmarkCatalog
    /// Where the records came from: the backend itself, or a server's answers cached earlier.
    public var source: SnapshotSource = .backend

    public init(reservations: [Reservation], rejected: [RejectedRecord], catalog: LandmarkCatalog) {
        self.reservations = reservations
        self.rejected = rejected
        self.catalog = catalog
    }

    /// Decodes and maps reservation records leniently, one element at a time.
    public init(records: [JSONValue], catalog: LandmarkCatalog) {
        let mapped = Self.map(records, catalog: catalog)
        self.init(reservations: mapped.reservations, rejected: mapped.rejected, catalog: catalog)
    }

    /// The mapping of a whole record list; `positions[i]` is the index of the
    /// record that `reservations[i]` came from. A repeated id maps only once.
    static func map(_ records: [JSONValue], catalog: LandmarkCatalog) -> (
        reservations: [Reservation], rejected: [RejectedRecord], positions: [Int]
    ) {
        var reservations: [Reservation] = []
        var rejected: [RejectedRecord] = []
        var positions: [Int] = []
        var seen = Set<Reservation.ID>(minimumCapacity: records.count)
        reservations.reserveCapacity(records.count)
        positions.reserveCapacity(records.count)
        for (index, record) in records.enumerated() {
            do throws(RejectionReason) {
                let reservation = try Reservation(ReservationApiModel(json: record), catalog: catalog)
                guard seen.insert(reservation.id).inserted else {
                    throw .duplicateReservationID(reservation.id.description)
                }
                reservations.append(reservation)
                positions.append(index)
            } catch {
                let rawID: String? = if case .string(let id)? = record["id"] { id } else { nil }
                rejected.append(RejectedRecord(index: index, id: rawID, reason: error))
            }
        }
        return (reservations, rejected, positions)
    }
}

/// Where a snapshot's records came from.
public enum SnapshotSource: Sendable {
    /// Read from the backend just now.
    case backend
    /// A server's answer saved at `saved`, read because the server was not asked:
    /// `unreachable` says why it could not be reached (nil with `--offline`).
    case cache(saved: Date, unreachable: (any Error)?)
}
