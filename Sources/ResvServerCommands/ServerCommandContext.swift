import ArgumentParser
import Foundation
import Logging
import ReservationStorage
import ResvReference

/// Everything a `resv-server` command reaches outside itself, passed in so the
/// same command runs from the process and from tests.
public struct ServerCommandContext: Sendable {
    /// Where data goes (stdout): a new token, the token list.
    public var output: @Sendable (String) -> Void
    /// Where messages and the log go (stderr).
    public var messages: @Sendable (String) -> Void
    public var now: @Sendable () -> Date
    /// The logger of a command that logs at `level` and above.
    public var logger: @Sendable (Logger.Level) -> Logger
    /// The environment the `RESV_SERVER_<KEY>` settings are read from (`ServerConfiguration`).
    public var environment: [String: String] = [:]
    /// The configuration file read when none is named and it exists; none in tests.
    public var defaultConfigFile: String?

    /// A context whose log is written to `messages`, as swift-log's stream handler writes it.
    public init(
        output: @escaping @Sendable (String) -> Void, messages: @escaping @Sendable (String) -> Void,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.output = output
        self.messages = messages
        self.now = now
        logger = { level in
            var logger = Logger(label: "resv-server") { label in
                StreamLogHandler(label: label, stream: MessageStream(sink: messages))
            }
            logger.logLevel = level
            return logger
        }
    }

    /// The context of the `resv-server` process: stdout, stderr, and swift-log
    /// bootstrapped for the whole process (so the libraries' own loggers write to
    /// stderr at the command's level too). One command a process.
    public static func live() -> ServerCommandContext {
        var context = ServerCommandContext(
            output: { print($0, terminator: "") },
            messages: { FileHandle.standardError.write(Data($0.utf8)) })
        context.environment = ProcessInfo.processInfo.environment
        context.defaultConfigFile = ServerConfiguration.defaultFile
        context.logger = { level in
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = level
                return handler
            }
            var logger = Logger(label: "resv-server")
            logger.logLevel = level
            return logger
        }
        return context
    }

    /// Writes "resv-server: `line`" to stderr.
    func say(_ line: String) { messages("resv-server: \(line)\n") }

    /// Runs `body`; a failure (the database cannot be opened, the port bound) is
    /// one line on stderr and exit 69, not a trace; a `--database` that is not a
    /// usable URL is a usage error, 64.
    func unavailableOnFailure<Result>(_ body: () async throws -> Result) async throws -> Result {
        do {
            return try await body()
        } catch let exit as ExitCode {
            throw exit  // Said already.
        } catch let error as DatabaseError where error.isBadURL {
            say(error.localizedDescription)
            throw ExitCode(ExitStatus.usage)
        } catch let error as LocalizedError {
            say(error.localizedDescription)
            throw ExitCode(ExitStatus.unavailable)
        } catch {
            say("\(error)")
            throw ExitCode(ExitStatus.unavailable)
        }
    }
}

/// `messages` as the stream of swift-log's `StreamLogHandler`.
private struct MessageStream: TextOutputStream, Sendable {
    let sink: @Sendable (String) -> Void

    mutating func write(_ string: String) { sink(string) }
}
