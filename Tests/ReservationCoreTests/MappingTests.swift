import Foundation
import ResvTestKit
import Testing

@testable import ReservationCore

/// The one mapping from `ReservationApiModel` to `Reservation`: one test per rule.
@Suite("Reservation mapping", .timeLimit(.minutes(30)))
struct MappingTests {
    @Test func validRecordMapsEveryField() throws {
        let record = Fixture.record(
            id: "5a1b2c3d-0000-4000-8000-0000000000aa",
            ["date": .string("2026-12-01T10:00:00+02:00"), "partySize": .integer(4), "status": .string("pending")])

        let reservation = try Reservation(ReservationApiModel(json: record), catalog: .builtIn)

        #expect(reservation.id.description == "5a1b2c3d-0000-4000-8000-0000000000aa")
        #expect(reservation.landmark == (try Fixture.halfDomeLandmark))
        #expect(reservation.landmark.name == "Half Dome")
        #expect(reservation.landmark.location == "Yosemite, CA")
        #expect(reservation.landmark.category == .mountains)
        #expect(reservation.landmark.capacity == 300)
        #expect(reservation.date == Date(timeIntervalSince1970: 1_796_112_000))
        #expect(reservation.partySize == 4)
        #expect(reservation.status == .pending)
    }

    @Test func validRecordInASnapshotIsNotRejected() throws {
        let snapshot = ReservationSnapshot(records: [Fixture.record()], catalog: .builtIn)
        #expect(snapshot.rejected.isEmpty)
        let reservation = try #require(snapshot.reservations.first)
        #expect(snapshot.reservations.count == 1)
        #expect(reservation.landmark == (try Fixture.halfDomeLandmark))
    }

    @Test func uppercaseUUIDsMapToTheSameIDs() throws {
        let record = Fixture.record(
            id: "5A1B2C3D-0000-4000-8000-0000000000AA", ["landmarkId": .string(Fixture.halfDomeID.uppercased())])
        let reservation = try Reservation(ReservationApiModel(json: record), catalog: .builtIn)
        #expect(reservation.id == (try Fixture.reservationID("5a1b2c3d-0000-4000-8000-0000000000aa")))
        #expect(reservation.landmark.name == "Half Dome")
    }

    /// One mutation of a record that maps, and what the mapping must then say.
    struct Case: Sendable, CustomTestStringConvertible {
        enum Expected: Sendable {
            case maps
            case rejected(RejectionReason)
            /// A wrong JSON type: rejected as malformed, whatever the detail says.
            case malformed
        }

        let testDescription: String
        let record: JSONValue
        let expected: Expected
        var catalog: LandmarkCatalog = .builtIn

        init(_ description: String, _ record: JSONValue, _ expected: Expected, catalog: LandmarkCatalog = .builtIn) {
            testDescription = description
            self.record = record
            self.expected = expected
            self.catalog = catalog
        }

        init(_ description: String, set: [String: JSONValue] = [:], removing: Set<String> = [], _ expected: Expected) {
            self.init(description, Fixture.record(set, removing: removing), expected)
        }
    }

