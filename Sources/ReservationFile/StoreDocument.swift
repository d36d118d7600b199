import Foundation
import ReservationCore

/// A store file as read: its records, its catalog, its days' rules (`days`), the number of its last
/// change in the journal (`lastChange`), and every other top-level field, so
/// a rewrite keeps what this version of resv does not know. History is not
/// kept in the store: an older resv's `history` array is read into
/// `legacyHistory`, which the next write moves into the journal.
struct StoreDocument: Sendable {
    static let currentVersion = 1

    var fields: [String: JSONValue]
    var ledger: ReservationLedger
    /// The sequence number of the store's last change: journal lines above it never landed.
    var lastChange = 0
    /// The changes an older resv kept in the store, oldest first, as they are.
    var legacyHistory: [JSONValue] = []

    /// An empty store with the built-in catalog.
    init() {
        fields = ["version": .integer(Int64(Self.currentVersion))]
        ledger = ReservationLedger(records: [], catalog: .builtIn)
    }

    init(data: Data, path: String) throws(FileStoreError) {
        let root: JSONValue
        do { root = try JSONValue.parse(data) } catch { throw .corrupt(path: path, detail: error.detail) }
        try self.init(root: root, path: path)
    }

    /// What a read-only command needs of a store: its records mapped as they
    /// are read, never held as JSON whole. Checks the file as `init(data:path:)` does.
    static func snapshot(data: Data, path: String) throws(FileStoreError) -> ReservationSnapshot {
        var mapper: ReservationSnapshot.Mapper?
        var landmarksFirst = false
        let root: JSONValue
        do {
            root = try JSONValue.parse(data, streaming: "reservations") { fields in
                let landmarks = fields.first { $0.key == "landmarks" }?.value
                landmarksFirst = landmarks != nil
                let catalog: LandmarkCatalog =
                    if case .array(let records)? = landmarks { LandmarkCatalog(records: records) } else { .builtIn }
                mapper = ReservationSnapshot.Mapper(catalog: catalog, capacity: data.count / 256)
                return { mapper!.add($0) }
            }
        } catch {
            throw .corrupt(path: path, detail: error.detail)
        }
        let document = try StoreDocument(root: root, path: path)
        // A catalog written after the records (by hand: resv sorts its keys) maps them only now.
        guard let mapper, landmarksFirst || root["landmarks"] == nil else {
            if mapper == nil { return document.ledger.snapshot }
            return try StoreDocument(data: data, path: path).ledger.snapshot
        }
        return mapper.snapshot
    }

    /// The store without its records (which are read past, not kept): its
    /// catalog, last change, an older resv's history and other fields, checked
    /// as `init(data:path:)` checks them.
    static func header(data: Data, path: String) throws(FileStoreError) -> StoreDocument {
        let root: JSONValue
        do {
            root = try JSONValue.parse(data, streaming: "reservations") { _ in { _ in } }
        } catch {
            throw .corrupt(path: path, detail: error.detail)
        }
        return try StoreDocument(root: root, path: path)
    }

    init(root: JSONValue, path: String) throws(FileStoreError) {
        guard case .object(var fields) = root else {
            throw .corrupt(path: path, detail: "the top level is \(root.typeName), not an object")
        }
        switch fields["version"] {
        case nil: fields["version"] = .integer(Int64(Self.currentVersion))
        case .integer(let version)?:
            guard version <= Self.currentVersion else {
                throw .unsupportedVersion(path: path, version: version, supported: Self.currentVersion)
            }
            guard version >= 1 else { throw .corrupt(path: path, detail: "version \(version) is not a store version") }
        case let other?: throw .corrupt(path: path, detail: "version is \(other.typeName), not an integer")
        }
        let records: [JSONValue]
        switch fields["reservations"] {
        case nil, .null?: records = []
        case .array(let array)?: records = array
        case let other?: throw .corrupt(path: path, detail: "reservations is \(other.typeName), not an array")
        }
        let catalog: LandmarkCatalog
        switch fields["landmarks"] {
        case nil, .null?: catalog = .builtIn
        case .array(let array)?: catalog = LandmarkCatalog(records: array)
        case let other?: throw .corrupt(path: path, detail: "landmarks is \(other.typeName), not an array")
        }
        switch fields["history"] {
        case nil, .null?: break
        case .array(let array)?: legacyHistory = array
        case let other?: throw .corrupt(path: path, detail: "history is \(other.typeName), not an array")
        }
        var dayRules: [JSONValue] = []
        switch fields["days"] {
        case nil, .null?: break
        case .array(let array)?: dayRules = array
        case let other?: throw .corrupt(path: path, detail: "days is \(other.typeName), not an array")
        }
        switch fields["lastChange"] {
        case nil, .null?: break
        case .integer(let number)? where number >= 0: lastChange = Int(number)
        case let other?: throw .corrupt(path: path, detail: "lastChange is \(other.typeName), not a change's number")
        }
        fields["reservations"] = nil
        fields["history"] = nil
        fields["lastChange"] = nil
        fields["days"] = nil
        self.fields = fields
        self.ledger = ReservationLedger(records: records, catalog: catalog, dayRules: dayRules)
    }

    /// The whole file, pretty-printed with sorted keys.
    func encoded() -> Data {
        var root = fields
        root["reservations"] = .array(ledger.records)
        if !ledger.dayRules.isEmpty { root["days"] = .array(ledger.dayRules) }
        if lastChange > 0 { root["lastChange"] = .integer(Int64(lastChange)) }
        var data = JSONValue.object(root).encoded(pretty: true)
        data.append(UInt8(ascii: "\n"))
        return data
    }
}
