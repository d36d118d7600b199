import Foundation

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
