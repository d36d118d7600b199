import Foundation

/// The records of a store and the rules that change them, shared by the
/// in-memory and file backends. It edits records in place, so fields the tool
/// does not know and records that do not map survive every change.
public struct ReservationLedger: Sendable {
    /// The records exactly as stored, valid or not.
    public private(set) var records: [JSONValue]
    /// Counts changes, so a store writes only when there is something to write.
    public private(set) var revision = 0
    public let catalog: LandmarkCatalog
    private var reservations: [Reservation]
    private let rejected: [RejectedRecord]
    /// For each reservation, the index of the record it maps from. A change finds
    /// its reservation by a scan, which costs less than building an index of
    /// every id for a command that changes one or two.
    private var positions: [Int]

    public init(records: [JSONValue], catalog: LandmarkCatalog) {
        let mapped = ReservationSnapshot.map(records, catalog: catalog)
        self.records = records
        self.catalog = catalog
        self.reservations = mapped.reservations
        self.rejected = mapped.rejected
        self.positions = mapped.positions
    }

    /// What the records map to now.
    public var snapshot: ReservationSnapshot {
        ReservationSnapshot(reservations: reservations, rejected: rejected, catalog: catalog)
    }

    /// Appends new reservations, all or none: each request's landmark is
    /// resolved in this ledger's catalog and its day checked against the
    /// landmark's capacity, counting the requests before it. When any request
    /// fails, the ledger is unchanged and the error lists every failure.
    public mutating func reserve(
        _ requests: [NewReservation], now: Date, newID: () -> Reservation.ID = { Reservation.ID(UUID()) }
    ) throws(ReservationError) -> [Reservation] {
        var draft = self
        var tally = Capacity.Tally(existing: reservations)
        var created: [Reservation] = []
        var failures: [BatchFailure] = []
        created.reserveCapacity(requests.count)
        draft.records.reserveCapacity(records.count + requests.count)
        draft.reservations.reserveCapacity(reservations.count + requests.count)
        draft.positions.reserveCapacity(reservations.count + requests.count)
        for (index, request) in requests.enumerated() {
            do {
                created.append(try draft.append(request, id: newID(), now: now, tally: &tally))
            } catch {
                failures.append(BatchFailure(index: index, error: error))
            }
        }
        guard failures.isEmpty else { throw .batchRejected(failures, total: requests.count) }
        self = draft
        return created
    }

    private mutating func append(
        _ request: NewReservation, id: Reservation.ID, now: Date, tally: inout Capacity.Tally
    ) throws(ReservationError) -> Reservation {
        // Checked again here, by the backend's own clock: a request validated long ago may be stale.
        guard request.date > now else { throw .dateInPast(request.date) }
        let landmark = try catalog.landmark(matching: request.landmark)
        try tally.book(request, at: landmark)
        let reservation = Reservation(
            id: id, landmark: landmark, date: request.date, partySize: request.partySize, status: request.status)
        positions.append(records.count)
        records.append(ReservationApiModel(reservation).json)
        reservations.append(reservation)
        revision += 1
        return reservation
    }

    /// Sets the status to cancelled; cancelling twice succeeds and reports no change.
    public mutating func cancel(_ id: Reservation.ID) throws(ReservationError) -> StatusChange {
        try setStatus(.cancelled, of: id)
    }

    /// Cancels several reservations, all or none: an unknown id changes nothing.
    public mutating func cancel(_ ids: [Reservation.ID]) throws(ReservationError) -> [StatusChange] {
        var draft = self
        var changes: [StatusChange] = []
        for id in ids { changes.append(try draft.cancel(id)) }
        self = draft
        return changes
    }

    /// Moves pending to confirmed; a cancelled reservation cannot be confirmed.
    public mutating func confirm(_ id: Reservation.ID) throws(ReservationError) -> StatusChange {
        try setStatus(.confirmed, of: id)
    }

    /// Confirms several reservations, all or none: an unknown or cancelled id changes nothing.
    public mutating func confirm(_ ids: [Reservation.ID]) throws(ReservationError) -> [StatusChange] {
        var draft = self
        var changes: [StatusChange] = []
        for id in ids { changes.append(try draft.confirm(id)) }
        self = draft
        return changes
    }

    private mutating func setStatus(_ status: Reservation.Status, of id: Reservation.ID) throws(ReservationError)
        -> StatusChange
    {
        guard let index = reservations.firstIndex(where: { $0.id == id }) else {
            throw .reservationNotFound(id.description)
        }
        let current = reservations[index]
        if status == .confirmed, current.status == .cancelled { throw .cannotConfirmCancelled(current) }
        guard current.status != status else { return StatusChange(reservation: current, previous: current.status) }
        let updated = current.with(status: status)
        records[positions[index]]["status"] = .string(status.rawValue)
        reservations[index] = updated
        revision += 1
        return StatusChange(reservation: updated, previous: current.status)
    }
}
