import Foundation
import HTTPTypes
import Hummingbird
import ReservationCore
import ReservationStorage

/// The changes of one reservation: `POST /reservations` (under an optional
/// `Idempotency-Key`), `PATCH /reservations/{id}`, `DELETE /reservations/{id}`
/// (cancel), `POST /reservations/{id}/confirm`, and `/checkin` and `/noshow`
/// (docs/contracts.md, "Check-in and no-shows"), each one transaction of a rule of `Booking`.
struct ReservationWriteController: Sendable {
    let backend: RouteBackend

    var endpoints: RouteCollection<AuthenticatedContext> {
        RouteCollection(context: AuthenticatedContext.self)
            .post("/reservations", use: create)
            .delete("/reservations/:id", use: cancel)
            .patch("/reservations/:id", use: modify)
            .post("/reservations/:id/confirm", use: confirm)
            .post("/reservations/:id/checkin", use: checkIn)
            .post("/reservations/:id/noshow", use: noShow)
    }

    /// `POST /reservations`; with the client's `id` (docs/contracts.md, "Offline") it
    /// runs alone, not in its day's group, and answers 200 with the booking that id
    /// already made, also when the same request sent to another instance at once
    /// made it a moment before (`Booking`'s client ids, read again after a race).
    @Sendable func create(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        let backend = backend
        return try await backend.idempotentCreate(
            request, as: context.acting, route: "POST /reservations", bodyLimit: ReservationRoutes.bodyLimit,
            check: { json throws(APIError) in
                let reservation = try backend.newReservation(json)
                let at = backend.now()
                let maxHolds = backend.maxHolds
                guard let id = reservation.id else {
                    return (
                        backend.groupDay(of: reservation),
                        { transaction -> (reservation: Reservation, made: Bool) in
                            let made = try await Booking.reserve(
                                reservation, now: at, holdLimit: maxHolds, in: transaction)
                            return (made, true)
                        }
                    )
                }
                return (
                    nil,
                    { transaction in
                        try await Booking.reserve(reservation, id: id, now: at, holdLimit: maxHolds, in: transaction)
                    }
                )
            },
            keep: { created, key in RouteBackend.kept([created.reservation], status: created.made ? 201 : 200, key: key)
            },
            answer: { created in
                guard created.made else { return .json(status: .ok, body: Wire.body(created.reservation)) }
                ServerMetrics.bookingsMade.increment()
                var headers = HTTPFields()
                headers[.location] = "/reservations/\(created.reservation.id)"
                return .json(status: .created, body: Wire.body(created.reservation), headers: headers)
            })
    }

    /// `PATCH /reservations/{id}` `{date?, partySize?, landmarkId?, note?}` with
    /// `If-Match: "<version>"`: one change in one transaction, by `Booking.modify`.
    /// Without `If-Match` the change is unconditional.
    @Sendable func modify(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        let id = try backend.reservationID(context)
        let expected = try expectedVersion(request.headers)
        let body = try await RouteBackend.body(of: request, upTo: ReservationRoutes.bodyLimit)
        let change = try modifyRequest(
            try RouteBackend.parsed(Result { () throws(JSONSyntaxError) in try JSONValue.parse(body) }))
        let at = backend.now()
        return try await backend.keyedChange(
            request, body: body, as: try await backend.acting(on: id, context),
            rule: { try await Booking.modify(id, change, expectedVersion: expected, now: at, in: $0) },
            answer: { (.ok, Wire.body($0)) }, headers: Self.versionTag)
    }

    /// The `ETag` of an answer, a replayed one too: the version its body holds.
    private static func versionTag(_ body: [UInt8]) -> HTTPFields {
        guard case .integer(let version)? = (try? JSONValue.parse(Data(body)))?["version"],
            let version = Int(exactly: version)
        else { return [:] }
        return .etag(version)
    }

    /// `If-Match: "<version>"` (a weak `W/` tag is taken alike); nil when absent or `*`.
    private func expectedVersion(_ headers: HTTPFields) throws(APIError) -> Int? {
        guard var text = headers[.ifMatch]?.trimmingCharacters(in: .whitespaces) else { return nil }
        if text == "*" { return nil }
        if text.hasPrefix("W/") { text.removeFirst(2) }
        guard text.count >= 3, text.hasPrefix("\""), text.hasSuffix("\""),
            let version = Int(text.dropFirst().dropLast()), version >= 1
        else {
            throw APIError(
                .badRequest, .invalidRequest,
                "If-Match must be the reservation's version in quotes (\"3\"), not '\(text.prefix(64))'")
        }
        return version
    }

