/// Hears other processes' "limit reached" for `filmcache serve`'s key, so a key spent elsewhere
/// stops this process's calls too, and at the end gives this process's unsent reservations back.
///
/// ``run()`` lasts until its task is cancelled (the serve command's graceful shutdown); ``finish()``
/// is the ledger's last step, after the server has let its requests finish.
public final class ExhaustionWatcher: Sendable {
    private let store: any QuotaLedger
    private let upstream: ServeUpstream

    /// A watcher of `store`'s exhaustion notices for `upstream`'s key.
    init(store: any QuotaLedger, upstream: ServeUpstream) {
        self.store = store
        self.upstream = upstream
    }

    /// Hears the notices until the task is cancelled.
    public func run() async {
        await store.watchExhaustion(key: upstream.keyFingerprint) { [upstream] day in
            upstream.limitReachedElsewhere(on: day)
        }
    }

    /// Ends every wait of calls in progress and gives unsent reservations back to the ledger.
    public func finish() async {
        await upstream.finish()
    }
}
