import Foundation
import ReservationCore

extension ImportFile.Entry {
    /// What becomes of it at `now`: cancelled or passed, it has ended; else it is a
    /// request (resv's statuses: confirmed stays confirmed, pending and held come
    /// back pending, waitlisted pending on the waitlist), or the reason it cannot be.
    func outcome(in catalog: LandmarkCatalog, now: Date) -> ImportFile.Outcome {
        guard status.isActive else { return .ended(.cancelled) }
        let landmark: Landmark
        var kind = kind
        do throws(ReservationError) {
            if let problem { throw problem }
            kind = .unreadable
            guard start != nil else { throw .invalidRequestField("DTSTART", "is missing: an event needs its start") }
            kind = .landmark
            landmark = try resolveLandmark(in: catalog)
        } catch {
            // A visit that has passed is skipped, whatever else is wrong with it (a series: its rule).
            return roughlyPast(now) && !repeats ? .ended(.past) : .refused(error, kind)
        }
        if rule != nil {
            return .refused(.invalidRequestField("RRULE", "is not read into visits (a bug)"), .recurrence)
        }
        do throws(ReservationError) {
            let date: Date
            switch start {
            case .instant(let instant)?, .defined(let instant)?: date = instant
            case .wall(let text, let zone)?:
                date = try TypedDate.resolve(text, now: now, zone: zone ?? landmark.timeZone ?? .gmt)
            case nil: return .refused(.invalidRequestField("DTSTART", "is missing"), .unreadable)
            }
            guard date > now else { return .ended(.past) }
            var request = try NewReservation(
                landmark: landmark.id.description, date: date, partySize: partySize,
                status: status == .confirmed ? .confirmed : .pending, note: note, waitlist: status == .waitlisted,
                series: series, now: now)
            request.id = id
            return .book(request)
        } catch {
            if case .invalidPartySize = error { return .refused(error, .party) }
            return .refused(error, .unreadable)
        }
    }

    /// A repeating event's visits, each an entry of its own with its own id (of the UID and
    /// the visit's start, as a `RECURRENCE-ID` would name it) carrying one series (of the
    /// UID): the first visit's wall time every day, week or month (`reserve --every`), in
    /// its TZID zone, the landmark's when floating, UTC when given in UTC; EXDATEs left out.
    /// Itself when it does not repeat or cannot be read (its outcome says why); when its rule
    /// cannot be booked (`changed`: the file changes its visits one by one with RECURRENCE-ID),
    /// itself with that problem.
    func visits(in catalog: LandmarkCatalog, now: Date, changed: Bool) -> [ImportFile.Entry] {
        guard let rule, status.isActive, problem == nil, let start,
            let landmark = try? resolveLandmark(in: catalog)
        else { return [self] }
        var alone = self
        alone.rule = nil
        alone.kind = .recurrence
        do throws(ReservationError) {
            if changed {
                throw .invalidRequestField(
                    "RECURRENCE-ID",
                    "changes visits of this series one by one: resv books a series only as its RRULE says")
            }
            let (zone, first, utc) = try Self.firstVisit(start, at: landmark, now: now)
            var dates = try Self.dates(of: rule, from: first, in: zone)
            try Self.leaveOut(rule.exdates, from: &dates, in: zone)
            let series = Reservation.SeriesID(NameBasedID.uuid(idBase + "\nseries"))
            return dates.map { date in visit(on: date, in: zone, utc: utc, series: series) }
        } catch {
            alone.problem = error
            return [alone]
        }
    }

    /// The first visit's start, and the zone the series repeats in: UTC when given in UTC, the
    /// TZID's, or the landmark's when floating; never the file's own VTIMEZONE.
    private static func firstVisit(
        _ start: ImportFile.Start, at landmark: Landmark, now: Date
    ) throws(ReservationError) -> (zone: TimeZone, first: Date, utc: Bool) {
        switch start {
        case .instant(let date): return (.gmt, date, true)
        case .defined:
            throw .invalidRequestField(
                "RRULE",
                "repeats in the file's own VTIMEZONE, whose clocks differ from the zone of that name's: "
                    + "resv books a series in a zone it knows")
        case .wall(let text, let given):
            let zone = given ?? landmark.timeZone ?? .gmt
            return (zone, try TypedDate.resolve(text, now: now, zone: zone), false)
        }
    }

