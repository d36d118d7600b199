import Foundation
import ResvTestKit
import Testing

@testable import ReservationCore

/// Finding a reservation by id or unique prefix, as git finds a commit.
@Suite("Reservation lookup", .timeLimit(.minutes(30)))
struct ReservationLookupTests {
    static let a = "abcd1234-0000-4000-8000-000000000001"
    static let b = "abcd5678-0000-4000-8000-000000000002"
    static let c = "12345678-9abc-4def-8000-000000000003"

    static func snapshot() throws -> ReservationSnapshot {
        ReservationSnapshot(
            reservations: [
                try Fixture.reservation(a, date: "2026-12-01T10:00:00Z"),
                try Fixture.reservation(b, date: "2026-12-02T10:00:00Z", status: .pending),
                try Fixture.reservation(c, date: "2026-12-03T10:00:00Z", status: .cancelled),
            ], rejected: [], catalog: .builtIn)
    }

    @Test(arguments: [
        (c, c), (c.uppercased(), c), (a, a),
        ("1234", c), ("12345678", c), ("abcd1234", a), ("abcd5", b), ("ABCD5678", b), ("AbCd1234-00", a),
        ("12345678-9abc", c),
    ])
    func findsByIDOrUniquePrefix(_ text: String, _ expected: String) throws {
        #expect(try Self.snapshot().reservation(matching: text).id.description == expected)
    }

    @Test(arguments: ["", "1", "123", "abc", "ab-c"])
    func tooShortIsAnInvalidID(_ text: String) throws {
        let error = try #require(throws: ReservationError.self) { try Self.snapshot().reservation(matching: text) }
        guard case .invalidReservationID(let refused) = error else {
            Issue.record("expected .invalidReservationID, got \(error)")
            return
        }
        #expect(refused == text)
    }

    @Test(arguments: ["wxyz", "abcg1234", "1234 ", " 1234", "12_34", "abcd1234?", "g123", "0x1234"])
    func nonHexIsAnInvalidID(_ text: String) throws {
        let error = try #require(throws: ReservationError.self) { try Self.snapshot().reservation(matching: text) }
        guard case .invalidReservationID(let refused) = error else {
            Issue.record("expected .invalidReservationID, got \(error)")
            return
        }
        #expect(refused == text)
    }

    /// Ids are ASCII hex: fullwidth digits (U+FF11...) are not hex digits of any id.
    @Test(arguments: ["\u{FF11}\u{FF12}\u{FF13}\u{FF14}", "\u{FF41}\u{FF42}\u{FF43}\u{FF44}"])
    func fullwidthDigitsAreAnInvalidID(_ text: String) throws {
        let error = try #require(throws: ReservationError.self) { try Self.snapshot().reservation(matching: text) }
        guard case .invalidReservationID(let refused) = error else {
            Issue.record("expected .invalidReservationID, got \(error)")
            return
        }
        #expect(refused == text)
    }

    @Test(arguments: ["ffff", "abcd9", "00000000-0000-4000-8000-000000000001"])
    func unknownIsNotFound(_ text: String) throws {
        let error = try #require(throws: ReservationError.self) { try Self.snapshot().reservation(matching: text) }
        guard case .reservationNotFound(let refused) = error else {
            Issue.record("expected .reservationNotFound, got \(error)")
            return
        }
        #expect(refused == text)
    }

    @Test(arguments: ["abcd", "ABCD", "aBcD"])
    func ambiguousPrefixListsEveryCandidate(_ text: String) throws {
        let error = try #require(throws: ReservationError.self) { try Self.snapshot().reservation(matching: text) }
        guard case .ambiguousReservationID(let refused, let candidates) = error else {
            Issue.record("expected .ambiguousReservationID, got \(error)")
            return
        }
        #expect(refused == text)
        #expect(Set(candidates.map(\.id.description)) == [Self.a, Self.b])
        #expect(candidates.count == 2)
        let message = try #require(error.errorDescription)
        #expect(message.contains("abcd1234") && message.contains("abcd5678"))
    }

    @Test func cancelledReservationsCanBeFound() throws {
        #expect(try Self.snapshot().reservation(matching: "1234").status == .cancelled)
    }

    @Test func shortIDIsTheFirstEightDigits() throws {
        #expect(try Fixture.reservationID(Self.a).short == "abcd1234")
    }
}

/// Finding a landmark by id, unique prefix or name, and the fixed built-in ids.
@Suite("Landmark lookup", .timeLimit(.minutes(30)))
struct LandmarkLookupTests {
    @Test(arguments: [
        Fixture.halfDomeID, Fixture.halfDomeID.uppercased(), "937f", "937fea60", "937FEA60-BB7B",
        "Half Dome", "half dome", "HALF DOME", "  half dome ",
    ])
    func findsHalfDome(_ text: String) throws {
        let landmark = try LandmarkCatalog.builtIn.landmark(matching: text)
        #expect(landmark == (try Fixture.halfDomeLandmark))
    }

