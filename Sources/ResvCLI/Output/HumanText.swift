import Foundation
import ReservationCore

/// Lists of reservations, landmarks and days in every format, and the human text of one
/// reservation (`show`, a summary line, its status and times).
extension Renderer {
    /// Reservations as a list; each landmark's JSON is made once, not once per reservation.
    func write(reservations: [Reservation], to output: TextSink) {
        var shape = ReservationJSONWriter(queued: queued, changes: queuedChanges)
        func element(_ writer: inout JSONWriter, _ reservation: Reservation, _ depth: Int) {
            shape.write(reservation, to: &writer, depth: depth)
        }
        write(list: reservations, element: element, shape: Self.reservationShape, to: output) {
            var header = ["ID", "DATE", "LANDMARK", "PARTY", "STATUS"]
            var rows = reservations.map { reservation in
                let after = queuedChanges[reservation.id]?.after
                return [
                    Cell(reservation.id.short),
                    Cell(beside(reservation, after) { visitDate($0.date, at: $0.landmark) }),
                    Cell(beside(reservation, after, \.landmark.name), cuts: true),
                    Cell(beside(reservation, after) { String($0.partySize) }, alignRight: true),
                    Cell(statusText(reservation), style: style(for: reservation.status), cuts: true),
                ]
            }
            // A SERIES column when one of them is a series' visit: the series' short id, what
            // `cancel --series` takes (as it takes any of its visits' ids).
            if reservations.contains(where: { $0.series != nil }) {
                header.append("SERIES")
                for (index, reservation) in reservations.enumerated() {
                    rows[index].append(Cell(reservation.series?.short ?? "-"))
                }
            }
            // A NOTE column when one of them has a note, its line breaks written out: whole in a
            // pipe; on a terminal in the room the other columns leave, cut with "…", and left out
            // when they leave none (`show` has the note).
            guard reservations.contains(where: { $0.note != nil }) else { return table(header: header, rows: rows) }
            var room = Int.max
            if let width {
                let used = columnWidths(header: header, rows: rows).reduce(0, +) + 2 * header.count
                room = width - used
                guard room >= Self.narrowest else { return table(header: header, rows: rows) }
            }
            let notes = reservations.map { Cell(($0.note ?? "").terminalSafe.cut(toWidth: room), cuts: true) }
            return table(header: header + ["NOTE"], rows: zip(rows, notes).map { $0 + [$1] })
        }
    }

    func reservation(_ reservation: Reservation) -> String {
        single(reservation) { details(reservation) }
    }

    func details(_ reservation: Reservation) -> String {
        let change = queuedChanges[reservation.id]
        let after = change?.after
        var lines: [(String, String)] = [
            ("ID", reservation.id.description),
            (
                "Landmark",
                beside(reservation, after) { "\($0.landmark.name) (\($0.landmark.location))" }.terminalSafe
            ),
            ("Date", beside(reservation, after) { visitDate($0.date, at: $0.landmark) }),
            ("Party", beside(reservation, after) { String($0.partySize) }),
            (
                "Status",
                paint(
                    queued.contains(reservation.id) ? Self.queuedStatus : reservation.status.rawValue,
                    style(for: reservation.status)) + (after.map { queuedStatus(reservation, $0) } ?? "")
            ),
        ]
        if let change {
            lines.append(("Queued", "\(change.summary), sent when the server is reached ('resv outbox')"))
        }
        if let expiresAt = reservation.expiresAt {
            lines.append((reservation.status == .held ? "Expires" : "Expired", localDate(expiresAt)))
        }
        if reservation.status == .waitlisted {
            let then = reservation.requestedStatus == .pending ? "pending" : "confirmed"
            let position = reservation.waitlistPosition.map { "position \($0), " } ?? ""
            lines.append(("Waitlist", "\(position)\(then) when places free"))
        }
        if let note = beside(reservation, after, optional: \.note) { lines.append(("Note", note.terminalSafe)) }
        if let series = reservation.series { lines.append(("Series", series.description)) }
        if let createdAt = reservation.createdAt { lines.append(("Created", localDate(createdAt))) }
        if let updatedAt = reservation.updatedAt { lines.append(("Updated", localDate(updatedAt))) }
        lines.append(("Version", String(reservation.version)))
        return lines.map { $0.0.padding(toLength: 10, withPad: " ", startingAt: 0) + $0.1 + "\n" }.joined()
    }

    /// A status as a table shows it: a hold with its end, a waitlisted one with its position.
    func statusText(_ reservation: Reservation) -> String {
        if queued.contains(reservation.id) { return Self.queuedStatus }
        if let after = queuedChanges[reservation.id]?.after {
            return settledStatusText(reservation) + queuedStatus(reservation, after)
        }
        return settledStatusText(reservation)
    }

    /// What a change queued for it would make of its status: " → cancelled (queued)", or
    /// " (queued)" when its status stays.
    func queuedStatus(_ reservation: Reservation, _ after: Reservation) -> String {
        (after.status == reservation.status ? "" : " → \(after.status.rawValue)") + " (queued)"
    }

