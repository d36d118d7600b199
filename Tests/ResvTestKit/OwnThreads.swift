import Foundation
import Testing

/// Runs each test it is given to on threads of its own rather than on Swift concurrency's
/// shared pool, which has one thread per core (two on the build machines) for every test of
/// the process. The end-to-end tests block their thread while a child process runs, a pipe is
/// read or a lock is waited for; on the shared pool a few of them at once held every thread for
/// minutes (196 s seen), and the libcurl tests' awaits could not resume: their bounds were
/// widened until they measured nothing. With `.ownThreads` a blocking test holds only its own
/// thread, and a test that measures on its own threads does not wait for anyone else's.
///
/// The shared pool also limited, by the way, how many blocking tests ran at once: one per
/// core. Without that limit every end-to-end test starts at once and a loaded machine misses
/// their bounds (seen: 62 failures). `TestSlots` keeps it: one test case a core (at least two)
/// runs under `.ownThreads` at a time; the others wait without holding a thread.
public struct OwnThreads: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // A suite, or a test as a whole, is a scope around its test cases: only a case takes a slot.
        guard testCase != nil else { return try await function() }
        await TestSlots.shared.acquire()
        do {
            try await withTaskExecutorPreference(ThreadPerJob.shared) { try await function() }
        } catch {
            await TestSlots.shared.release()
            throw error
        }
        await TestSlots.shared.release()
    }
}

/// How many test cases run under `.ownThreads` at once: one a core, at least two.
actor TestSlots {
    static let shared = TestSlots(max(2, ProcessInfo.processInfo.activeProcessorCount))

    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(_ count: Int) { free = count }

    func acquire() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty {
            free += 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}

extension Trait where Self == OwnThreads {
    /// Each test on threads of its own (`OwnThreads`).
    public static var ownThreads: Self { OwnThreads() }
}

/// A task executor that runs each job on a new thread: a job that blocks holds that thread
/// alone. Jobs are the stretches of a test between two awaits, so threads come and go.
final class ThreadPerJob: TaskExecutor {
    static let shared = ThreadPerJob()

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        Thread.detachNewThread { job.runSynchronously(on: executor) }
    }
}
