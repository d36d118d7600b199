/// Splits a line into words as a POSIX shell does for quoting: whitespace
/// separates words, single quotes keep everything, double quotes keep all but
/// `\"`, `\\`, `\$` and `` \` ``, a backslash outside quotes escapes the next
/// character, and `#` at the start of a word starts a comment.
enum ShellWords {
    enum Failure: Error, Equatable {
        case unbalancedQuote(Character)
        case trailingBackslash
    }

    static func split(_ line: String) throws(Failure) -> [String] {
        try scan(line).words
    }

    /// The words, and whether the line ended inside a word (no trailing space),
    /// which completion needs to know.
    static func scan(_ line: String) throws(Failure) -> (words: [String], endsInWord: Bool) {
        var words: [String] = []
        var current = ""
        var inWord = false
        var iterator = line.makeIterator()
        while let character = iterator.next() {
            switch character {
            case " ", "\t", "\n", "\r":
                if inWord { words.append(current) }
                current = ""
                inWord = false
            case "'":
                inWord = true
                var closed = false
                while let next = iterator.next() {
                    if next == "'" {
                        closed = true
                        break
                    }
                    current.append(next)
                }
                if !closed { throw .unbalancedQuote("'") }
            case "\"":
                inWord = true
                var closed = false
                while let next = iterator.next() {
                    if next == "\"" {
                        closed = true
                        break
                    }
                    if next == "\\" {
                        guard let escaped = iterator.next() else { break }
                        if !["\"", "\\", "$", "`"].contains(escaped) { current.append("\\") }
                        current.append(escaped)
                    } else {
                        current.append(next)
                    }
                }
                if !closed { throw .unbalancedQuote("\"") }
            case "\\":
                guard let escaped = iterator.next() else { throw .trailingBackslash }
                inWord = true
                current.append(escaped)
            case "#" where !inWord:
                // A comment, as in a shell: `#` starting a word ends the line.
                return (words, false)
            default:
                inWord = true
                current.append(character)
            }
        }
        if inWord { words.append(current) }
        return (words, inWord)
    }

    /// Quotes a word so that `split` gives it back unchanged.
    static func quote(_ word: String) -> String {
        let plain = word.allSatisfy { $0.isLetter || $0.isNumber || "-_./:+@,=".contains($0) }
        if plain && !word.isEmpty { return word }
        return "\"" + word.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            + "\""
    }
}

extension ShellWords.Failure: CustomStringConvertible {
    var description: String {
        switch self {
        case .unbalancedQuote(let quote): "unbalanced \(quote) in the line: close the quote"
        case .trailingBackslash: "the line ends with a backslash"
        }
    }
}
