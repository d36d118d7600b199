import Foundation
import ReservationCore
import Synchronization
import Testing

@testable import ResvCLI

/// `--json` output is a contract: the direct JSON writer must print, byte for
/// byte, what JSONEncoder printed for the same shapes before it.
@Suite("JSON output", .timeLimit(.minutes(30)))
struct RenderingTests {
    /// The reservation shape as it was encoded with JSONEncoder.
    struct EncodedReservation: Encodable {
        var id: String
        var landmark: LandmarkApiModel
        var date: String
        var partySize: Int
        var status: String
        // Added with modify and the history (c4e08e0, 9ca9439); absent when unknown (records older than them), as
        // JSONEncoder leaves out nil.
        var createdAt: String?
        var note: String?
        var updatedAt: String?
        var version: Int
    }

    static let reservations: [Reservation] = Landmark.builtIn.enumerated().flatMap { index, landmark in
        Reservation.Status.allCases.enumerated().map { offset, status in
            let bytes = (0..<16).map { UInt8(($0 * 7 + index * 3 + offset) % 256) }
            let uuid = UUID(uuid: bytes.withUnsafeBytes { $0.load(as: uuid_t.self) })
            return Reservation(
                id: Reservation.ID(uuid), landmark: landmark,
                date: Date(timeIntervalSince1970: 1_796_000_000 + Double(index * 3600) + Double(offset) * 0.25),
                partySize: index + offset + 1, status: status,
                note: offset == 1 ? "gate \"B\" / \u{1B}[0m é" : nil,
                createdAt: index % 2 == 0 ? Date(timeIntervalSince1970: 1_790_000_000) : nil,
                updatedAt: index % 2 == 0 ? Date(timeIntervalSince1970: 1_790_000_100) : nil, version: offset + 1)
        }
    }

    static func encoded(_ value: some Encodable, pretty: Bool) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting =
            pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    static func reference(_ reservation: Reservation) -> EncodedReservation {
        EncodedReservation(
            id: reservation.id.description, landmark: LandmarkApiModel(reservation.landmark),
            date: DateTime.format(reservation.date), partySize: reservation.partySize,
            status: reservation.status.rawValue, createdAt: reservation.createdAt.map(DateTime.format),
            note: reservation.note, updatedAt: reservation.updatedAt.map(DateTime.format), version: reservation.version)
    }

    static func render(_ format: OutputFormat, _ body: (Renderer, TextSink) -> Void) -> String {
        let buffer = Mutex("")
        let sink = TextSink { text in buffer.withLock { $0 += text } }
        body(
            Renderer(format: format, colour: false, timeZone: .gmt, now: Date(timeIntervalSince1970: 1_780_315_200)),
            sink)
        return buffer.withLock { $0 }
    }

    @Test func aListIsWhatJSONEncoderWrote() throws {
        let text = Self.render(.json) { renderer, sink in
            renderer.write(reservations: Self.reservations, to: sink)
        }
        #expect(text == (try Self.encoded(Self.reservations.map(Self.reference), pretty: true)) + "\n")
    }

    @Test func ndjsonIsWhatJSONEncoderWroteLineByLine() throws {
        let text = Self.render(.ndjson) { renderer, sink in
            renderer.write(reservations: Self.reservations, to: sink)
        }
        let lines = try Self.reservations.map { try Self.encoded(Self.reference($0), pretty: false) + "\n" }
        #expect(text == lines.joined())
    }

    @Test(arguments: [OutputFormat.json, .ndjson])
    func oneReservationIsWhatJSONEncoderWrote(_ format: OutputFormat) throws {
        for reservation in Self.reservations {
            let text = Self.render(format) { renderer, sink in sink.write(renderer.reservation(reservation)) }
            #expect(text == (try Self.encoded(Self.reference(reservation), pretty: format == .json)) + "\n")
        }
    }

    @Test func landmarksAreWhatJSONEncoderWrote() throws {
        let text = Self.render(.json) { renderer, sink in renderer.write(landmarks: Landmark.builtIn, to: sink) }
        #expect(text == (try Self.encoded(Landmark.builtIn.map(LandmarkApiModel.init), pretty: true)) + "\n")
    }

