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
    /// For each reservation id: where its record is, and where its mapped value is.
    private var locations: [Reservation.ID: (record: Int, reservation: Int)]

    public init(records: [JSONValue], catalog: LandmarkCatalog) {
        let mapped = ReservationSnapshot.map(records, catalog: catalog)
        self.records = records
        self.catalog = catalog
        self.reservations = mapped.reservations
        self.rejected = mapped.rejected
        var locations: [Reservation.ID: (record: Int, reservation: Int)] = [:]
        for (offset, reservation) in mapped.reservations.enumerated() {
            locations[reservation.id] = (mapped.positions[offset], offset)
        }
        self.locations = locations
    }

    /// What the records map to now.
    public var snapshot: ReservationSnapshot {
        ReservationSnapshot(reservations: reservations, rejected: rejected, catalog: catalog)
    }

    /// Appends a new reservation after checking its landmark and the landmark's capacity.
    public mutating func reserve(_ request: NewReservation, id: Reservation.ID, now: Date) throws(ReservationError)
        -> Reservation
    {
        // Checked again here, by the backend's own clock: a request validated long ago may be stale.
        guard request.date > now else { throw .dateInPast(request.date) }
        guard let landmark = catalog[request.landmarkID] else {
            throw .unknownLandmark(request.landmarkID.description)
        }
        try Capacity.check(request, landmark: landmark, existing: reservations)
        let reservation = Reservation(
            id: id, landmark: landmark, date: request.date, partySize: request.partySize, status: request.status)
        locations[id] = (records.count, reservations.count)
        records.append(ReservationApiModel(reservation).json)
        reservations.append(reservation)
        revision += 1
        return reservation
    }

    /// Sets the status to cancelled; cancelling twice succeeds and reports no change.
    public mutating func cancel(_ id: Reservation.ID) throws(ReservationError) -> StatusChange {
        try setStatus(.cancelled, of: id)
    }

    /// Moves pending to confirmed; a cancelled reservation cannot be confirmed.
    public mutating func confirm(_ id: Reservation.ID) throws(ReservationError) -> StatusChange {
        try setStatus(.confirmed, of: id)
    }

    private mutating func setStatus(_ status: Reservation.Status, of id: Reservation.ID) throws(ReservationError)
        -> StatusChange
    {
        guard let location = locations[id] else { throw .reservationNotFound(id.description) }
        let current = reservations[location.reservation]
        if status == .confirmed, current.status == .cancelled { throw .cannotConfirmCancelled(current) }
        guard current.status != status else { return StatusChange(reservation: current, previous: current.status) }
        let updated = current.with(status: status)
        records[location.record]["status"] = .string(status.rawValue)
        reservations[location.reservation] = updated
        revision += 1
        return StatusChange(reservation: updated, previous: current.status)
    }
}
