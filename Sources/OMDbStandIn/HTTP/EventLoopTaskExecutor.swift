import NIOCore
import NIOPosix

/// Runs Swift tasks on an event loop group's threads instead of the shared cooperative pool.
///
/// The stand-in's callers are often synchronous code that blocks its thread on a socket while it
/// waits for an answer (tests on a two-core machine can hold every cooperative thread that way); the
/// server's own tasks, run here, never wait for a cooperative thread to come free.
final class EventLoopTaskExecutor: TaskExecutor {
    private let group: any EventLoopGroup

    /// Runs jobs on `group`'s loops, one loop chosen for each job.
    init(group: any EventLoopGroup) {
        self.group = group
    }

    /// Runs `job` on the loop it is enqueued from (where a connection's read or write just
    /// completed, so its task stays with its socket's thread), or on the next loop from elsewhere.
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let loop = MultiThreadedEventLoopGroup.currentEventLoop ?? group.next()
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