    /// Every rule of the one mapping, a case each, as the seed app's mapping tests read.
    static let cases: [Case] = {
        let own = "aaaa0000-0000-4000-8000-000000000001"
        let ownCatalog = LandmarkCatalog(records: [Fixture.landmarkRecord(id: own)])
        var cases: [Case] = [
            // landmarkId
            Case("a missing landmarkId", removing: ["landmarkId"], .rejected(.missingLandmarkID)),
            Case("a null landmarkId counts as missing", set: ["landmarkId": .null], .rejected(.missingLandmarkID)),
            Case(
                "a landmarkId that is not a UUID", set: ["landmarkId": .string("half-dome")],
                .rejected(.invalidLandmarkID("half-dome"))),
            Case(
                "a landmark the catalog does not have", set: ["landmarkId": .string(Fixture.unknownLandmarkID)],
                .rejected(.unknownLandmark(Fixture.unknownLandmarkID))),
            Case(
                "a custom catalog replaces the built-in one", Fixture.record(),
                .rejected(.unknownLandmark(Fixture.halfDomeID)), catalog: ownCatalog),
            Case(
                "a landmark of the custom catalog", Fixture.record(["landmarkId": .string(own)]), .maps,
                catalog: ownCatalog),
            Case("an uppercase landmarkId", set: ["landmarkId": .string(Fixture.halfDomeID.uppercased())], .maps),
            // date
            Case("a missing date", removing: ["date"], .rejected(.missingDate)),
            Case(
                "a date that is not a date", set: ["date": .string("next tuesday")],
                .rejected(.invalidDate("next tuesday"))),
            Case(
                "an impossible date is rejected, not rolled over", set: ["date": .string("2026-02-30T10:00:00Z")],
                .rejected(.invalidDate("2026-02-30T10:00:00Z"))),
            Case("a date with an offset", set: ["date": .string("2026-12-01T10:00:00+02:00")], .maps),
            // partySize
            Case("a missing partySize", removing: ["partySize"], .rejected(.missingPartySize)),
            Case("a whole number written as a double", set: ["partySize": .double(4)], .maps),
            Case("a partySize written as text", set: ["partySize": .string("4")], .malformed),
            Case("a fractional partySize", set: ["partySize": .double(4.5)], .malformed),
            Case("a partySize past Int64", set: ["partySize": .number("99999999999999999999")], .malformed),
            // status
            Case("a missing status", removing: ["status"], .rejected(.missingStatus)),
            Case("an unknown status", set: ["status": .string("archived")], .rejected(.unknownStatus("archived"))),
            Case("a hold without its end", set: ["status": .string("held")], .rejected(.missingExpiry)),
            Case(
                "a hold whose end is no date",
                set: ["status": .string("held"), "expiresAt": .string("soon")],
                .rejected(.invalidTimestamp("expiresAt", "soon"))),
            Case("an expiresAt that is a number", set: ["expiresAt": .integer(5)], .malformed),
            Case(
                "a waitlisted one asking for a status it cannot have",
                set: ["status": .string("waitlisted"), "requestedStatus": .string("cancelled")],
                .rejected(.unknownStatus("cancelled"))),
            Case("a status written as a number", set: ["status": .integer(1)], .malformed),
            // check-in and no-shows (docs/contracts.md, "Check-in and no-shows"): their wire words only
            Case("a checked-in party", set: ["status": .string("checked-in")], .maps),
            Case("a no-show", set: ["status": .string("no-show")], .maps),
            Case(
                "checked-in spelt as the code names it", set: ["status": .string("checkedIn")],
                .rejected(.unknownStatus("checkedIn"))),
            Case(
                "checked-in with an underscore", set: ["status": .string("checked_in")],
                .rejected(.unknownStatus("checked_in"))),
            Case(
                "checked-in in capitals", set: ["status": .string("CHECKED-IN")],
                .rejected(.unknownStatus("CHECKED-IN"))),
            Case("noshow without its hyphen", set: ["status": .string("noshow")], .rejected(.unknownStatus("noshow"))),
            Case(
                "a waitlisted one asking to be checked in when promoted",
                set: ["status": .string("waitlisted"), "requestedStatus": .string("checked-in")],
                .rejected(.unknownStatus("checked-in"))),
            Case(
                "a checked-in one keeps no hold's end",
                set: ["status": .string("checked-in"), "expiresAt": .string("2026-12-01T09:00:00Z")], .maps),
            // id
            Case("a missing id", removing: ["id"], .malformed),
            Case("a null id", set: ["id": .null], .malformed),
            Case("an id written as a number", set: ["id": .integer(7)], .malformed),
            Case("an uppercase id", Fixture.record(id: "5A1B2C3D-0000-4000-8000-00000000000F"), .maps),
            // note, times and version: optional; older records have none
            Case("no note, no times, no version", Fixture.record(), .maps),
            Case("a note of text", set: ["note": .string("ramp")], .maps),
            Case(
                "a note that is not text belongs to an older tool: kept, no rejection",
                set: ["note": .object(["colour": .string("teal")])], .maps),
            Case(
                "a note longer than the limit", set: ["note": .string(String(repeating: "n", count: 501))],
                .rejected(.invalidNote(501))),
            Case(
                "a createdAt that is not a date", set: ["createdAt": .string("yesterday")],
                .rejected(.invalidTimestamp("createdAt", "yesterday"))),
            Case(
                "an updatedAt that is not a date", set: ["updatedAt": .string("2026-13-01T00:00:00Z")],
                .rejected(.invalidTimestamp("updatedAt", "2026-13-01T00:00:00Z"))),
            Case("a version of 0", set: ["version": .integer(0)], .rejected(.invalidVersion(0))),
            Case("a version written as text", set: ["version": .string("3")], .malformed),
            // not an object
            Case("a string", .string("5a1b2c3d-0000-4000-8000-000000000009"), .malformed),
            Case("a number", .integer(42), .malformed),
            Case("null", .null, .malformed),
            Case("a boolean", .bool(true), .malformed),
            Case("an array holding a record", .array([Fixture.record()]), .malformed),
            Case("a date written as a number", set: ["date": .integer(1_796_119_200)], .malformed),
            Case("a landmarkId written as an object", set: ["landmarkId": .object([:])], .malformed),
        ]
        for size in [0, -1, -300, 10_001, Int.max, Int.min] {
            cases.append(
                Case(
                    "a party of \(size)", set: ["partySize": .integer(Int64(size))], .rejected(.invalidPartySize(size)))
            )
        }
        for size in [1, 10_000] {
            cases.append(Case("a party of \(size), at the bound", set: ["partySize": .integer(Int64(size))], .maps))
        }
        for status in Reservation.Status.allCases {
            // A hold carries its end (`a hold without its end` is refused below).
            cases.append(
                Case(
                    "status \(status.rawValue)",
                    set: ["status": .string(status.rawValue), "expiresAt": .string("2026-12-01T09:00:00Z")], .maps))
        }
        for id in ["r-42", " 5a1b2c3d-0000-4000-8000-00000000001", "{5a1b2c3d-0000-4000-8000-000000000001}", ""] {
            cases.append(Case("the id '\(id)'", Fixture.record(id: id), .rejected(.invalidReservationID(id))))
        }
        return cases
    }()

