import Foundation
import Testing

@testable import ReservationCore

/// The hand-written wire model (its JSON writer, `ReservationApiModel.json`, and the
/// store file's decoder, `ReservationApiModel(json:)`), the answers' JSON writer
/// (`writeReservation`) and the ICS writer held to the one
/// field table (`ReservationField.stored`), field by field. Each check is a function of
/// the table, so a copy of it with a field more (`withAField`) shows the check fails
/// when a writer or the decoder misses a field.
@Suite("The wire model and ICS follow the field table, field by field", .timeLimit(.minutes(30)))
struct FieldTableTests {
    /// A reservation with every field the table has a value for.
    static let full: Reservation = {
        let at = Date(timeIntervalSince1970: 1_900_000_000)
        return Reservation(
            id: Reservation.ID(UUID()), landmark: LandmarkCatalog.builtIn.landmarks[0],
            date: at.addingTimeInterval(86_400), partySize: 2, status: .waitlisted, note: "a note", createdAt: at,
            updatedAt: at.addingTimeInterval(60), version: 3, expiresAt: at.addingTimeInterval(600), waitlistOrder: 4,
            requestedStatus: .pending, waitlistPosition: 1, series: Reservation.SeriesID(UUID()))
    }()

    /// The table with one field more, which no writer knows: each check must name it.
    static let withAField =
        ReservationField.stored + [
            ReservationField(
                key: "colour", column: "colour", kind: .text, optional: true, csv: "colour", ics: "X-RESV-COLOUR",
                since: 99, value: { _ in .text("blue") })
        ]

    /// What the wire model's writer and decoder miss of `table`, a line per miss.
    static func wireMisses(_ table: [ReservationField], _ reservation: Reservation = full) -> [String] {
        let written = ReservationApiModel(reservation).json
        guard case .object(let keys) = written else { return ["the writer wrote no object"] }
        var misses: [String] = []
        for field in table {
            guard let key = field.key else { continue }
            let expected = field.value(reservation).wire
            if keys[key] != expected {
                misses.append("the writer writes \(key) as \(show(keys[key])), not \(show(expected))")
            }
            // The decoder keeps only the keys it knows: one it misses is lost on the way back.
            guard let expected else { continue }
            var alone: [String: JSONValue] = ["id": .string(reservation.id.description)]
            alone[key] = expected
            let read = (try? ReservationApiModel(json: .object(alone))).map(\.json)
            if read?[key] != expected { misses.append("the decoder drops \(key)") }
        }
        let described = Set(table.compactMap(\.key)).union(ReservationField.countedKeys)
        misses += keys.keys.filter { !described.contains($0) }.sorted().map { "the writer writes \($0), in no field" }
        return misses
    }

    @Test func theWireModelWritesAndReadsEveryField() {
        #expect(Self.wireMisses(ReservationField.stored) == [])
    }

    @Test func aFieldTheWireModelDoesNotKnowFailsTheCheck() {
        let misses = Self.wireMisses(Self.withAField)
        #expect(misses.count == 2, "\(misses)")
        #expect(misses.contains { $0.hasPrefix("the writer writes colour as nothing") }, "\(misses)")
        #expect(misses.contains("the decoder drops colour"), "\(misses)")
    }

    /// What the one reservation JSON writer (`writeReservation`, a server's answers) misses of
    /// `table`: an answered field's key absent or with another value, or a key in no field.
    static func answerMisses(_ table: [ReservationField], _ reservation: Reservation = full) throws -> [String] {
        var writer = JSONWriter(pretty: false)
        writer.writeReservation(ReservationApiModel(reservation), depth: 0)
        guard case .object(let keys) = try JSONValue.parse(Data(writer.bytes)) else { return ["not an object"] }
        var misses: [String] = []
        for field in table where field.answered {
            guard let key = field.key else { continue }
            let expected = field.value(reservation).wire
            if keys[key] != expected { misses.append("an answer has \(key) \(show(keys[key])), not \(show(expected))") }
        }
        let described = Set(table.filter(\.answered).compactMap(\.key)).union(ReservationField.countedKeys)
        misses += keys.keys.filter { !described.contains($0) }.sorted().map { "an answer has \($0), in no field" }
        return misses
    }

    @Test func anAnswerCarriesEveryAnsweredField() throws {
        #expect(try Self.answerMisses(ReservationField.stored) == [])
    }

    @Test func aFieldAnAnswerLacksFailsTheCheck() throws {
        #expect(try Self.answerMisses(Self.withAField) == ["an answer has colour nothing, not string(\"blue\")"])
    }

    /// What an event of the ICS writer misses of `table`: a property the table names and
    /// the event lacks, or one the event has that is in no field and not made from them.
    static func icsMisses(_ table: [ReservationField], _ reservation: Reservation = full) throws -> [String] {
        var writer = ICalendarWriter(product: "test", stamp: .at(Date(timeIntervalSince1970: 0)))
        writer.event(reservation)
        writer.finish()
        let event = try #require(try ICalendarReader.events(Data(writer.text.utf8)).first)
        let properties = Set(event.properties.map(\.name))
        let named = Set(table.compactMap(\.ics))
        // Made from the fields and the landmark, or fixed: not a field's own.
        let made: Set = ["DTSTAMP", "DURATION", "SUMMARY", "LOCATION", "STATUS", "X-RESV-NOTE"]
        return named.subtracting(properties).sorted().map { "the event has no \($0)" }
            + properties.subtracting(named).subtracting(made).sorted().map { "the event has \($0), in no field" }
    }

    @Test func anEventCarriesEveryFieldsProperty() throws {
        #expect(try Self.icsMisses(ReservationField.stored) == [])
    }

    @Test func aFieldTheEventDoesNotCarryFailsTheCheck() throws {
        #expect(try Self.icsMisses(Self.withAField) == ["the event has no X-RESV-COLOUR"])
    }

    @Test func eachFieldIsNamedOnceInEachPlace() {
        for names in [
            ReservationField.stored.compactMap(\.key), ReservationField.stored.map(\.column),
            ReservationField.stored.compactMap(\.output), ReservationField.stored.compactMap(\.csv),
            ReservationField.stored.compactMap(\.ics),
        ] {
            #expect(Set(names).count == names.count, "\(names)")
        }
    }
}

/// A value as the check's message says it.
private func show(_ value: JSONValue?) -> String { value.map { "\($0)" } ?? "nothing" }

extension StoredValue {
    /// As a record carries it: text and whole numbers as they are, seconds as a date.
    fileprivate var wire: JSONValue? {
        switch self {
        case .text(let text): .string(text)
        case .integer(let integer): .integer(Int64(integer))
        case .real(let seconds): .string(DateTime.format(Date(timeIntervalSince1970: seconds)))
        case .null: nil
        }
    }
}
