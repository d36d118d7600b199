import Foundation

/// A directory of a test's own under the system's temporary one (`resv-LABEL-XXXXXXXX`),
/// removed with everything in it when let go: what a sandbox keeps its store, database,
/// home and files in.
public final class TemporaryDirectory: Sendable {
    public let url: URL

    public init(_ label: String) throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("resv-\(label)-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// Writes `text` to the file `name` here and returns its path.
    @discardableResult
    public func file(_ name: String, _ text: String) throws -> String {
        let file = url.appendingPathComponent(name)
        try Data(text.utf8).write(to: file)
        return file.path
    }
}

extension TemporaryDirectory {
    /// The path of `name` here.
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Runs `body` with a new directory (`resv-LABEL-XXXXXXXX`), removed with everything in it
    /// when `body` returns or throws.
    public static func with<T>(_ label: String, _ body: (TemporaryDirectory) async throws -> T) async throws -> T {
        let directory = try TemporaryDirectory(label)
        defer { withExtendedLifetime(directory) {} }
        return try await body(directory)
    }

    /// The same, for a body that does not wait.
    public static func with<T>(_ label: String, _ body: (TemporaryDirectory) throws -> T) throws -> T {
        let directory = try TemporaryDirectory(label)
        defer { withExtendedLifetime(directory) {} }
        return try body(directory)
    }
}
