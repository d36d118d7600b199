import Foundation

/// The scalars of JSON text: strings (with their escapes and UTF-8 checked) and numbers.
extension JSONReader {
    // MARK: Strings

    mutating func string() throws(Fault) -> String {
        let start = index
        index += 1
        var ascii = true
        // The common case: no escapes, so the string is a slice of the input.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[(start + 1)..<index])
                index += 1
                if ascii { return String(decoding: slice, as: UTF8.self) }
                guard let text = String(validating: slice, as: UTF8.self) else {
                    throw Fault(
                        offset: firstInvalidUTF8(in: start + 1..<index - 1), message: "invalid UTF-8 in a string")
                }
                return text
            }
            if byte == UInt8(ascii: "\\") { return try escapedString(from: start) }
            if byte < 0x20 { throw fault("control character \(describe(byte)) in a string; write it as an escape") }
            if byte >= 0x80 { ascii = false }
            index += 1
        }
        throw Fault(offset: start, message: "unterminated string")
    }

    /// The rest of a string that has escapes, decoded into a byte buffer.
    private mutating func escapedString(from start: Int) throws(Fault) -> String {
        var buffer = Array(bytes[(start + 1)..<index])
        let plainStart = start + 1
        var plainEnd = index
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let text = String(validating: buffer, as: UTF8.self) else {
                    throw Fault(
                        offset: firstInvalidUTF8(in: plainStart..<plainEnd), message: "invalid UTF-8 in a string")
                }
                return text
            case UInt8(ascii: "\\"):
                let escapeStart = index
                index += 1
                guard index < bytes.count else { break }
                switch bytes[index] {
                case UInt8(ascii: "\""): buffer.append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): buffer.append(UInt8(ascii: "\\"))
                case UInt8(ascii: "/"): buffer.append(UInt8(ascii: "/"))
                case UInt8(ascii: "b"): buffer.append(0x08)
                case UInt8(ascii: "f"): buffer.append(0x0C)
                case UInt8(ascii: "n"): buffer.append(0x0A)
                case UInt8(ascii: "r"): buffer.append(0x0D)
                case UInt8(ascii: "t"): buffer.append(0x09)
                case UInt8(ascii: "u"):
                    index += 1
                    let scalar = try unicodeEscape(escapeStart: escapeStart)
                    buffer.append(contentsOf: String(Character(scalar)).utf8)
                    plainEnd = index
                    continue
                case let other:
                    throw Fault(offset: escapeStart, message: "invalid escape '\\\(describeRaw(other))' in a string")
                }
                index += 1
                plainEnd = index
            default:
                if byte < 0x20 { throw fault("control character \(describe(byte)) in a string; write it as an escape") }
                buffer.append(byte)
                index += 1
                plainEnd = index
            }
        }
        throw Fault(offset: start, message: "unterminated string")
    }

    /// After `\u`: four hex digits, and a low surrogate escape after a high one.
    private mutating func unicodeEscape(escapeStart: Int) throws(Fault) -> Unicode.Scalar {
        let first = try hexQuad(escapeStart: escapeStart)
        if (0xDC00...0xDFFF).contains(first) {
            throw Fault(offset: escapeStart, message: "unpaired surrogate \\u\(hex(first)) in a string")
        }
        guard (0xD800...0xDBFF).contains(first) else { return Unicode.Scalar(first)! }
        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
        else { throw Fault(offset: escapeStart, message: "unpaired surrogate \\u\(hex(first)) in a string") }
        let secondStart = index
        index += 2
        let second = try hexQuad(escapeStart: secondStart)
        guard (0xDC00...0xDFFF).contains(second) else {
            throw Fault(offset: escapeStart, message: "unpaired surrogate \\u\(hex(first)) in a string")
        }
        return Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))!
    }

    private mutating func hexQuad(escapeStart: Int) throws(Fault) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard index < bytes.count else { throw Fault(offset: escapeStart, message: "incomplete \\u escape") }
            guard let digit = Hex.value(bytes[index]) else {
                throw Fault(offset: escapeStart, message: "\\u must be followed by four hex digits")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    private func firstInvalidUTF8(in range: Range<Int>) -> Int {
        var position = range.lowerBound
        while position < range.upperBound {
            let byte = bytes[position]
            let length: Int
            switch byte {
            case 0x00...0x7F: length = 1
            case 0xC2...0xDF: length = 2
            case 0xE0...0xEF: length = 3
            case 0xF0...0xF4: length = 4
            default: return position
            }
            let end = min(position + length, range.upperBound)
            let slice = UnsafeBufferPointer(rebasing: bytes[position..<end])
            guard end - position == length, String(validating: slice, as: UTF8.self) != nil else { return position }
            position = end
        }
        return range.lowerBound
    }

    // MARK: Numbers

    mutating func number() throws(Fault) -> JSONValue {
        let start = index
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else {
            throw Fault(offset: index, message: "a number needs a digit after '-'")
        }
        // Whole numbers accumulate as negatives, so Int64.min fits.
        var magnitude: Int64 = 0
        var overflow = false
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw fault("a number cannot start with 0") }
        } else {
            while index < bytes.count, isDigit(bytes[index]) {
                let digit = Int64(bytes[index] - UInt8(ascii: "0"))
                let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
                let (next, o2) = times10.subtractingReportingOverflow(digit)
                if o1 || o2 { overflow = true } else { magnitude = next }
                index += 1
            }
        }
        var whole = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            whole = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw fault("a number needs digits after '.'") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            whole = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else {
                throw fault("a number needs digits in its exponent")
            }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if whole, !overflow {
            if negative { return .integer(magnitude) }
            if magnitude != .min { return .integer(-magnitude) }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let double = Double(text), double.isFinite else {
            // The message stays one short line however many digits the number has.
            let shown = text.count > 24 ? text.prefix(24) + "…" : text
            throw Fault(offset: start, message: "number \(shown) is too large to represent")
        }
        // Digits alone beyond Int64 are never taken for an integer, even when they round to Int64.min.
        if !whole, double == double.rounded(), double >= -0x1p63, double < 0x1p63 { return .integer(Int64(double)) }
        return JSONWriter.text(of: double) == text ? .double(double) : .number(text)
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }
}
