import Foundation
import ReservationCore

extension ImportFile {
    /// The rows of resv's CSV export (its header names the columns; others are passed
    /// over): `date` and `landmarkId` or `landmark` are needed, `id`, `partySize` (1
    /// when empty), `status` (confirmed when empty), `note` and `series` are read.
    static func entries(csv data: Data, user: String, newIDs: Bool = false) throws(NotTheFormat) -> [Entry] {
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
            // As an event's: the row's id (or the row) alone, with --new-ids and the user's name.
            func named(_ fresh: Bool) -> Reservation.ID {
                let base = [fresh ? user : "", "csv", given ?? record.fields.joined(separator: "\u{1F}")]
                return (fresh ? nil : given.flatMap { Reservation.ID($0) })
                    ?? Reservation.ID(NameBasedID.uuid(base.joined(separator: "\n")))
            }
            let id = named(newIDs)
            let otherID = named(!newIDs)
            var partySize = 1
            var kind = Unbookable.unreadable
            if let text = field("partySize") {
                do throws(ReservationError) {
                    partySize = try party(text, field: "partySize")
                } catch {
                    problem = error
                    kind = .party
                }
            }
            var status = Reservation.Status.confirmed
            if let text = field("status") {
                if let given = Reservation.Status(rawValue: text) {
                    status = given
                } else {
                    problem = problem ?? .invalidRequestField("status '\(text.prefix(32))'", "is not a status of resv")
                }
            }
            var series = field("series").flatMap { Reservation.SeriesID($0) }
            if let text = field("series"), series == nil {
                problem = problem ?? .invalidRequestField("series '\(text.prefix(40))'", "is not a UUID")
            } else if let text = field("series"), newIDs {
                series = Reservation.SeriesID(NameBasedID.uuid([user, "series", text].joined(separator: "\n")))
            }
            var start: Start?
            if let text = field("date") {
                start = (try? DateTime.parse(text)).map(Start.instant) ?? .wall(text, zone: nil)
            } else {
                problem = problem ?? .invalidRequestField("date", "is empty")
            }
            return Entry(
                line: record.line, origin: "row \(record.line)", id: id, landmark: landmark, start: start,
                partySize: partySize, status: status, note: field("note"), series: series, problem: problem,
                kind: kind, otherID: otherID == id ? nil : otherID)
        }
    }
}
