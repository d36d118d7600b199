import ArgumentParser
import Foundation
import ReservationCore

/// What `resv import` reads: the events of an iCalendar file or the rows of a
/// CSV file, each an `Entry` (its id, landmark, start, party, status, note as
/// the file says them), then, against a catalog and a time, an `Outcome`: a
/// request to book, an event that has ended (skipped), or a refusal.
///
/// Ids: resv's own export keeps its reservation's id (`UID:<id>@resv`, the CSV's
/// `id`), so it comes back as itself; another calendar's event gets a name-based
/// UUID (`NameBasedID`) of the user and its UID (and `RECURRENCE-ID`), the same
/// at every import, so importing twice finds it there; the user is folded in
/// because an id is unique across a server's users.
enum ImportFile {
    enum Format: String, CaseIterable, Sendable {
        case ics, csv

        /// The format a file's name says; nil for another extension.
        init?(path: String) {
            switch (path as NSString).pathExtension.lowercased() {
            case "ics", "ical", "ifb", "icalendar": self = .ics
            case "csv": self = .csv
            default: return nil
            }
        }
    }

    /// The most a file may hold: room for far more events than a batch takes (10,000).
    static let maxBytes = 16 << 20

    /// Why a file is not of its format (exit 65): the line, and what is wrong there.
    struct NotTheFormat: Error {
        var line: Int
        var reason: String
    }

    /// One event or row, as the file says it.
    struct Entry {
        /// The line it starts on (a refusal names it), and how to name it: `event 'UID'`, `row 3`.
        var line: Int
        var origin: String
        var id: Reservation.ID
        var landmark: LandmarkHint
        var start: Start?
        var partySize: Int
        /// As the file says it: a cancelled or expired one has ended.
        var status: Reservation.Status
        var note: String?
        /// resv's series it was booked in (`X-RESV-SERIES`, the CSV's `series`), kept as it was.
        var series: Reservation.SeriesID?
        /// Why it cannot be booked, whatever the catalog and the time (a value that does not read).
        var problem: ReservationError?
        /// A recurring event (RRULE, RDATE): refused unless cancelled, since its start alone is not the visits.
        var recurring = false
    }

    /// How an entry names its landmark.
    enum LandmarkHint {
        /// resv's own: the landmark's id, and its name when the id is not in this catalog.
        case id(Landmark.ID, name: String?)
        /// A CSV's `landmark` column: an id, a name or its words, as `--landmark` reads it.
        case typed(String)
        /// Another calendar's event: a landmark whose name is in LOCATION, else in SUMMARY,
        /// else whose location LOCATION is.
        case words(location: String?, summary: String?)
    }

    /// When it starts.
    enum Start {
        case instant(Date)
        /// A wall time (`2026-12-01T08:00:00`) in this zone, or the landmark's (nil).
        case wall(String, zone: TimeZone?)
    }

    /// Why an event is skipped as ended.
    enum Ended: String, CaseIterable {
        case cancelled, past
    }

    enum Outcome {
        case book(NewReservation)
        case ended(Ended)
        case refused(ReservationError)
    }
}

// MARK: - From an entry to a request

