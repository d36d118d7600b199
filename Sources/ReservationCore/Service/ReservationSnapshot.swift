import Foundation

/// Everything a backend holds at one moment: what maps, and what does not.
public struct ReservationSnapshot: Sendable {
    public let reservations: [Reservation]
    public let rejected: [RejectedRecord]
    public let catalog: LandmarkCatalog
    /// Where the records came from: the backend itself, or a server's answers cached earlier.
    public var source: SnapshotSource = .backend

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
        var reservations: [Reservation] = []
        var rejected: [RejectedRecord] = []
        var positions: [Int] = []
        var seen = Set<Reservation.ID>(minimumCapacity: records.count)
        reservations.reserveCapacity(records.count)
        positions.reserveCapacity(records.count)
        for (index, record) in records.enumerated() {
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
        return (reservations, rejected, positions)
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
