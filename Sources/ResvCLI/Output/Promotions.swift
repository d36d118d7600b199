import Foundation
import ReservationCore

extension CommandContext {
    /// Says on stderr which of the waitlisted reservations in `before` (the user's own: a
    /// server shows no one else's) the change just made promoted, one line each:
    /// "Promoted from the waitlist: 1c2d3e4f  Half Dome  2026-12-01 08:00 PST  party of 2,
    /// confirmed". `changed` are the change's own reservations, whose answer says what they are.
    /// Read again only when something was waiting; an answer that cannot be had says nothing.
    func reportPromotions(
        before: ReservationSnapshot, changed: Set<Reservation.ID>, service: ReservationService,
        _ output: OutputOptions
    ) async {
        let waiting = before.reservations.filter { $0.status == .waitlisted && !changed.contains($0.id) }
        guard !waiting.isEmpty, let after = try? await service.fetch() else { return }
        let now = Dictionary(after.reservations.map { ($0.id, $0) }) { first, _ in first }
        let renderer = Renderer(output, context: self)
        for reservation in waiting {
            guard let promoted = now[reservation.id], promoted.status == .confirmed || promoted.status == .pending
            else { continue }
            say("Promoted from the waitlist: \(renderer.summary(promoted)), \(promoted.status.rawValue)")
        }
    }
}