extension ImportFile.Entry {
    /// What becomes of it at `now`: cancelled or passed, it has ended; else it is a
    /// request (resv's statuses: confirmed stays confirmed, pending and held come
    /// back pending, waitlisted pending on the waitlist), or the reason it cannot be.
    func outcome(in catalog: LandmarkCatalog, now: Date) -> ImportFile.Outcome {
        guard status.isActive else { return .ended(.cancelled) }
        if recurring {
            return .refused(
                .invalidRequestField("RRULE", "repeats the event: resv imports single visits (give each its own event)")
            )
        }
        let landmark: Landmark
        do throws(ReservationError) {
            if let problem { throw problem }
            guard start != nil else { throw .invalidRequestField("DTSTART", "is missing: an event needs its start") }
            landmark = try resolveLandmark(in: catalog)
        } catch {
            // A visit that has passed is skipped, whatever else is wrong with it.
            return roughlyPast(now) ? .ended(.past) : .refused(error)
        }
        do throws(ReservationError) {
            let date: Date
            switch start {
            case .instant(let instant)?: date = instant
            case .wall(let text, let zone)?:
                date = try TypedDate.resolve(text, now: now, zone: zone ?? landmark.timeZone ?? .gmt)
            case nil: return .refused(.invalidRequestField("DTSTART", "is missing"))
            }
            guard date > now else { return .ended(.past) }
            var request = try NewReservation(
                landmark: landmark.id.description, date: date, partySize: partySize,
                status: status == .confirmed ? .confirmed : .pending, note: note, waitlist: status == .waitlisted,
                series: series, now: now)
            request.id = id
            return .book(request)
        } catch {
            return .refused(error)
        }
    }

    /// Whether the start has passed at `now` in any zone (a wall time read 14 hours
    /// later, the farthest zone behind): an event of a landmark not found is skipped
    /// as ended only then.
    private func roughlyPast(_ now: Date) -> Bool {
        switch start {
        case .instant(let date)?: return date <= now
        case .wall(let text, let zone)?:
            guard let date = try? TypedDate.resolve(text, now: now, zone: zone ?? .gmt) else { return false }
            return date.addingTimeInterval(zone == nil ? 14 * 3600 : 0) <= now
        case nil: return false
        }
    }

    private func resolveLandmark(in catalog: LandmarkCatalog) throws(ReservationError) -> Landmark {
        switch landmark {
        case .id(let id, let name):
            if let known = catalog[id] { return known }
            guard let name else { throw .unknownLandmark(id.description) }
            return try catalog.landmark(matching: name)
        case .typed(let text):
            return try catalog.landmark(matching: text)
        case .words(let location, let summary):
            for text in [location, summary].compactMap(\.self) {
                if let found = try ImportFile.landmark(namedIn: text, catalog) { return found }
            }
            if let location {
                let placed = catalog.landmarks.filter { Words.of($0.location) == Words.of(location) }
                if placed.count == 1 { return placed[0] }
                if placed.count > 1 { throw .ambiguousLandmark(location, placed) }
            }
            let said = [("LOCATION", location), ("SUMMARY", summary)].compactMap { name, text in
                text.map { "\(name) '\($0.prefix(80))'" }
            }
            throw .invalidRequestField(
                said.isEmpty ? "the event" : said.joined(separator: " and "),
                "\(said.count > 1 ? "name" : "names") no landmark (see 'resv landmarks'): put its name in LOCATION")
        }
    }
}

extension ImportFile {
    /// The landmark whose whole name is among the words of `text`, in order (`Hike
    /// to Half Dome` → Half Dome); of several, the longest name; nil for none.
    static func landmark(namedIn text: String, _ catalog: LandmarkCatalog) throws(ReservationError) -> Landmark? {
        let words = Words.of(text)
        var found: [(landmark: Landmark, length: Int)] = []
        for landmark in catalog.landmarks {
            let name = Words.of(landmark.name)
            guard !name.isEmpty, name.count <= words.count else { continue }
            let contained = (0...(words.count - name.count)).contains { Array(words[$0..<$0 + name.count]) == name }
            if contained { found.append((landmark, name.count)) }
        }
        guard let longest = found.map(\.length).max() else { return nil }
        let best = found.filter { $0.length == longest }.map(\.landmark)
        guard best.count == 1 else { throw .ambiguousLandmark(text, best) }
        return best[0]
    }
}

// MARK: - iCalendar

extension ImportFile {
    /// The VEVENTs of a calendar as entries; `user` is folded into the ids of other calendars' events.
    static func entries(ics data: Data, user: String) throws(NotTheFormat) -> [Entry] {
        let events: [ICalendarReader.Event]
        do { events = try ICalendarReader.events(data) } catch {
            throw NotTheFormat(line: error.line, reason: error.reason)
        }
        return events.map { entry($0, user: user) }
    }

