import Foundation
import ReservationCore
import ResvTestKit
import SQLiteNIO
import Testing

@testable import ReservationServer
@testable import ReservationStorage

/// The `reservations` table of a freshly migrated SQLite and PostgreSQL database, read from the
/// database itself (`PRAGMA table_info`, `information_schema.columns`), held to the field table
/// (`ReservationField.stored`) field by field: each field's column, its type, whether it may be
/// NULL, and the schema version that added it. Each check is a function of the table, so a copy
/// of it with a field more shows it fails when the schema misses one.
@Suite("The schema follows the field table, field by field", .timeLimit(.minutes(30)))
struct SchemaFieldTests {
    /// A column as the database describes it.
    struct Column: Hashable {
        var name: String
        var type: String
        var notNull: Bool
    }

    static let withAField =
        ReservationField.stored + [
            ReservationField(
                key: "colour", column: "colour", kind: .text, optional: true, csv: "colour", ics: "X-RESV-COLOUR",
                since: Schema.version + 1, value: { _ in .text("blue") })
        ]

    /// The type a column of `kind` has in each dialect, as the database names it.
    static func type(_ kind: ReservationField.Kind, sqlite: Bool) -> String {
        switch kind {
        case .text: sqlite ? "TEXT" : "text"
        case .integer: sqlite ? "INTEGER" : "bigint"
        case .real: sqlite ? "REAL" : "double precision"
        }
    }

    /// What the schema misses of `table`: a field without its column, or with another type
    /// or NULL rule; a column that is in no field (but the owner's, `user_id`).
    static func schemaMisses(_ table: [ReservationField], _ columns: [Column], sqlite: Bool) -> [String] {
        var misses: [String] = []
        for field in table {
            guard let column = columns.first(where: { $0.name == field.column }) else {
                misses.append("no column \(field.column)")
                continue
            }
            if column.type != type(field.kind, sqlite: sqlite) {
                misses.append("\(field.column) is \(column.type), not \(type(field.kind, sqlite: sqlite))")
            }
            if column.notNull == field.optional {
                misses.append("\(field.column) is \(column.notNull ? "NOT NULL" : "nullable")")
            }
        }
        let described = Set(table.map(\.column)).union(["user_id"])
        misses += columns.map(\.name).filter { !described.contains($0) }.map { "column \($0) is in no field" }
        return misses
    }

    /// The `reservations` columns of the harness's database, as it describes them (a SQLite
    /// primary key counts as NOT NULL: the engines never write one without it).
    static func columns(_ h: Harness, sqlite: Bool) async throws -> [Column] {
        let rows = try await ConditionTests.ids(
            sqlite
                ? "SELECT name || '|' || type || '|' || (\"notnull\" OR pk) FROM pragma_table_info('reservations')"
                : """
                SELECT column_name || '|' || data_type || '|' || (is_nullable = 'NO')::TEXT
                FROM information_schema.columns
                WHERE table_name = 'reservations' AND table_schema = current_schema()
                """, h)
        return rows.map { row in
            let parts = row.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            return Column(name: parts[0], type: parts[1], notNull: parts[2] == "1" || parts[2] == "true")
        }
    }

    @Test(arguments: Engine.available.filter { $0 != .memory })
    func aNewDatabaseHasEveryFieldsColumn(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let columns = try await Self.columns(h, sqlite: engine == .sqlite)
            #expect(Self.schemaMisses(ReservationField.stored, columns, sqlite: engine == .sqlite) == [])
            #expect(
                Self.schemaMisses(Self.withAField, columns, sqlite: engine == .sqlite) == ["no column colour"])
        }
    }

    /// The `reservations` columns of a SQLite database brought only to `version` by the
    /// schema's own statements (the first tables, then each step up to it).
    static func sqliteColumns(at version: Int, in directory: URL) async throws -> Set<String> {
        let all = Schema.statements(.sqlite, from: 0)
        let first = Schema.statements(.sqlite, from: Int.max).count
        let later = Schema.statements(.sqlite, from: version).count - first
        let path = directory.appendingPathComponent("v\(version).sqlite").path
        let connection = try await SQLiteConnection.open(storage: .file(path: path))
        do {
            for statement in all.dropLast(version == 0 ? all.count : later) {
                _ = try await connection.query(statement)
            }
            let names = try await connection.query("SELECT name FROM pragma_table_info('reservations')")
            try await connection.close()
            return Set(names.compactMap { $0.columns.first?.data.string })
        } catch {
            try await connection.close()
            throw error
        }
    }

    /// What the steps miss of `table`'s versions: a column there before its version, or
    /// not there at it.
    static func versionMisses(_ table: [ReservationField]) async throws -> [String] {
        return try await TemporaryDirectory.with("fields") { folder in
            let directory = folder.url
            var misses: [String] = []
            for version in Set(table.map(\.since)).sorted() {
                let before = try await sqliteColumns(at: version - 1, in: directory)
                let at = try await sqliteColumns(at: version, in: directory)
                for field in table where field.since == version {
                    if before.contains(field.column) {
                        misses.append("\(field.column) is there before version \(version)")
                    }
                    if !at.contains(field.column) {
                        misses.append("\(field.column) is not there at version \(version)")
                    }
                }
            }
            return misses
        }
    }

    @Test func eachColumnArrivesAtItsVersion() async throws {
        #expect(try await Self.versionMisses(ReservationField.stored) == [])
        #expect(
            try await Self.versionMisses(Self.withAField) == ["colour is not there at version \(Schema.version + 1)"])
    }
}
