import Foundation
import Testing

/// Runs each test it is given to on threads of its own rather than on Swift concurrency's
/// shared pool, which has one thread per core (two on the build machines) for every test of
/// the process. The end-to-end tests block their thread while a child process runs, a pipe is
/// read or a lock is waited for; on the shared pool a few of them at once held every thread for
/// minutes (196 s seen), and the libcurl tests' awaits could not resume: their bounds were
/// widened until they measured nothing. With `.ownThreads` a blocking test holds only its own
/// thread, and a test that measures on its own threads does not wait for anyone else's.
public struct OwnThreads: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await withTaskExecutorPreference(ThreadPerJob.shared) { try await function() }
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