    private static func entry(_ event: ICalendarReader.Event, user: String) -> Entry {
        let uid = event.text("UID")
        let recurrence = event.first("RECURRENCE-ID")?.value
        let summary = event.text("SUMMARY")
        let location = event.text("LOCATION")
        var problem: ReservationError?
        let own = uid.flatMap(resvID)
        let id =
            own
            ?? Reservation.ID(
                NameBasedID.uuid(
                    [
                        user,
                        uid ?? "no UID: \(event.first("DTSTART")?.value ?? "")\n\(summary ?? "")\n\(location ?? "")",
                    ]
                    .joined(separator: "\n") + (recurrence.map { "\n" + $0 } ?? "")))
        var landmark = LandmarkHint.words(location: location, summary: summary)
        if let text = event.first("X-RESV-LANDMARK")?.value, let landmarkID = Landmark.ID(text) {
            landmark = .id(landmarkID, name: summary.map { ownName($0) })
        }
        var partySize = 1
        if let text = event.first("X-RESV-PARTY-SIZE")?.value {
            if let number = Int(text) {
                partySize = number
            } else {
                problem = .invalidRequestField("X-RESV-PARTY-SIZE", "is not a number")
            }
        } else if let summary, let number = partyOf(summary) {
            partySize = number
        }
        var status: Reservation.Status =
            switch event.first("STATUS")?.value.uppercased() {
            case "CANCELLED"?: .cancelled
            case "TENTATIVE"?: .pending
            default: .confirmed
            }
        if let text = event.first("X-RESV-STATUS")?.value {
            if let given = Reservation.Status(rawValue: text) {
                status = given
            } else {
                problem = .invalidRequestField("X-RESV-STATUS '\(text.prefix(32))'", "is not a status of resv")
            }
        }
        var note: String?
        if let encoded = event.first("X-RESV-NOTE")?.value {
            if let data = Data(base64Encoded: encoded), let text = String(data: data, encoding: .utf8) {
                note = text
            } else {
                problem = .invalidRequestField("X-RESV-NOTE", "is not base64 of UTF-8 text")
            }
        } else if let description = event.text("DESCRIPTION") {
            // resv's own DESCRIPTION is the reservation in words, then "Note: …" on a line of its own.
            if own != nil {
                note = description.range(of: "\nNote: ").map { String(description[$0.upperBound...]) }
            } else {
                note = description
            }
        }
        var series: Reservation.SeriesID?
        if let text = event.first("X-RESV-SERIES")?.value {
            series = Reservation.SeriesID(text)
            if series == nil { problem = .invalidRequestField("X-RESV-SERIES '\(text.prefix(40))'", "is not a UUID") }
        }
        let (start, startProblem) = start(event.first("DTSTART"))
        return Entry(
            line: event.line, origin: "event '\((uid ?? "without a UID").prefix(80))'", id: id, landmark: landmark,
            start: start, partySize: partySize, status: status, note: note?.isEmpty == true ? nil : note,
            series: series, problem: problem ?? startProblem,
            recurring: event.first("RRULE") != nil || event.first("RDATE") != nil)
    }

    /// The id of resv's own UID, `<uuid>@resv`.
    private static func resvID(_ uid: String) -> Reservation.ID? {
        guard uid.hasSuffix("@resv"), uid.count == 41 else { return nil }
        return Reservation.ID(String(uid.prefix(36)))
    }

    /// resv's SUMMARY without its ", party of N" and mark: the landmark's name.
    private static func ownName(_ summary: String) -> String {
        guard let range = summary.range(of: ", party of ", options: .backwards) else { return summary }
        return String(summary[..<range.lowerBound])
    }

