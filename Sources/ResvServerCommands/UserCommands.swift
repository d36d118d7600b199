import ArgumentParser
import Foundation
import ReservationCore
import ReservationServer
import ReservationStorage
import ResvReference

struct UserCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user", abstract: "Manage users' roles: member, staff of named landmarks, or admin.",
        discussion: """
            A member (every user 'token create' makes) sees and changes only their own reservations. Staff \
            of a landmark act on every user's reservations there (read, change, confirm, cancel); an admin \
            on every user's, everywhere, and reads any user's history. A token's scope narrows its user's \
            role: a read token of an admin only reads. Running servers see a change within 1 second.
            """,
        subcommands: [Add.self, Set.self, List.self])

    struct Add: ServerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a user with a role (the first admin is made this way); exit 1 if the name is taken.",
            discussion: """
                The user has no token yet: 'token create NAME' makes one. Landmarks are named as resv names \
                them (a name, its words, or an id prefix), in the catalog of --landmarks (default: the \
                built-in one); an unknown one is exit 64, nothing changed.
                """)

        @OptionGroup var access: AccessOptions

        func run(in context: ServerCommandContext) async throws {
            try await access.apply(context, create: true, mustBeNew: true)
        }
    }

    struct Set: ServerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change a user's role and landmarks (they replace the ones before).",
            discussion: """
                An unknown user is exit 64. A change that would leave the server without an admin (the \
                last admin made staff or member) is refused, exit 1, nothing changed.
                """)

        @OptionGroup var access: AccessOptions

        func run(in context: ServerCommandContext) async throws {
            try await access.apply(context, create: false, mustBeNew: false)
        }
    }

    struct List: ServerCommand {
        static let configuration = CommandConfiguration(
            abstract: "List every user: name, role, the landmarks of staff, how many tokens they hold.")

        @OptionGroup var options: DatabaseOptions

        @Option(
            help: ArgumentHelp(
                "A JSON file of the landmarks, to name staff's landmarks (default: the built-in catalog).",
                valueName: "file"),
            completion: .file(extensions: ["json"]))
        var landmarks: String?

        @Flag(help: "Print a JSON array of {name, role, landmarks: [{id, name}], tokens} instead of a table.")
        var json = false

        func run(in context: ServerCommandContext) async throws {
            let catalog = try loadCatalog(landmarks, context)
            let users = try await withTokens(options, context) { try await $0.users() }
            context.output(json ? Self.json(users, catalog) : Self.table(users, catalog))
        }

        static func table(_ users: [UserInfo], _ catalog: LandmarkCatalog) -> String {
            var rows = [["NAME", "ROLE", "TOKENS", "LANDMARKS"]]
            for user in users {
                rows.append([
                    UserName.printable(user.name), user.access.role.rawValue, String(user.tokens),
                    names(user.access.landmarks, catalog).joined(separator: ", "),
                ])
            }
            let last = rows[0].count - 1
            let widths = (0...last).map { column in rows.map { $0[column].count }.max() ?? 0 }
            return rows.map { row in
                row.enumerated().map { index, cell in
                    index == last ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
                }.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
            }.joined(separator: "\n") + "\n"
        }

        static func json(_ users: [UserInfo], _ catalog: LandmarkCatalog) -> String {
            let array = JSONValue.array(
                users.map { user in
                    JSONValue.object([
                        "name": .string(user.name), "role": .string(user.access.role.rawValue),
                        "tokens": .integer(Int64(user.tokens)),
                        "landmarks": .array(
                            user.access.landmarks.sorted { $0.description < $1.description }.map { id in
                                .object([
                                    "id": .string(id.description),
                                    "name": catalog[id].map { .string($0.name) } ?? .null,
                                ])
                            }),
                    ])
                })
            return String(decoding: array.encoded(), as: UTF8.self) + "\n"
        }
    }
}

/// What `user add` and `user set` take: the name, the role, the landmarks of staff.
struct AccessOptions: ParsableArguments {
    @Argument(help: "The user's name.")
    var name: String

