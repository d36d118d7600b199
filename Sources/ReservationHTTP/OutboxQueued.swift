import Foundation
import ReservationCore

/// Changes kept in the outbox instead of sent (`--queue`, the server not
/// reached): what the command shows, as if made, with status `queued`.
public struct Queued: Error, Sendable {
    /// The reservations as they will be asked for (a new booking, or the one changed).
    public let reservations: [Reservation]
    /// The outbox's items that hold the change.
    public let items: [OutboxItem]
    /// Those of `reservations` that are bookings waiting (all but one cancelled, so dropped).
    public var waiting: Set<Reservation.ID> = []
    /// The changes waiting for those of `reservations` the server has, each as it would leave it.
    public var changes: [Reservation.ID: QueuedChange] = [:]

    init(reservations: [Reservation], items: [OutboxItem], dropped: Set<Reservation.ID> = []) {
        self.reservations = reservations
        self.items = items
        waiting = Set(reservations.map(\.id)).subtracting(dropped)
    }
}

extension Queued {
    /// This with the changes `outbox` now holds for its reservations the server has (a
    /// queued booking edited in place has none: it is still a booking waiting).
    func withChanges(from outbox: Outbox, _ catalog: LandmarkCatalog, at now: Date) -> Queued {
        var queued = self
        queued.changes = outbox.changes(over: reservations, catalog, at: now)
        queued.waiting.subtract(queued.changes.keys)
        return queued
    }
}

extension HTTPCalls {
    /// A queued booking as the reservation it asks for (status as requested, version 1); nil when
    /// it does not map (a landmark the catalog no longer has).
    static func queuedReservation(_ item: OutboxItem, _ catalog: LandmarkCatalog) throws -> Reservation? {
        guard item.kind == .reserve, let id = item.reservationID, let body = item.request,
            let wire = try? CreateReservationRequest(json: body),
            let landmark = try? catalog.landmark(matching: wire.landmarkId),
            let date = try? DateTime.parse(wire.date)
        else { return nil }
        let at = item.queuedAt
        return Reservation(
            id: id, landmark: landmark, date: date, partySize: wire.partySize,
            status: wire.status.flatMap(Reservation.Status.init(rawValue:)) ?? .confirmed, note: wire.note,
            createdAt: at, updatedAt: at, version: 1)
    }

    /// Refuses (`noCapacity`, exit 1) a party larger than the landmark's whole day, by the
    /// catalog this client has: the server would refuse it whenever it arrived. A party that
    /// fits the day is queued whatever is booked: only the server knows how full it is.
    static func refuseOverCapacity(_ landmark: Landmark, partySize: Int) throws {
        guard let capacity = landmark.capacity, partySize > capacity else { return }
        throw ReservationError.noCapacity(landmark, day: "", requested: partySize, booked: 0)
    }
}

extension Outbox {
    /// The bookings waiting in it (not refused), as the reservations they ask for: what
    /// `list`, `show` and Tab completion show beside the server's answers.
    public func bookings(_ catalog: LandmarkCatalog) -> [Reservation] {
        guard let items = try? items() else { return [] }
        return items.filter { $0.refusal == nil }.compactMap { try? HTTPCalls.queuedReservation($0, catalog) }
    }
}

extension Outbox {
    /// The cancels, confirms and modifies waiting in it (not refused) for `reservations` (the
    /// server's as last read, and the queued bookings), by reservation, in the order queued: each
    /// with the reservation as they would leave it, what `list`, `show` and Tab show beside
    /// the server's values. The server decides each when it arrives; this is only what was asked.
    public func changes(over reservations: [Reservation], _ catalog: LandmarkCatalog, at now: Date)
        -> [Reservation.ID: QueuedChange]
    {
        guard let items = try? items() else { return [:] }
        let known = Dictionary(reservations.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var changes: [Reservation.ID: QueuedChange] = [:]
        for item in items where item.refusal == nil {
            guard let id = item.reservationID, let before = changes[id]?.after ?? known[id],
                let kind = item.kind, let (made, after) = Self.apply(item, kind, to: before, catalog, at: now)
            else { continue }
            changes[id] = QueuedChange(kinds: (changes[id]?.kinds ?? []) + [made], after: after)
        }
        return changes
    }

    /// What one queued change asks of `reservation`; nil for a booking (shown on its own) or
    /// a modify whose fields this resv cannot read.
    private static func apply(
        _ item: OutboxItem, _ kind: OutboxItem.Kind, to reservation: Reservation, _ catalog: LandmarkCatalog,
        at now: Date
    ) -> (QueuedChange.Kind, Reservation)? {
        let at = item.queuedAt ?? now
        switch kind {
        case .reserve: return nil
        case .cancel: return (.cancel, reservation.changed(status: .cancelled, at: at))
        case .confirm: return (.confirm, reservation.changed(status: .confirmed, at: at))
        case .modify:
            guard case .object(let fields)? = item.request else { return nil }
            var landmark: Landmark?
            var date: Date?
            var partySize: Int?
            var note: String?? = .none
            for (field, value) in fields {
                switch (field, value) {
                case ("landmarkId", .string(let text)):
                    guard let found = try? catalog.landmark(matching: text) else { return nil }
                    landmark = found
                case ("date", .string(let text)):
                    guard let parsed = try? DateTime.parse(text) else { return nil }
                    date = parsed
                case ("partySize", .integer(let size)):
                    guard let size = Int(exactly: size) else { return nil }
                    partySize = size
                // An empty note removes it (`modify --note ""`).
                case ("note", .string(let text)): note = .some(text.isEmpty ? nil : text)
                default: return nil
                }
            }
            return (
                .modify,
                reservation.changed(landmark: landmark, date: date, partySize: partySize, note: note, at: at)
            )
        }
    }
}
