import Foundation
import ResvTestKit
import Testing

/// `--format csv` and `--format ics`, read back by Python's csv module and by the icalendar
/// package (a real RFC 5545 parser), over `Fixture.exportStore`. Refused formats and
/// `list --sort/--reverse/--limit` run in process (Tests/ResvCLITests/Commands/ExportFormatEndToEndTests.swift).
@Suite("Formats other tools read", .ownThreads, .timeLimit(.minutes(30)))
struct ExportFormatEndToEndTests {
    /// Rows as Python's csv module reads `text` (header first).
    static func pythonCSV(_ text: String, in sandbox: Sandbox) throws -> [[String]] {
        let file = sandbox.directory.appendingPathComponent("out.csv")
        try Data(text.utf8).write(to: file)
        let run = try runProcess(
            "/usr/bin/env",
            [
                "python3", "-c",
                "import csv, json, sys; print(json.dumps(list(csv.reader(open(sys.argv[1], newline='', encoding='utf-8')))))",
                file.path,
            ],
            environment: ["PATH": "/usr/bin:/bin"], stdin: nil)
        #expect(run.status == 0, "\(run.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String]])
    }

    static func jsonArray(_ run: Run) throws -> [[String: Any]] {
        #expect(run.status == 0, "\(run.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]])
    }

    /// A JSON value as the CSV holds it.
    static func text(_ value: Any?) -> String {
        switch value {
        case nil, is NSNull: ""
        case let string as String: string
        case let number as NSNumber: number.stringValue
        default: "\(value!)"
        }
    }

    // MARK: CSV

