import Foundation
import Testing

@testable import ReservationCore

/// A landmark keeps its fields in a shared box; it must still behave as a value.
@Suite("Landmark values", .timeLimit(.minutes(30)))
struct LandmarkValueTests {
    static func make(capacity: Int? = 20, zone: String? = "America/Denver", name: String = "Test Peak") -> Landmark {
        Landmark(
            id: Landmark.ID("aaaa0000-0000-4000-8000-000000000001")!, name: name, location: "Nowhere, NV",
            description: "", category: .mountains, capacity: capacity,
            timeZone: zone.flatMap { TimeZone(identifier: $0) })
    }

    @Test func equalFieldsMakeEqualLandmarksWithEqualHashes() {
        #expect(Self.make() == Self.make())
        #expect(Set([Self.make(), Self.make()]).count == 1)
    }

    @Test(arguments: [
        make(capacity: nil), make(capacity: 21), make(zone: nil), make(zone: "Europe/Paris"), make(name: "Other"),
    ])
    func anyDifferentFieldMakesADifferentLandmark(_ other: Landmark) {
        #expect(Self.make() != other)
    }

    @Test func fieldsReadBackAsGiven() {
        let landmark = Self.make()
        #expect(landmark.name == "Test Peak")
        #expect(landmark.capacity == 20)
        #expect(landmark.timeZone?.identifier == "America/Denver")
        #expect(landmark.imageName == nil)
        #expect(!landmark.isFeatured)
    }
}