    /// A field's text, and when a queued change would change it, "then → now": the server's
    /// value beside the one asked for.
    func beside(_ reservation: Reservation, _ after: Reservation?, _ text: (Reservation) -> String) -> String {
        let now = text(reservation)
        guard let after, case let then = text(after), then != now else { return now }
        return "\(now) → \(then)"
    }

    /// An optional field (the note) the same way: "(none)" stands for no value beside one.
    func beside(_ reservation: Reservation, _ after: Reservation?, optional field: (Reservation) -> String?)
        -> String?
    {
        let now = field(reservation)
        guard let after, case let then = field(after), then != now else { return now }
        return "\(now ?? "(none)") → \(then ?? "(none)")"
    }

    private func settledStatusText(_ reservation: Reservation) -> String {
        switch reservation.status {
        case .held:
            guard let end = reservation.expiresAt else { return "held" }
            let text = localDate(end)
            // The day is left out when it is today's.
            let time = text.split(separator: " ").dropFirst().joined(separator: " ")
            return "held to " + (Self.time(now, in: changeZone).hasPrefix(text.prefix(10)) ? time : text)
        case .waitlisted:
            return reservation.waitlistPosition.map { "waitlisted #\($0)" } ?? "waitlisted"
        default:
            return reservation.status.rawValue
        }
    }

    /// "1a2b3c4d  Half Dome  2026-12-01 02:00 PST  party of 4"
    func summary(_ reservation: Reservation) -> String {
        "\(reservation.id.short)  \(reservation.landmark.name.terminalSafe)  \(visitDate(reservation.date, at: reservation.landmark))  party of \(reservation.partySize)"
    }

    private static func landmarkJSON(_ landmark: Landmark) -> JSONValue { LandmarkApiModel(landmark).json }

    func write(landmarks: [Landmark], to output: TextSink) {
        let shape = Shape<Landmark>(csvColumns: CSVShape.landmarkColumns, csvFields: CSVShape.fields)
        write(list: landmarks, json: Self.landmarkJSON, shape: shape, to: output) {
            table(
                header: ["ID", "NAME", "CATEGORY", "LOCATION", "CAPACITY"],
                rows: landmarks.map { landmark in
                    [
                        Cell(String(landmark.id.description.prefix(8))),
                        Cell(landmark.name, style: landmark.isFeatured ? .bold : nil, cuts: true),
                        Cell(landmark.category.rawValue), Cell(landmark.location, cuts: true),
                        Cell(landmark.capacity.map { "\($0)/day" } ?? "-", alignRight: true),
                    ]
                })
        }
    }

    /// Places per day: `DATE TAKEN CAPACITY LEFT`, a full day's LEFT in yellow; with a
    /// `NOTE` column when a day is closed (`closed: REASON`) or has a capacity of its own (`own capacity`).
    func write(availability days: [DayAvailability], to output: TextSink) {
        let shape = Shape<DayAvailability>(csvColumns: CSVShape.availabilityColumns, csvFields: CSVShape.fields)
        let noted = days.contains { $0.closed != nil || $0.override }
        write(list: days, json: \.json, shape: shape, to: output) {
            table(
                header: ["DATE", "TAKEN", "CAPACITY", "LEFT"] + (noted ? ["NOTE"] : []),
                rows: days.map { day in
                    let note = day.closed.map { "closed: \($0)" } ?? (day.override ? "own capacity" : "")
                    return [
                        Cell(day.day.description), Cell(String(day.taken), alignRight: true),
                        Cell(day.capacity.map(String.init) ?? "-", alignRight: true),
                        Cell(day.left.map(String.init) ?? "-", alignRight: true, style: day.left == 0 ? .yellow : nil),
                    ] + (noted ? [Cell(note, style: day.closed != nil ? .yellow : nil, cuts: true)] : [])
                })
        }
    }

    /// The time of a change (when it was made): in `TZ`, or the zone `--tz` names.
    func localDate(_ date: Date) -> String { Self.time(date, in: changeZone) }

    /// The time of a visit: at its landmark, as a ticket shows it, unless `--tz` names a zone.
    func visitDate(_ date: Date, at landmark: Landmark?) -> String {
        Self.time(date, in: visitZone ?? landmark?.timeZone ?? Self.utc)
    }

    /// A landmark without a zone keeps UTC days (see `Capacity`), and is shown so.
    private static let utc = TimeZone(identifier: "UTC") ?? .gmt

    /// "2026-12-01 08:00 PST": the wall time in `zone` and the zone's abbreviation.
    static func time(_ date: Date, in zone: TimeZone) -> String {
        let interval = date.timeIntervalSince1970
        let wall = DateTime.format(Date(timeIntervalSince1970: interval + Double(zone.secondsFromGMT(for: date))))
        // YYYY-MM-DDTHH:MM:SSZ → YYYY-MM-DD HH:MM
        return wall.prefix(10) + " " + wall.dropFirst(11).prefix(5) + " " + ZoneNames.abbreviation(zone, at: date)
    }
}
