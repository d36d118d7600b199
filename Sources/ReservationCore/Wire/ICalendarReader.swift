import Foundation

/// The events of an RFC 5545 calendar, as `resv import` reads them: content
/// lines unfolded (a line starting with a space or a tab continues the one
/// before, CRLF or LF alike, joined as bytes so a fold inside a UTF-8 character
/// is mended), each parsed into a name, parameters (quoted values kept whole)
/// and a raw value. Only `VEVENT`s directly in a `VCALENDAR` are kept; what is
/// nested in one (a `VALARM`) and every other component are passed over.
/// `ICalendarWriter` writes what this reads.
public enum ICalendarReader {
    /// One content line: `NAME;PARAM=VALUE:value`, its name and parameter names uppercased.
    public struct Property: Sendable, Hashable {
        public var name: String
        public var parameters: [String: String]
        /// As written: TEXT values still escaped (`text` unescapes them).
        public var value: String
    }

    /// A `VEVENT`: its properties in order, and the line its `BEGIN` is on.
    public struct Event: Sendable, Hashable {
        public var line: Int
        public var properties: [Property]

        /// The first property of that name.
        public func first(_ name: String) -> Property? { properties.first { $0.name == name } }

        /// The first property of that name as TEXT, unescaped; nil when absent.
        public func text(_ name: String) -> String? { first(name).map { ICalendarReader.unescaped($0.value) } }
    }

    /// A `VTIMEZONE`: its `TZID`, the line its `BEGIN` is on, and its `STANDARD` and
    /// `DAYLIGHT` observances (`kind` the component's name), each its properties in order.
    public struct TimeZoneDefinition: Sendable, Hashable {
        public var line: Int
        public var tzid: String?
        public var observances: [(kind: String, properties: [Property])]

