import Foundation

// Reading one untrusted element at a time: a wrong type or a missing id rejects
// that element only, never the whole list.

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
            imageName: try string("imageName"), capacity: capacity, timeZone: try string("timeZone"),
            hours: fields["hours"].flatMap { $0 == .null ? nil : $0 },
            slots: fields["slots"].flatMap { $0 == .null ? nil : $0 }
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
        if let hours { fields["hours"] = hours }
        if let slots { fields["slots"] = slots }
        return .object(fields)
    }
}
