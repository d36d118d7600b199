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

    /// The same report for a change made without reading the list before it (whole ids on a
    /// server): the history says whom it promoted. The system's `promoted` entries of the
    /// user's reservations written since the change's own entry (in its transaction, or
    /// after it) are those the old and the new list would show. Read only after a change
    /// that gave up places, or moved; an answer that cannot be had says nothing.
    func reportPromotions(madeBy changed: Set<Reservation.ID>, service: ReservationService, _ output: OutputOptions)
        async
    {
        guard let promoted = try? await Self.promotions(madeBy: changed, service: service) else { return }
        let renderer = Renderer(output, context: self)
        for reservation in promoted where reservation.status == .confirmed || reservation.status == .pending {
            say("Promoted from the waitlist: \(renderer.summary(reservation)), \(reservation.status.rawValue)")
        }
    }

    /// The reservations promoted since the newest change of one of `changed` that a user
    /// made, oldest first, each once: the history is read newest first, a page at a time,
    /// until that change is in the page.
    static func promotions(madeBy changed: Set<Reservation.ID>, service: ReservationService) async throws
        -> [Reservation]
    {
        // The change's entries and its promotions are the newest, unless others wrote since.
        var limit = 16 + changed.count
        while true {
            let entries = try await service.history(nil, limit)
            guard let own = entries.firstIndex(where: { changed.contains($0.reservationID) && !$0.change.isSystem })
            else {
                if entries.count < limit || limit >= 100_000 { return [] }
                limit *= 8
                continue
            }
            let catalog = try await service.landmarks()
            var seen: Set<Reservation.ID> = []
            return entries[..<own].reversed().filter {
                $0.change == .promoted && !changed.contains($0.reservationID) && seen.insert($0.reservationID).inserted
            }.compactMap { try? Reservation($0.after, catalog: catalog) }
        }
    }
}
