import Foundation

/// How a written reservation names its landmark: by id on the wire and in the
/// store, or written out in full in resv's own `--json` (pre-rendered JSON).
public enum LandmarkField {
    case id(String)
    case object([UInt8])
}

extension JSONWriter {
    /// The one writer of a reservation's JSON shape, field by field in sorted
    /// key order without building a `JSONValue`: the server's answers and
    /// resv's `--json` both call it, with the record (`ReservationApiModel`,
    /// made from a domain reservation by its one mapping). Written: the fields
    /// `ReservationField.stored` marks answered and `waitlistPosition`, each
    /// when it has a value (`createdAt` and `updatedAt` are nil in records older
    /// than them), `date`, `partySize`, `status` and `version` always (a server's
    /// records have them); the landmark by `landmark` (its id when nil), the
    /// status `status` when given (resv's `queued`), and `queued` when given.
    /// `FieldTableTests` and `ReservationFieldTests` hold it to the table.
    public mutating func writeReservation(
        _ record: ReservationApiModel, landmark: LandmarkField? = nil, status: String? = nil,
        queued: JSONValue? = nil, depth: Int
    ) {
        beginObject()
        if let createdAt = record.createdAt {
            key("createdAt", first: true, depth: depth)
            write(string: createdAt)
        }
        key("date", first: record.createdAt == nil, depth: depth)
        write(string: record.date ?? "")
        if let expiresAt = record.expiresAt {
            key("expiresAt", depth: depth)
            write(string: expiresAt)
        }
        key("id", depth: depth)
        write(string: record.id)
        switch landmark ?? .id(record.landmarkId ?? "") {
        case .object(let text):
            key("landmark", depth: depth)
            append(json: text)
        case .id(let landmarkID):
            key("landmarkId", depth: depth)
            write(string: landmarkID)
        }
        if let note = record.note {
            key("note", depth: depth)
            write(string: note)
        }
        key("partySize", depth: depth)
        write(record.partySize ?? 0)
        if let queued {
            key("queued", depth: depth)
            write(queued, depth: depth + 1)
        }
        if let series = record.series {
            key("series", depth: depth)
            write(string: series)
        }
        key("status", depth: depth)
        write(string: status ?? record.status ?? "")
        if let updatedAt = record.updatedAt {
            key("updatedAt", depth: depth)
            write(string: updatedAt)
        }
        key("version", depth: depth)
        write(record.version ?? 1)
        if let waitlistPosition = record.waitlistPosition {
            key("waitlistPosition", depth: depth)
            write(waitlistPosition)
        }
        endObject(depth: depth)
    }
}