    @Test(arguments: cases)
    func eachMutationMapsOrIsRejectedWithItsReason(_ mapping: Case) {
        let reason: RejectionReason?
        do {
            _ = try Reservation(ReservationApiModel(json: mapping.record), catalog: mapping.catalog)
            reason = nil
        } catch {
            reason = error
        }
        switch mapping.expected {
        case .maps:
            #expect(reason == nil)
        case .rejected(let expected):
            #expect(reason == expected)
        case .malformed:
            guard case .malformed(let detail)? = reason else {
                Issue.record("expected .malformed, got \(String(describing: reason))")
                return
            }
            #expect(!detail.isEmpty)
            #expect(reason?.code == "malformed")
        }
    }

    /// The mapping and `--date` share one parser, so they refuse exactly the same strings.
    @Test(arguments: DateFixtures.rejected.map(\.text))
    func mappingRefusesEveryDateTheParserRefuses(_ text: String) {
        #expect(Fixture.rejection(of: Fixture.record(["date": .string(text)])) == .invalidDate(text))
    }

    @Test(arguments: DateFixtures.accepted)
    func mappingAcceptsEveryDateTheParserAccepts(_ example: DateFixtures.Accepted) throws {
        let record = Fixture.record(["date": .string(example.text)])
        let reservation = try Reservation(ReservationApiModel(json: record), catalog: .builtIn)
        #expect(reservation.date == (try DateTime.parse(example.text)))
    }

    @Test(arguments: Reservation.Status.allCases)
    func everyStatusMapsToItself(_ status: Reservation.Status) throws {
        // A hold carries its end.
        let record = Fixture.record(["status": .string(status.rawValue), "expiresAt": .string("2026-12-01T09:00:00Z")])
        #expect(try Reservation(ReservationApiModel(json: record), catalog: .builtIn).status == status)
    }

    @Test func uppercaseReservationIDMapsAndIsShownLowercase() throws {
        let record = Fixture.record(id: "5A1B2C3D-0000-4000-8000-00000000000F")
        let reservation = try Reservation(ReservationApiModel(json: record), catalog: .builtIn)
        #expect(reservation.id.description == "5a1b2c3d-0000-4000-8000-00000000000f")
    }

    @Test func duplicateIDRejectsTheSecondRecord() throws {
        let id = "5a1b2c3d-0000-4000-8000-000000000001"
        let records = [
            Fixture.record(id: id, ["partySize": .integer(2)]),
            Fixture.record(id: id, ["partySize": .integer(7)]),
        ]

        let snapshot = ReservationSnapshot(records: records, catalog: .builtIn)

        let kept = try #require(snapshot.reservations.first)
        #expect(snapshot.reservations.count == 1)
        #expect(kept.partySize == 2)
        #expect(snapshot.rejected == [RejectedRecord(index: 1, id: id, reason: .duplicateReservationID(id))])
    }

