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
    /// resv's `--json` both call it. `createdAt` and `updatedAt` are left out
    /// when nil (records older than them).
    public mutating func writeReservation(
        id: String, landmark: LandmarkField, date: String, partySize: Int, status: String, note: String?,
        createdAt: String?, updatedAt: String?, version: Int, expiresAt: String? = nil,
        waitlistPosition: Int? = nil, series: String? = nil, queued: JSONValue? = nil, depth: Int
    ) {
        beginObject()
        if let createdAt {
            key("createdAt", first: true, depth: depth)
            write(string: createdAt)
        }
        key("date", first: createdAt == nil, depth: depth)
        write(string: date)
        if let expiresAt {
            key("expiresAt", depth: depth)
            write(string: expiresAt)
        }
        key("id", depth: depth)
        write(string: id)
        switch landmark {
        case .object(let text):
            key("landmark", depth: depth)
            append(json: text)
        case .id(let landmarkID):
            key("landmarkId", depth: depth)
            write(string: landmarkID)
        }
        if let note {
            key("note", depth: depth)
            write(string: note)
        }
        key("partySize", depth: depth)
        write(partySize)
        if let queued {
            key("queued", depth: depth)
            write(queued, depth: depth + 1)
        }
        if let series {
            key("series", depth: depth)
            write(string: series)
        }
        key("status", depth: depth)
        write(string: status)
        if let updatedAt {
            key("updatedAt", depth: depth)
            write(string: updatedAt)
        }
        key("version", depth: depth)
        write(version)
        if let waitlistPosition {
            key("waitlistPosition", depth: depth)
            write(waitlistPosition)
        }
        endObject(depth: depth)
    }
}
