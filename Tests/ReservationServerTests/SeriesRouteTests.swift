import Foundation
import HTTPTypes
import ReservationCore
import ResvTestKit
import Testing

@testable import ReservationServer

/// A series on the server (`resv reserve --every` sends one batch, each request
/// carrying the series' id): kept on every engine, answered, never changed by a
/// modify, refused as a whole when one day is full, and refused when it is no UUID.
@Suite("A series on the server", .timeLimit(.minutes(30)))
struct SeriesRouteTests {
    static func request(_ landmark: String, _ date: String, _ party: Int, series: String) -> String {
        #"{"landmarkId":"\#(landmark)","date":"\#(date)","partySize":\#(party),"series":"\#(series)"}"#
    }

    /// Three days in a row from a random future day, at 10:00 UTC.
    static func days() throws -> [String] {
        let first = try DateTime.parse(Fixture.futureDate())
        return (0..<3).map { DateTime.format(first.addingTimeInterval(Double($0) * 86_400)) }
    }

    @Test(arguments: Engine.available)
    func aSeriesIsKeptAnsweredAndNeverChanged(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let series = UUID()
            // Sent in capitals: kept, and answered, as the canonical lowercase text.
            let lines = try Self.days().map { Self.request(Fixture.halfDome, $0, 2, series: series.uuidString) }
            let made = try await h.call(
                .post, "/reservations/batch", token: h.alice,
                body: #"{"reservations":[\#(lines.joined(separator: ","))]}"#)
            #expect(made.status == .created, "\(made.text)")
            let expected = series.uuidString.lowercased()
            #expect(made.array.count == 3 && made.array.allSatisfy { $0["series"] as? String == expected })
            let id = try #require(made.array.first?["id"] as? String)
            let read = try await h.call(.get, "/reservations/\(id)", token: h.alice)
            #expect(read.object["series"] as? String == expected, "\(read.text)")
            // A modify leaves the series as it is, whatever the body says of it.
            let other = UUID().uuidString.lowercased()
            let changed = try await h.call(
                .patch, "/reservations/\(id)", token: h.alice, body: #"{"partySize":3,"series":"\#(other)"}"#)
            #expect(changed.status == .ok, "\(changed.text)")
            #expect(changed.object["series"] as? String == expected && changed.object["partySize"] as? Int == 3)
            let listed = try await h.call(.get, "/reservations", token: h.alice).array
            #expect(listed.filter { $0["series"] as? String == expected }.count == 3)
            // One booking on its own carries it too; none without it.
            let single = try await h.call(
                .post, "/reservations", token: h.alice,
                body: Self.request(Fixture.goldenGate, Fixture.futureDate(), 1, series: expected))
            #expect(single.status == .created && single.object["series"] as? String == expected, "\(single.text)")
            let plain = try await h.reserve(h.alice)
            #expect(plain["series"] == nil)
        }
    }

    @Test(arguments: Engine.available)
    func aSeriesWithAFullDayIsRefusedWhole(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let days = try Self.days()
            // Half Dome takes 300 a day: the middle day keeps 50.
            #expect(
                try await h.call(
                    .post, "/reservations", token: h.bob, body: Fixture.body(Fixture.halfDome, days[1], 250)
                ).status == .created)
            let series = UUID().uuidString.lowercased()
            let lines = days.map { Self.request(Fixture.halfDome, $0, 60, series: series) }
            let refused = try await h.call(
                .post, "/reservations/batch", token: h.alice,
                body: #"{"reservations":[\#(lines.joined(separator: ","))]}"#)
            #expect(refused.status == .conflict, "\(refused.text)")
            #expect(refused.code == .batchRejected)
            let failures = try #require(refused.object["failures"] as? [[String: Any]])
            #expect(failures.map { $0["request"] as? Int } == [2])
            #expect(try await h.call(.get, "/reservations", token: h.alice).array.isEmpty)
        }
    }

    @Test(arguments: Engine.available)
    func aSeriesThatIsNoUUIDIs400(engine: Engine) async throws {
        try await withHarness(engine) { h in
            for series in ["weekly", "", "937fea60-bb7b-4ee8-85da-c79962987917x", "{a}"] {
                let one = try await h.call(
                    .post, "/reservations", token: h.alice,
                    body: Self.request(Fixture.goldenGate, Fixture.futureDate(), 1, series: series))
                #expect(one.status == .badRequest, "\(series): \(one.text)")
                #expect(one.code == .invalidRequest)
                #expect(one.reason?.contains("series") == true, "\(one.text)")
                let batch = try await h.call(
                    .post, "/reservations/batch", token: h.alice,
                    body:
                        #"{"reservations":[\#(Self.request(Fixture.goldenGate, Fixture.futureDate(), 1, series: series))]}"#
                )
                #expect(batch.status == .badRequest, "\(series): \(batch.text)")
            }
            let number = try await h.call(
                .post, "/reservations", token: h.alice,
                body:
                    #"{"landmarkId":"\#(Fixture.goldenGate)","date":"\#(Fixture.futureDate())","partySize":1,"series":7}"#
            )
            #expect(number.status == .badRequest, "\(number.text)")
            #expect(try await h.call(.get, "/reservations", token: h.alice).array.isEmpty)
        }
    }
}