    /// N of "party of N" in a summary.
    private static func partyOf(_ summary: String) -> Int? {
        guard let range = summary.range(of: "party of ", options: [.backwards, .caseInsensitive]) else { return nil }
        return Int(summary[range.upperBound...].prefix { $0.isASCII && $0.isNumber })
    }

    /// DTSTART: in UTC (`…Z`), in a `TZID` zone, or floating (the landmark's zone); a
    /// date alone (an all-day event) is refused, and ends with its day.
    private static func start(_ property: ICalendarReader.Property?) -> (Start?, ReservationError?) {
        guard let property else { return (nil, nil) }
        let value = property.value.trimmingCharacters(in: .whitespaces)
        let digits = value.unicodeScalars.filter { CharacterSet.decimalDigits.contains($0) }
        func iso(_ text: Substring) -> String {
            let d = Array(text)
            return "\(String(d[0..<4]))-\(String(d[4..<6]))-\(String(d[6..<8]))"
        }
        var zone: TimeZone?
        var zoneProblem: ReservationError?
        if let tzid = property.parameters["TZID"] {
            let name = tzid.hasPrefix("/") ? String(tzid.dropFirst()) : tzid
            zone = TimeZone(identifier: name)
            if zone == nil {
                zoneProblem = .invalidRequestField(
                    "TZID '\(tzid.prefix(64))'", "is not a time zone resv knows: use an IANA name such as Europe/Paris")
            }
        }
        if value.count == 8, digits.count == 8 || property.parameters["VALUE"]?.uppercased() == "DATE" {
            guard digits.count == 8 else {
                return (nil, .invalidRequestField("DTSTART '\(value.prefix(32))'", "is not a date (20261201)"))
            }
            return (
                .wall(iso(value[...]) + "T23:59:59", zone: zone),
                .invalidRequestField(
                    "DTSTART '\(value)'", "is a day without a time (an all-day event): resv books a visit at a time")
            )
        }
        let utc = value.hasSuffix("Z") || value.hasSuffix("z")
        let body = utc ? value.dropLast() : value[...]
        guard body.count == 15, digits.count == 14, body[body.index(body.startIndex, offsetBy: 8)] == "T" else {
            return (
                nil, .invalidRequestField("DTSTART '\(value.prefix(32))'", "is not a date-time (20261201T100000Z)")
            )
        }
        let time = Array(body.suffix(6))
        let text =
            iso(body) + "T\(String(time[0..<2])):\(String(time[2..<4])):\(String(time[4..<6]))"
        if utc {
            do { return (.instant(try DateTime.parse(text + "Z")), nil) } catch { return (nil, .invalidDate(error)) }
        }
        return (.wall(text, zone: zone), zoneProblem)
    }
}

// MARK: - CSV