    /// Reads a modify body into the core's `ReservationChange` (at least one
    /// field, party size, note length; the one date parser); the landmark must
    /// be a known landmark's id. Whether the date is ahead is the rule's to say.
    private func modifyRequest(_ json: JSONValue) throws(APIError) -> ReservationChange {
        guard case .object = json else {
            throw APIError(
                .badRequest, .invalidRequest, "the body must be a JSON object {date?, partySize?, landmarkId?, note?}")
        }
        func text(_ field: String) throws(APIError) -> String? {
            switch json[field] {
            case nil, .null?: return nil
            case .string(let value)?: return value
            case let other?:
                throw APIError(.badRequest, .invalidRequest, "\(field) must be a string, not \(other.typeName)")
            }
        }
        var partySize: Int?
        switch json["partySize"] {
        case nil, .null?: partySize = nil
        case .integer(let value)?:
            guard let exact = Int(exactly: value) else { throw APIError(ReservationError.invalidPartySize(Int.max)) }
            partySize = exact
        case let other?:
            throw APIError(.badRequest, .invalidRequest, "partySize must be a whole number, not \(other.typeName)")
        }
        let landmarkText = try text("landmarkId")
        let (dateText, note) = (try text("date"), try text("note"))
        let change: ReservationChange
        do throws(ReservationError) {
            let date = try dateText.map { text throws(ReservationError) in try DateTime.parseInput(text) }
            change = try ReservationChange(date: date, partySize: partySize, landmark: landmarkText, note: note)
        } catch {
            throw APIError(error)
        }
        if let landmarkText {
            guard let landmarkID = Landmark.ID(landmarkText) else {
                throw APIError(.badRequest, .unknownLandmark, "landmarkId '\(landmarkText.prefix(64))' is not a UUID")
            }
            try backend.knownLandmark(landmarkID)
        }
        return change
    }

    @Sendable func cancel(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        let id = try backend.reservationID(context)
        let acting = try await backend.acting(on: id, context)
        return try await backend.setStatus(.cancelled, of: [id], request, body: Data(), for: acting) {
            Wire.body($0[0].reservation)
        }
    }

    @Sendable func confirm(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        let id = try backend.reservationID(context)
        let acting = try await backend.acting(on: id, context)
        return try await backend.setStatus(.confirmed, of: [id], request, body: Data(), for: acting) {
            Wire.body($0[0].reservation)
        }
    }

    @Sendable func checkIn(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        try await attend(.checkedIn, request, context: context)
    }

    @Sendable func noShow(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        try await attend(.noShow, request, context: context)
    }

    /// Records a visit (`Booking.attend`) under the request's `Idempotency-Key`. Only who
    /// manages the reservation's landmark may (`requireManager(of:)`): the owner of a booking
    /// does not check themselves in. A reservation the caller cannot see is 404, as for any change.
    private func attend(_ status: Reservation.Status, _ request: Request, context: AuthenticatedContext)
        async throws -> Response
    {
        let id = try backend.reservationID(context)
        let acting = try await backend.acting(on: id, context)
        guard let record = try await backend.store.get(acting.owner, id) else { throw APIError.notFound(id) }
        if let landmark = record.landmarkId.flatMap(Landmark.ID.init) {
            try context.requireManager(of: landmark)
        }
        let at = backend.now()
        return try await backend.keyedChange(
            request, body: Data(), as: acting,
            rule: { try await Booking.attend(id, as: status, now: at, in: $0) },
            answer: { (.ok, Wire.body($0)) }, headers: Self.versionTag)
    }
}

extension RouteBackend {
    /// Cancels or confirms `ids` in one transaction, all or none (`Booking.setStatus`), under
    /// the request's `Idempotency-Key` if it has one (`keyedChange`).
    func setStatus(
        _ status: Reservation.Status, of ids: [Reservation.ID], _ request: Request, body: Data, for acting: Acting,
        answer: @escaping @Sendable ([StatusChange]) -> [UInt8]
    ) async throws -> Response {
        let at = now()
        return try await keyedChange(
            request, body: body, as: acting,
            rule: { try await Booking.setStatus(status, of: ids, now: at, in: $0) },
            answer: { (.ok, answer($0)) })
    }
}
