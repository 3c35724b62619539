import FilmCacheKit
import Logging

/// The pool's background logger: the command's handler, with postgres-nio's warning about a lease
/// made before `PostgresClient.run()` began logged at debug.
///
/// A command runs the pool in its service group (``PostgresPoolService``) beside the work that uses
/// it, and the first query can ask for a connection a moment before the group's task has entered
/// `run()`; the lease waits for it, so nothing is wrong, but postgres-nio warns at every such start.
/// A pool whose `run()` never comes would still show the line, at debug.
struct PoolLogHandler: ForwardingLogHandler {
    var inner: any LogHandler

    /// postgres-nio's text, as its `leaseConnection()` logs it.
    static let leaseBeforeRun =
        "Trying to lease connection from `PostgresClient`, but `PostgresClient.run()` hasn't been called yet."

    /// The pool's logger: `logger` with its handler wrapped.
    static func logger(_ logger: Logger) -> Logger {
        var wrapped = logger
        wrapped.handler = PoolLogHandler(inner: logger.handler)
        return wrapped
    }

    private init(inner: any LogHandler) {
        self.inner = inner
    }

    /// Logs `event` through the wrapped handler; the lease warning at debug, only when debug is on.
    func log(event: LogEvent) {
        guard event.level == .warning, event.message.description == Self.leaseBeforeRun else {
            return inner.log(event: event)
        }
        guard inner.logLevel <= .debug else { return }
        var lowered = event
        lowered.level = .debug
        inner.log(event: lowered)
    }
}
