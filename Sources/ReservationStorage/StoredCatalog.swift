import Foundation
import ReservationCore
import Synchronization

/// The catalog as a database keeps it (`landmarks`, schema 16): each landmark's
/// record (its JSON as `GET /landmarks` sends it, with `"retired": true` once
/// retired), in the order they were added, and the catalog's version, the
/// highest of its rows' (each change numbers the rows it writes one higher);
/// 0 when no landmark is stored.
public struct StoredCatalog: Sendable {
    public let version: Int64
    public let records: [JSONValue]

    public init(version: Int64, records: [JSONValue]) {
        self.version = version
        self.records = records
    }

    /// The records mapped (one that fails its mapping is left out, as a client leaves it out).
    public var catalog: LandmarkCatalog { LandmarkCatalog(records: records, version: version) }

    /// The stored landmarks over `known`: each stored one as stored, and those of `known`
    /// the database lacks (the instance's own, of `--landmarks` or built in, which it serves
    /// beside the database's; `serve` stores its file first, so there are none then). The
    /// database never deletes a landmark, so `known`'s stored ones are all stored still.
    public func over(_ known: LandmarkCatalog) -> LandmarkCatalog {
        let stored = Set(
            records.compactMap { record -> Landmark.ID? in
                if case .string(let id)? = record["id"] { Landmark.ID(id) } else { nil }
            })
        let own = known.landmarks.filter { !stored.contains($0.id) }.map { landmark in
            known.retired.contains(landmark.id)
                ? LandmarkApiModel(landmark).json.adding("retired", .bool(true)) : LandmarkApiModel(landmark).json
        }
        return LandmarkCatalog(records: own + records, version: version)
    }

    /// The catalog a transaction decides by: the stored one over `known` when it is not
    /// `known`'s version, `known` itself otherwise (and when no landmark is stored).
    static func inForce(
        known: LandmarkCatalog, version: Int64, load: () async throws -> StoredCatalog
    ) async throws -> LandmarkCatalog {
        guard version != 0, version != known.version else { return known }
        return try await load().over(known)
    }
}

/// The newest catalog an instance has seen: the one it was started with until the
/// database holds one, then the database's, read again whenever its version moved
/// (`refresh`, once a request). Only reads and names use it; a transaction
/// decides by the catalog it reads itself (`StorageEngine.transact`).
public final class CatalogCache: Sendable {
    private let state: Mutex<LandmarkCatalog>

    public init(_ seed: LandmarkCatalog) { state = Mutex(seed) }

    public var current: LandmarkCatalog { state.withLock { $0 } }

    /// The catalog in force now: the database's when its version is not the one kept.
    @discardableResult
    public func refresh(from store: ServerStore) async throws -> LandmarkCatalog {
        let known = current
        guard let stored = try await store.catalog(newerThan: known.version) else { return known }
        let fresh = stored.over(known)
        return state.withLock { kept in
            if fresh.version > kept.version { kept = fresh }
            return kept
        }
    }
}

extension JSONValue {
    /// The object with one field more (or replaced).
    func adding(_ name: String, _ value: JSONValue) -> JSONValue {
        guard case .object(var fields) = self else { return self }
        fields[name] = value
        return .object(fields)
    }
}