    @OptionGroup var options: DatabaseOptions

    @Option(help: "member (their own reservations), staff (of the --landmark ones) or admin (everything).")
    var role: RoleArgument

    @Option(
        name: .customLong("landmark"),
        help: ArgumentHelp("A landmark staff manage (repeat for more); only with --role staff.", valueName: "name"))
    var managed: [String] = []

    @Option(
        help: ArgumentHelp(
            "A JSON file of the landmarks the names are looked up in (default: the built-in catalog).",
            valueName: "file"),
        completion: .file(extensions: ["json"]))
    var landmarks: String?

    func validate() throws {
        guard !name.trimmingCharacters(in: .whitespaces).isEmpty, name.count <= 200 else {
            throw ValidationError("the user name must be 1 to 200 characters, not blank")
        }
        if role == .staff && managed.isEmpty {
            throw ValidationError("--role staff needs at least one --landmark")
        }
        if role != .staff && !managed.isEmpty {
            throw ValidationError("--landmark is only for --role staff (a \(role.rawValue) has no landmarks)")
        }
    }

    func apply(_ context: ServerCommandContext, create: Bool, mustBeNew: Bool) async throws {
        guard !UserName.hasControlCharacters(name) else {
            context.say(
                "the user name \"\(UserName.printable(name))\" has control characters; choose a name without them")
            throw ExitCode(ExitStatus.usage)
        }
        let catalog = try loadCatalog(landmarks, context)
        var ids: [Landmark.ID] = []
        for text in managed {
            do {
                ids.append(try catalog.landmark(matching: text).id)
            } catch {
                context.say("\(error.localizedDescription) (--landmark \(UserName.printable(text)))")
                throw ExitCode(ExitStatus.usage)
            }
        }
        let access = UserAccess(role: role.role, landmarks: Swift.Set(ids))
        let name = name
        let change = try await withTokens(options, context) {
            try await $0.setAccess(name, access, create: create, mustBeNew: mustBeNew)
        }
        let shown = UserName.printable(name)
        switch change {
        case .unknownUser:
            context.say("there is no user named \(shown) ('resv-server user list' shows them; 'user add' adds one)")
            throw ExitCode(ExitStatus.usage)
        case .exists:
            context.say("\(shown) exists already; 'resv-server user set' changes their role")
            throw ExitCode(ExitStatus.refused)
        case .lastAdmin:
            context.say("\(shown) is the only admin: make another user admin first ('user set NAME --role admin')")
            throw ExitCode(ExitStatus.refused)
        case .changed(let before):
            let now = describe(access, catalog)
            context.say(
                before.map { "\(shown) is now \(now) (was \(describe($0, catalog)))" } ?? "added \(shown), \(now)")
        }
    }

    private func describe(_ access: UserAccess, _ catalog: LandmarkCatalog) -> String {
        switch access.role {
        case .member: "a member"
        case .admin: "an admin"
        case .staff: "staff of " + names(access.landmarks, catalog).joined(separator: ", ")
        }
    }
}

/// `--role`.
enum RoleArgument: String, CaseIterable, ExpressibleByArgument {
    case member, staff, admin

    var role: UserRole { UserRole(rawValue: rawValue) ?? .member }
}

/// The landmarks' names, sorted; an id the catalog does not have is shown as itself.
private func names(_ ids: Set<Landmark.ID>, _ catalog: LandmarkCatalog) -> [String] {
    ids.map { catalog[$0]?.name ?? $0.description }.sorted()
}

/// The catalog of `--landmarks`, else the built-in one; a file that cannot be used is one line (69 or 65).
private func loadCatalog(_ path: String?, _ context: ServerCommandContext) throws -> LandmarkCatalog {
    do {
        return try path.map(CatalogFile.load) ?? .builtIn
    } catch {
        context.say(error.localizedDescription)
        throw ExitCode(error.isUnreadable ? ExitStatus.unavailable : ExitStatus.dataError)
    }
}