    /// Long lists are written in pieces; the pieces join up to the same text.
    @Test func aLongListIsStreamedInPiecesThatJoinUp() throws {
        let many = (0..<3000).map { Self.reservations[$0 % Self.reservations.count] }
        let pieces = Mutex(0)
        let buffer = Mutex("")
        let sink = TextSink { text in
            pieces.withLock { $0 += 1 }
            buffer.withLock { $0 += text }
        }
        Renderer(format: .json, colour: false, timeZone: .gmt, now: Date(timeIntervalSince1970: 1_780_315_200)).write(
            reservations: many, to: sink)
        #expect(pieces.withLock { $0 } > 1)
        #expect(buffer.withLock { $0 } == (try Self.encoded(many.map(Self.reference), pretty: true)) + "\n")
    }

    @Test func anEmptyListIsOneLine() throws {
        #expect(Self.render(.json) { renderer, sink in renderer.write(reservations: [], to: sink) } == "[]\n")
        #expect(Self.render(.ndjson) { renderer, sink in renderer.write(reservations: [], to: sink) } == "")
    }
}

/// Times as a ticket shows them: the wall time and the zone's own abbreviation
/// from the tz database, where it has one (CEST, not GMT+2), else GMT±H.
@Suite(.timeLimit(.minutes(30)))
struct ZoneNameTests {
    static let winter = Date(timeIntervalSince1970: 1_796_119_200)  // 2026-12-01T10:00:00Z
    static let summer = Date(timeIntervalSince1970: 1_782_900_000)  // 2026-07-01T10:00:00Z

    @Test(arguments: [
        ("America/Los_Angeles", "2026-12-01 02:00 PST", "2026-07-01 03:00 PDT"),
        ("Europe/Berlin", "2026-12-01 11:00 CET", "2026-07-01 12:00 CEST"),
        ("Europe/London", "2026-12-01 10:00 GMT", "2026-07-01 11:00 BST"),
        ("Asia/Tokyo", "2026-12-01 19:00 JST", "2026-07-01 19:00 JST"),
        ("Asia/Kolkata", "2026-12-01 15:30 IST", "2026-07-01 15:30 IST"),
        ("Australia/Sydney", "2026-12-01 21:00 AEDT", "2026-07-01 20:00 AEST"),
        ("Europe/Istanbul", "2026-12-01 13:00 GMT+3", "2026-07-01 13:00 GMT+3"),
        ("America/St_Johns", "2026-12-01 06:30 NST", "2026-07-01 07:30 NDT"),
        ("UTC", "2026-12-01 10:00 UTC", "2026-07-01 10:00 UTC"),
    ])
    func aTimeIsShownInItsZoneWithItsName(zone: String, winter: String, summer: String) throws {
        let timeZone = try #require(TimeZone(identifier: zone))
        #expect(Renderer.time(Self.winter, in: timeZone) == winter)
        #expect(Renderer.time(Self.summer, in: timeZone) == summer)
    }

    @Test func offsetsWithoutANameAreWrittenAsGMT() {
        #expect(ZoneNames.gmt(0) == "GMT")
        #expect(ZoneNames.gmt(3 * 3600) == "GMT+3")
        #expect(ZoneNames.gmt(-(3 * 3600 + 1800)) == "GMT-3:30")
        #expect(ZoneNames.gmt(5 * 3600 + 2700) == "GMT+5:45")
    }
}

/// Tables on a terminal fit its width: the columns that may be cut are cut first, with "…".
@Suite("Tables fitted to the terminal's width", .timeLimit(.minutes(30)))
struct TableWidthTests {
    @Test(arguments: [
        ("Half Dome", 9), ("", 0), ("東京タワー", 10), ("Café", 4), ("Cafe\u{301}", 4), ("🏔️ Rainier", 10),
        ("👍🏽", 2), ("\u{200B}x", 1), ("Ｆｕｌｌ", 8),
    ])
    func columnsATextTakes(_ text: String, _ width: Int) {
        #expect(text.terminalWidth == width, "\(text.debugDescription)")
    }

