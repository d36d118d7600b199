/// Time as a feed read in this process waits on it (`ChangePage.polling`):
/// how long has passed, and a pause. Handed in by the entry point (`continuous`)
/// or by a test, which holds it and moves it, so nothing below waits on the
/// machine's clock unless told to.
public struct WaitClock: Sendable {
    /// Time passed since some fixed start.
    public var elapsed: @Sendable () -> Duration
    /// Returns after `duration` has passed on this clock (or throws when the task is cancelled).
    public var pause: @Sendable (_ duration: Duration) async throws -> Void

    public init(
        elapsed: @escaping @Sendable () -> Duration,
        pause: @escaping @Sendable (_ duration: Duration) async throws -> Void
    ) {
        self.elapsed = elapsed
        self.pause = pause
    }

    /// The machine's monotonic clock: what a command run by a user waits on.
    public static var continuous: WaitClock {
        let clock = ContinuousClock()
        let start = clock.now
        return WaitClock(elapsed: { start.duration(to: clock.now) }, pause: { try await clock.sleep(for: $0) })
    }
}
