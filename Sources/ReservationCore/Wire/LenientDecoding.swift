import Foundation

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
