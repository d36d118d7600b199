import Foundation
import HTTPTypes
import Hummingbird
import ReservationCore
import ReservationStorage

/// `GET /reservations` (the user's, kept between writes when it can be) and
/// `GET /reservations/{id}` (with its version as an entity tag).
struct ReservationReadController: Sendable {
    let backend: RouteBackend

    var endpoints: RouteCollection<AuthenticatedContext> {
        RouteCollection(context: AuthenticatedContext.self)
            .get("/reservations", use: list)
            .get("/reservations/:id", use: get)
    }

    @Sendable func list(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        let user = context.user
        let now = backend.now()
        guard let lists = backend.lists else {
            return .json(status: .ok, body: Wire.body(try await backend.read(backend.store.list(user), at: now)))
        }
        switch lists.lookup(user, at: now) {
        case .success(let body):
            return .json(status: .ok, body: body)
        case .failure(let generation):
            let records = try await backend.read(backend.store.list(user), at: now)
            // Kept until its first live hold ends: from then on that hold reads expired.
            let firstEnd = records.lazy.compactMap(\.holdEnd).min()
            let body = ByteBuffer(bytes: Wire.body(records))
            lists.keep(body, for: user, readAt: generation, until: firstEnd)
            return .json(status: .ok, body: body)
        }
    }

    @Sendable func get(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        let id = try backend.reservationID(context)
        let owner = try await backend.acting(on: id, context).owner
        guard let reservation = try await backend.store.get(owner, id) else { throw APIError.notFound(id) }
        return .json(
            status: .ok, body: Wire.body(try await backend.read([reservation], at: backend.now())[0]),
            headers: .etag(reservation.version))
    }
}

extension HTTPFields {
    /// The version as an entity tag, for `If-Match` on a later `PATCH`.
    static func etag(_ version: Int?) -> HTTPFields {
        var headers = HTTPFields()
        headers[.eTag] = "\"\(version ?? 1)\""
        return headers
    }
}