    @Test func reservationsInCSVReadBackAsTheirJSON() throws {
        let sandbox = try Sandbox()
        try sandbox.seed(Fixture.exportStore)
        let csv = try sandbox.resv("list", "--all", "--format", "csv")
        #expect(csv.status == 0, "\(csv.stderr)")
        #expect(csv.stderr.isEmpty)
        #expect(
            csv.stdout.hasPrefix(
                "id,date,landmark,landmarkId,partySize,status,location,note,createdAt,updatedAt,version,expiresAt,"
                    + "waitlistPosition,series\r\n"))
        // Every record ends in CRLF; the only bare LFs are inside quoted fields.
        #expect(csv.stdout.hasSuffix("\r\n"))
        let rows = try Self.pythonCSV(csv.stdout, in: sandbox)
        let json = try Self.jsonArray(try sandbox.resv("list", "--all", "--json"))
        #expect(
            rows.first == [
                "id", "date", "landmark", "landmarkId", "partySize", "status", "location", "note", "createdAt",
                "updatedAt", "version", "expiresAt", "waitlistPosition", "series",
            ])
        #expect(rows.count == json.count + 1)
        for (row, object) in zip(rows.dropFirst(), json) {
            let landmark = object["landmark"] as? [String: Any]
            let expected = [
                Self.text(object["id"]), Self.text(object["date"]), Self.text(landmark?["name"]),
                Self.text(landmark?["id"]), Self.text(object["partySize"]), Self.text(object["status"]),
                Self.text(landmark?["location"]), Self.text(object["note"]), Self.text(object["createdAt"]),
                Self.text(object["updatedAt"]), Self.text(object["version"]), Self.text(object["expiresAt"]),
                Self.text(object["waitlistPosition"]), Self.text(object["series"]),
            ]
            #expect(row == expected)
        }
        #expect(rows[1][2] == Fixture.longName)
        #expect(rows[2][2] == Fixture.hostileName)
        #expect(rows[2][6] == Fixture.hostileLocation)
        // A formula-like field is quoted (LibreOffice can then take it as text); the value is unchanged.
        #expect(csv.stdout.contains("\"=cmd|' /C calc'!A0, \"\"quoted\"\"; back\\slash\nsecond line"))
    }

    @Test func everyListShapedOutputHasCSV() throws {
        let sandbox = try Sandbox()
        try sandbox.seed(Fixture.exportStore)
        let landmarks = try sandbox.resv("landmarks", "--format", "csv")
        let landmarkRows = try Self.pythonCSV(landmarks.stdout, in: sandbox)
        let landmarkJSON = try Self.jsonArray(try sandbox.resv("landmarks", "--json"))
        let columns = [
            "id", "name", "location", "description", "category", "isFeatured", "imageName", "capacity", "timeZone",
        ]
        #expect(landmarkRows.first == columns)
        #expect(landmarkRows.count == landmarkJSON.count + 1)
        for (row, object) in zip(landmarkRows.dropFirst(), landmarkJSON) {
            #expect(
                row
                    == columns.map {
                        $0 == "isFeatured" ? ((object[$0] as? Bool) == true ? "true" : "false") : Self.text(object[$0])
                    })
        }

        let days = [
            "availability", String(Fixture.hostileLandmark.prefix(8)), "--from", "2030-06-01", "--to", "2030-06-03",
        ]
        let availability = try sandbox.resv(days + ["--format", "csv"])
        let dayRows = try Self.pythonCSV(availability.stdout, in: sandbox)
        let dayJSON = try Self.jsonArray(try sandbox.resv(days + ["--json"]))
        #expect(dayRows.first == ["date", "taken", "capacity", "left"])
        #expect(
            dayRows.dropFirst().map { $0 }
                == dayJSON.map { day in ["date", "taken", "capacity", "left"].map { Self.text(day[$0]) } })
        #expect(dayRows[1] == ["2030-06-01", "4", "40", "36"])

        // A reserve's result, a batch's results, show and cancel: the same columns.
        let single = try sandbox.resv(
            "reserve", "-l", String(Fixture.plainLandmark.prefix(8)), "-d", "2031-01-01T09:00:00Z", "-n", "2",
            "--format", "csv")
        let singleRows = try Self.pythonCSV(single.stdout, in: sandbox)
        #expect(singleRows.count == 2)
        #expect(
            singleRows[1][1...5] == ["2031-01-01T09:00:00Z", Fixture.longName, Fixture.plainLandmark, "2", "confirmed"])
        let batch = try sandbox.resv(
            ["reserve", "--batch", "-", "--format", "csv"],
            stdin: #"{"landmarkId": "\#(Fixture.plainLandmark)", "date": "2031-02-01T09:00:00Z", "partySize": 3}"#
                + "\n"
                + #"{"landmarkId": "\#(Fixture.plainLandmark)", "date": "2031-02-02T09:00:00Z", "partySize": 5}"# + "\n"
        )
        #expect(try Self.pythonCSV(batch.stdout, in: sandbox).map { $0[4] } == ["partySize", "3", "5"])
        let show = try sandbox.resv("show", "1111", "--format", "csv")
        #expect(
            try Self.pythonCSV(show.stdout, in: sandbox).map { $0[0] } == [
                "id", "11110000-0000-4000-8000-000000000001",
            ])
        let cancel = try sandbox.resv("cancel", "1111", "2222", "--format", "csv")
        #expect(try Self.pythonCSV(cancel.stdout, in: sandbox).map { $0[5] } == ["status", "cancelled", "cancelled"])

        // An empty list is its header alone.
        let empty = try sandbox.resv("list", "--status", "pending", "--format", "csv")
        #expect(empty.status == 0)
        #expect(
            empty.stdout
                == "id,date,landmark,landmarkId,partySize,status,location,note,createdAt,updatedAt,version,expiresAt,"
                + "waitlistPosition,series\r\n"
        )
    }

    // MARK: iCalendar

    /// The events as icalendar parses them: one JSON object per event, plus the calendar's own properties.
    static func parsedCalendar(_ text: String, in sandbox: Sandbox) throws -> [String: Any] {
        let file = sandbox.directory.appendingPathComponent("out.ics")
        try Data(text.utf8).write(to: file)
        let script = """
            import json, sys, icalendar
            cal = icalendar.Calendar.from_ical(open(sys.argv[1], 'rb').read())
            events = []
            for e in cal.walk('VEVENT'):
                events.append({
                    'uid': str(e['UID']), 'dtstamp': e['DTSTAMP'].dt.isoformat(),
                    'dtstart': e['DTSTART'].dt.isoformat(), 'utc': e['DTSTART'].dt.utcoffset().total_seconds() == 0,
                    'duration': e['DURATION'].dt.total_seconds(), 'summary': str(e['SUMMARY']),
                    'location': str(e['LOCATION']), 'status': str(e['STATUS']), 'description': str(e['DESCRIPTION']),
                    'sequence': int(e['SEQUENCE']),
                    'modified': e['LAST-MODIFIED'].dt.isoformat() if 'LAST-MODIFIED' in e else None,
                })
            print(json.dumps({'version': str(cal['VERSION']), 'prodid': str(cal['PRODID']), 'events': events}))
            """
        let run = try runProcess(
            Binary.packageRoot.appendingPathComponent("scripts/test-python").path, ["-c", script, file.path],
            environment: ["PATH": "/usr/bin:/bin"], stdin: nil)
        #expect(run.status == 0, "\(run.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    }

    @Test func reservationsAsACalendarThatIcalendarReads() throws {
        let sandbox = try Sandbox()
        try sandbox.seed(Fixture.exportStore)
        let run = try sandbox.resv("list", "--all", "--format", "ics")
        #expect(run.status == 0, "\(run.stderr)")
        let bytes = Array(run.stdout.utf8)

        // Lines: CRLF only, at most 75 octets, each whole UTF-8 (a fold never splits a character).
        #expect(run.stdout.hasPrefix("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//resv//resv "))
        #expect(run.stdout.hasSuffix("END:VCALENDAR\r\n"))
        var lines: [[UInt8]] = [[]]
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0x0D {
                #expect(index + 1 < bytes.count && bytes[index + 1] == 0x0A, "a CR without LF at \(index)")
                lines.append([])
                index += 2
                continue
            }
            #expect(bytes[index] != 0x0A, "a bare LF at \(index)")
            lines[lines.count - 1].append(bytes[index])
            index += 1
        }
        for line in lines.dropLast() {
            #expect(line.count <= 75, "\(String(decoding: line, as: UTF8.self))")
            #expect(String(validating: line, as: UTF8.self) != nil, "a line split inside a character: \(line)")
        }
        #expect(lines.contains { $0.first == 0x20 }, "the long name is folded")

        let calendar = try Self.parsedCalendar(run.stdout, in: sandbox)
        #expect(calendar["version"] as? String == "2.0")
        #expect((calendar["prodid"] as? String)?.hasPrefix("-//resv//resv ") == true)
        let events = try #require(calendar["events"] as? [[String: Any]])
        #expect(events.count == 3)
        let byUID = Dictionary(uniqueKeysWithValues: events.map { ($0["uid"] as? String ?? "", $0) })

        let pending = try #require(byUID["22220000-0000-4000-8000-000000000002@resv"])
        #expect(pending["dtstart"] as? String == "2030-05-01T08:00:00+00:00")
        #expect(pending["utc"] as? Bool == true)
        #expect(pending["duration"] as? Double == 3600)
        #expect(pending["summary"] as? String == Fixture.longName + ", party of 1")
        #expect(pending["location"] as? String == "Lake, Tahoe")
        #expect(pending["status"] as? String == "TENTATIVE")

        let confirmed = try #require(byUID["11110000-0000-4000-8000-000000000001@resv"])
        #expect(confirmed["dtstart"] as? String == "2030-06-01T16:00:00+00:00")
        #expect(confirmed["status"] as? String == "CONFIRMED")
        // Escaped and read back: backslash, semicolon, comma, line breaks; control characters left out.
        #expect(confirmed["summary"] as? String == Fixture.hostileName + ", party of 4")
        #expect(confirmed["location"] as? String == "+1, @home\n-Yosemite; CA")
        #expect(
            confirmed["description"] as? String
                == "resv reservation 11110000-0000-4000-8000-000000000001: \(Fixture.hostileName), party of 4, confirmed"
        )

        let cancelled = try #require(byUID["33330000-0000-4000-8000-000000000003@resv"])
        #expect(cancelled["status"] as? String == "CANCELLED")
        #expect(cancelled["summary"] as? String == Fixture.hostileName + ", party of 10")

        // DTSTAMP: when the file was made, in UTC.
        let stamp = try #require(pending["dtstamp"] as? String)
        #expect(stamp.hasSuffix("+00:00"))

        // UIDs are the same in every export (a re-import updates instead of duplicating).
        let again = try Self.parsedCalendar(try sandbox.resv("list", "--all", "--format", "ics").stdout, in: sandbox)
        #expect(
            (again["events"] as? [[String: Any]])?.map { $0["uid"] as? String } == events.map { $0["uid"] as? String })
    }

    @Test func oneReservationIsACalendarOfOneEvent() throws {
        let sandbox = try Sandbox()
        try sandbox.seed(Fixture.exportStore)
        for arguments in [["show", "2222"], ["confirm", "2222"], ["cancel", "2222"]] {
            let run = try sandbox.resv(arguments + ["--format", "ics"])
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
            let events = try #require(try Self.parsedCalendar(run.stdout, in: sandbox)["events"] as? [[String: Any]])
            #expect(
                events.map { $0["uid"] as? String } == ["22220000-0000-4000-8000-000000000002@resv"], "\(arguments)")
        }
        // Each change is a newer revision of the same event: SEQUENCE is the version less one.
        let sequence = try Self.parsedCalendar(try sandbox.resv("show", "2222", "--format", "ics").stdout, in: sandbox)
        let revised = try #require((sequence["events"] as? [[String: Any]])?.first)
        #expect(revised["sequence"] as? Int == 2, "confirmed, then cancelled: version 3")
        #expect((revised["modified"] as? String)?.hasSuffix("+00:00") == true, "\(revised)")
        let empty = try sandbox.resv("list", "--status", "pending", "--format", "ics")
        #expect(
            empty.stdout
                == "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//resv//resv 0.1.0//EN\r\nCALSCALE:GREGORIAN\r\nEND:VCALENDAR\r\n"
        )
    }
}
