import Foundation
import Logging
import ResvTestKit
import Testing

@testable import ReservationServer
@testable import ReservationStorage

/// `openapi/resv-server.yaml` and the router agree on the routes, so a new route
/// cannot ship undocumented (schemathesis then checks what each one answers).
@Suite("The OpenAPI document", .timeLimit(.minutes(30)))
struct OpenAPIDocumentTests {
    /// "METHOD /path" of every operation under `paths:` (`{id}` as the router writes it).
    static func documentedOperations() throws -> Set<String> {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("openapi/resv-server.yaml"), encoding: .utf8)
        let methods: Set<String> = ["get", "put", "post", "delete", "patch", "head", "options"]
        var operations: Set<String> = []
        var path: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).drop(while: { $0 != "paths:" })
            .dropFirst()
        {
            if !line.hasPrefix(" "), !line.isEmpty { break }  // `components:`: the paths are over.
            if line.hasPrefix("  /"), !line.hasPrefix("   "), line.hasSuffix(":") {
                path = String(line.dropFirst(2).dropLast())
            } else if line.hasPrefix("    "), !line.hasPrefix("     "), line.hasSuffix(":"),
                methods.contains(String(line.dropFirst(4).dropLast())), let path
            {
                operations.insert("\(line.dropFirst(4).dropLast().uppercased()) \(path)")
            }
        }
        return operations
    }

    @Test func everyRouteOfTheRouterIsDocumentedAndNoOther() async throws {
        let documented = try Self.documentedOperations()
        try await TemporaryDirectory.with("openapi") { folder in
            let directory = folder.url
            var logger = Logger(label: "resv-server-test")
            logger.logLevel = .critical
            let routes = try await Database.withStore(
                directory.appendingPathComponent("db.sqlite").path, logger: logger, connections: 1, now: Date.init
            ) { store in
                Set(buildRouter(store: store, now: { Date() }).routes.map { "\($0.method.rawValue) \($0.path)" })
            }
            #expect(routes.contains("POST /undo"), "the router's routes are read: \(routes.sorted())")
            #expect(routes.subtracting(documented).isEmpty, "routes missing from the document")
            // `/metrics` is served unless `serve --no-metrics` (the router built here has no registry).
            #expect(documented.subtracting(routes) == ["GET /metrics"], "documented routes the router lacks")
        }
    }
}
