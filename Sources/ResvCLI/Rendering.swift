import Foundation
import ReservationCore

/// The stable JSON shape of a reservation (DESIGN.md): add fields, never rename.
struct ReservationJSON: Encodable {
    var id: String
    var landmark: LandmarkApiModel
    var date: String
    var partySize: Int
    var status: String

    init(_ reservation: Reservation) {
        id = reservation.id.description
        landmark = LandmarkApiModel(reservation.landmark)
        date = DateTime.format(reservation.date)
        partySize = reservation.partySize
        status = reservation.status.rawValue
    }
}

/// Turns domain values into text for one output format.
struct Renderer {
    let format: OutputFormat
    let colour: Bool
    /// Built once per renderer: creating a DateFormatter per row dominated a 10,000-row table.
    private let dateFormatter: DateFormatter

    init(_ options: OutputOptions, context: CommandContext) {
        format = options.resolvedFormat
        colour = context.usesColour
        dateFormatter = DateFormatter()
        dateFormatter.locale = Locale(identifier: "en_US_POSIX")
        dateFormatter.timeZone = context.timeZone
        dateFormatter.dateFormat = "yyyy-MM-dd HH:mm zzz"
    }

    // MARK: JSON

    static func json(_ value: some Encodable, pretty: Bool) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting =
            pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return "null" }
        return String(decoding: data, as: UTF8.self)
    }

    /// A list: one array in JSON, one object per line in NDJSON, else a table.
    func list<Value: Encodable>(_ values: [Value], table: () -> String) -> String {
        switch format {
        // Foundation pretty-prints an empty array over three lines.
        case .json: values.isEmpty ? "[]\n" : Self.json(values, pretty: true) + "\n"
        case .ndjson: values.map { Self.json($0, pretty: false) + "\n" }.joined()
        case .table: table()
        }
    }

    /// A single result: one object in JSON and NDJSON, else `human`.
    func single<Value: Encodable>(_ value: Value, human: () -> String) -> String {
        switch format {
        case .json: Self.json(value, pretty: true) + "\n"
        case .ndjson: Self.json(value, pretty: false) + "\n"
        case .table: human()
        }
    }

    // MARK: Human text

    func reservations(_ reservations: [Reservation]) -> String {
        list(reservations.map(ReservationJSON.init)) {
            table(
                header: ["ID", "DATE", "LANDMARK", "PARTY", "STATUS"],
                rows: reservations.map { reservation in
                    [
                        Cell(reservation.id.short), Cell(localDate(reservation.date)), Cell(reservation.landmark.name),
                        Cell(String(reservation.partySize), alignRight: true),
                        Cell(reservation.status.rawValue, style: style(for: reservation.status)),
                    ]
                })
        }
    }

    func reservation(_ reservation: Reservation) -> String {
        single(ReservationJSON(reservation)) { details(reservation) }
    }

    func details(_ reservation: Reservation) -> String {
        let lines: [(String, String)] = [
            ("ID", reservation.id.description),
            ("Landmark", "\(reservation.landmark.name) (\(reservation.landmark.location))"),
            ("Date", localDate(reservation.date)),
            ("Party", String(reservation.partySize)),
            ("Status", paint(reservation.status.rawValue, style(for: reservation.status))),
        ]
        return lines.map { $0.0.padding(toLength: 10, withPad: " ", startingAt: 0) + $0.1 + "\n" }.joined()
    }

    /// "1a2b3c4d  Half Dome  2026-12-01 02:00 PST  party of 4"
    func summary(_ reservation: Reservation) -> String {
        "\(reservation.id.short)  \(reservation.landmark.name)  \(localDate(reservation.date))  party of \(reservation.partySize)"
    }

    func landmarks(_ landmarks: [Landmark]) -> String {
        list(landmarks.map(LandmarkApiModel.init)) {
            table(
                header: ["ID", "NAME", "CATEGORY", "LOCATION", "CAPACITY"],
                rows: landmarks.map { landmark in
                    [
                        Cell(String(landmark.id.description.prefix(8))),
                        Cell(landmark.name, style: landmark.isFeatured ? .bold : nil),
                        Cell(landmark.category.rawValue), Cell(landmark.location),
                        Cell(landmark.capacity.map { "\($0)/day" } ?? "-", alignRight: true),
                    ]
                })
        }
    }

    func localDate(_ date: Date) -> String {
        dateFormatter.string(from: date)
    }

    // MARK: Tables and colour

    enum Style: String {
        case green = "32"
        case yellow = "33"
        case dim = "2"
        case bold = "1"
    }

    struct Cell {
        var text: String
        var alignRight = false
        var style: Style?

        init(_ text: String, alignRight: Bool = false, style: Style? = nil) {
            self.text = text
            self.alignRight = alignRight
            self.style = style
        }
    }

    func style(for status: Reservation.Status) -> Style {
        switch status {
        case .confirmed: .green
        case .pending: .yellow
        case .cancelled: .dim
        }
    }

    func paint(_ text: String, _ style: Style?) -> String {
        guard colour, let style else { return text }
        return "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m"
    }

    func table(header: [String], rows: [[Cell]]) -> String {
        guard !rows.isEmpty else { return "" }
        var widths = header.map(\.count)
        for row in rows {
            for (column, cell) in row.enumerated() { widths[column] = max(widths[column], cell.text.count) }
        }
        func line(_ cells: [Cell]) -> String {
            cells.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: widths[column] - cell.text.count)
                let text = paint(cell.text, cell.style)
                if column == cells.count - 1, !cell.alignRight { return text }
                return cell.alignRight ? padding + text : text + padding
            }.joined(separator: "  ") + "\n"
        }
        let headerCells = header.enumerated().map { column, title in
            Cell(title, alignRight: rows[0][column].alignRight, style: .bold)
        }
        return line(headerCells) + rows.map(line).joined()
    }
}