    @Test(arguments: Landmark.builtIn)
    func findsEveryBuiltInLandmarkByNameAndID(_ landmark: Landmark) throws {
        #expect(try LandmarkCatalog.builtIn.landmark(matching: landmark.name.lowercased()) == landmark)
        #expect(try LandmarkCatalog.builtIn.landmark(matching: landmark.id.description) == landmark)
        #expect(try LandmarkCatalog.builtIn.landmark(matching: String(landmark.id.description.prefix(8))) == landmark)
    }

    @Test(arguments: [
        "Eiffel Tower", "", "   ", "93", "937", "ffff", "gate golden", "dome half",
        "00000000-0000-4000-8000-000000000001",
        String(repeating: "half dome ", count: 10_000),
    ])
    func unknownLandmarkIsRefused(_ text: String) throws {
        let error = try #require(throws: ReservationError.self) { try LandmarkCatalog.builtIn.landmark(matching: text) }
        guard case .unknownLandmark(let refused) = error else {
            Issue.record("expected .unknownLandmark (no suggestion), got \(error)")
            return
        }
        #expect(refused == text)
    }

    /// Every word typed starts a word of the name, in order, in any case, without accents.
    @Test(arguments: [
        ("golden gate", "Golden Gate Bridge"), ("half dom", "Half Dome"), ("rainier", "Mount Rainier"),
        ("half", "Half Dome"), ("TURTLE rock", "Turtle Rock"), ("st mary", "St. Mary Lake"),
        ("mary lake", "St. Mary Lake"), ("st. mary", "St. Mary Lake"), ("yosemite", "Yosemite Valley"),
        ("g g b", "Golden Gate Bridge"), ("  crater  ", "Crater Lake"), ("tahoe", "Lake Tahoe"),
        ("mack", "Mackinac Bridge"), ("brooklyn-bridge", "Brooklyn Bridge"), ("Mount", "Mount Rainier"),
    ])
    func findsALandmarkByTheStartsOfItsWords(_ text: String, _ name: String) throws {
        #expect(try LandmarkCatalog.builtIn.landmark(matching: text).name == name)
    }

    @Test func wordsMatchWithoutAccentsAndTheFirstRulesComeFirst() throws {
        let catalog = LandmarkCatalog(records: [
            Fixture.landmarkRecord(id: "abcd0000-0000-4000-8000-000000000001", ["name": .string("Zürichsee Ufer")]),
            Fixture.landmarkRecord(id: "abcd1111-0000-4000-8000-000000000002", ["name": .string("Café Ōsaka")]),
            Fixture.landmarkRecord(id: "dead2222-0000-4000-8000-000000000003", ["name": .string("Cafe")]),
        ])
        #expect(try catalog.landmark(matching: "zurichsee").name == "Zürichsee Ufer")
        #expect(try catalog.landmark(matching: "cafe osa").name == "Café Ōsaka")
        // A whole name in any case comes before words ("cafe" starts both names).
        #expect(try catalog.landmark(matching: "CAFE").name == "Cafe")
        // A hex prefix comes before words.
        #expect(try catalog.landmark(matching: "dead").name == "Cafe")
    }

    /// Several names whose words start so: each is listed; none: the closest names are suggested.
    @Test(arguments: [
        ("lake", ["Crater Lake", "Lake Tahoe", "St. Mary Lake"]),
        ("bridge", ["Brooklyn Bridge", "Golden Gate Bridge", "Mackinac Bridge"]),
    ])
    func wordsOfSeveralNamesListThem(_ text: String, _ names: [String]) throws {
        let error = try #require(throws: ReservationError.self) { try LandmarkCatalog.builtIn.landmark(matching: text) }
        guard case .ambiguousLandmark(_, let candidates) = error else {
            Issue.record("expected .ambiguousLandmark, got \(error)")
            return
        }
        #expect(candidates.map(\.name).sorted() == names)
        #expect(error.localizedDescription.hasSuffix("give more of the name or id"))
    }

    @Test(arguments: [
        ("hlaf dome", ["Half Dome"]), ("rainer", ["Mount Rainier"]), ("Turtle Rok", ["Turtle Rock"]),
        ("crater lak3", ["Crater Lake"]), ("golden gait bridge", ["Golden Gate Bridge"]),
    ])
    func noMatchSuggestsTheClosestNames(_ text: String, _ names: [String]) throws {
        let error = try #require(throws: ReservationError.self) { try LandmarkCatalog.builtIn.landmark(matching: text) }
        guard case .unknownLandmarkSuggesting(let refused, let suggested) = error else {
            Issue.record("expected .unknownLandmarkSuggesting, got \(error)")
            return
        }
        #expect(refused == text && suggested == names)
        #expect(error.localizedDescription.contains("did you mean '\(names[0])'?"))
        #expect(error.code == .unknownLandmark)
    }

