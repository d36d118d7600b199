import ArgumentParser
import Foundation
import ReservationCore
import ReservationServer
import ReservationStorage
import ResvReference

struct CatalogCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "catalog", abstract: "Manage the catalog of landmarks the database holds.",
        discussion: """
            The catalog lives in the database, the same for every server on it, once stored: by 'catalog \
            import', or by an admin's first change through the API. Until then each server serves its own \
            (of 'serve --landmarks', else the built-in one); a landmark of its own the database lacks is \
            served beside the database's.
            """,
        subcommands: [Import.self])

    struct Import: ServerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add and change the database's landmarks from a JSON file; never deletes.",
            discussion: """
                The file is what 'serve --landmarks' takes: an array of landmark objects, or an object with \
                a landmarks array. A landmark whose id is new is added, one whose record differs replaced, \
                the same one left; a landmark of the database the file lacks is left as it is (retire it \
                with 'resv admin landmark retire'). Importing the same file twice changes nothing the second \
                time. Records that do not make landmarks are one line each on stderr, exit 65, nothing \
                changed. Running servers use the new catalog at their next request.
                """)

        @OptionGroup var options: DatabaseOptions

        @Argument(
            help: ArgumentHelp("The JSON file of landmarks.", valueName: "file"),
            completion: .file(extensions: ["json"]))
        var file: String

        func run(in context: ServerCommandContext) async throws {
            let records: [JSONValue]
            do {
                records = try CatalogFile.records(file)
            } catch {
                context.say(error.localizedDescription)
                throw ExitCode(error.isUnreadable ? ExitStatus.unavailable : ExitStatus.dataError)
            }
            do {
                _ = try CatalogChanges.importing(records, into: [])
            } catch {
                guard case .invalid(let lines) = error else { throw error }
                for line in lines { context.say("\(file): \(line)") }
                context.say("nothing was imported")
                throw ExitCode(ExitStatus.dataError)
            }
            let logger = context.logger(.warning)
            let plan = try await context.unavailableOnFailure {
                try await Database.withStore(options.database, logger: logger, now: context.now) { store in
                    let plan = Planned()
                    _ = try await store.changeCatalog { stored in
                        let made = try CatalogChanges.importing(records, into: stored.records)
                        plan.set(made)
                        return made.writes
                    }
                    return plan.value
                }
            }
            context.say(Self.summary(plan))
        }

        static func summary(_ plan: CatalogChanges.Import) -> String {
            var parts: [String] = []
            if !plan.added.isEmpty { parts.append("added \(plan.added.count)") }
            if !plan.changed.isEmpty { parts.append("changed \(plan.changed.count)") }
            if !plan.unchanged.isEmpty { parts.append("\(plan.unchanged.count) the same") }
            var line = plan.writes.isEmpty ? "nothing changed" : "imported"
            if !parts.isEmpty { line += " (" + parts.joined(separator: ", ") + ")" }
            if !plan.kept.isEmpty {
                line +=
                    "; \(plan.kept.count) landmark\(plan.kept.count == 1 ? "" : "s") of the database not in the file left as "
                    + "\(plan.kept.count == 1 ? "it is" : "they are")"
            }
            return line
        }
    }
}

/// The plan a change made, out of its transaction (the last attempt's, when retried).
private final class Planned: @unchecked Sendable {
    private let lock = NSLock()
    private var plan = CatalogChanges.Import()

    func set(_ plan: CatalogChanges.Import) { lock.withLock { self.plan = plan } }
    var value: CatalogChanges.Import { lock.withLock { plan } }
}
