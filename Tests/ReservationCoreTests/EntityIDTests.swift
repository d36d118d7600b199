import Foundation
import Testing

@testable import ReservationCore

/// Ids are parsed and written by hand for speed; Foundation's UUID is the reference.
@Suite("Entity ids", .timeLimit(.minutes(30)))
struct EntityIDTests {
    @Test(arguments: [
        "5a1b2c3d-0000-4000-8000-000000000001",
        "5A1B2C3D-ABCD-4EF0-8000-00000000000F",
        "5a1B2c3D-aBcD-4eF0-8000-00000000000f",
        "00000000-0000-0000-0000-000000000000",
        "ffffffff-ffff-ffff-ffff-ffffffffffff",
        "5a1b2c3d00004000800000000000000001",
        "5a1b2c3d-0000-4000-8000-00000000000",
        "5a1b2c3d-0000-4000-8000-0000000000011",
        "5a1b2c3d-0000-4000-8000_000000000001",
        "5a1b2c3d-0000-4000-80000-00000000001",
        "5a1b2c3g-0000-4000-8000-000000000001",
        "5a1b2c3d-0000-4000-8000-00000000001 ",
        "{5a1b2c3d-0000-4000-8000-0000000001}",
        "5a1b2c3d-0000-4000-8000-00000000000é",
        "",
        "5a1b2c3d",
    ])
    func acceptsExactlyWhatFoundationAccepts(_ text: String) {
        #expect(Reservation.ID(text)?.uuid == UUID(uuidString: text))
    }

    /// Foundation's `sscanf`-based parser on Linux also takes these (a leading
    /// space and 35 characters, signs, `0x`); they are not UUIDs, and a record
    /// carrying one is reported, not silently renamed.
    @Test(arguments: [
        " 5a1b2c3d-0000-4000-8000-00000000001",
        "+a1b2c3d-0000-4000-8000-000000000001",
        "5a1b2c3d-+000-4000-8000-000000000001",
        "0x1b2c3d-0000-4000-8000-000000000001",
    ])
    func refusesWhatOnlySscanfAccepts(_ text: String) {
        #expect(UUID(uuidString: text) != nil)
        #expect(Reservation.ID(text) == nil)
    }

    @Test func textAndOrderMatchFoundationsOnRandomIDs() {
        var generator = SystemRandomNumberGenerator()
        let uuids = (0..<2000).map { _ in
            UUID(
                uuid: withUnsafeBytes(of: (generator.next() as UInt64, generator.next() as UInt64)) {
                    $0.load(as: uuid_t.self)
                })
        }
        for uuid in uuids {
            let id = Landmark.ID(uuid)
            #expect(id.description == uuid.uuidString.lowercased())
            #expect(Landmark.ID(uuid.uuidString) == id)
        }
        let ids = uuids.map(Reservation.ID.init)
        #expect(ids.sorted().map(\.description) == ids.map(\.description).sorted())
        #expect(ids[0].short == String(uuids[0].uuidString.lowercased().prefix(8)))
    }
}
