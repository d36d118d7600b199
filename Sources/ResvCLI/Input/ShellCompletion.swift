import ArgumentParser
import Foundation
import ReservationCore
import ReservationFile
import ReservationHTTP

/// Values the shell completion scripts ask `resv` for at Tab time: landmark
/// names and reservation ids. They come from local data only (the store the
/// command line names, or a server's cached answers), never the network, and
/// a failure offers nothing.
enum ShellCompletion {
    static let landmarkNames = CompletionKind.custom { words, _, prefix in
        guard let snapshot = snapshot(for: words) else { return [] }
        // In any case, as a typed name is read (`ha` finds Half Dome).
        return snapshot.landmarkNames.filter { $0.hasCaseInsensitivePrefix(prefix) }.map { offered($0) }
    }

    /// The config file's profiles (the one `--config` names, else the usual one), and `default`.
    static let profileNames = CompletionKind.custom { words, _, prefix in
        profiles(config: flag("--config", in: words)).filter { $0.hasPrefix(prefix) }.map { offered($0) }
    }

    /// The profile names of a config file, `default` among them; none when it cannot be read.
    static func profiles(config: String?, context: CommandContext = .live()) -> [String] {
        guard let file = try? ConfigFile.load(context.configURL(flag: config)) else { return [] }
        return (file.profiles.keys + [ConfigFile.defaultProfile]).sorted()
    }

    /// The ids a command takes: `cancel` and `modify` active ones, `confirm` pending ones and live
    /// holds, `checkin` and `noshow` pending and confirmed ones, `show`, `log` and `wait` any. In
    /// zsh and fish each is described by its landmark and date.
    enum IDs {
        case active, confirmable, attendable, any

        func admits(_ status: Reservation.Status) -> Bool {
            switch self {
            case .active: return status.isActive
            case .confirmable: return status == .pending || status == .held
            case .attendable: return status == .pending || status == .confirmed
            case .any: return true
            }
        }
    }

    /// The clock of completion requests: ArgumentParser calls them with no
    /// command context, so they are entry points and read the time here, once.
    static let now: @Sendable () -> Date = Date.init

    static func reservationIDs(_ ids: IDs) -> CompletionKind {
        .custom { words, index, prefix in
            guard let snapshot = snapshot(for: words) else { return [] }
            // An id already on the line (`cancel a1 <Tab>`) is not offered again.
            let given = Set(words.enumerated().filter { $0.offset != index }.map { $0.element.lowercased() })
            // Only zsh and fish show descriptions: bash is not made to wait for them.
            let described = CompletionShell.requesting == .zsh || CompletionShell.requesting == .fish
            return snapshot.completionIDs(ids, now: now(), described: described)
                .filter { $0.id.hasPrefix(prefix.lowercased()) && !given.contains($0.id) }
                .map { offered($0.id, described: $0.description) }
        }
    }

    /// A candidate as the shell that asks wants it: zsh reads `value:description` (a colon in
    /// the value escaped), fish `value<Tab>description`, bash and the REPL the value alone.
    /// Control characters from data (a landmark's name) are written out as tables write them:
    /// a shell or readline echoes a candidate to the terminal, and a line break or tab would
    /// split one in two.
    static func offered(_ value: String, described description: String? = nil) -> String {
        let shell = CompletionShell.requesting
        let value = value.terminalSafe
        guard let description = description?.terminalSafe else {
            return shell == .zsh ? value.replacingOccurrences(of: ":", with: "\\:") : value
        }
        switch shell {
        case .zsh?: return value.replacingOccurrences(of: ":", with: "\\:") + ":" + description
        case .fish?: return value + "\t" + description
        default: return value
        }
    }

    /// The data the words being completed point at (`--store`, `--server`,
    /// `--config`, else the environment and config file): the store file read
    /// without a lock, or a server's cached answers, never the network.
    static func snapshot(for words: [String]) -> ReservationSnapshot? {
        localSnapshot(
            store: flag("--store", in: words), server: flag("--server", in: words),
            profile: flag("--profile", in: words), config: flag("--config", in: words))
    }

    /// The last value of option `name` among the words being completed.
    private static func flag(_ name: String, in words: [String]) -> String? {
        var value: String?
        for (index, word) in words.enumerated() {
            if word == name, index + 1 < words.count {
                value = unquoted(words[index + 1])
            } else if word.hasPrefix(name + "=") {
                value = unquoted(String(word.dropFirst(name.count + 1)))
            }
        }
        return value
    }

    /// The local data for these flags: the store file, or the cached answers of the server.
    static func localSnapshot(
        store: String?, server: String?, profile: String? = nil, config: String?, context: CommandContext = .live()
    ) -> ReservationSnapshot? {
        guard let settings = try? context.settings(store: store, server: server, profile: profile, config: config)
        else { return nil }
        guard let server = settings.chosenServer else {
            return try? JSONFileStore(url: URL(fileURLWithPath: settings.store.value)).snapshot()
        }
        guard let url = URL(string: server.value) else { return nil }
        let cache = context.responseCache(url, token: settings.token?.value, quiet: true)
        guard let (records, _) = cache.records("reservations"), let (landmarkRecords, _) = cache.records("landmarks")
        else { return nil }
        let catalog = LandmarkCatalog(records: landmarkRecords)
        let cached = ReservationSnapshot(records: records, catalog: catalog)
        // The bookings waiting in the outbox have ids to complete too.
        let outbox = context.outbox(url, token: settings.token?.value)
        let queued = outbox.bookings(catalog).filter { booking in
            !cached.reservations.contains { $0.id == booking.id }
        }
        var snapshot = ReservationSnapshot(
            reservations: cached.reservations + queued, rejected: cached.rejected, catalog: catalog)
        snapshot.queued = Set(queued.map(\.id))
        snapshot.queuedChanges = outbox.changes(over: snapshot.reservations, catalog, at: context.now())
        return snapshot
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

    /// Ids of the reservations `ids` admits (as they stand at `now`: a hold past its end is
    /// expired), by date, as short as `list` shows them (8 digits) unless two share those 8,
    /// then whole; `described`, each with "Half Dome, 2026-12-01 08:00 PST, confirmed".
    func completionIDs(_ ids: ShellCompletion.IDs, now: Date, described: Bool = false)
        -> [(id: String, description: String?)]
    {
        let shortCounts = Dictionary(grouping: reservations, by: \.id.short).mapValues(\.count)
        var renderer = Renderer(format: .table, colour: false, timeZone: .current, now: now)
        renderer.queuedChanges = queuedChanges
        return reservations.sortedByDate.compactMap { reservation in
            let settled = reservation.settled(at: now)
            guard ids.admits(settled.status) else { return nil }
            let id =
                shortCounts[reservation.id.short, default: 0] > 1 ? reservation.id.description : reservation.id.short
            guard described else { return (id, nil) }
            // A change queued for it shows beside the server's values, marked queued.
            let after = queuedChanges[reservation.id]?.after
            let status =
                queued.contains(reservation.id)
                ? Renderer.queuedStatus
                : settled.status.rawValue + (after.map { renderer.queuedStatus(settled, $0) } ?? "")
            let description = [
                renderer.beside(settled, after, \.landmark.name),
                renderer.beside(settled, after) { renderer.visitDate($0.date, at: $0.landmark) }, status,
            ].joined(separator: ", ")
            return (id, description)
        }
    }
}

extension String {
    /// Whether the text starts with `prefix`, in any case (as names are matched when typed).
    func hasCaseInsensitivePrefix(_ prefix: String) -> Bool {
        range(of: prefix, options: [.caseInsensitive, .anchored]) != nil || prefix.isEmpty
    }
}
