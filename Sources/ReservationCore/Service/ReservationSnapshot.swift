import Foundation

/// Everything a backend holds at one moment: what maps, and what does not.
public struct ReservationSnapshot: Sendable {
    public let reservations: [Reservation]
    public let rejected: [RejectedRecord]
    public let catalog: LandmarkCatalog
    /// Where the records came from: the backend itself, or a server's answers cached earlier.
    public var source: SnapshotSource = .backend
    /// Reservations among `reservations` that are only asked for: bookings waiting in a
    /// server's outbox (`--queue`), shown with status `queued`.
    public var queued: Set<Reservation.ID> = []
    /// Changes waiting in that outbox for reservations the server has (a queued cancel,
    /// confirm or modify), by reservation: shown beside the server's values, marked queued.
    public var queuedChanges: [Reservation.ID: QueuedChange] = [:]

    public init(reservations: [Reservation], rejected: [RejectedRecord], catalog: LandmarkCatalog) {
        self.reservations = reservations
        self.rejected = rejected
        self.catalog = catalog
    }

    /// Decodes and maps reservation records leniently, one element at a time.
    public init(records: [JSONValue], catalog: LandmarkCatalog) {
        let mapped = Self.map(records, catalog: catalog)
        self.init(reservations: mapped.reservations, rejected: mapped.rejected, catalog: catalog)
    }

    /// The mapping of a whole record list; `positions[i]` is the index of the
    /// record that `reservations[i]` came from. A repeated id maps only once.
    static func map(_ records: [JSONValue], catalog: LandmarkCatalog) -> (
        reservations: [Reservation], rejected: [RejectedRecord], positions: [Int]
    ) {
        var mapper = Mapper(catalog: catalog, capacity: records.count)
        for record in records { mapper.add(record) }
        return (mapper.reservations, mapper.rejected, mapper.positions)
    }

    /// Maps records one at a time, as a reader hands them out, so that a long
    /// list of records is never held as JSON whole.
    public struct Mapper {
        public let catalog: LandmarkCatalog
        fileprivate(set) var reservations: [Reservation] = []
        fileprivate(set) var rejected: [RejectedRecord] = []
        fileprivate(set) var positions: [Int] = []
        private var seen: Set<Reservation.ID>
        private var index = 0

        public init(catalog: LandmarkCatalog, capacity: Int = 0) {
            self.catalog = catalog
            seen = Set(minimumCapacity: capacity)
            reservations.reserveCapacity(capacity)
            positions.reserveCapacity(capacity)
        }

        public mutating func add(_ record: JSONValue) {
            defer { index += 1 }
            do throws(RejectionReason) {
                let reservation = try Reservation(ReservationApiModel(json: record), catalog: catalog)
                guard seen.insert(reservation.id).inserted else {
                    throw .duplicateReservationID(reservation.id.description)
                }
                reservations.append(reservation)
                positions.append(index)
            } catch {
                let rawID: String? = if case .string(let id)? = record["id"] { id } else { nil }
                rejected.append(RejectedRecord(index: index, id: rawID, reason: error))
            }
        }

        public var snapshot: ReservationSnapshot {
            ReservationSnapshot(reservations: reservations, rejected: rejected, catalog: catalog)
        }
    }
}

/// Where a snapshot's records came from.
public enum SnapshotSource: Sendable {
    /// Read from the backend just now.
    case backend
    /// A server's answer saved at `saved`, read because the server was not asked:
    /// `unreachable` says why it could not be reached (nil with `--offline`).
    case cache(saved: Date, unreachable: (any Error)?)
}

extension ReservationSnapshot {
    /// The reservations as they read at `now`: a hold that has ended is
    /// `expired` (`Reservation.settled(at:)`); with `countPositions`, each
    /// waitlisted one carries its place on its day's list, which only a
    /// snapshot of every user's reservations (a file, memory) can count.
    public func settled(at now: Date, countPositions: Bool) -> ReservationSnapshot {
        guard reservations.contains(where: { $0.status == .held || $0.status == .waitlisted }) else { return self }
        var reservations = reservations.map { $0.settled(at: now) }
        if countPositions {
            let positions = WaitlistPositions.among(reservations)
            for index in reservations.indices {
                if let position = positions[reservations[index].id] { reservations[index].waitlistPosition = position }
            }
        }
        var settled = ReservationSnapshot(reservations: reservations, rejected: rejected, catalog: catalog)
        settled.source = source
        settled.queued = queued
        settled.queuedChanges = queuedChanges
        return settled
    }
}
