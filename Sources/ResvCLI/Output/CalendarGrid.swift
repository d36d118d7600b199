import ReservationCore

/// `resv availability LANDMARK --calendar`: each month of the range as a grid, a
/// week a row from Monday, each day with the places left under its number. How
/// full a day is shows as a colour on a terminal, and as a mark after the number
/// without colour (NO_COLOR, a pipe); a legend at the end says which is which.
///
///     December 2026
///      Mon   Tue   Wed   Thu   Fri   Sat   Sun
///                          1     2     3     4
///                        300   150+   12!    0x
extension Renderer {
    /// How full a day is.
    enum Fullness: CaseIterable {
        case plenty, filling, few, full

        /// Under half taken; half or more; nine tenths or more; none left. Nil without a limit.
        init?(_ day: DayAvailability) {
            guard let capacity = day.capacity, let left = day.left else { return nil }
            let taken = Double(day.taken)
            if left == 0 {
                self = .full
            } else if taken >= Double(capacity) * 0.9 {
                self = .few
            } else if taken >= Double(capacity) * 0.5 {
                self = .filling
            } else {
                self = .plenty
            }
        }

        var style: Style {
            switch self {
            case .plenty: .green
            case .filling: .yellow
            case .few: .red
            case .full: .boldRed
            }
        }

        /// The mark after the number without colour; none for plenty.
        var mark: String {
            switch self {
            case .plenty: " "
            case .filling: "+"
            case .few: "!"
            case .full: "x"
            }
        }

        var meaning: String {
            switch self {
            case .plenty: "under half taken"
            case .filling: "half or more taken"
            case .few: "nine tenths or more taken"
            case .full: "full"
            }
        }
    }

    static let weekdayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    static let monthNames = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
        "November", "December",
    ]

    /// The months `days` touch, each as a grid; `today` (at the landmark) in bold on a terminal.
    func calendar(_ days: [DayAvailability], today: CalendarDay) -> String {
        guard let first = days.first else { return "" }
        let byDay = Dictionary(days.map { ($0.day, $0) }, uniquingKeysWith: { first, _ in first })
        // Every number in a column as wide as the widest, at least as wide as a weekday's name.
        let number = max(3, days.map { $0.left.map { String($0).count } ?? 1 }.max() ?? 1)
        func cell(_ text: String) -> String { String(repeating: " ", count: max(0, number - text.count)) + text }

        var text = ""
        var month = first.day.firstOfMonth
        let last = days[days.count - 1].day
        while month <= last {
            if !text.isEmpty { text += "\n" }
            text += paint("\(Self.monthNames[month.month - 1]) \(month.year)", .bold) + "\n"
            text += Self.row(Self.weekdayNames.map { cell($0) + " " })
            // Monday first: Calendar counts Sunday 1 … Saturday 7.
            var slot = (month.weekday + 5) % 7
            var numbers = Array(repeating: cell("") + " ", count: slot)
            var values = numbers
            var day = month
            var weekInRange = false
            while day.month == month.month, day.year == month.year {
                let shown = cell(String(day.day))
                numbers.append((day == today ? paint(shown, .bold) : shown) + " ")
                values.append(value(byDay[day], cell: cell))
                weekInRange = weekInRange || byDay[day] != nil
                slot += 1
                if slot == 7 || day.next.month != month.month {
                    // A week wholly outside the range is left out.
                    if weekInRange { text += Self.row(numbers) + Self.row(values) }
                    (numbers, values, slot, weekInRange) = ([], [], 0, false)
                }
                guard day < CalendarDay.latest else { break }
                day = day.next
            }
            guard day.month != month.month || day.year != month.year else { break }
            month = day
        }
        return text + "\n" + legend(unlimited: first.capacity == nil) + "\n"
    }

    /// The places left on `day` with its mark or colour; blank for a day outside the range.
    private func value(_ day: DayAvailability?, cell: (String) -> String) -> String {
        guard let day else { return cell("") + " " }
        guard let fullness = Fullness(day), let left = day.left else { return cell("-") + " " }
        return colour ? paint(cell(String(left)), fullness.style) + " " : cell(String(left)) + fullness.mark
    }

    /// Cells (each a number and its mark's place) two spaces apart, without trailing blanks.
    private static func row(_ cells: [String]) -> String {
        var line = cells.joined(separator: "  ")
        while line.last == " " { line.removeLast() }
        return line + "\n"
    }

    private func legend(unlimited: Bool) -> String {
        if unlimited { return "- no daily limit: every day takes everyone" }
        return Fullness.allCases.map { fullness in
            colour
                ? paint("■", fullness.style) + " " + fullness.meaning
                : (fullness.mark == " " ? "(no mark)" : fullness.mark) + " " + fullness.meaning
        }.joined(separator: "  ")
    }
}
