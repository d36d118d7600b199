import Foundation
import HTTPTypes
import Hummingbird
import ReservationCore
import ReservationStorage

/// The routes of several reservations at once, each all or nothing in one
/// transaction: `POST /reservations/batch` (under an optional
/// `Idempotency-Key`), `POST /reservations/cancel` and `POST /reservations/confirm`.
struct BatchController: Sendable {
    let backend: RouteBackend

    var endpoints: RouteCollection<AuthenticatedContext> {
        RouteCollection(context: AuthenticatedContext.self)
            .post("/reservations/batch", use: createBatch)
            .post("/reservations/batch/dry-run", use: dryRunBatch)
            .post("/reservations/cancel", use: cancelBatch)
            .post("/reservations/confirm", use: confirmBatch)
    }

    /// `POST /reservations/batch` `{"reservations": [CreateReservationRequest, …]}`:
    /// every request booked or none, in one transaction, capacity counted across
    /// the batch; every refused request named by its number (from 1) and reason.
    @Sendable func createBatch(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        let backend = backend
        return try await backend.idempotentCreate(
            request, as: context.acting, route: "POST /reservations/batch",
            bodyLimit: ReservationRoutes.batchBodyLimit,
            check: { json throws(APIError) in
                let requests = try Self.newReservations(json, backend: backend)
                let at = backend.now()
                return (
                    nil,
                    { [maxHolds = backend.maxHolds] in
                        try await Booking.reserve(requests, now: at, holdLimit: maxHolds, in: $0)
                    }
                )
            },
            keep: { RouteBackend.kept($0, status: 201, key: $1, batch: true) },
            answer: { reservations in
                ServerMetrics.bookingsMade.increment(by: reservations.count)
                return .json(status: .created, body: Wire.body(reservations))
            })
    }

    /// `POST /reservations/batch/dry-run`, the body of a batch: the batch run as it would be
    /// now (every user's bookings counted, ids other users hold refused) in a transaction
    /// rolled back after: 200 with the reservations it would make, or the refusal it would
    /// meet. Nothing is written or kept (an `Idempotency-Key` is not read). A route of its
    /// own, so that a server without it answers 404 and never books what was only asked.
    @Sendable func dryRunBatch(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        let acting = context.acting
        let backend = backend
        let body = try await RouteBackend.body(of: request, upTo: ReservationRoutes.batchBodyLimit)
        let json = try RouteBackend.parsed(Result { () throws(JSONSyntaxError) in try JSONValue.parse(body) })
        let requests = try Self.newReservations(json, backend: backend)
        let at = backend.now()
        do {
            _ = try await backend.write(acting) { [maxHolds = backend.maxHolds] transaction -> Bool in
                throw WouldMake(
                    reservations: try await Booking.reserve(
                        requests, now: at, holdLimit: maxHolds, in: transaction))
            }
        } catch let made as WouldMake {
            return .json(status: .ok, body: Wire.body(made.reservations))
        }
        throw APIError(.internalServerError, "a dry run's transaction was not rolled back")
    }

    /// What a dry run would make, thrown so that its transaction is rolled back.
    private struct WouldMake: Error {
        var reservations: [Reservation]
    }

    /// A batch's requests, each checked as one create is; any refused refuses them all.
    private static func newReservations(_ json: JSONValue, backend: RouteBackend) throws(APIError) -> [NewReservation] {
        guard case .array(let items)? = json["reservations"] else {
            throw APIError(
                .badRequest, .invalidRequest, #"the body must be {"reservations": [CreateReservationRequest, …]}"#)
        }
        guard (1...ReservationRoutes.batchLimit).contains(items.count) else {
            throw APIError(
                .badRequest, .invalidRequest,
                "reservations must hold 1 to \(ReservationRoutes.batchLimit) requests, not \(items.count)")
        }
        var checked: [NewReservation] = []
        var failures: [(index: Int, error: APIError)] = []
        for (index, item) in items.enumerated() {
            do throws(APIError) {
                checked.append(try backend.newReservation(item))
            } catch {
                failures.append((index, error))
            }
        }
        if !failures.isEmpty {
            throw batchRejected(failures, total: items.count, status: .badRequest)
        }
        return checked
    }

    /// The refusal of a whole batch, naming each refused request.
    private static func batchRejected(
        _ failures: [(index: Int, error: APIError)], total: Int, status: HTTPResponse.Status
    ) -> APIError {
        let listed = failures.prefix(3).map { "request \($0.index + 1): \($0.error.reason)" }
        let more = failures.count > 3 ? "; and \(failures.count - 3) more" : ""
        var error = APIError(
            status, .batchRejected,
            "\(failures.count) of \(total) requests refused, nothing reserved: " + listed.joined(separator: "; ") + more
        )
        error.failures = failures.map {
            Wire.failure(("request", .integer(Int64($0.index + 1))), code: $0.error.code, reason: $0.error.reason)
        }
        return error
    }

    /// `POST /reservations/cancel` `{"ids": […]}`: all or none, in one transaction; a landmark's
    /// staff and admins may name one other user's reservations there (`acting(onAll:)`).
    @Sendable func cancelBatch(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        let (ids, body) = try await batchIDs(request)
        let acting = try await backend.acting(onAll: ids, context)
        return try await backend.setStatus(.cancelled, of: ids, request, body: body, for: acting) {
            Wire.body($0)
        }
    }

    /// `POST /reservations/confirm` `{"ids": […]}`: all or none, in one transaction.
    @Sendable func confirmBatch(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        let (ids, body) = try await batchIDs(request)
        let acting = try await backend.acting(onAll: ids, context)
        return try await backend.setStatus(.confirmed, of: ids, request, body: body, for: acting) {
            Wire.body($0)
        }
    }

    /// The ids of a cancel or confirm of several: `{"ids": ["<uuid>", …]}`, 1 to `batchLimit` whole
    /// UUIDs; and the body they came in (an idempotency key's request).
    private func batchIDs(_ request: Request) async throws -> ([Reservation.ID], Data) {
        let body = try await RouteBackend.body(of: request, upTo: ReservationRoutes.batchBodyLimit)
        let json = try RouteBackend.parsed(Result { () throws(JSONSyntaxError) in try JSONValue.parse(body) })
        guard case .array(let items)? = json["ids"] else {
            throw APIError(.badRequest, .invalidRequest, #"the body must be {"ids": ["<reservation id>", …]}"#)
        }
        guard (1...ReservationRoutes.batchLimit).contains(items.count) else {
            throw APIError(
                .badRequest, .invalidRequest,
                "ids must hold 1 to \(ReservationRoutes.batchLimit) reservation ids, not \(items.count)")
        }
        var ids: [Reservation.ID] = []
        var failures: [JSONValue] = []
        for (index, item) in items.enumerated() {
            if case .string(let text) = item, let id = Reservation.ID(text) {
                ids.append(id)
            } else {
                failures.append(
                    Wire.failure(
                        ("request", .integer(Int64(index + 1))), code: .invalidReservationId,
                        reason: "ids[\(index)] is not a reservation id: give the whole UUID"))
            }
        }
        guard failures.isEmpty else {
            var error = APIError(
                .badRequest, .invalidReservationId,
                "\(failures.count) of \(items.count) ids are not reservation ids (whole UUIDs), nothing changed")
            error.failures = failures
            throw error
        }
        return (ids, body)
    }
}
