import Foundation
import Testing

/// A test waits for an event it can see (a line in a log, a waiter in a queue, a process
/// blocked in flock), never for a guess at how long something takes. `waitUntil` looks again
/// every `every` until `condition` holds. Its bound is a safety net against a hang, not a
/// measure: generous (ten minutes, within the suites' thirty), and when it passes the wait
/// fails the test with what it waited for rather than hold the suite until its time limit.
public enum Wait {
    /// How long `waitUntil` looks before it takes the wait for a hang.
    public static let bound: Duration = .seconds(600)
    /// How long `waitUntil` pauses between two looks unless told otherwise.
    public static let pause: Duration = .milliseconds(10)
}

/// The event `waitUntil` waited for did not come within `Wait.bound`: a hang, not a slow machine.
public struct WaitTimedOut: Error, CustomStringConvertible {
    public let what: String
    public let bound: Duration
    public var description: String { "no \(what) within \(bound): a hang, not a slow machine" }
}

/// Returns once `condition` holds, looking again every `every` (`.zero`: at once, for an
/// event that passes quickly); throws `WaitTimedOut` naming `what` past `bound`. For a test
/// on a thread of its own (`.ownThreads`) or a thread it started.
public func waitUntil(
    _ what: @autoclosure () -> String, every pause: Duration = Wait.pause, bound: Duration = Wait.bound,
    _ condition: () throws -> Bool
) throws {
    let deadline = ContinuousClock.now + bound
    while try !condition() {
        guard ContinuousClock.now < deadline else { throw WaitTimedOut(what: what(), bound: bound) }
        if pause > .zero {
            Thread.sleep(
                forTimeInterval: Double(pause.components.seconds) + Double(pause.components.attoseconds) * 1e-18)
        }
    }
}

/// `waitUntil` for async code: the pause is a `Task.sleep`, which leaves the thread to others.
public func waitUntil(
    _ what: @autoclosure () -> String, every pause: Duration = Wait.pause, bound: Duration = Wait.bound,
    _ condition: () throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + bound
    while try !condition() {
        guard ContinuousClock.now < deadline else { throw WaitTimedOut(what: what(), bound: bound) }
        if pause > .zero { try await Task.sleep(for: pause) } else { await Task.yield() }
    }
}