    /// The visits' starts by the rule (`reserve --every`): on the first visit's day (BYDAY,
    /// BYMONTHDAY), up to COUNT or UNTIL, at most as many as a series books.
    private static func dates(
        of rule: ImportFile.Rule, from first: Date, in zone: TimeZone
    ) throws(ReservationError) -> [Date] {
        let firstDay = Self.day(of: first, in: zone)
        if let byDay = rule.byDay, ImportFile.weekdays[byDay] != firstDay.weekday {
            throw .invalidRequestField(
                "RRULE BYDAY=\(byDay)", "is not the first visit's day: resv books the same day")
        }
        if let byMonthDay = rule.byMonthDay, byMonthDay != firstDay.day {
            throw .invalidRequestField(
                "RRULE BYMONTHDAY=\(byMonthDay)", "is not the first visit's day: resv books the same day")
        }
        var last: Date?
        var end = Recurrence.End.count(rule.count ?? 1)
        if let count = rule.count, count > Recurrence.longest {
            throw .invalidRequestField(
                "RRULE COUNT=\(count)", "is more visits than a series books (at most \(Recurrence.longest))")
        }
        let until = rule.until.map { "RRULE UNTIL=\($0.prefix(32))" } ?? ""
        if let text = rule.until {
            guard let (instant, day) = Self.moment(text, zone: zone) else {
                throw .invalidRequestField(until, "is not a date or a date-time")
            }
            guard day >= firstDay, (instant ?? first) >= first else {
                throw .invalidRequestField(until, "is before DTSTART")
            }
            last = instant
            end = .until(day)
        }
        var dates: [Date]
        do {
            dates = try rule.every.dates(from: first, to: end, in: zone)
        } catch .invalidSeries {
            throw .invalidRequestField(
                until, "makes more visits than a series books (at most \(Recurrence.longest))")
        }
        if let last { dates.removeAll { $0 > last } }
        return dates
    }

    /// Leaves out the EXDATEs' instants and days (each in its TZID zone, else the series');
    /// refused when none is left.
    private static func leaveOut(
        _ exdates: [ICalendarReader.Property], from dates: inout [Date], in zone: TimeZone
    ) throws(ReservationError) {
        var excludedDays: Set<CalendarDay> = []
        var excluded: Set<Date> = []
        for property in exdates {
            let exZone = property.parameters["TZID"].flatMap { TimeZone(identifier: $0) } ?? zone
            for value in property.value.split(separator: ",") {
                let text = value.trimmingCharacters(in: .whitespaces)
                guard let (instant, day) = Self.moment(text, zone: exZone) else {
                    throw .invalidRequestField("EXDATE '\(text.prefix(32))'", "is not a date or a date-time")
                }
                if instant == nil { excludedDays.insert(day) } else if let instant { excluded.insert(instant) }
            }
        }
        dates.removeAll { excluded.contains($0) || excludedDays.contains(Self.day(of: $0, in: zone)) }
        guard !dates.isEmpty else { throw .invalidRequestField("EXDATE", "leaves out every visit of the RRULE") }
    }

    /// One visit of the series: its own id, of the UID and its start as a `RECURRENCE-ID` names it.
    private func visit(on date: Date, in zone: TimeZone, utc: Bool, series: Reservation.SeriesID) -> ImportFile.Entry {
        var visit = self
        visit.rule = nil
        visit.start = .instant(date)
        visit.series = series
        let named = Self.stamp(date, in: utc ? .gmt : zone) + (utc ? "Z" : "")
        visit.id = Reservation.ID(NameBasedID.uuid(idBase + "\n" + named))
        visit.otherID = otherBase.map { Reservation.ID(NameBasedID.uuid($0 + "\n" + named)) }
        visit.origin = "\(origin) on \(Self.day(of: date, in: zone))"
        return visit
    }

    /// The day at `zone` of an instant.
    private static func day(of date: Date, in zone: TimeZone) -> CalendarDay {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return CalendarDay(date, in: calendar)
    }

    /// `20310701T100000`, the wall time at `zone` as iCalendar writes it.
    private static func stamp(_ date: Date, in zone: TimeZone) -> String {
        let day = day(of: date, in: zone)
        let seconds = Int(date.timeIntervalSince1970.rounded(.down)) + zone.secondsFromGMT(for: date)
        let time = (seconds % 86_400 + 86_400) % 86_400
        return String(
            format: "%04d%02d%02dT%02d%02d%02d", day.year, day.month, day.day, time / 3600, time / 60 % 60, time % 60)
    }

    /// An UNTIL or EXDATE value: a date-time (UTC with `Z`, else a wall time at `zone`) with
    /// its day at `zone`, or a date alone (nil instant); nil when it is neither.
    private static func moment(_ text: String, zone: TimeZone) -> (Date?, CalendarDay)? {
        let digits = text.filter { $0.isASCII && $0.isNumber }
        let chars = Array(text)
        guard digits.count == 8 || digits.count == 14, chars.count >= 8 else { return nil }
        guard let day = CalendarDay("\(String(chars[0..<4]))-\(String(chars[4..<6]))-\(String(chars[6..<8]))")
        else { return nil }
        if text.count == 8 { return (nil, day) }
        let utc = text.hasSuffix("Z") || text.hasSuffix("z")
        guard chars.count == (utc ? 16 : 15), chars[8] == "T" else { return nil }
        let time = "\(String(chars[9..<11])):\(String(chars[11..<13])):\(String(chars[13..<15]))"
        let iso = "\(day)T\(time)"
        if utc {
            guard let instant = try? DateTime.parse(iso + "Z") else { return nil }
            return (instant, Self.day(of: instant, in: zone))
        }
        guard let instant = try? TypedDate.resolve(iso, now: Date(timeIntervalSince1970: 0), zone: zone) else {
            return nil
        }
        return (instant, day)
    }

    /// Whether the start has passed at `now` in any zone (a wall time read 14 hours
    /// later, the farthest zone behind): an event of a landmark not found is skipped
    /// as ended only then.
    private func roughlyPast(_ now: Date) -> Bool {
        switch start {
        case .instant(let date)?, .defined(let date)?: return date <= now
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
