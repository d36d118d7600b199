import Foundation
import ReservationCore

/// A store file as read: its records, its catalog, and every other top-level
/// field, so a rewrite keeps what this version of resv does not know.
struct StoreDocument: Sendable {
    static let currentVersion = 1

    var fields: [String: JSONValue]
    var ledger: ReservationLedger

    /// An empty store with the built-in catalog.
    init() {
        fields = ["version": .integer(Int64(Self.currentVersion))]
        ledger = ReservationLedger(records: [], catalog: .builtIn)
    }

    init(data: Data, path: String) throws(FileStoreError) {
        let root: JSONValue
        do { root = try JSONValue.parse(data) } catch { throw .corrupt(path: path, detail: error.detail) }
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
        let history: [JSONValue]
        switch fields["history"] {
        case nil, .null?: history = []
        case .array(let array)?: history = array
        case let other?: throw .corrupt(path: path, detail: "history is \(other.typeName), not an array")
        }
        fields["reservations"] = nil
        fields["history"] = nil
        self.fields = fields
        self.ledger = ReservationLedger(records: records, history: history, catalog: catalog)
    }

    /// The whole file, pretty-printed with sorted keys.
    func encoded() -> Data {
        var root = fields
        root["reservations"] = .array(ledger.records)
        if !ledger.history.isEmpty { root["history"] = .array(ledger.history) }
        var data = JSONValue.object(root).encoded(pretty: true)
        data.append(UInt8(ascii: "\n"))
        return data
    }
}
