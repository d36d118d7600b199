import Foundation
import HTTPTypes
import Hummingbird
import ReservationCore
import ReservationStorage

/// The routes of docs/contracts.md, "HTTP backend (client) and server", over one
/// `ServerStore`: a controller per resource over one `RouteBackend`. Input goes
/// through the core's rules: `CreateReservationRequest(json:)`, `NewReservation`
/// (the one date parser, a future date, party size > 0) and the catalog, so the
/// server and the file backend refuse the same requests with the same words.
struct ReservationRoutes: Sendable {
    /// The largest request body accepted; larger ones get 413.
    static let bodyLimit = 64 * 1024
    /// The largest body of a batch route: room for `batchLimit` requests.
    static let batchBodyLimit = BatchLimit.bytes
    /// The most requests (or ids) one batch route takes.
    static let batchLimit = BatchLimit.requests

    /// The largest body a route takes: a batch route's or any other's.
    static func bodyLimit(of path: String) -> Int {
        ["/reservations/batch", "/reservations/batch/dry-run", "/reservations/cancel", "/reservations/confirm"]
            .contains(path)
            ? batchBodyLimit : bodyLimit
    }
    /// An `Idempotency-Key` is 1 to 255 visible ASCII characters.
    static let maxKeyLength = 255

    let backend: RouteBackend

    init(
        store: ServerStore, catalogs: CatalogCache, now: @escaping @Sendable () -> Date, lists: ListCache?,
        maxHolds: Int, groups: DayGroups? = nil
    ) {
        backend = RouteBackend(
            store: store, catalogs: catalogs, now: now, lists: lists, maxHolds: maxHolds, groups: groups)
    }

    /// The routes, all behind a token (see `buildRouter`).
    var endpoints: RouteCollection<AuthenticatedContext> {
        RouteCollection(context: AuthenticatedContext.self)
            .addRoutes(LandmarkController(backend: backend).endpoints)
            .addRoutes(CatalogController(backend: backend).endpoints)
            .addRoutes(ReservationReadController(backend: backend).endpoints)
            .addRoutes(ReservationWriteController(backend: backend).endpoints)
            .addRoutes(BatchController(backend: backend).endpoints)
            .addRoutes(HistoryController(backend: backend).endpoints)
    }
}
