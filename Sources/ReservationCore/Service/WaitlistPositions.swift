/// Waitlist positions, counted once for every backend: a waitlisted
/// reservation's position is its place (from 1) on its day's list, in the
/// order `Reservation.waitlistPrecedes` defines. The file store and memory
/// order the lists from their snapshot of every user's reservations
/// (`ReservationSnapshot.settled`); a server's engine hands its lists in that
/// order (`ServerStore.waitlists`), as the user's own records cannot count
/// the others'.
public enum WaitlistPositions {
    /// Each day's ids numbered from 1 in list order (an id listed twice keeps its first place).
    public static func numbered<Day: Hashable>(_ lists: [Day: [String]]) -> [Day: [String: Int]] {
        lists.mapValues { ids in
            Dictionary(ids.enumerated().map { ($1, $0 + 1) }, uniquingKeysWith: { first, _ in first })
        }
    }

    /// The positions of the waitlisted among `reservations`, which hold every
    /// user's reservations of their days.
    public static func among(_ reservations: [Reservation]) -> [Reservation.ID: Int] {
        var lists: [BookingDay: [Reservation]] = [:]
        for reservation in reservations where reservation.status == .waitlisted {
            if let day = BookingDay(reservation.date, at: reservation.landmark) {
                lists[day, default: []].append(reservation)
            }
        }
        let ordered = lists.mapValues { list in
            list.sorted {
                Reservation.waitlistPrecedes(
                    order: $0.waitlistOrder, id: $0.id.description, $1.waitlistOrder, id: $1.id.description)
            }.map(\.id.description)
        }
        var positions: [Reservation.ID: Int] = [:]
        for (day, numbers) in numbered(ordered) {
            for reservation in lists[day] ?? [] { positions[reservation.id] = numbers[reservation.id.description] }
        }
        return positions
    }
}
