import Foundation
import HTTPTypes
import Hummingbird
import ReservationCore
import ReservationStorage

/// What every reservation controller shares: the store, the catalog, the clock,
/// the kept lists, and the steps each route takes the same way (a body, a write
/// transaction, records as a user reads them, an id from the path).
struct RouteBackend: Sendable {
    let store: ServerStore
    /// The newest catalog seen (refreshed once a request, `CatalogRefresh`): for reads and
    /// names; a write's transaction decides by the one in force in it.
    let catalogs: CatalogCache
    let now: @Sendable () -> Date
    /// Lists kept between writes, when this process is the store's only writer.
    let lists: ListCache?
    /// The most live holds a user may have.
    let maxHolds: Int
    /// Where the bookings of one landmark-day wait to be decided together; nil where each runs alone.
    var groups: DayGroups? = nil

    var catalog: LandmarkCatalog { catalogs.current }

    /// The request's body. One that stops arriving (the connection's request
    /// timeout closed it, or the client left) is the client's failure, 408,
    /// never the server's 500; a body over the limit stays 413.
    static func body(of request: Request, upTo limit: Int) async throws -> Data {
        var request = request
        do {
            return Data(try await request.collectBody(upTo: limit).readableBytesView)
        } catch let error as any HTTPResponseError {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw APIError(.requestTimeout, .invalidRequest, "the request body did not arrive whole in time")
        }
    }

    /// A body that must be JSON: 400 `invalidJSON` when it is not.
    static func json(of request: Request, upTo limit: Int) async throws -> JSONValue {
        let body = try await body(of: request, upTo: limit)
        return try parsed(Result { () throws(JSONSyntaxError) in try JSONValue.parse(body) })
    }

    static func parsed(_ json: Result<JSONValue, JSONSyntaxError>) throws(APIError) -> JSONValue {
        switch json {
        case .success(let value): return value
        case .failure(let error):
            throw APIError(.badRequest, .invalidJSON, "the request body is not valid JSON: \(error.detail)")
        }
    }

    /// Runs a rule in one write transaction of the owner's, or, when it books
    /// only `day`, in its group's (`groups`), as the actor (`ActingTransaction`:
    /// each entry names them); a refusal becomes its `APIError`, a change forgets
    /// the user's kept list.
    func write<Value: Sendable>(
        _ acting: Acting, key: IdempotencyKey?, day: BookingDay? = nil,
        rule: @escaping @Sendable (any BookingTransaction) async throws -> Value,
        keep: @escaping @Sendable (Value) -> StoredResponse? = { _ in nil }
    ) async throws -> Written<Value> {
        do {
            let written = try await store.transaction(
                acting.owner, catalog: catalog, key: key, grouped: day.flatMap { day in groups.map { (day, $0) } },
                keep: keep, { try await rule(ActingTransaction($0, acting)) })
            if case .done = written { lists?.invalidate() }
            return written
        } catch let error as ReservationError {
            if case .noCapacity = error { ServerMetrics.bookingsRefused.increment() }
            if case .batchRejected(let refused, _) = error {
                let full = refused.filter { if case .noCapacity = $0.error { true } else { false } }.count
                if full > 0 { ServerMetrics.bookingsRefused.increment(by: full) }
            }
            throw APIError(error)
        }
    }

    /// A rule without an idempotency key, which so always runs.
    func write<Value: Sendable>(
        _ acting: Acting, _ rule: @escaping @Sendable (any BookingTransaction) async throws -> Value
    ) async throws -> Value {
        switch try await write(acting, key: nil, rule: rule) {
        case .done(let value): return value
        case .replay: throw APIError(.internalServerError, "a replay without an Idempotency-Key")
        }
    }

    /// Stored records as a user reads them at `now`: a hold that has ended is
    /// `expired` (the sweep may not have recorded it yet), a waitlisted one has
    /// its place on its day's list, which counts every user's (read only when
    /// there is one; numbered by the core's `WaitlistPositions`).
    func read(_ records: [ReservationApiModel], at now: Date) async throws -> [ReservationApiModel] {
        var records = records.map { $0.settled(at: now) }
        var days: [Int: BookingDay] = [:]
        for (index, record) in records.enumerated() where record.status == Reservation.Status.waitlisted.rawValue {
            if let reservation = try? Reservation(record, catalog: catalog),
                let day = BookingDay(reservation.date, at: reservation.landmark)
            {
                days[index] = day
            }
        }
        guard !days.isEmpty else { return records }
        let positions = WaitlistPositions.numbered(try await store.waitlists(Set(days.values).sorted()))
        for (index, day) in days {
            if let position = positions[day]?[records[index].id] { records[index].waitlistPosition = position }
        }
        return records
    }

    /// The reservation id of the path's `:id`: a whole UUID.
    func reservationID(_ context: AuthenticatedContext) throws(APIError) -> Reservation.ID {
        let text = context.parameters.get("id") ?? ""
        guard let id = Reservation.ID(text) else {
            throw APIError(
                .badRequest, .invalidReservationId, "'\(text.prefix(64))' is not a reservation id: give the whole UUID")
        }
        return id
    }

    /// Checks a create body with the core's rules (`NewReservation`: the one
    /// date parser, a future date, a party size, a status); its landmark must be
    /// a known landmark's id; an `id` the client made must be a whole UUID.
    func newReservation(_ json: JSONValue) throws(APIError) -> NewReservation {
        let wire: CreateReservationRequest
        do { wire = try CreateReservationRequest(json: json) } catch { throw APIError(error) }
        guard let landmarkID = Landmark.ID(wire.landmarkId) else {
            throw APIError(.badRequest, .unknownLandmark, "landmarkId '\(wire.landmarkId.prefix(64))' is not a UUID")
        }
        if let text = wire.id, Reservation.ID(text) == nil || text.count != 36 {
            throw APIError(.badRequest, .invalidRequest, "id '\(text.prefix(64))' is not a UUID")
        }
        let checked: NewReservation
        do { checked = try NewReservation(wire, now: now()) } catch { throw APIError(error) }
        try knownLandmark(landmarkID)
        return checked
    }

    /// The day a booking waits in a group for (`DayGroups`): one with a
    /// capacity, unless it holds places under the hold cap (counted with the
    /// user's other changes held off, alone).
    func groupDay(of request: NewReservation) -> BookingDay? {
        guard groups != nil, request.hold == nil, let id = Landmark.ID(request.landmark), let landmark = catalog[id]
        else { return nil }
        return BookingDay(request.date, at: landmark)
    }

    /// 404 `unknownLandmark` for an id the catalog does not have.
    func knownLandmark(_ id: Landmark.ID) throws(APIError) {
        guard catalog[id] != nil else {
            throw APIError(
                .notFound, .unknownLandmark, "landmarkId \(id) is not a known landmark (GET /landmarks lists them)")
        }
    }
}
