import Foundation
import Testing

@testable import ReservationCore

@Suite("JSON values", .timeLimit(.minutes(30)))
struct JSONValueTests {
    static let storeText = """
        {
          "version": 1,
          "savedBy": {"tool": "resv", "build": 42},
          "landmarks": [
            {"id": "aaaa0000-0000-4000-8000-000000000001", "name": "Test Peak", "location": "Nowhere, NV",
             "category": "mountains", "capacity": 20, "timeZone": "America/Denver", "rating": 4.5},
            {"id": "bbbb0000-0000-4000-8000-000000000002", "name": "", "location": "Nowhere, NV",
             "category": "lakes"}
          ],
          "reservations": [
            {"id": "5a1b2c3d-0000-4000-8000-000000000001", "landmarkId": "aaaa0000-0000-4000-8000-000000000001",
             "date": "2026-12-01T10:00:00Z", "partySize": 4, "status": "confirmed",
             "note": "window seat", "tags": ["a", "b"]},
            "garbage",
            {"id": "5a1b2c3d-0000-4000-8000-000000000002", "landmarkId": "bbbb0000-0000-4000-8000-000000000002",
             "date": "2026-12-02T10:00:00Z", "partySize": 2, "status": "pending"},
            {"id": "5a1b2c3d-0000-4000-8000-000000000003", "landmarkId": "aaaa0000-0000-4000-8000-000000000001",
             "date": "2026-12-03T10:00:00.250-07:00", "partySize": 1, "status": "cancelled", "extra": null}
          ]
        }
        """

    @Test func storeTextDecodesAndMaps() throws {
        let store = try JSONValue.parse(Data(Self.storeText.utf8))

        #expect(store["version"] == .integer(1))
        #expect(store["savedBy"]?["build"] == .integer(42))
        guard case .array(let landmarkRecords)? = store["landmarks"],
            case .array(let reservationRecords)? = store["reservations"]
        else {
            Issue.record("landmarks and reservations should be arrays: \(store)")
            return
        }
        let catalog = LandmarkCatalog(records: landmarkRecords)
        let snapshot = ReservationSnapshot(records: reservationRecords, catalog: catalog)

        #expect(catalog.landmarks.map(\.name) == ["Test Peak"])
        #expect(catalog.landmarks.first?.timeZone?.identifier == "America/Denver")
        #expect(catalog.rejected.map(\.reason) == [.missingName])
        #expect(
            snapshot.reservations.map(\.id.description) == [
                "5a1b2c3d-0000-4000-8000-000000000001", "5a1b2c3d-0000-4000-8000-000000000003",
            ])
        #expect(snapshot.reservations.map(\.status) == [.confirmed, .cancelled])
        #expect(snapshot.reservations.last?.date == Date(timeIntervalSince1970: 1_796_317_200), "the fraction dropped")
        #expect(snapshot.rejected.map(\.index) == [1, 2])
        #expect(
            snapshot.rejected.last?.reason == .invalidLandmark("bbbb0000-0000-4000-8000-000000000002", .missingName))
        #expect(reservationRecords.first?["note"] == .string("window seat"))
        #expect(reservationRecords.first?["tags"] == .array([.string("a"), .string("b")]))
    }

    @Test(arguments: [false, true])
    func storeTextRoundTripsWithUnknownFields(pretty: Bool) throws {
        let store = try JSONValue.parse(Data(Self.storeText.utf8))

        let again = try JSONValue.parse(store.encoded(pretty: pretty))

        #expect(again == store)
        #expect(again["savedBy"] == .object(["tool": .string("resv"), "build": .integer(42)]))
        guard case .array(let records)? = again["reservations"] else {
            Issue.record("reservations should be an array")
            return
        }
        #expect(records.count == 4)
        #expect(records[1] == .string("garbage"))
        #expect(records[3]["extra"] == .null)
    }

    @Test(arguments: [
        JSONValue.null,
        .bool(true),
        .bool(false),
        .integer(0),
        .integer(-5),
        .integer(Int64.max),
        .integer(Int64.min),
        .double(4.5),
        .double(-0.001),
        .double(1.5e300),
        .string(""),
        .string("é ü 日本 \"quoted\" back\\slash / \n\t \u{1F600}"),
        .array([]),
        .object([:]),
        .array([.null, .integer(1), .string("two"), .array([.bool(false)])]),
        .object(["a": .object(["b": .array([.double(0.25), .null])]), "c d": .string("e")]),
    ])
    func valueRoundTrips(_ value: JSONValue) throws {
        #expect(try JSONValue.parse(value.encoded()) == value)
        #expect(try JSONValue.parse(value.encoded(pretty: true)) == value)
    }

    @Test func numbersKeepTheirKind() throws {
        let value = try JSONValue.parse(Data(#"[4, 4.5, -12, 1e2, "4", true]"#.utf8))
        #expect(value == .array([.integer(4), .double(4.5), .integer(-12), .integer(100), .string("4"), .bool(true)]))
    }

    @Test func encodingSortsKeysSoRewritesAreIdentical() {
        let value = JSONValue.object(["b": .integer(2), "a": .string("x/y"), "c": .array([])])
        #expect(String(decoding: value.encoded(), as: UTF8.self) == #"{"a":"x/y","b":2,"c":[]}"#)
    }

    @Test(arguments: [
        "",
        "{",
        #"{"a": }"#,
        "[1, 2,,]",
        "nul",
        "{'a': 1}",
        #"{"a": 1} x"#,
        #"{"version": 1, "reservations": [}"#,
    ])
    func invalidJSONThrowsASyntaxErrorWithADetail(_ text: String) throws {
        let error = try #require(throws: JSONSyntaxError.self) { try JSONValue.parse(Data(text.utf8)) }
        #expect(!error.detail.trimmingCharacters(in: .whitespaces).isEmpty)
    }

    /// docs/contracts.md: a corrupt store is reported with the position of the error.
    @Test func syntaxErrorNamesTheLineAndColumn() throws {
        let text = "{\n  \"version\": 1,\n  \"reservations\": [}\n"
        let error = try #require(throws: JSONSyntaxError.self) { try JSONValue.parse(Data(text.utf8)) }
        #expect(error.detail.contains("line 3"), "\(error.detail)")
        #expect(error.detail.contains("column 20"), "\(error.detail)")
    }

    @Test func subscriptReadsAndWritesObjectFieldsOnly() {
        var object = JSONValue.object(["status": .string("pending"), "keep": .integer(1)])
        object["status"] = .string("cancelled")
        #expect(object == .object(["status": .string("cancelled"), "keep": .integer(1)]))

        var array = JSONValue.array([.integer(1)])
        array["status"] = .string("cancelled")
        #expect(array == .array([.integer(1)]))
        #expect(array["status"] == nil)
    }

    @Test(arguments: [
        (JSONValue.null, "null"), (.bool(true), "a boolean"), (.integer(1), "a number"), (.double(1.5), "a number"),
        (.string("x"), "a string"), (.array([]), "an array"), (.object([:]), "an object"),
    ])
    func typeNameNamesTheJSONType(_ value: JSONValue, _ name: String) {
        #expect(value.typeName == name)
    }
}