        public static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.line == rhs.line && lhs.tzid == rhs.tzid && lhs.observances.map(\.kind) == rhs.observances.map(\.kind)
                && lhs.observances.map(\.properties) == rhs.observances.map(\.properties)
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(line)
            hasher.combine(tzid)
        }
    }

    /// Why the bytes are not a calendar: the line, and what is wrong there.
    public struct Failure: Error, Sendable, Equatable {
        public var line: Int
        public var reason: String
    }

    /// The events of a calendar, in the order they are written.
    public static func events(_ data: Data) throws(Failure) -> [Event] { try calendar(data).events }

    /// The events of a calendar, in the order they are written, and its time zones' definitions.
    public static func calendar(_ data: Data) throws(Failure) -> (
        events: [Event], timeZones: [TimeZoneDefinition]
    ) {
        var zones: [TimeZoneDefinition] = []
        var lines = unfolded(data)
        if let first = lines.first, first.bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            lines[0].bytes.removeFirst(3)  // a byte order mark some writers put first
        }
        var events: [Event] = []
        var stack: [String] = []
        var current: Event?
        var sawCalendar = false
        for line in lines {
            guard !line.bytes.isEmpty else { continue }
            guard let text = String(validating: line.bytes, as: UTF8.self) else {
                throw Failure(line: line.number, reason: "not UTF-8 text")
            }
            let property = parse(text)
            if stack.isEmpty && !(property?.name == "BEGIN" && property?.value.uppercased() == "VCALENDAR") {
                throw Failure(line: line.number, reason: "not an iCalendar file (it starts with BEGIN:VCALENDAR)")
            }
            guard let property else { throw Failure(line: line.number, reason: "not a content line (NAME:value)") }
            switch property.name {
            case "BEGIN":
                let component = property.value.uppercased()
                if component == "VCALENDAR" { sawCalendar = true }
                if component == "VEVENT" && stack == ["VCALENDAR"] {
                    current = Event(line: line.number, properties: [])
                }
                if component == "VTIMEZONE" && stack == ["VCALENDAR"] {
                    zones.append(TimeZoneDefinition(line: line.number, tzid: nil, observances: []))
                }
                if stack == ["VCALENDAR", "VTIMEZONE"], !zones.isEmpty {
                    zones[zones.count - 1].observances.append((component, []))
                }
                stack.append(component)
                guard stack.count <= 16 else { throw Failure(line: line.number, reason: "components nested too deep") }
            case "END":
                guard stack.last == property.value.uppercased() else {
                    throw Failure(
                        line: line.number,
                        reason:
                            "END:\(property.value.prefix(32)) does not end \(stack.last.map { "BEGIN:\($0)" } ?? "anything")"
                    )
                }
                stack.removeLast()
                if stack == ["VCALENDAR"], let event = current {
                    events.append(event)
                    current = nil
                }
            default:
                if stack == ["VCALENDAR", "VEVENT"] { current?.properties.append(property) }
                if stack == ["VCALENDAR", "VTIMEZONE"], property.name == "TZID", !zones.isEmpty {
                    zones[zones.count - 1].tzid = property.value
                }
                if stack.count == 3, stack.prefix(2) == ["VCALENDAR", "VTIMEZONE"], !zones.isEmpty,
                    !zones[zones.count - 1].observances.isEmpty
                {
                    let last = zones[zones.count - 1].observances.count - 1
                    zones[zones.count - 1].observances[last].properties.append(property)
                }
            }
        }
        guard sawCalendar else { throw Failure(line: 1, reason: "no BEGIN:VCALENDAR: not an iCalendar file") }
        guard stack.isEmpty else {
            throw Failure(line: lines.last?.number ?? 1, reason: "BEGIN:\(stack.last ?? "") is never ended")
        }
        return (events, zones)
    }

    /// A TEXT value unescaped (RFC 5545 3.3.11): `\\`, `\;`, `\,`, `\n` and `\N`.
    public static func unescaped(_ value: String) -> String {
        var result = String.UnicodeScalarView()
        var escaping = false
        for scalar in value.unicodeScalars {
            if escaping {
                switch scalar {
                case "n", "N": result.append("\n")
                default: result.append(scalar)
                }
                escaping = false
            } else if scalar == "\\" {
                escaping = true
            } else {
                result.append(scalar)
            }
        }
        if escaping { result.append("\\") }
        return String(result)
    }

    /// The logical lines, each with the number of the physical line it starts on.
    private static func unfolded(_ data: Data) -> [(number: Int, bytes: [UInt8])] {
        var lines: [(number: Int, bytes: [UInt8])] = []
        var number = 0
        for var physical in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            number += 1
            if physical.last == UInt8(ascii: "\r") { physical = physical.dropLast() }
            if let first = physical.first, first == 0x20 || first == 0x09, !lines.isEmpty {
                lines[lines.count - 1].bytes += physical.dropFirst()
            } else {
                lines.append((number, Array(physical)))
            }
        }
        return lines
    }

    /// `NAME *(";" PARAM "=" VALUE *("," VALUE)) ":" value`; nil when it is not one.
    static func parse(_ line: String) -> Property? {
        let scalars = Array(line.unicodeScalars)
        func isNameScalar(_ scalar: Unicode.Scalar) -> Bool {
            scalar == "-" || (scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar)))
        }
        var index = 0
        func name() -> String? {
            let start = index
            while index < scalars.count, isNameScalar(scalars[index]) { index += 1 }
            guard index > start else { return nil }
            return String(String.UnicodeScalarView(scalars[start..<index])).uppercased()
        }
        guard let propertyName = name() else { return nil }
        var parameters: [String: String] = [:]
        while index < scalars.count, scalars[index] == ";" {
            index += 1
            guard let parameter = name(), index < scalars.count, scalars[index] == "=" else { return nil }
            index += 1
            var values: [String] = []
            repeat {
                if index < scalars.count, scalars[index] == "," { index += 1 }
                if index < scalars.count, scalars[index] == "\"" {
                    index += 1
                    let start = index
                    while index < scalars.count, scalars[index] != "\"" { index += 1 }
                    guard index < scalars.count else { return nil }
                    values.append(String(String.UnicodeScalarView(scalars[start..<index])))
                    index += 1
                } else {
                    let start = index
                    while index < scalars.count, !";:,".unicodeScalars.contains(scalars[index]) { index += 1 }
                    values.append(String(String.UnicodeScalarView(scalars[start..<index])))
                }
            } while index < scalars.count && scalars[index] == ","
            parameters[parameter] = values.joined(separator: ",")
        }
        guard index < scalars.count, scalars[index] == ":" else { return nil }
        return Property(
            name: propertyName, parameters: parameters,
            value: String(String.UnicodeScalarView(scalars[(index + 1)...])))
    }
}
