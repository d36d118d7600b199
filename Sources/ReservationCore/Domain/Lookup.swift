import Foundation

extension ReservationSnapshot {
    /// Finds the reservation a user means by a full id or a unique prefix of
    /// at least 4 hex digits, as git does with commits.
    public func reservation(matching text: String) throws(ReservationError) -> Reservation {
        let needle = text.lowercased()
        let hexDigits = needle.filter(\.isASCIIHexDigit).count
        guard hexDigits >= 4, needle.allSatisfy({ $0.isASCIIHexDigit || $0 == "-" }) else {
            throw .invalidReservationID(text)
        }
        let matches = reservations.filter { $0.id.description.hasPrefix(needle) }
        switch matches.count {
        case 0: throw .reservationNotFound(text)
        case 1: return matches[0]
        default: throw .ambiguousReservationID(text, matches)
        }
    }

    /// The reservations of the series a user means (`cancel --series`), by date: by the series'
    /// id or a unique prefix of at least 4 hex digits, or by the id (or prefix) of one of its
    /// visits, as `list` shows them. A prefix that names two series, or a series and a visit of
    /// another, is ambiguous; a reservation in no series is said to be.
    public func series(matching text: String) throws(ReservationError) -> [Reservation] {
        let needle = text.lowercased()
        let hexDigits = needle.filter(\.isASCIIHexDigit).count
        guard hexDigits >= 4, needle.allSatisfy({ $0.isASCIIHexDigit || $0 == "-" }) else {
            throw .invalidSeries(
                "'\(text.quoted())' is not a series id: give the id or at least its first 4 hex digits")
        }
        let visits = reservations.filter { $0.id.description.hasPrefix(needle) }
        let series = Set(
            reservations.compactMap { $0.series?.description.hasPrefix(needle) == true ? $0.series : nil }
                + visits.compactMap(\.series))
        guard series.count <= 1 else { throw .ambiguousSeries(text, Array(series)) }
        guard let named = series.first else {
            if visits.count == 1 {
                let id = visits[0].id.short
                throw .invalidSeries("reservation \(id) is in no series: cancel it alone with 'resv cancel \(id)'")
            }
            throw .seriesNotFound(text)
        }
        return reservations.filter { $0.series == named }.sortedByDate
    }
}

extension LandmarkCatalog {
    /// Finds a landmark by its id, a unique id prefix of at least 4 hex digits,
    /// its name in any case, or its words: every word typed the start of a word
    /// of the name, in order, in any case and without accents (`golden gate`,
    /// `rainier`, `half dom`). None: the closest names are suggested.
    public func landmark(matching text: String) throws(ReservationError) -> Landmark {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { throw .unknownLandmark(text) }
        let named = landmarks.filter { $0.name.caseInsensitiveCompare(trimmed) == .orderedSame }
        if named.count == 1 { return named[0] }
        if named.count > 1 { throw .ambiguousLandmark(text, named) }

        let needle = trimmed.lowercased()
        if needle.filter(\.isASCIIHexDigit).count >= 4, needle.allSatisfy({ $0.isASCIIHexDigit || $0 == "-" }) {
            let matches = landmarks.filter { $0.id.description.hasPrefix(needle) }
            if matches.count == 1 { return matches[0] }
            if matches.count > 1 { throw .ambiguousLandmark(text, matches) }
        }
        let typed = Words.of(trimmed)
        let byWords = landmarks.filter { Words.startsOf(typed, in: Words.of($0.name)) }
        if byWords.count == 1 { return byWords[0] }
        if byWords.count > 1 { throw .ambiguousLandmark(text, byWords) }
        let suggestions = Words.closest(to: trimmed, among: landmarks.map(\.name))
        guard suggestions.isEmpty else { throw .unknownLandmarkSuggesting(text, suggestions) }
        throw .unknownLandmark(text)
    }
}