    @Test(arguments: [
        ("Golden Gate Bridge", 10, "Golden Ga…"), ("Half Dome", 9, "Half Dome"), ("Half Dome", 8, "Half Do…"),
        ("東京タワー", 5, "東京…"), ("東京タワー", 4, "東…"), ("Cafe\u{301} au lait", 5, "Cafe\u{301}…"),
        ("abc", 1, "…"), ("abc", 0, ""),
    ])
    func textCutToAWidth(_ text: String, _ width: Int, _ cut: String) {
        #expect(text.cut(toWidth: width) == cut, "\(text) to \(width)")
        #expect(text.cut(toWidth: width).terminalWidth <= width)
    }

    @Test func theColumnsMarkedToCutGoFirstWidestFirstNumbersNever() {
        // ID 8, DATE 20, LANDMARK 18, PARTY 5, STATUS 28: 79 + 8 between.
        let widths = [8, 20, 18, 5, 28]
        let cutFirst = [false, false, true, false, true]
        let whole = [false, false, false, true, false]
        #expect(Renderer.fit(widths, into: 200, cutFirst: cutFirst, whole: whole) == widths, "it fits: unchanged")
        let sixty = Renderer.fit(widths, into: 60, cutFirst: cutFirst, whole: whole)
        #expect(sixty.reduce(0, +) + 8 == 60)
        #expect(sixty[0] == 8 && sixty[1] == 20 && sixty[3] == 5, "ids, dates and numbers whole at 60")
        #expect(abs(sixty[2] - sixty[4]) <= 1, "the two cut columns share the cut, widest first")
        let thirty = Renderer.fit(widths, into: 30, cutFirst: cutFirst, whole: whole)
        #expect(thirty[3] == 5, "a number is never cut")
        #expect(thirty.allSatisfy { $0 >= Renderer.narrowest || $0 == 5 })
        let tiny = Renderer.fit(widths, into: 5, cutFirst: cutFirst, whole: whole)
        #expect(tiny == [4, 4, 4, 5, 4], "no column below the narrowest: wider than the terminal then")
    }

    @Test func aTableOnATerminalIsCutNeverWrappedAndWholeElsewhere() {
        let rows: [[Renderer.Cell]] = [
            [.init("a1"), .init("Golden Gate Bridge", cuts: true), .init("12", alignRight: true)],
            [.init("b2"), .init("東京タワー東京タワー", cuts: true), .init("3", alignRight: true)],
        ]
        let terminal = Renderer(
            format: .table, colour: false, timeZone: .gmt, now: Date(timeIntervalSince1970: 1_780_315_200), width: 20)
        let fitted = terminal.table(header: ["ID", "NAME", "N"], rows: rows)
        for line in fitted.split(separator: "\n") { #expect(String(line).terminalWidth <= 20, "\(line)") }
        #expect(fitted.contains("Golden Gate…"))
        let piped = Renderer(
            format: .table, colour: false, timeZone: .gmt, now: Date(timeIntervalSince1970: 1_780_315_200))
        #expect(piped.table(header: ["ID", "NAME", "N"], rows: rows).contains("東京タワー東京タワー"))
    }
}

/// A note is a column of `list` that a terminal's width cuts, as it cuts a name.
@Suite("The note column", .timeLimit(.minutes(30)))
struct NoteColumnTests {
    @Test func aLongNoteIsCutToTheTerminalNeverWrapped() throws {
        let landmark = try #require(Landmark.builtIn.first)
        let reservation = Reservation(
            id: Reservation.ID(UUID()), landmark: landmark, date: Date(timeIntervalSince1970: 1_900_000_000),
            partySize: 2, status: .confirmed, note: String(repeating: "wheelchair ramp at gate B ", count: 8))
        let text = RenderingTests.render(.table) { _, sink in
            Renderer(
                format: .table, colour: false, timeZone: .gmt, now: Date(timeIntervalSince1970: 1_780_315_200),
                width: 100
            ).write(
                reservations: [reservation], to: sink)
        }
        let lines = text.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines[0].hasSuffix("NOTE"))
        #expect(lines.allSatisfy { String($0).terminalWidth <= 100 }, "\(text)")
        #expect(lines[1].hasSuffix("…") && lines[1].contains("wheelchair"), "\(text)")
    }
}
