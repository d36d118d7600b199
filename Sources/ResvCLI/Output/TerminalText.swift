import Foundation

extension String {
    /// The text with what a terminal would obey written out instead: C0 and C1
    /// control characters (escape sequences that retitle a window or move the
    /// cursor, a carriage return that overwrites a line) and bidirectional
    /// overrides, from data a store or a server holds. JSON output needs none
    /// of this: JSON escapes them itself.
    var terminalSafe: String {
        guard unicodeScalars.contains(where: \.isUnsafeOnATerminal) else { return self }
        var safe = String.UnicodeScalarView()
        for scalar in unicodeScalars {
            guard scalar.isUnsafeOnATerminal else {
                safe.append(scalar)
                continue
            }
            let written: String
            switch scalar {
            case "\n": written = "\\n"
            case "\r": written = "\\r"
            case "\t": written = "\\t"
            case "\u{1B}": written = "\\e"
            default: written = "\\u{" + String(scalar.value, radix: 16) + "}"
            }
            safe.append(contentsOf: written.unicodeScalars)
        }
        return String(safe)
    }
}

extension String {
    /// How many columns a terminal gives the text: two for a wide (East Asian, emoji)
    /// character, none for a zero-width one, one for the rest. Control characters are
    /// written out by `terminalSafe` before text reaches a table.
    var terminalWidth: Int {
        if utf8.allSatisfy({ $0 < 0x80 }) { return utf8.count }
        return reduce(0) { $0 + $1.terminalWidth }
    }

    /// The text cut to at most `width` columns, its end replaced by "…" when cut.
    func cut(toWidth width: Int) -> String {
        guard terminalWidth > width else { return self }
        guard width > 0 else { return "" }
        var kept = ""
        var used = 0
        for character in self {
            let next = character.terminalWidth
            guard used + next <= width - 1 else { break }
            kept.append(character)
            used += next
        }
        return kept + "…"
    }
}

extension Character {
    /// Columns on a terminal, by its first scalar (a combining mark or a variation
    /// selector after it adds none).
    var terminalWidth: Int {
        guard let scalar = unicodeScalars.first else { return 0 }
        if scalar.properties.generalCategory == .nonspacingMark || scalar.properties.generalCategory == .format {
            return 0
        }
        if scalar.properties.isEmojiPresentation || unicodeScalars.contains("\u{FE0F}") { return 2 }
        switch scalar.value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
            0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x20000...0x3FFFD:
            return 2
        default:
            return 1
        }
    }
}

extension Unicode.Scalar {
    fileprivate var isUnsafeOnATerminal: Bool {
        value < 0x20 || (0x7F...0x9F).contains(value) || (0x202A...0x202E).contains(value)
            || (0x2066...0x2069).contains(value)
    }
}
