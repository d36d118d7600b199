import Foundation
import Testing

@testable import ReservationCore

/// The one mapping from `ReservationApiModel` to `Reservation`: one test per rule.
@Suite("Reservation mapping")
struct MappingTests {
    @Test func validRecordMapsEveryField() throws {
        let record = Fixture.record(
            id: "5a1b2c3d-0000-4000-8000-0000000000aa",
            ["date": .string("2026-12-01T10:00:00+02:00"), "partySize": .integer(4), "status": .string("pending")])

        let reservation = try Reservation(ReservationApiModel(json: record), catalog: .builtIn)

        #expect(reservation.id.description == "5a1b2c3d-0000-4000-8000-0000000000aa")
        #expect(reservation.landmark == (try Fixture.halfDome))
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
        #expect(reservation.landmark == (try Fixture.halfDome))
    }

    @Test func uppercaseUUIDsMapToTheSameIDs() throws {
        let record = Fixture.record(
            id: "5A1B2C3D-0000-4000-8000-0000000000AA", ["landmarkId": .string(Fixture.halfDomeID.uppercased())])
        let reservation = try Reservation(ReservationApiModel(json: record), catalog: .builtIn)
        #expect(reservation.id == (try Fixture.reservationID("5a1b2c3d-0000-4000-8000-0000000000aa")))
        #expect(reservation.landmark.name == "Half Dome")
    }

    // MARK: landmarkId

    @Test func missingLandmarkIDIsRejected() {
        #expect(Fixture.rejection(of: Fixture.record(removing: ["landmarkId"])) == .missingLandmarkID)
    }

    @Test func nullLandmarkIDCountsAsMissing() {
        #expect(Fixture.rejection(of: Fixture.record(["landmarkId": .null])) == .missingLandmarkID)
    }

    @Test func landmarkIDThatIsNotAUUIDIsRejected() {
        let record = Fixture.record(["landmarkId": .string("half-dome")])
        #expect(Fixture.rejection(of: record) == .invalidLandmarkID("half-dome"))
    }

    @Test func unknownLandmarkIsRejected() {
        let record = Fixture.record(["landmarkId": .string(Fixture.unknownLandmarkID)])
        #expect(Fixture.rejection(of: record) == .unknownLandmark(Fixture.unknownLandmarkID))
    }

    @Test func aCustomCatalogReplacesTheBuiltInOne() {
        let catalog = LandmarkCatalog(records: [Fixture.landmarkRecord()])
        #expect(Fixture.rejection(of: Fixture.record(), catalog: catalog) == .unknownLandmark(Fixture.halfDomeID))
        let own = Fixture.record(["landmarkId": .string("aaaa0000-0000-4000-8000-000000000001")])
        #expect(Fixture.rejection(of: own, catalog: catalog) == nil)
    }

    // MARK: date

    @Test func missingDateIsRejected() {
        #expect(Fixture.rejection(of: Fixture.record(removing: ["date"])) == .missingDate)
    }

    @Test func dateThatIsNotADateIsRejected() {
        let record = Fixture.record(["date": .string("next tuesday")])
        #expect(Fixture.rejection(of: record) == .invalidDate("next tuesday"))
    }

    @Test func impossibleDateIsRejectedNotRolledOver() {
        let record = Fixture.record(["date": .string("2026-02-30T10:00:00Z")])
        #expect(Fixture.rejection(of: record) == .invalidDate("2026-02-30T10:00:00Z"))
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

    // MARK: partySize

    @Test(arguments: [0, -1, -300, 10_001, Int.max, Int.min])
    func partySizeOutsideOneToTenThousandIsRejected(_ size: Int) {
        let record = Fixture.record(["partySize": .integer(Int64(size))])
        #expect(Fixture.rejection(of: record) == .invalidPartySize(size))
    }

    @Test(arguments: [1, 10_000])
    func partySizeAtTheBoundsMaps(_ size: Int) throws {
        let record = Fixture.record(["partySize": .integer(Int64(size))])
        #expect(try Reservation(ReservationApiModel(json: record), catalog: .builtIn).partySize == size)
    }

    @Test func missingPartySizeIsRejected() {
        #expect(Fixture.rejection(of: Fixture.record(removing: ["partySize"])) == .missingPartySize)
    }

    @Test func partySizeOfOneMaps() throws {
        let record = Fixture.record(["partySize": .integer(1)])
        #expect(try Reservation(ReservationApiModel(json: record), catalog: .builtIn).partySize == 1)
    }

    // MARK: status

    @Test func missingStatusIsRejected() {
        #expect(Fixture.rejection(of: Fixture.record(removing: ["status"])) == .missingStatus)
    }

    @Test func unknownStatusIsRejected() {
        let record = Fixture.record(["status": .string("expired")])
        #expect(Fixture.rejection(of: record) == .unknownStatus("expired"))
    }

    @Test(arguments: Reservation.Status.allCases)
    func everyStatusMaps(_ status: Reservation.Status) throws {
        let record = Fixture.record(["status": .string(status.rawValue)])
        #expect(try Reservation(ReservationApiModel(json: record), catalog: .builtIn).status == status)
    }

    // MARK: id

    @Test(arguments: ["r-42", " 5a1b2c3d-0000-4000-8000-00000000001", "{5a1b2c3d-0000-4000-8000-000000000001}", ""])
    func reservationIDThatIsNotAUUIDIsRejected(_ id: String) {
        #expect(Fixture.rejection(of: Fixture.record(id: id)) == .invalidReservationID(id))
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
            Fixture.record(id: "5a1b2c3d-0000-4000-8000-000000000002", ["status": .string("expired")]),
        ]
        let snapshot = ReservationSnapshot(records: records, catalog: .builtIn)
        #expect(
            snapshot.rejected == [
                RejectedRecord(
                    index: 1, id: "5a1b2c3d-0000-4000-8000-000000000002", reason: .unknownStatus("expired"))
            ])
    }

    // MARK: malformed elements

    /// Elements that are not reservation objects, or hold a field of the wrong JSON type.
    static let malformedElements: [JSONValue] = [
        .string("5a1b2c3d-0000-4000-8000-000000000009"),
        .integer(42),
        .null,
        .bool(true),
        .array([Fixture.record()]),
        Fixture.record(removing: ["id"]),
        Fixture.record(["id": .null]),
        Fixture.record(["id": .integer(7)]),
        Fixture.record(["partySize": .string("4")]),
        Fixture.record(["partySize": .double(4.5)]),
        Fixture.record(["status": .integer(1)]),
        Fixture.record(["date": .integer(1_796_119_200)]),
        Fixture.record(["landmarkId": .object([:])]),
    ]

    @Test(arguments: malformedElements)
    func malformedElementIsRejectedAsMalformed(_ element: JSONValue) throws {
        let error = try #require(throws: RejectionReason.self) { try ReservationApiModel(json: element) }
        guard case .malformed(let detail) = error else {
            Issue.record("expected .malformed, got \(error)")
            return
        }
        #expect(!detail.isEmpty)
        #expect(error.code == "malformed")
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

    @Test func wholeNumberWrittenAsADoubleIsAPartySize() throws {
        let model = try ReservationApiModel(json: Fixture.record(["partySize": .double(4)]))
        #expect(model.partySize == 4)
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

        #expect(
            wire
                == ReservationApiModel(
                    id: "5a1b2c3d-0000-4000-8000-000000000001", landmarkId: Fixture.halfDomeID,
                    date: "2026-12-01T08:00:00Z", partySize: 3, status: "pending", version: 1))
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
@Suite("Landmark mapping")
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
