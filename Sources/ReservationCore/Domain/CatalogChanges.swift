import Foundation

/// A landmark's record to store whole: added when its id is new, replacing the stored one otherwise.
public struct CatalogWrite: Sendable, Equatable {
    public let id: Landmark.ID
    public let record: JSONValue

    public init(id: Landmark.ID, record: JSONValue) {
        self.id = id
        self.record = record
    }

    /// Whether the record is retired (`"retired": true`).
    public var retired: Bool { record["retired"] == .bool(true) }
}

/// Why a change of the catalog is refused; nothing is changed.
public enum CatalogRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// Records that do not make landmarks: each with its place (from 1) and why.
    case invalid([String])
    /// An add of an id the catalog has.
    case duplicate(Landmark.ID)
    /// A set or retire of an id the catalog does not have.
    case unknown(String)

    public var description: String {
        switch self {
        case .invalid(let lines): lines.joined(separator: "\n")
        case .duplicate(let id): "landmark \(id) is in the catalog already: 'set' changes it"
        case .unknown(let text): "'\(text.prefix(64))' is not a landmark of the catalog"
        }
    }
}

/// The catalog's changes, written once for `resv-server catalog import` and the admin's
/// routes: each gives the records to write (`CatalogWrite`), none when nothing changes.
/// A record is stored as given (its unknown fields ride along) once it maps as a client
/// maps it (`Landmark(LandmarkApiModel)`), with a capacity within `DayRule.capacityLimit`
/// and a name of at most `nameLimit` characters.
public enum CatalogChanges {
    public static let nameLimit = 200

    /// The landmark a record makes, or why it makes none.
    public static func check(_ record: JSONValue) -> (landmark: Landmark?, why: String) {
        guard case .object = record else { return (nil, "a landmark is a JSON object") }
        let landmark: Landmark
        do throws(LandmarkRejection) { landmark = try Landmark(LandmarkApiModel(json: record)) } catch {
            return (nil, error.description)
        }
        if landmark.name.count > nameLimit {
            return (nil, "name is \(landmark.name.count) characters, more than \(nameLimit)")
        }
        if let capacity = landmark.capacity, capacity > DayRule.capacityLimit {
            return (nil, "capacity \(capacity) is more than \(DayRule.capacityLimit)")
        }
        if let retired = record["retired"], retired != .bool(true), retired != .bool(false) {
            return (nil, "retired must be true or false")
        }
        return (landmark, "")
    }

    /// What an import of `records` does to `stored`: adds the new ids, replaces the records
    /// that differ, leaves the rest (and every stored landmark the file lacks: an import never
    /// deletes). Any record that does not check refuses the whole import, each named.
    public static func importing(_ records: [JSONValue], into stored: [JSONValue]) throws(CatalogRefusal) -> Import {
        var failures: [String] = []
        var seen: Set<Landmark.ID> = []
        var checked: [(Landmark.ID, JSONValue)] = []
        for (index, record) in records.enumerated() {
            let rawID: String? = if case .string(let id)? = record["id"] { id } else { nil }
            let which = "landmark \(index + 1)" + (rawID.map { " (\($0.prefix(64)))" } ?? "")
            let (landmark, why) = check(record)
            guard let landmark else {
                failures.append("\(which): \(why)")
                continue
            }
            guard seen.insert(landmark.id).inserted else {
                failures.append("\(which): id \(landmark.id) appears more than once")
                continue
            }
            checked.append((landmark.id, record))
        }
        guard failures.isEmpty else { throw .invalid(failures) }
        let byID = Dictionary(stored.compactMap { record in id(of: record).map { ($0, record) } }) { a, _ in a }
        var plan = Import()
        for (id, record) in checked {
            switch byID[id] {
            case nil: plan.added.append(id)
            case record?: plan.unchanged.append(id)
            default: plan.changed.append(id)
            }
            if byID[id] != record { plan.writes.append(CatalogWrite(id: id, record: record)) }
        }
        plan.kept = byID.keys.filter { !seen.contains($0) }.sorted { $0.description < $1.description }
        return plan
    }

    /// What an import does: the records to write and which ids were added, changed, the same, or left.
    public struct Import: Sendable, Equatable {
        public var writes: [CatalogWrite] = []
        public var added: [Landmark.ID] = []
        public var changed: [Landmark.ID] = []
        public var unchanged: [Landmark.ID] = []
        /// Stored landmarks the records do not name: left as they are.
        public var kept: [Landmark.ID] = []

        public init() {}
    }

    /// An add: refused for an id the catalog has (`set` changes one) or a record that does not check.
    public static func adding(_ record: JSONValue, to stored: [JSONValue]) throws(CatalogRefusal) -> CatalogWrite {
        let (landmark, why) = check(record)
        guard let landmark else { throw .invalid([why]) }
        guard !stored.contains(where: { id(of: $0) == landmark.id }) else { throw .duplicate(landmark.id) }
        return CatalogWrite(id: landmark.id, record: record)
    }

    /// A change of some fields of the landmark `id` (a field given null is removed; `id` cannot
    /// change): nil when the record stays the same.
    public static func setting(_ fields: [String: JSONValue], of id: Landmark.ID, in stored: [JSONValue])
        throws(CatalogRefusal) -> CatalogWrite?
    {
        guard case .object(var record)? = stored.first(where: { Self.id(of: $0) == id }) else {
            throw .unknown(id.description)
        }
        if let given = fields["id"], given != .string(id.description) { throw .invalid(["id cannot change"]) }
        for (name, value) in fields where name != "id" {
            if value == .null { record[name] = nil } else { record[name] = value }
        }
        let changed = JSONValue.object(record)
        let (landmark, why) = check(changed)
        guard landmark != nil else { throw .invalid([why]) }
        return stored.contains(changed) ? nil : CatalogWrite(id: id, record: changed)
    }

    /// A retirement (`retired` true) or a return to service (false): nil when it is so already.
    public static func retiring(_ id: Landmark.ID, _ retired: Bool = true, in stored: [JSONValue])
        throws(CatalogRefusal) -> CatalogWrite?
    {
        try setting(["retired": retired ? .bool(true) : .null], of: id, in: stored)
    }

    static func id(of record: JSONValue) -> Landmark.ID? {
        if case .string(let text)? = record["id"] { Landmark.ID(text) } else { nil }
    }
}
