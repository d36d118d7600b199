import Foundation

/// Any JSON value, kept exactly as read so that fields and records the tool
/// does not understand survive a rewrite.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    /// A number kept as it was written, because neither `Int64` nor `Double`
    /// would write it back the same (an integer beyond Int64, more digits than
    /// a Double holds): fields resv does not know survive a rewrite exactly.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// The value under `key` when this is an object.
    public subscript(key: String) -> JSONValue? {
        get {
            guard case .object(let fields) = self else { return nil }
            return fields[key]
        }
        set {
            guard case .object(var fields) = self else { return }
            fields[key] = newValue
            self = .object(fields)
        }
    }

    /// A short name of the value's JSON type, for messages.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .integer, .double, .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        // Strings come first: they are the most common value in a store.
        if container.decodeNil() {
            self = .null
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let integer = try? container.decode(Int64.self) {
            self = .integer(integer)
        } else if let double = try? container.decode(Double.self) {
            self = .double(double)
        } else if let object = try? container.decode([String: JSONValue].self) {
            self = .object(object)
        } else if let array = try? container.decode([JSONValue].self) {
            self = .array(array)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a JSON value")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .number(let text): try container.encode(Decimal(string: text) ?? 0)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

extension JSONValue {
    /// Parses JSON text (RFC 8259); the error names the line and column of the first fault.
    public static func parse(_ data: Data) throws(JSONSyntaxError) -> JSONValue {
        try JSONReader.parse(data)
    }

    /// `parse(_:)` without keeping the array under `key` in the top-level
    /// object: `start` gets the top-level fields read before it and returns what
    /// takes each element as it is read; the value returned has `[]` there.
    public static func parse(
        _ data: Data, streaming key: String,
        _ start: ([(key: String, value: JSONValue)]) -> (JSONValue) -> Void
    ) throws(JSONSyntaxError) -> JSONValue {
        try JSONReader.parse(data, streaming: key, start)
    }

    /// JSON text with sorted keys, so rewrites of the same data are identical.
    public func encoded(pretty: Bool = false) -> Data {
        var writer = JSONWriter(pretty: pretty)
        writer.write(self)
        return Data(writer.bytes)
    }
}

/// JSON text that does not parse; `detail` says where and why.
public struct JSONSyntaxError: Error, Sendable, Equatable {
    public var detail: String

    public init(detail: String) { self.detail = detail }

    /// A fault at byte `offset` of `data`, reported as line and column (in characters, from 1).
    init(data: Data, offset: Int, message: String) {
        var line = 1
        var column = 1
        for byte in data.prefix(offset) {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        detail = "line \(line), column \(column): \(message)"
    }
}
