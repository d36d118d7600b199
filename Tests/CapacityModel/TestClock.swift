import Foundation
import Synchronization

/// A clock the test holds and moves: handed to an engine, a router or a cache
/// as its `now`, so that time passes without sleeping.
public final class TestClock: Sendable {
    private let date: Mutex<Date>

    public init(_ start: Date = Date(timeIntervalSince1970: 1_900_000_000)) { date = Mutex(start) }

    /// The clock's time, as a `now` closure.
    public var now: @Sendable () -> Date { { self.date.withLock { $0 } } }

    public func advance(by seconds: TimeInterval) { date.withLock { $0 += seconds } }

    public func set(_ new: Date) { date.withLock { $0 = new } }
}