    @Test func duplicateIDIsFoundWhateverTheCaseOfItsDigits() {
        let records = [
            Fixture.record(id: "abcdef00-0000-4000-8000-000000000001"),
            Fixture.record(id: "ABCDEF00-0000-4000-8000-000000000001"),
        ]
        let snapshot = ReservationSnapshot(records: records, catalog: .builtIn)
        #expect(snapshot.reservations.count == 1)
        #expect(snapshot.rejected.map(\.index) == [1])
        #expect(snapshot.rejected.map(\.reason) == [.duplicateReservationID("abcdef00-0000-4000-8000-000000000001")])
    }

    @Test func rejectedRecordKeepsItsIndexAndID() {
        let records = [
            Fixture.record(id: "5a1b2c3d-0000-4000-8000-000000000001"),
            Fixture.record(id: "5a1b2c3d-0000-4000-8000-000000000002", ["status": .string("archived")]),
        ]
        let snapshot = ReservationSnapshot(records: records, catalog: .builtIn)
        #expect(
            snapshot.rejected == [
                RejectedRecord(
                    index: 1, id: "5a1b2c3d-0000-4000-8000-000000000002", reason: .unknownStatus("archived"))
            ])
    }

    @Test func malformedElementsDoNotStopTheValidOnesFromMapping() throws {
        let valid = (1...4).map { "5a1b2c3d-0000-4000-8000-00000000000\($0)" }
        let records: [JSONValue] = [
            Fixture.record(id: valid[0]),  // 0
            .string("just a string"),  // 1
            .integer(12),  // 2
            Fixture.record(id: valid[1]),  // 3
            .null,  // 4
            Fixture.record(removing: ["id"]),  // 5
            Fixture.record(["id": .integer(99)]),  // 6
            Fixture.record(id: valid[2]),  // 7
            Fixture.record(id: "5a1b2c3d-0000-4000-8000-0000000000f8", ["partySize": .string("4")]),  // 8
            Fixture.record(id: "5a1b2c3d-0000-4000-8000-0000000000f9", ["partySize": .double(4.5)]),  // 9
            Fixture.record(id: "5a1b2c3d-0000-4000-8000-0000000000fa", ["status": .integer(2)]),  // 10
            Fixture.record(id: valid[3]),  // 11
        ]

        let snapshot = ReservationSnapshot(records: records, catalog: .builtIn)

        #expect(snapshot.reservations.map(\.id.description) == valid)
        #expect(snapshot.rejected.map(\.index) == [1, 2, 4, 5, 6, 8, 9, 10])
        for rejected in snapshot.rejected {
            #expect(rejected.reason.code == "malformed", "record \(rejected.index): \(rejected.reason)")
        }
        #expect(
            snapshot.rejected.map(\.id) == [
                nil, nil, nil, nil, nil, "5a1b2c3d-0000-4000-8000-0000000000f8",
                "5a1b2c3d-0000-4000-8000-0000000000f9", "5a1b2c3d-0000-4000-8000-0000000000fa",
            ])
    }

    @Test func nullOptionalFieldsDecodeAsMissing() throws {
        let model = try ReservationApiModel(
            json: Fixture.record(["date": .null, "partySize": .null, "status": .null, "landmarkId": .null]))
        #expect(
            model
                == ReservationApiModel(
                    id: "5a1b2c3d-0000-4000-8000-000000000001", landmarkId: nil, date: nil, partySize: nil, status: nil)
        )
    }

    // MARK: landmarks that fail their own mapping

    @Test func reservationOfALandmarkThatFailedItsMappingIsRejected() {
        let badID = "bbbb0000-0000-4000-8000-000000000002"
        let catalog = LandmarkCatalog(records: [
            Fixture.landmarkRecord(),
            Fixture.landmarkRecord(id: badID, ["name": .string("   ")]),
        ])
        let record = Fixture.record(["landmarkId": .string(badID)])
        #expect(Fixture.rejection(of: record, catalog: catalog) == .invalidLandmark(badID, .missingName))
    }

    @Test func reservationOfAMalformedLandmarkIsRejected() {
        let badID = "bbbb0000-0000-4000-8000-000000000003"
        let catalog = LandmarkCatalog(records: [Fixture.landmarkRecord(id: badID, ["capacity": .string("many")])])
        let reason = Fixture.rejection(of: Fixture.record(["landmarkId": .string(badID)]), catalog: catalog)
        guard case .invalidLandmark(let id, .malformed)? = reason else {
            Issue.record("expected .invalidLandmark(_, .malformed), got \(String(describing: reason))")
            return
        }
        #expect(id == badID)
    }

    @Test func reservationOfADuplicatedLandmarkMapsToTheFirstOne() throws {
        let id = "aaaa0000-0000-4000-8000-000000000001"
        let catalog = LandmarkCatalog(records: [
            Fixture.landmarkRecord(id: id, ["name": .string("First")]),
            Fixture.landmarkRecord(id: id, ["name": .string("Second")]),
        ])
        let record = Fixture.record(["landmarkId": .string(id)])
        let reservation = try Reservation(ReservationApiModel(json: record), catalog: catalog)
        #expect(reservation.landmark.name == "First")
    }

    // MARK: the wire form

    @Test func wireFormMapsBackToTheSameReservation() throws {
        let original = try Fixture.reservation(
            "5a1b2c3d-0000-4000-8000-000000000001", date: "2026-12-01T10:00:00.250+02:00", partySize: 3,
            status: .pending)

        let wire = ReservationApiModel(original)

        var expected = ReservationApiModel(
            id: "5a1b2c3d-0000-4000-8000-000000000001", landmarkId: Fixture.halfDomeID,
            date: "2026-12-01T08:00:00Z", partySize: 3, status: "pending")
        expected.version = 1
        #expect(wire == expected)
        #expect(try Reservation(ReservationApiModel(json: wire.json), catalog: .builtIn) == original)
    }

    @Test func invalidDateSaysWhyTheDateIsInvalid() {
        let reason = Fixture.rejection(of: Fixture.record(["date": .string("2026-02-30T10:00:00Z")]))
        #expect(reason?.description == "date '2026-02-30T10:00:00Z' is invalid: day 30 does not exist in February 2026")
    }

    @Test func everyRejectionReasonHasItsOwnCode() {
        let reasons: [RejectionReason] = [
            .malformed("x"), .invalidReservationID("x"), .duplicateReservationID("x"), .missingLandmarkID,
            .invalidLandmarkID("x"), .unknownLandmark("x"), .invalidLandmark("x", .missingName), .missingDate,
            .invalidDate("x"), .missingPartySize, .invalidPartySize(0), .missingStatus, .unknownStatus("x"),
        ]
        #expect(Set(reasons.map(\.code)).count == reasons.count)
        #expect(Set(reasons.map(\.summary)).count == reasons.count)
    }
}

