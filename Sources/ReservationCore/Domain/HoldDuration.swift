import Foundation

/// How long a hold lasts, as a person types it: a whole number and a unit,
/// `90s`, `10m`, `2h`, from 1 s to 24 h (`NewReservation.holdSeconds`).
public enum HoldDuration {
    /// The seconds `text` names; refuses (`invalidHold`'s words, or the form's)
    /// anything else: no unit, a sign, a fraction, an exponent, out of range.
    public static func seconds(_ text: String) throws(ReservationError) -> Int {
        let range = NewReservation.holdSeconds
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let unit = trimmed.last, let scale = ["s": 1, "m": 60, "h": 3_600][unit.lowercased()] else {
            throw .invalidRequestField(
                "--hold '\(text.quoted())'",
                "is not a duration: give a whole number and a unit, s, m or h (90s, 10m, 2h), from 1s to 24h")
        }
        let digits = trimmed.dropLast()
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            throw .invalidRequestField(
                "--hold '\(text.quoted())'",
                "is not a duration: give a whole number and a unit, s, m or h (90s, 10m, 2h), from 1s to 24h")
        }
        // Digits beyond any hold's length are out of range, not an overflow.
        guard let number = Int(digits), number <= range.upperBound, range.contains(number * scale) else {
            throw .invalidHold(trimmed)
        }
        let seconds = number * scale
        return seconds
    }
}
