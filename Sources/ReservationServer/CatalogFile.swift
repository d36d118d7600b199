import Foundation
import ReservationCore
import ReservationStorage

/// The landmarks a server offers, read from a JSON file given with
/// `serve --landmarks`: an array of landmark objects (what `GET /landmarks`
/// and `resv landmarks --json` print) or an object with a `landmarks` array
/// (a resv store file). Every landmark must map: a server does not start with
/// part of its catalog silently missing.
public enum CatalogFile {
    public static func load(_ path: String) throws(CatalogFileError) -> LandmarkCatalog {
        let catalog = LandmarkCatalog(records: try records(path))
        if let first = catalog.rejected.first {
            let which =
                first.id.map { "landmark \(first.index + 1) (\($0.prefix(64)))" } ?? "landmark \(first.index + 1)"
            let more = catalog.rejected.count > 1 ? " (and \(catalog.rejected.count - 1) more)" : ""
            throw .invalid(path, "\(which): \(first.reason)\(more)")
        }
        guard !catalog.landmarks.isEmpty else { throw .invalid(path, "it lists no landmarks") }
        return catalog
    }

    /// The file's landmark records, each as it is (not yet mapped).
    public static func records(_ path: String) throws(CatalogFileError) -> [JSONValue] {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            let reason = (error as NSError).localizedFailureReason ?? error.localizedDescription
            throw .unreadable(path, reason)
        }
        let root: JSONValue
        do { root = try JSONValue.parse(data) } catch { throw .invalid(path, error.detail) }
        let records: [JSONValue]
        switch root {
        case .array(let array): records = array
        case .object where root["landmarks"] != nil:
            guard case .array(let array)? = root["landmarks"] else {
                throw .invalid(path, "landmarks is \(root["landmarks"]?.typeName ?? "missing"), not an array")
            }
            records = array
        default:
            throw .invalid(path, "expected an array of landmarks or an object with a landmarks array")
        }
        return records
    }
}

/// Why a `--landmarks` file cannot be served.
public enum CatalogFileError: Error, LocalizedError, Sendable {
    case unreadable(String, String)
    case invalid(String, String)

    /// The file could not be read at all (as opposed to read and refused).
    public var isUnreadable: Bool {
        if case .unreadable = self { return true }
        return false
    }

    public var errorDescription: String? {
        switch self {
        case .unreadable(let path, let why): "cannot read the landmarks file \(path): \(why)"
        case .invalid(let path, let why): "the landmarks file \(path) is not a usable catalog: \(why)"
        }
    }
}