extension ImportFile {
    /// The rows of resv's CSV export (its header names the columns; others are passed
    /// over): `date` and `landmarkId` or `landmark` are needed, `id`, `partySize` (1
    /// when empty), `status` (confirmed when empty), `note` and `series` are read.
    static func entries(csv data: Data, user: String) throws(NotTheFormat) -> [Entry] {
        let records = try CSVReader.records(data)
        guard let header = records.first else { throw NotTheFormat(line: 1, reason: "the file is empty") }
        var columns: [String: Int] = [:]
        for (index, name) in header.fields.enumerated() where columns[name] == nil {
            columns[name.trimmingCharacters(in: .whitespaces)] = index
        }
        guard columns["date"] != nil, columns["landmarkId"] != nil || columns["landmark"] != nil else {
            throw NotTheFormat(
                line: 1, reason: "the header row has no date and landmark (or landmarkId) columns: not resv's CSV")
        }
        return records.dropFirst().compactMap { record -> Entry? in
            func field(_ name: String) -> String? {
                guard let index = columns[name], index < record.fields.count else { return nil }
                let value = record.fields[index]
                return value.isEmpty ? nil : value
            }
            guard record.fields.contains(where: { !$0.isEmpty }) else { return nil }
            var problem: ReservationError?
            let landmarkName = field("landmark")
            let landmark: LandmarkHint =
                if let text = field("landmarkId"), let id = Landmark.ID(text) {
                    .id(id, name: landmarkName)
                } else {
                    .typed(landmarkName ?? field("landmarkId") ?? "")
                }
            let given = field("id")
            let id =
                given.flatMap { Reservation.ID($0) }
                ?? Reservation.ID(
                    NameBasedID.uuid(
                        [user, "csv", given ?? record.fields.joined(separator: "\u{1F}")].joined(separator: "\n")))
            var partySize = 1
            if let text = field("partySize") {
                if let number = Int(text) {
                    partySize = number
                } else {
                    problem = .invalidRequestField("partySize '\(text.prefix(32))'", "is not a number")
                }
            }
            var status = Reservation.Status.confirmed
            if let text = field("status") {
                if let given = Reservation.Status(rawValue: text) {
                    status = given
                } else {
                    problem = .invalidRequestField("status '\(text.prefix(32))'", "is not a status of resv")
                }
            }
            let series = field("series").flatMap { Reservation.SeriesID($0) }
            if let text = field("series"), series == nil {
                problem = .invalidRequestField("series '\(text.prefix(40))'", "is not a UUID")
            }
            var start: Start?
            if let text = field("date") {
                start = (try? DateTime.parse(text)).map(Start.instant) ?? .wall(text, zone: nil)
            } else {
                problem = problem ?? .invalidRequestField("date", "is empty")
            }
            return Entry(
                line: record.line, origin: "row \(record.line)", id: id, landmark: landmark, start: start,
                partySize: partySize, status: status, note: field("note"), series: series, problem: problem)
        }
    }
}

/// RFC 4180 records: fields split by commas, quoted ones (`"…"`, a quote doubled
/// inside) may hold commas, quotes and line breaks; lines end in CRLF or LF.
enum CSVReader {
    struct Record {
        /// The line it starts on.
        var line: Int
        var fields: [String]
    }

    static func records(_ data: Data) throws(ImportFile.NotTheFormat) -> [Record] {
        var bytes = data[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ImportFile.NotTheFormat(line: 1, reason: "not UTF-8 text")
        }
        if text.unicodeScalars.contains("\0") {
            throw ImportFile.NotTheFormat(line: 1, reason: "not text: it holds NUL")
        }
        var records: [Record] = []
        var fields: [String] = []
        var field = String.UnicodeScalarView()
        var line = 1
        var start = 1
        var quoted = false
        var wasQuoted = false
        var scalars = text.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar?
        func endRecord() {
            fields.append(String(field))
            records.append(Record(line: start, fields: fields))
            fields = []
            field = String.UnicodeScalarView()
            wasQuoted = false
        }
        while let scalar = pending ?? scalars.next() {
            pending = nil
            if quoted {
                if scalar == "\"" {
                    let next = scalars.next()
                    if next == "\"" {
                        field.append("\"")
                    } else {
                        quoted = false
                        pending = next
                    }
                } else {
                    if scalar == "\n" { line += 1 }
                    field.append(scalar)
                }
                continue
            }
            switch scalar {
            case "\"" where field.isEmpty && !wasQuoted:
                quoted = true
                wasQuoted = true
            case ",":
                fields.append(String(field))
                field = String.UnicodeScalarView()
                wasQuoted = false
            case "\r":
                let next = scalars.next()
                if next != "\n" { pending = next }
                endRecord()
                line += 1
                start = line
            case "\n":
                endRecord()
                line += 1
                start = line
            default:
                if wasQuoted {
                    throw ImportFile.NotTheFormat(line: line, reason: "text after a quoted field's closing quote")
                }
                field.append(scalar)
            }
        }
        if quoted { throw ImportFile.NotTheFormat(line: start, reason: "a quoted field is never closed") }
        if !field.isEmpty || !fields.isEmpty || wasQuoted { endRecord() }
        return records
    }
}
