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
}

extension LandmarkCatalog {
    /// Finds a landmark by its id, a unique id prefix of at least 4 hex digits,
    /// or its name in any case.
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
        throw .unknownLandmark(text)
    }
}

extension Character {
    /// 0-9 and a-f only: `isHexDigit` also accepts fullwidth forms.
    fileprivate var isASCIIHexDigit: Bool {
        guard let ascii = asciiValue else { return false }
        return (0x30...0x39).contains(ascii) || (0x61...0x66).contains(ascii) || (0x41...0x46).contains(ascii)
    }
}
