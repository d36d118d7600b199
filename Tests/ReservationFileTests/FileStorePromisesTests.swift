import Foundation
import ResvTestKit
import Testing

@testable import ReservationCore
@testable import ReservationFile

#if canImport(Glibc)
    import Glibc
#endif

/// The file store's promises (docs/contracts.md, "JSON file store") on real files, with
/// the clock handed in: a read of a journal whose uncommitted tail a writer cuts, reads
/// that settle the holds that ended, and a watcher that sees a hold end as it waits.
@Suite("File store promises: journal and holds", .timeLimit(.minutes(30)))
struct FileStorePromisesFileTests {
    /// Removed with the suite's value, after each test.
    let folder: TemporaryDirectory
    var directory: URL { folder.url }
    let url: URL
    let clock = TestClock(Date(timeIntervalSince1970: 1_780_000_000))  // 2026-05-28

    init() throws {
        folder = try TemporaryDirectory("promises")
        url = folder.url.appendingPathComponent("store.json")
    }

    var service: ReservationService { .jsonFile(JSONFileStore(url: url), now: clock.now, clock: .continuous) }

    func request(partySize: Int, hold: Int? = nil, waitlist: Bool = false) throws -> NewReservation {
        try NewReservation(
            landmark: "Half Dome", date: DateTime.parse("2030-06-01T18:00:00Z"), partySize: partySize, hold: hold,
            waitlist: waitlist, now: clock.now())
    }

    /// Half Dome's 300 places: 296 booked, a hold of 4 for a minute, and 4 waiting.
    func fullDayWithAHold() async throws -> (hold: Reservation, waiting: Reservation) {
        _ = try await service.reserve(try request(partySize: 296))
        let hold = try await service.reserve(try request(partySize: 4, hold: 60))
        let waiting = try await service.reserve(try request(partySize: 4, waitlist: true))
        #expect(waiting.status == .waitlisted)
        return (hold, waiting)
    }

    @Test func aReaderStartsAgainWhenAWriterCutsAnUncommittedTailUnderIt() async throws {
        _ = try await service.reserve(try request(partySize: 2))
        _ = try await service.reserve(try request(partySize: 3))
        let path = url.path + ".history"
        let committed = try Data(contentsOf: URL(fileURLWithPath: path))
        // What a killed write left: a long tail of changes the store never counted.
        let tail = (3...2_000).map {
            #"{"seq": \#($0), "change": "created", "pad": "\#(String(repeating: "x", count: 200))"}"#
        }
        try (committed + Data((tail.joined(separator: "\n") + "\n").utf8)).write(to: URL(fileURLWithPath: path))
        var cuts = 0
        var read: [Int] = []
        let journal = Journal(storeFile: url.path, storePath: url.path)
        // A writer cuts the tail just after the reader opened it, the first time.
        try journal.readBackward(
            committed: 2,
            afterOpening: {
                guard cuts == 0 else { return }
                cuts += 1
                #expect(truncate(path, off_t(committed.count)) == 0)
            },
            { sequence, _ in
                read.append(sequence)
                return true
            })
        #expect(cuts == 1)
        #expect(read == [2, 1])
    }

    @Test func aReadRecordsTheEndOfAHoldAndThePromotionItMakes() async throws {
        let (hold, waiting) = try await fullDayWithAHold()
        clock.advance(by: 61)
        let read = try await service.fetch().reservations
        #expect(read.first { $0.id == hold.id }?.status == .expired)
        #expect(read.first { $0.id == waiting.id }?.status == .confirmed)
        let changes = try await service.history(nil, nil).map(\.change)
        #expect(Array(changes.prefix(2)) == [.promoted, .expired])
        // Recorded once: a second read finds nothing more to record.
        _ = try await service.fetch()
        #expect(try await service.history(nil, nil).count == changes.count)
    }

    @Test func availabilityCountsLiveHoldsButNeitherEndedOnesNorTheWaitlisted() async throws {
        let (_, _) = try await fullDayWithAHold()
        _ = try await service.reserve(try request(partySize: 40, waitlist: true))
        let day = try #require(CalendarDay("2030-06-01"))
        let before = try await service.availability("Half Dome") { _ in [day] }
        #expect(before.days.map(\.taken) == [300])
        clock.advance(by: 61)
        let after = try await service.availability("Half Dome") { _ in [day] }
        #expect(after.days.map(\.taken) == [300], "the 4 waiting took the 4 the hold freed; the 40 wait on")
    }

    @Test func aWatcherSeesAHoldEndWhileItWaits() async throws {
        let (hold, waiting) = try await fullDayWithAHold()
        let service = self.service
        let cursor = try await service.changes(nil, .zero).cursor
        let watcher = Task { try await service.changes(cursor, .seconds(600)) }
        clock.advance(by: 61)
        let page = try await watcher.value
        #expect(page.changes.map(\.entry.change) == [.expired, .promoted])
        #expect(page.changes.map(\.entry.reservationID) == [hold.id, waiting.id])
    }
}
