import Foundation
import ReservationCore
import ResvTestKit
import Testing

@testable import ReservationServer
@testable import ReservationStorage

/// A reservation's fields are described once (`ReservationField.stored`); the
/// engines' statements are made from it. Here the schema, what each engine
/// reads back and the server's answers are held to the same description, so
/// a field added to one and not the others fails here.
@Suite("Every engine stores the fields ReservationField describes", .timeLimit(.minutes(30)))
struct ReservationFieldRouteTests {
    @Test(arguments: Engine.available.filter { $0 != .memory })
    func theSchemaHasTheDescribedColumns(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let sql =
                engine == .sqlite
                ? "SELECT name FROM pragma_table_info('reservations')"
                : """
                SELECT column_name::TEXT FROM information_schema.columns
                WHERE table_name = 'reservations' AND table_schema = current_schema()
                """
            let columns = try await ConditionTests.ids(sql, h)
            #expect(Set(columns) == Set(ReservationField.stored.map(\.column) + ["user_id"]))
        }
    }

    @Test(arguments: Engine.available)
    func everyFieldReadsBackAsWritten(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let user = try #require(try await h.store.tokens.grant(Token.hash(h.alice))?.user)
            let landmark = try #require(LandmarkCatalog.builtIn.landmarks.first { $0.capacity != nil })
            let created = Date(timeIntervalSince1970: 1_900_000_000)
            let date = Date(timeIntervalSince1970: 4_102_444_800 + Double(Int.random(in: 0..<300_000)) * 86_400)
            let held = Reservation(
                id: Reservation.ID(UUID()), landmark: landmark, date: date, partySize: 3, status: .held,
                note: "by the gate", createdAt: created, updatedAt: created, version: 1,
                expiresAt: created.addingTimeInterval(600), series: Reservation.SeriesID(UUID()))
            let waiting = Reservation(
                id: Reservation.ID(UUID()), landmark: landmark, date: date, partySize: 2, status: .waitlisted,
                createdAt: created, updatedAt: created, version: 1, waitlistOrder: 7, requestedStatus: .pending)
            _ = try await h.store.transaction(user, catalog: .builtIn) { try await $0.insert([held, waiting]) }
            for reservation in [held, waiting] {
                #expect(try await h.store.get(user, reservation.id) == ReservationApiModel(reservation))
            }
            // Every field a change writes, changed.
            let later = created.addingTimeInterval(60)
            let moved = try #require(LandmarkCatalog.builtIn.landmarks.first { $0.id != landmark.id })
            let changed = [
                Reservation(
                    id: held.id, landmark: moved, date: date.addingTimeInterval(3_600), partySize: 4,
                    status: .expired, createdAt: created, updatedAt: later, version: 2,
                    expiresAt: created.addingTimeInterval(900), series: held.series),
                Reservation(
                    id: waiting.id, landmark: landmark, date: date, partySize: 5, status: .waitlisted,
                    note: "a note now", createdAt: created, updatedAt: later, version: 2, waitlistOrder: 8,
                    requestedStatus: .confirmed),
            ]
            _ = try await h.store.transaction(user, catalog: .builtIn) { try await $0.update(changed) }
            for reservation in changed {
                #expect(try await h.store.get(user, reservation.id) == ReservationApiModel(reservation))
            }
        }
    }

    @Test(arguments: Engine.available)
    func answersCarryTheAnsweredKeys(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let body = """
                {"landmarkId": "\(Fixture.halfDome)", "date": "\(Fixture.futureDate())", "partySize": 2,
                 "note": "by the gate", "hold": 600, "series": "\(UUID())"}
                """
            let reply = try await h.call(.post, "/reservations", token: h.alice, body: body)
            #expect(reply.status == .created, "\(reply.text)")
            let answered = ReservationField.stored.filter(\.answered).compactMap(\.key)
            #expect(Set(reply.object.keys) == Set(answered))
        }
    }
}
