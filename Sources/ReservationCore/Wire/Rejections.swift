import Foundation

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
    /// A `held` record without `expiresAt`.
    case missingExpiry
    /// A `series` that is not a UUID.
    case invalidSeries(String)

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
        case .missingExpiry: "missingExpiry"
        case .invalidSeries: "invalidSeries"
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
        case .missingExpiry: "hold without expiresAt"
        case .invalidSeries: "invalid series"
        }
    }

    public var description: String {
        switch self {
        case .malformed(let detail): "malformed record: \(detail)"
        case .invalidReservationID(let id): "id '\(id.quoted())' is not a UUID"
        case .duplicateReservationID(let id): "id \(id) appears more than once"
        case .missingLandmarkID: "landmarkId is missing"
        case .invalidLandmarkID(let id): "landmarkId '\(id.quoted())' is not a UUID"
        case .unknownLandmark(let id): "landmark \(id) is not in the catalog"
        case .invalidLandmark(let id, let why): "landmark \(id) is invalid: \(why)"
        case .missingDate: "date is missing"
        case .invalidDate(let text):
            if case .failure(let error) = Result(catching: { () throws(DateParseError) in try DateTime.parse(text) }) {
                "date '\(text.quoted())' is invalid: \(error.explanation)"
            } else {
                "date '\(text.quoted())' is invalid"
            }
        case .missingPartySize: "partySize is missing"
        case .invalidPartySize(let size): "partySize \(size) is not from 1 to 10000"
        case .missingStatus: "status is missing"
        case .unknownStatus(let status):
            "status '\(status.quoted())' is not one of "
                + Reservation.Status.allCases.map(\.rawValue).joined(separator: ", ")
        case .invalidNote(let length): "note has \(length) characters, more than \(Reservation.noteLimit)"
        case .invalidTimestamp(let field, let text):
            "\(field) '\(text.count > 40 ? text.prefix(40) + "…" : text)' is not an ISO 8601 date-time"
        case .invalidVersion(let version): "version \(version) is not from 1 to \(Reservation.versions.upperBound)"
        case .missingExpiry: "status is held but expiresAt is missing"
        case .invalidSeries(let text): "series '\(text.quoted())' is not a UUID"
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
    /// `hours` or `slots` (or one weekday's plan, `slots.mon`) that cannot be used, and why.
    case invalidTimetable(String, String)

    public var description: String {
        switch self {
        case .malformed(let detail): "malformed landmark: \(detail)"
        case .missingID: "id is missing"
        case .invalidID(let id): "id '\(id.quoted())' is not a UUID"
        case .duplicateID(let id): "id \(id) appears more than once"
        case .missingName: "name is missing or blank"
        case .missingLocation: "location is missing or blank"
        case .missingCategory: "category is missing"
        case .unknownCategory(let category): "category '\(category.quoted())' is not mountains, lakes or bridges"
        case .invalidCapacity(let capacity): "capacity \(capacity) is not greater than 0"
        case .unknownTimeZone(let zone): "time zone '\(zone.quoted())' is not a known IANA zone"
        case .invalidTimetable(let field, let problem): "\(field) \(problem)"
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
