import Foundation

/// A reservation as an engine hands it to the rules: its domain value when the
/// stored record maps, nil when it does not (a landmark gone from the catalog,
/// a row another program wrote). The engine maps, once, with the one mapping
/// (`Reservation(_:catalog:)`); the rules act on `reservation` and pass over
/// the records that do not map, which stay stored as they are.
///
/// Only `undo` looks at the stored values (`record`): it compares them with the
/// history, so a record that no longer maps is refused there as it always was,
/// not taken for a reservation that is gone.
public struct StoredReservation: Sendable {
    private enum Form: Sendable {
        /// Kept as a domain value (the ledger of memory and the file store).
        case domain(Reservation)
        /// Read from a row: the record as stored, and what it maps to.
        case row(ReservationApiModel, Reservation?)
    }

    private let form: Form

    /// A reservation an engine keeps as a domain value.
    public init(_ reservation: Reservation) { form = .domain(reservation) }

    /// A stored record, mapped against `catalog`.
    public init(_ record: ReservationApiModel, catalog: LandmarkCatalog) {
        form = .row(record, try? Reservation(record, catalog: catalog))
    }

    /// The domain value; nil when the record does not map.
    public var reservation: Reservation? {
        switch form {
        case .domain(let reservation): reservation
        case .row(_, let reservation): reservation
        }
    }

    /// The values as stored, valid or not: what `undo` compares with the history.
    public var record: ReservationApiModel {
        switch form {
        case .domain(let reservation): ReservationApiModel(reservation)
        case .row(let record, _): record
        }
    }

    /// Its order of joining a waitlist as stored, valid or not (`Booking.order(after:)`
    /// puts a new request after every order there, a record that does not map included).
    public var waitlistOrder: Int? {
        switch form {
        case .domain(let reservation): reservation.waitlistOrder
        case .row(let record, _): record.waitlistOrder
        }
    }
}
