import Foundation
import ReservationCore

extension CommandContext {
    /// The instant a person typed (`--date`), a wall time or a relative day read at the landmark
    /// `place` gives. One that has passed is refused in the words a table shows it in, at that
    /// landmark, and as the new date of `moving` when a reservation is being moved.
    func futureDate(
        _ text: String, options: OutputOptions, moving: Reservation? = nil, place: () async throws -> Landmark
    ) async throws -> Date {
        let now = now()
        var landmark = TypedDate.needsZone(text) ? try await place() : nil
        let date = try TypedDate.resolve(text, now: now, zone: landmark?.timeZone ?? .gmt)
        guard date <= now else { return date }
        if landmark == nil { landmark = try? await place() }
        let shown = Renderer(options, context: self).visitDate(date, at: landmark)
        throw CLIError.pastDate(shown, moving: moving?.id.short)
    }
}
