import ArgumentParser
import Foundation
import ReservationCore
import ReservationFile

/// Values the shell completion scripts ask `resv` for at Tab time: landmark
/// names and reservation ids. They come from local data only (the store the
/// command line names), never the network, and a failure offers nothing.
enum ShellCompletion {
    static let landmarkNames = CompletionKind.custom { words, _, prefix in
        guard let snapshot = snapshot(for: words) else { return [] }
        return snapshot.landmarkNames.filter { $0.lowercased().hasPrefix(prefix.lowercased()) }
    }

    static func reservationIDs(_ statuses: Reservation.Status...) -> CompletionKind {
        let wanted = Set(statuses)
        return .custom { words, _, prefix in
            guard let snapshot = snapshot(for: words) else { return [] }
            return snapshot.completionIDs(wanted).filter { $0.hasPrefix(prefix.lowercased()) }
        }
    }

    /// The store named by `--store` in the words being completed, else by the
    /// environment, read without a lock.
    static func snapshot(for words: [String]) -> ReservationSnapshot? {
        var flag: String?
        for (index, word) in words.enumerated() {
            if word == "--store", index + 1 < words.count {
                flag = unquoted(words[index + 1])
            } else if word.hasPrefix("--store=") {
                flag = unquoted(String(word.dropFirst("--store=".count)))
            }
        }
        let url = CommandContext.live().storeURL(flag: flag)
        return try? JSONFileStore(url: url).snapshot()
    }

    /// A word as the shell will pass it: the scripts hand words over verbatim,
    /// so `'my store.json'`, `my\ store.json` and `~/x` are undone here.
    static func unquoted(_ word: String) -> String {
        let words = (try? ShellWords.scan(word).words) ?? [word]
        var path = words.count == 1 ? words[0] : word
        if path == "~" || path.hasPrefix("~/") {
            path = (ProcessInfo.processInfo.environment["HOME"] ?? "") + path.dropFirst()
        }
        return path
    }
}

/// What Tab offers from a snapshot, the same in the REPL and in the shell.
extension ReservationSnapshot {
    var landmarkNames: [String] { catalog.landmarks.map(\.name).sorted() }

    /// Ids of reservations with one of `statuses`, by date, as short as `list`
    /// shows them (8 digits) unless two share those 8, then whole.
    func completionIDs(_ statuses: Set<Reservation.Status> = Set(Reservation.Status.allCases)) -> [String] {
        let shortCounts = Dictionary(grouping: reservations, by: \.id.short).mapValues(\.count)
        return reservations.sortedByDate.filter { statuses.contains($0.status) }
            .map { shortCounts[$0.id.short, default: 0] > 1 ? $0.id.description : $0.id.short }
    }
}