/// Mapping of `LandmarkApiModel` to `Landmark`, and of a whole landmark list.
@Suite("Landmark mapping", .timeLimit(.minutes(30)))
struct LandmarkMappingTests {
    static func api(
        id: String? = "aaaa0000-0000-4000-8000-000000000001", name: String? = "Test Peak",
        location: String? = "Nowhere, NV", category: String? = "mountains", capacity: Int? = nil,
        timeZone: String? = nil
    ) -> LandmarkApiModel {
        LandmarkApiModel(
            id: id, name: name, location: location, description: "A peak for tests.", category: category,
            capacity: capacity, timeZone: timeZone)
    }

    static func rejection(_ api: LandmarkApiModel) -> LandmarkRejection? {
        do {
            _ = try Landmark(api)
            return nil
        } catch {
            return error
        }
    }

    @Test func validLandmarkMapsEveryField() throws {
        let api = LandmarkApiModel(
            id: "AAAA0000-0000-4000-8000-000000000001", name: "  Test Peak ", location: "Nowhere, NV",
            description: "A peak for tests.", category: "lakes", isFeatured: true, imageName: "peak",
            capacity: 12, timeZone: "Europe/Paris")

        let landmark = try Landmark(api)

        #expect(landmark.id.description == "aaaa0000-0000-4000-8000-000000000001")
        #expect(landmark.name == "Test Peak")
        #expect(landmark.location == "Nowhere, NV")
        #expect(landmark.description == "A peak for tests.")
        #expect(landmark.category == .lakes)
        #expect(landmark.isFeatured)
        #expect(landmark.imageName == "peak")
        #expect(landmark.capacity == 12)
        #expect(landmark.timeZone?.identifier == "Europe/Paris")
    }

