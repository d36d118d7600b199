import Foundation
import MemoryEngine
import ReservationCore
import ResvTestKit
import Synchronization
import Testing

/// A feed read in this process (memory here; a file's is the same `ChangePage.polling`)
/// waits on the clock it is handed: the test holds it and moves it, so a wait
/// is seen to last exactly its length and a change is seen at the next look,
/// with no time passing on the machine's clock.
@Suite("The in-process feed waits on a clock it is handed", .timeLimit(.minutes(30)))
struct FeedWaitTests {
    @Test func aPollWithNothingNewWaitsItsWholeLengthOnTheClockThenAnswersTheSameCursor() async throws {
        let clock = HeldWaitClock()
        let service = ReservationService.inMemory(now: { Fixture.now }, clock: clock.clock)
        let start = try await service.changes(nil, .zero)
        let answered = Flag()
        let poll = Task {
            defer { answered.set() }
            return try await service.changes(start.cursor, .seconds(10))
        }
        // Ten seconds in looks of 100 ms: not answered before the last.
        for _ in 0..<99 {
            await clock.untilSleeping()
            clock.advance(by: .milliseconds(100))
        }
        await clock.untilSleeping()
        #expect(!answered.isSet, "answered before its wait had passed")
        clock.advance(by: .milliseconds(100))
        let page = try await poll.value
        #expect(page.changes.isEmpty && page.cursor == start.cursor)
    }

    @Test func aChangeMadeWhileAPollWaitsIsAnsweredAtItsNextLook() async throws {
        let clock = HeldWaitClock()
        let service = ReservationService.inMemory(now: { Fixture.now }, clock: clock.clock)
        let start = try await service.changes(nil, .zero)
        let poll = Task { try await service.changes(start.cursor, .seconds(60)) }
        await clock.untilSleeping()
        let made = try await service.reserve(
            try NewReservation(
                landmark: "half dome", date: Fixture.now.addingTimeInterval(86_400), partySize: 2,
                now: Fixture.now))
        clock.advance(by: .milliseconds(100))
        let page = try await poll.value
        #expect(page.changes.map(\.entry.reservationID) == [made.id])
        #expect(page.changes.map(\.entry.change) == [.created])
        #expect(clock.elapsed == .milliseconds(100), "one look, not the minute it could wait")
    }
}
