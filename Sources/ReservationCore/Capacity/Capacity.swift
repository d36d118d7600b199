import Foundation

/// The per-day capacity rule of docs/contracts.md: the party sizes of a landmark's
/// active reservations on one calendar day, in the landmark's zone, never
/// exceed its capacity.
public enum Capacity {
    /// Which statuses take places on their day, the one rule every engine counts by (the servers'
    /// SQL is made from `Reservation.Status.takingPlaces`): pending, confirmed and held (a hold
    /// only until its end) parties; a checked-in party, which came; and a no-show, which keeps the
    /// places of its day (a day whose visit has passed gives nothing back: nobody could use them).
    /// Cancelled, expired and waitlisted ones take none.
    public static func takesPlaces(_ status: Reservation.Status) -> Bool {
        switch status {
        case .pending, .confirmed, .held, .checkedIn, .noShow: true
        case .cancelled, .expired, .waitlisted: false
        }
    }

    /// The calendar a landmark's days are counted in: its zone, UTC when it has none.
    public static func calendar(for landmark: Landmark) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = landmark.timeZone ?? TimeZone.gmt
        return calendar
    }

    /// Whether `requested` more people fit beside `booked` (overflow never fits).
    ///
    /// `RESV_SEEDED_BUG_NO_CAPACITY_CHECK` is the fault suite's negative control
    /// (`scripts/faults --seed-bug no-capacity-check`, which builds with it into
    /// `.build-seeded` only): everything fits, so its capacity invariant must fail.
    /// No shipped build defines it.
    public static func fits(_ requested: Int, booked: Int, capacity: Int) -> Bool {
        #if RESV_SEEDED_BUG_NO_CAPACITY_CHECK
            return true
        #else
            let (total, overflow) = booked.addingReportingOverflow(requested)
            return !overflow && total <= capacity
        #endif
    }

    /// The calendar day a reservation counts against: [start, end) and its
    /// `YYYY-MM-DD` text for messages.
    public struct Day: Sendable, Hashable {
        public let start: Date
        public let end: Date
        public let text: String

        public init?(of date: Date, in calendar: Calendar) {
            guard let interval = calendar.dateInterval(of: .day, for: date) else { return nil }
            start = interval.start
            end = interval.end
            text = CalendarDay(date, in: calendar).description
        }
    }

    /// One landmark's active reservations by date, with running party sums.
    struct DayIndex {
        private let dates: [Date]
        /// `sums[i]` is the sum of the first `i` party sizes.
        private let sums: [Int]

        /// Parties outside `Reservation.partySizes` (rows a server stored before the
        /// bound, which do not map) do not count; so every sum is at most 10,000 per
        /// party and cannot overflow.
        init(_ parties: [(date: Date, partySize: Int)]) {
            let sorted = parties.filter { Reservation.partySizes.contains($0.partySize) }.sorted { $0.date < $1.date }
            dates = sorted.map(\.date)
            var sums = [0]
            sums.reserveCapacity(sorted.count + 1)
            for party in sorted {
                sums.append(sums[sums.count - 1] + party.partySize)
            }
            self.sums = sums
        }

        /// The party sizes booked in [start, end).
        func booked(from start: Date, to end: Date) -> Int {
            sums[firstIndex(notBefore: end)] - sums[firstIndex(notBefore: start)]
        }

        private func firstIndex(notBefore date: Date) -> Int {
            var low = 0
            var high = dates.count
            while low < high {
                let middle = (low + high) / 2
                if dates[middle] < date { low = middle + 1 } else { high = middle }
            }
            return low
        }
    }
}