/// Matching what people type against names: words without case or accents,
/// and the closest names when nothing matches ("did you mean").
public enum Words {
    /// The words of a text: runs of letters and digits, lowercased, accents removed.
    public static func of(_ text: String) -> [String] {
        fold(text).split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init)
    }

    /// Lowercased, accents removed (`Zürich` → `zurich`).
    public static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).lowercased()
    }

    /// Whether each typed word starts a word of `name`, in order (a word of the name once).
    public static func startsOf(_ typed: [String], in name: [String]) -> Bool {
        guard !typed.isEmpty else { return false }
        var next = name.startIndex
        for word in typed {
            guard let found = name[next...].firstIndex(where: { $0.hasPrefix(word) }) else { return false }
            next = found + 1
        }
        return true
    }

    /// The candidates closest to `text` by edit distance (case, accents and leading
    /// dashes aside), best first, at most `limit`: those within a third of the text's
    /// length (at least 2 edits; 1 for a text of one or two letters), an edit more allowed for each of the first two
    /// letters they share (`jq` → `json`); a name the text is the start of (three letters or
    /// more: `--party` → `--party-size`) rather than any other. Compared whole and, for a text of one word,
    /// word by word. A long text is no typo: none.
    public static func closest(to text: String, among candidates: [String], limit: Int = 3) -> [String] {
        func bare(_ text: String) -> String { String(fold(text).drop { $0 == "-" }) }
        let typed = bare(text)
        guard typed.count <= 64, !typed.isEmpty else { return [] }
        // One or two letters are too few to guess from: an edit at most.
        let allowed = typed.count <= 2 ? 1 : max(2, typed.count / 3)
        var scored: [(score: Int, shared: Int, candidate: String)] = []
        for candidate in candidates {
            var forms = [bare(candidate)]
            if !typed.contains(" ") { forms += of(candidate) }
            var best: (score: Int, shared: Int)?
            for form in forms {
                // The start of a name (`--party` of `--party-size`) is what was meant above all.
                if typed.count >= 3, form.count > typed.count, form.hasPrefix(typed) {
                    best = (Self.startsName, 2)
                    break
                }
                let shared = min(2, zip(typed, form).prefix { $0 == $1 }.count)
                let score = distance(typed, form, limit: allowed + shared) - shared
                if score <= allowed, best.map({ (score, -shared) < ($0.score, -$0.shared) }) ?? true {
                    best = (score, shared)
                }
            }
            if let best { scored.append((best.score, best.shared, candidate)) }
        }
        // A name the text starts is the only guess when there is one.
        if scored.contains(where: { $0.score == Self.startsName }) { scored.removeAll { $0.score != Self.startsName } }
        var seen: Set<String> = []
        return scored.sorted { ($0.score, -$0.shared, $0.candidate) < ($1.score, -$1.shared, $1.candidate) }
            .map(\.candidate).filter { seen.insert($0).inserted }.prefix(limit).map { $0 }
    }

    /// The score of a name the text is the start of: below any edit distance.
    private static let startsName = Int.min

    /// Levenshtein distance, or `limit + 1` once it is sure to pass `limit`.
    static func distance(_ a: String, _ b: String, limit: Int) -> Int {
        let a = Array(a)
        let b = Array(b)
        guard abs(a.count - b.count) <= limit else { return limit + 1 }
        var previous = Array(0...b.count)
        for i in 1...max(1, a.count) where !a.isEmpty {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in stride(from: 1, through: b.count, by: 1) {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            if current.min() ?? 0 > limit { return limit + 1 }
            previous = current
        }
        return a.isEmpty ? b.count : previous[b.count]
    }
}

extension Character {
    /// 0-9 and a-f only: `isHexDigit` also accepts fullwidth forms.
    fileprivate var isASCIIHexDigit: Bool {
        guard let ascii = asciiValue else { return false }
        return (0x30...0x39).contains(ascii) || (0x61...0x66).contains(ascii) || (0x41...0x46).contains(ascii)
    }
}