    /// Edit distances, case by case, as the suggestions count them.
    @Test(arguments: [
        ("lst", "list", 1), ("list", "list", 0), ("", "abc", 3), ("abc", "", 3), ("kitten", "sitting", 3),
        ("flaw", "lawn", 2), ("abcdef", "x", 3),
    ])
    func distances(_ a: String, _ b: String, _ expected: Int) {
        #expect(Words.distance(a, b, limit: 2) == min(expected, 3))
    }

    @Test func ambiguousPrefixListsTheCandidates() throws {
        let catalog = LandmarkCatalog(records: [
            Fixture.landmarkRecord(id: "abcd0000-0000-4000-8000-000000000001", ["name": .string("One")]),
            Fixture.landmarkRecord(id: "abcd1111-0000-4000-8000-000000000002", ["name": .string("Two")]),
        ])
        #expect(try catalog.landmark(matching: "abcd1").name == "Two")
        let error = try #require(throws: ReservationError.self) { try catalog.landmark(matching: "abcd") }
        guard case .ambiguousLandmark("abcd", let candidates) = error else {
            Issue.record("expected .ambiguousLandmark, got \(error)")
            return
        }
        #expect(candidates.map(\.name).sorted() == ["One", "Two"])
    }

    @Test func aNameBeatsAnIDPrefix() throws {
        let catalog = LandmarkCatalog(records: [
            Fixture.landmarkRecord(id: "beef0000-0000-4000-8000-000000000001", ["name": .string("Cafe")]),
            Fixture.landmarkRecord(id: "cafe0000-0000-4000-8000-000000000002", ["name": .string("Other")]),
        ])
        #expect(try catalog.landmark(matching: "cafe").name == "Cafe")
        #expect(try catalog.landmark(matching: "cafe0").name == "Other")
    }

    // MARK: built-in ids

    /// The ids are part of every stored reservation: they never change.
    static let fixedIDs: [(String, String)] = [
        ("Golden Gate Bridge", "7c6984ff-188e-417e-b476-ec5f30b8d745"),
        ("Lake Tahoe", "938e63b1-f467-476b-b442-edcb1b3bc450"),
        ("Half Dome", "937fea60-bb7b-4ee8-85da-c79962987917"),
        ("Yosemite Valley", "bf3703bb-31cd-47f6-9f24-25165f85296c"),
        ("Brooklyn Bridge", "20f154de-fbcc-4053-839f-4bf1926791e3"),
        ("Mount Rainier", "12b84d1a-6e75-4c9a-a791-778746bf7bcd"),
        ("Crater Lake", "718c388e-54a0-45fc-9b55-4a46ebe9e898"),
        ("Turtle Rock", "cada0a12-4d1c-4c72-ad20-9d2741c35bd3"),
        ("St. Mary Lake", "48b142d2-519c-4d29-b45b-dfde4424ad8d"),
        ("Mackinac Bridge", "eb4e69bc-72c8-4f5a-a7d9-a17b0cef5248"),
    ]

    @Test func halfDomeHasItsFixedID() throws {
        let halfDome = try LandmarkCatalog.builtIn.landmark(matching: "Half Dome")
        #expect(halfDome.id.description == "937fea60-bb7b-4ee8-85da-c79962987917")
        #expect(halfDome.id.uuid == UUID(uuidString: "937FEA60-BB7B-4EE8-85DA-C79962987917"))
    }

    @Test(arguments: fixedIDs)
    func builtInLandmarkHasItsFixedID(_ name: String, _ id: String) throws {
        #expect(try LandmarkCatalog.builtIn.landmark(matching: name).id.description == id)
    }

    @Test func builtInCatalogIsExactlyTheFixedList() {
        #expect(Landmark.builtIn.map(\.name) == Self.fixedIDs.map(\.0))
        #expect(LandmarkCatalog.builtIn.landmarks == Landmark.builtIn)
        #expect(LandmarkCatalog.builtIn.rejected.isEmpty)
    }

    @Test func builtInIDsAreDistinctValidAndNeverZero() throws {
        let ids = Landmark.builtIn.map(\.id)
        let zero = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))

        #expect(Set(ids).count == ids.count)
        for id in ids {
            #expect(id.uuid != zero)
            #expect(id.description.count == 36)
            #expect(id.description == id.description.lowercased())
            #expect(UUID(uuidString: id.description) == id.uuid)
        }
    }

    @Test func builtInLandmarksAreComplete() {
        for landmark in Landmark.builtIn {
            #expect(!landmark.name.isEmpty && !landmark.location.isEmpty && !landmark.description.isEmpty)
            #expect(landmark.capacity.map { $0 > 0 } ?? true, "\(landmark.name)")
        }
    }
}
