import Foundation
import Hummingbird
import NIOCore
import ReservationCore
import ReservationStorage
import Synchronization

/// The catalog (docs/contracts.md, "The catalog"): `GET /landmarks`, and an admin's
/// `POST /landmarks` (add), `PATCH /landmarks/{id}` (set fields) and
/// `POST /landmarks/{id}/retire` (no new bookings there; those made are kept). Each
/// change is one `StorageEngine.changeCatalog` by `CatalogChanges`' rules, and the same
/// request twice changes nothing the second time (a change the catalog has already is
/// answered 200 as it stands), so a client sends one again safely, keyed or not.
struct CatalogController: Sendable {
    let backend: RouteBackend
    /// `GET /landmarks`'s body for the catalog's version, written once per version.
    private let body = Kept<(version: Int64, count: Int, body: ByteBuffer)?>(nil)

    init(backend: RouteBackend) { self.backend = backend }

    var endpoints: RouteCollection<AuthenticatedContext> {
        RouteCollection(context: AuthenticatedContext.self)
            .get("/landmarks") { _, _ in Response.json(status: .ok, body: landmarksBody()) }
            .post("/landmarks", use: add)
            .patch("/landmarks/:id", use: set)
            .post("/landmarks/:id/retire", use: retire)
    }

    /// Every landmark of the catalog, a retired one with `"retired": true`.
    private func landmarksBody() -> ByteBuffer {
        let catalog = backend.catalog
        if let kept = body.withLock({ $0 }), kept.version == catalog.version, kept.count == catalog.landmarks.count {
            return kept.body
        }
        let made = ByteBuffer(bytes: Array(Self.json(catalog).encoded()))
        body.withLock { $0 = (catalog.version, catalog.landmarks.count, made) }
        return made
    }

    static func json(_ catalog: LandmarkCatalog) -> JSONValue {
        .array(catalog.landmarks.map { json($0, retired: catalog.retired.contains($0.id)) })
    }

    static func json(_ landmark: Landmark, retired: Bool) -> JSONValue {
        var json = LandmarkApiModel(landmark).json
        if retired, case .object(var fields) = json {
            fields["retired"] = .bool(true)
            json = .object(fields)
        }
        return json
    }

    /// `POST /landmarks` `{landmark record}`: 201 with the landmark; 409 `landmarkExists` for an
    /// id the catalog has with another record (the same record again is 200).
    @Sendable func add(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        try context.requireAdmin()
        let record = try await RouteBackend.json(of: request, upTo: ReservationRoutes.bodyLimit)
        let id = (try? CatalogChanges.adding(record, to: [])).map(\.id)
        let (catalog, wrote) = try await change { stored in
            if id != nil, stored.records.contains(record) { return [] }  // added already: sent again
            return [try CatalogChanges.adding(record, to: stored.records)]
        }
        return try answer(id, in: catalog, status: wrote ? .created : .ok)
    }

    /// `PATCH /landmarks/{id}` `{field: value, …}` (null removes a field): 200 with the landmark.
    @Sendable func set(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        try context.requireAdmin()
        let id = try landmarkID(context)
        guard case .object(let fields) = try await RouteBackend.json(of: request, upTo: ReservationRoutes.bodyLimit)
        else { throw APIError(.badRequest, .invalidRequest, "the body must be an object of the fields to change") }
        let (catalog, _) = try await change { stored in
            try CatalogChanges.setting(fields, of: id, in: stored.records).map { [$0] } ?? []
        }
        return try answer(id, in: catalog, status: .ok)
    }

    /// `POST /landmarks/{id}/retire`: 200 with the landmark, retired.
    @Sendable func retire(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        try context.requireAdmin()
        let id = try landmarkID(context)
        let (catalog, _) = try await change { stored in
            try CatalogChanges.retiring(id, in: stored.records).map { [$0] } ?? []
        }
        return try answer(id, in: catalog, status: .ok)
    }

    /// One change of the stored catalog (the instance's own catalog stored first when the
    /// database holds none); the catalog after, and whether anything was written.
    private func change(_ edit: @escaping @Sendable (StoredCatalog) throws -> [CatalogWrite])
        async throws -> (LandmarkCatalog, Bool)
    {
        let seed = backend.catalog
        let wrote = Kept(false)
        do {
            let stored = try await backend.store.changeCatalog { stored in
                var records = stored.records
                var writes: [CatalogWrite] = []
                if stored.version == 0 {
                    records = seed.landmarks.map { Self.json($0, retired: seed.retired.contains($0.id)) }
                    writes = zip(seed.landmarks, records).map { CatalogWrite(id: $0.id, record: $1) }
                }
                let more = try edit(StoredCatalog(version: stored.version, records: records))
                wrote.withLock { $0 = !more.isEmpty }
                return more.isEmpty ? [] : writes + more
            }
            try await backend.catalogs.refresh(from: backend.store)
            return (stored.over(seed), wrote.withLock { $0 })
        } catch let refusal as CatalogRefusal {
            throw Self.apiError(refusal)
        }
    }

    static func apiError(_ refusal: CatalogRefusal) -> APIError {
        switch refusal {
        case .invalid: APIError(.badRequest, .invalidRequest, refusal.description)
        case .duplicate: APIError(.conflict, .landmarkExists, refusal.description)
        case .unknown: APIError(.notFound, .unknownLandmark, refusal.description)
        }
    }

    private func answer(_ id: Landmark.ID?, in catalog: LandmarkCatalog, status: HTTPResponse.Status) throws
        -> Response
    {
        guard let id, let landmark = catalog[id] else {
            throw APIError(.internalServerError, "the landmark changed is not in the catalog after the change")
        }
        return .json(
            status: status,
            body: Array(Self.json(landmark, retired: catalog.retired.contains(id)).encoded()))
    }

    private func landmarkID(_ context: AuthenticatedContext) throws(APIError) -> Landmark.ID {
        let text = context.parameters.get("id") ?? ""
        guard let id = Landmark.ID(text) else {
            throw APIError(.badRequest, .unknownLandmark, "'\(text.prefix(64))' is not a landmark id (a UUID)")
        }
        return id
    }
}

/// Brings the instance's catalog up to the database's before the route runs (`CatalogCache`):
/// one read of the catalog's version, the landmarks read again only when it moved.
struct CatalogRefresh<Context: RequestContext>: RouterMiddleware {
    let catalogs: CatalogCache
    let store: ServerStore

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        try await catalogs.refresh(from: store)
        return try await next(request, context)
    }
}

/// A value shared by the closures of one request, under a lock.
private final class Kept<Value: Sendable>: Sendable {
    private let value: Mutex<Value>

    init(_ value: Value) { self.value = Mutex(value) }

    func withLock<Result>(_ body: (inout Value) -> Result) -> Result { value.withLock { body(&$0) } }
}