    @Test func optionalFieldsDefault() throws {
        let landmark = try Landmark(
            LandmarkApiModel(
                id: "aaaa0000-0000-4000-8000-000000000001", name: "Test Peak", location: "Nowhere, NV",
                category: "bridges"))
        #expect(landmark.description == "")
        #expect(!landmark.isFeatured)
        #expect(landmark.imageName == nil)
        #expect(landmark.capacity == nil)
        #expect(landmark.timeZone == nil)
    }

    @Test(arguments: Landmark.Category.allCases)
    func everyCategoryMaps(_ category: Landmark.Category) throws {
        #expect(try Landmark(Self.api(category: category.rawValue)).category == category)
    }

    @Test func missingNameIsRejected() {
        #expect(Self.rejection(Self.api(name: nil)) == .missingName)
    }

    @Test(arguments: ["", "   ", "\n\t "])
    func blankNameIsRejected(_ name: String) {
        #expect(Self.rejection(Self.api(name: name)) == .missingName)
    }

    @Test func missingLocationIsRejected() {
        #expect(Self.rejection(Self.api(location: nil)) == .missingLocation)
    }

    @Test func blankLocationIsRejected() {
        #expect(Self.rejection(Self.api(location: "  ")) == .missingLocation)
    }

    @Test func missingCategoryIsRejected() {
        #expect(Self.rejection(Self.api(category: nil)) == .missingCategory)
    }

    @Test(arguments: ["deserts", "Mountains", ""])
    func unknownCategoryIsRejected(_ category: String) {
        #expect(Self.rejection(Self.api(category: category)) == .unknownCategory(category))
    }

    @Test func missingIDIsRejected() {
        #expect(Self.rejection(Self.api(id: nil)) == .missingID)
    }

    @Test func idThatIsNotAUUIDIsRejected() {
        #expect(Self.rejection(Self.api(id: "half-dome")) == .invalidID("half-dome"))
    }

    @Test(arguments: [0, -5])
    func capacityBelowOneIsRejected(_ capacity: Int) {
        #expect(Self.rejection(Self.api(capacity: capacity)) == .invalidCapacity(capacity))
    }

    @Test func unknownTimeZoneIsRejected() {
        #expect(Self.rejection(Self.api(timeZone: "Mars/Olympus_Mons")) == .unknownTimeZone("Mars/Olympus_Mons"))
    }

    @Test(arguments: [
        Fixture.landmarkRecord(["capacity": .string("300")]),
        Fixture.landmarkRecord(["capacity": .double(2.5)]),
        Fixture.landmarkRecord(["isFeatured": .string("yes")]),
        Fixture.landmarkRecord(["name": .integer(5)]),
        JSONValue.string("Half Dome"),
        JSONValue.null,
    ])
    func wrongJSONTypeIsMalformed(_ element: JSONValue) throws {
        let error = try #require(throws: LandmarkRejection.self) { try LandmarkApiModel(json: element) }
        guard case .malformed = error else {
            Issue.record("expected .malformed, got \(error)")
            return
        }
    }

    @Test func catalogKeepsValidLandmarksAndReportsTheOthers() {
        let id = "aaaa0000-0000-4000-8000-000000000001"
        let records: [JSONValue] = [
            Fixture.landmarkRecord(id: id),
            .string("Half Dome"),
            Fixture.landmarkRecord(id: "bbbb0000-0000-4000-8000-000000000002", removing: ["location"]),
            Fixture.landmarkRecord(id: id, ["name": .string("Again")]),
            Fixture.landmarkRecord(id: "cccc0000-0000-4000-8000-000000000003", ["category": .string("lakes")]),
        ]

        let catalog = LandmarkCatalog(records: records)

        #expect(catalog.landmarks.map(\.id.description) == [id, "cccc0000-0000-4000-8000-000000000003"])
        #expect(catalog.rejected.map(\.index) == [1, 2, 3])
        #expect(catalog.rejected.map(\.id) == [nil, "bbbb0000-0000-4000-8000-000000000002", id])
        #expect(catalog.rejected[1].reason == .missingLocation)
        #expect(catalog.rejected[2].reason == .duplicateID(id))
        guard case .malformed = catalog.rejected[0].reason else {
            Issue.record("expected .malformed, got \(catalog.rejected[0].reason)")
            return
        }
    }

    @Test func builtInLandmarksSurviveTheirWireForm() throws {
        for landmark in Landmark.builtIn {
            #expect(try Landmark(LandmarkApiModel(landmark)) == landmark)
        }
    }
}
