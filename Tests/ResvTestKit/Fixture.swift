import Foundation
import ReservationCore

/// Fixed records and values every test target shares: stores for seeding, the same for the
/// in-process command tests and the end-to-end tests (two reservations share the prefix
/// `abcd`), and request bodies for the route tests.
public enum Fixture {
    public static let halfDome = "937fea60-bb7b-4ee8-85da-c79962987917"  // capacity 300
    public static let goldenGate = "7c6984ff-188e-417e-b476-ec5f30b8d745"
    public static let first = "abcd1111-1111-4111-8111-111111111111"
    public static let second = "abcd2222-2222-4222-8222-222222222222"
    public static let third = "5eed3333-3333-4333-8333-333333333333"

    /// A store with three valid reservations (one cancelled), an unknown
    /// top-level field, an unknown record field, and one record that does not map.
    public static let store = """
        {
          "version": 1,
          "owner": "team-a",
          "reservations": [
            {"id": "\(first)", "landmarkId": "\(halfDome)", "date": "2030-06-01T16:00:00Z", "partySize": 4, "status": "confirmed", "note": "bring water"},
            {"id": "\(second)", "landmarkId": "\(goldenGate)", "date": "2030-05-01T10:00:00Z", "partySize": 2, "status": "pending"},
            {"id": "\(third)", "landmarkId": "\(goldenGate)", "date": "2030-07-01T10:00:00Z", "partySize": 1, "status": "cancelled"},
            {"id": "not-a-uuid", "landmarkId": "\(halfDome)", "date": "2030-06-01T16:00:00Z", "partySize": 4, "status": "confirmed"}
          ]
        }

        """

    /// A custom landmark whose text is hostile, and a plain one with a long name.
    public static let hostileLandmark = "aaaa0000-0000-4000-8000-000000000001"
    public static let plainLandmark = "bbbb0000-0000-4000-8000-000000000002"
    /// A name built to break a careless writer: a formula, a comma, quotes, a line break, non-ASCII.
    public static let hostileName = "=cmd|' /C calc'!A0, \"quoted\"; back\\slash\nsecond line é中🏔"
    public static let hostileLocation = "+1, @home\r\n-Yosemite; CA"
    /// A name long enough to be folded several times, with multi-byte characters around every 75th octet.
    public static let longName = String(repeating: "Ünïcödé 山 🏔 ", count: 12) + "end"

    /// A store of those two landmarks and three reservations on them (confirmed `1111`,
    /// pending `2222`, cancelled `3333`), for the export formats.
    public static let exportStore: String = {
        let landmarks: [[String: Any]] = [
            [
                "id": hostileLandmark, "name": hostileName, "location": hostileLocation, "category": "mountains",
                "description": "tab\there, \u{7}bell", "isFeatured": true, "capacity": 40,
            ],
            [
                "id": plainLandmark, "name": longName, "location": "Lake, Tahoe", "category": "lakes",
                "description": "", "isFeatured": false,
            ],
        ]
        let reservations: [[String: Any]] = [
            [
                "id": "11110000-0000-4000-8000-000000000001", "landmarkId": hostileLandmark,
                "date": "2030-06-01T16:00:00Z", "partySize": 4, "status": "confirmed",
            ],
            [
                "id": "22220000-0000-4000-8000-000000000002", "landmarkId": plainLandmark,
                "date": "2030-05-01T10:00:00+02:00", "partySize": 1, "status": "pending",
            ],
            [
                "id": "33330000-0000-4000-8000-000000000003", "landmarkId": hostileLandmark,
                "date": "2030-07-01T10:00:00Z", "partySize": 10, "status": "cancelled",
            ],
        ]
        let store: [String: Any] = ["version": 1, "landmarks": landmarks, "reservations": reservations]
        return String(decoding: try! JSONSerialization.data(withJSONObject: store), as: UTF8.self)
    }()

    /// `count` valid `reserve --batch` lines, one per hour from 2031, over four landmarks
    /// given by name, id prefix and full id. Half Dome gets at most 6 people an hour.
    public static func batchLines(_ count: Int) -> [String] {
        let base = Date(timeIntervalSince1970: 1_924_992_000)  // 2031-01-01T00:00:00Z
        let formatter = ISO8601DateFormatter()
        let landmarks = ["Half Dome", "lake tahoe", "7c69", goldenGate]
        return (0..<count).map { index in
            let date = formatter.string(from: base.addingTimeInterval(Double(index) * 3600))
            return #"{"landmarkId": "\#(landmarks[index % 4])", "date": "\#(date)", "partySize": \#(1 + index % 3)}"#
        }
    }

    /// The environment that puts resv's config, data and cache under `directory`
    /// (config/, data/, cache/), with no RESV_STORE: where the settings tests look.
    public static func homeEnvironment(in directory: URL) -> [String: String] {
        [
            "RESV_STORE": "", "XDG_CONFIG_HOME": directory.appendingPathComponent("config").path,
            "XDG_DATA_HOME": directory.appendingPathComponent("data").path,
            "XDG_CACHE_HOME": directory.appendingPathComponent("cache").path,
        ]
    }

    /// A random future date at 10:00 UTC, so tests sharing a PostgreSQL database
    /// never count against each other's capacity.
    public static func futureDate() -> String {
        let day = Int.random(in: 0..<300_000)
        let date = Date(timeIntervalSince1970: 4_102_444_800 + Double(day) * 86_400 + 36_000)  // from 2100-01-01
        return DateTime.format(date)
    }

    /// A `POST /reservations` body.
    public static func body(_ landmark: String, _ date: String, _ partySize: Int, _ status: String? = nil) -> String {
        var fields = [#""landmarkId":"\#(landmark)""#, #""date":"\#(date)""#, #""partySize":\#(partySize)"#]
        if let status { fields.append(#""status":"\#(status)""#) }
        return "{" + fields.joined(separator: ",") + "}"
    }
}
