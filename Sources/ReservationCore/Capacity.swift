import Foundation

/// The per-day capacity rule of DESIGN.md: the party sizes of a landmark's
/// active reservations on one calendar day, in the landmark's zone, never
/// exceed its capacity.
public enum Capacity {
    /// Throws `noCapacity` when `request` does not fit beside `existing`.
    public static func check(_ request: NewReservation, landmark: Landmark, existing: [Reservation])
        throws(ReservationError)
    {
        guard let capacity = landmark.capacity else { return }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = landmark.timeZone ?? TimeZone.gmt
        let day = calendar.dateInterval(of: .day, for: request.date)
        var booked = 0
        for reservation in existing
        where reservation.landmark.id == landmark.id && reservation.status.isActive
            && day.map({ $0.start <= reservation.date && reservation.date < $0.end }) ?? false
        {
            booked = booked.addingReportingOverflow(reservation.partySize).partialValue
        }
        let (total, overflow) = booked.addingReportingOverflow(request.partySize)
        if overflow || total > capacity {
            let components = calendar.dateComponents([.year, .month, .day], from: request.date)
            let dayText = String(
                format: "%04d-%02d-%02d", components.year ?? 0, components.month ?? 0, components.day ?? 0)
            throw .noCapacity(landmark, day: dayText, requested: request.partySize, booked: booked)
        }
    }
}
