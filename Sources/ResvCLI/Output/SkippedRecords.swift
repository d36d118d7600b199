import Foundation
import ReservationCore
import ReservationHTTP
import ResvReference

extension CommandContext {
    /// Reads every reservation afresh and reports on stderr what did not map.
    func fetch(from service: ReservationService, _ options: CommonOptions) async throws -> ReservationSnapshot {
        let snapshot = try await service.fetch()
        reportSkipped(snapshot, verbose: options.output.verbose)
        shownQueued.add(snapshot)
        return snapshot
    }

    /// The snapshot a change of the reservations `texts` name is resolved in: the user's list
    /// (`fetch`); on a server that cannot be reached with no list cached, the reservations
    /// this resv made or changed lately (`ServerBackend.remembered`) when they name them all,
    /// so a change can be queued right after a booking.
    func fetch(for texts: [String], from backend: Backend, _ options: CommonOptions) async throws
        -> ReservationSnapshot
    {
        do {
            return try await fetch(from: backend.service, options)
        } catch let error as HTTPBackendError where error.readsNothing {
            guard let server = backend.server, let known = try? await server.remembered(),
                (try? reservations(matching: texts, in: known)) != nil
            else { throw error }
            shownQueued.add(known)
            return known
        }
    }

    /// The reservation `text` names in `snapshot`. When the snapshot is a server's
    /// cached answer that has none, the truth is unknown (it may be newer than the
    /// cache): that is exit 69 with the reason, never "no reservation matches".
    func reservation(matching text: String, in snapshot: ReservationSnapshot) throws -> Reservation {
        let found = Result { () throws(ReservationError) in try snapshot.reservation(matching: text) }
        guard case .failure(.reservationNotFound) = found, case .cache(let saved, let unreachable) = snapshot.source
        else { return try found.get() }
        throw CLIError.notCached(
            text, age: Self.describe(age: now().timeIntervalSince(saved)),
            unreachable: unreachable.map { ExitStatus.message(for: $0) })
    }

    /// The reservations the texts name, each once, in order.
    func reservations(matching texts: [String], in snapshot: ReservationSnapshot) throws -> [Reservation] {
        var targets: [Reservation] = []
        for text in texts {
            let reservation = try reservation(matching: text, in: snapshot)
            if !targets.contains(where: { $0.id == reservation.id }) { targets.append(reservation) }
        }
        return targets
    }

    /// The ids `texts` are when every one is a whole id (as `list --json` prints them), each
    /// once, in order; nil when any is a prefix or not an id, which the list resolves.
    static func wholeIDs(_ texts: [String]) -> [Reservation.ID]? {
        var ids: [Reservation.ID] = []
        for text in texts {
            guard let id = Reservation.ID(text), id.description == text.lowercased() else { return nil }
            if !ids.contains(id) { ids.append(id) }
        }
        return ids
    }

    /// Runs `request` with the whole ids of `texts`: an id the backend has no reservation
    /// with is named as it was typed, as when the list resolves it.
    func naming<T>(_ texts: [String], _ request: () async throws -> T) async throws -> T {
        do {
            return try await request()
        } catch ReservationError.reservationNotFound(let id) {
            throw ReservationError.reservationNotFound(texts.first { $0.lowercased() == id.lowercased() } ?? id)
        }
    }

    /// Prints what a cancel or confirm did: a line per reservation on a terminal
    /// ("Cancelled …", "Already cancelled: …"), else the reservations (one object for one id).
    func report(_ changes: [StatusChange], done: String, single: Bool, _ output: OutputOptions) {
        let renderer = Renderer(output, context: self)
        if renderer.format == .table {
            self.output.write(
                changes.map { change in
                    // A hold that ended was never cancelled: it expired.
                    let already = change.reservation.status == .expired ? "expired" : done.lowercased()
                    return (change.changed ? "\(done) " : "Already \(already): ")
                        + renderer.summary(change.reservation) + "\n"
                }.joined())
        } else if single {
            self.output.write(renderer.reservation(changes[0].reservation))
        } else {
            renderer.write(reservations: changes.map(\.reservation), to: self.output)
        }
    }

    /// Counts records that did not map on stderr; `--verbose` lists each with its reason.
    /// They stay in the store: reporting is all the tool does with them.
    func reportSkipped(_ snapshot: ReservationSnapshot, verbose: Bool) {
        reportSkipped(landmarks: snapshot.catalog.rejected, verbose: verbose)
        let rejected = snapshot.rejected
        guard !rejected.isEmpty else { return }
        if verbose {
            for record in rejected { say("resv: skipped \(describe(record))") }
        } else {
            let noun = rejected.count == 1 ? "record that does" : "records that do"
            say(
                "resv: warning: skipped \(rejected.count) reservation \(noun) not map (\(countsByReason(rejected))); run with --verbose for details"
            )
        }
    }

    func reportSkipped(landmarks rejected: [RejectedLandmark], verbose: Bool) {
        guard !rejected.isEmpty else { return }
        if verbose {
            for landmark in rejected {
                say(
                    "resv: skipped landmark #\(landmark.index + 1)\(landmark.id.map { " (\($0))" } ?? ""): \(landmark.reason)"
                )
            }
        } else {
            let noun = rejected.count == 1 ? "landmark that does" : "landmarks that do"
            say("resv: warning: skipped \(rejected.count) \(noun) not map; run with --verbose for details")
        }
    }

    func describe(_ record: RejectedRecord) -> String {
        "record #\(record.index + 1)\(record.id.map { " (id \($0))" } ?? ""): \(record.reason)"
    }

    func countsByReason(_ rejected: [RejectedRecord]) -> String {
        var counts: [String: Int] = [:]
        for record in rejected { counts[record.reason.summary, default: 0] += 1 }
        return counts.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { "\($0.value) \($0.key)" }
            .joined(separator: ", ")
    }
}
