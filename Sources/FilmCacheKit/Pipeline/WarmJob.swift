import Foundation
import Logging
import Synchronization

/// One warm: read worklists, plan, fetch what is missing or stale, normalize, store, summarize.
public struct WarmJob: Sendable {
    public var configuration: WarmConfiguration
    private let store: any WarmStore
    private let transport: any HTTPTransport
    /// Where the job's time comes from; tests hand in a manual clock.
    public var time: TimeSource
    private let logger: Logger
    /// Stops the run from outside (the executable's signal handling); a stop requested before
    /// the run starts stops it before its first call.
    public var stop = WarmStop()
    /// Where progress goes while the job fetches; `nil` reports nothing.
    public var progress: (any ProgressSink)?

    /// A job over `store`, fetching through `transport`, timed by `time` (its clock measures the time
    /// limit, pauses and progress; its wall clock stamps the run and its films).
    public init(
        configuration: WarmConfiguration, store: any WarmStore, transport: any HTTPTransport,
        time: TimeSource, logger: Logger
    ) {
        self.configuration = configuration
        self.store = store
        self.transport = transport
        self.time = time
        self.logger = logger
    }

    private var now: @Sendable () -> Date { time.wall.now }

    /// Runs the job to the end of its plan, or until the budget, OMDb's limit, ``stop`` or
    /// ``WarmConfiguration/maxRuntime`` ends it.
    public func run() async throws(WarmError) -> WarmSummary {
        // A stop of this run only: the time limit must not stop later runs sharing `stop`.
        let runStop = stop.child()
        defer { stop.detach(runStop) }
        let outcome = await withTaskGroup(of: Void.self) { group -> Result<WarmSummary, WarmError> in
            if let limit = configuration.maxRuntime {
                group.addTask { [clock = time.clock, logger] in
                    if await runStop.request(.timeLimit, after: limit, on: clock) {
                        logger.notice(
                            "time limit reached; finishing the calls in flight",
                            metadata: ["max_runtime": "\(DurationText.compact(limit))"])
                    }
                }
            }
            defer { group.cancelAll() }
            do throws(WarmError) {
                return .success(try await run(stop: runStop))
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }

    /// Reads the worklists, logs what they skipped and plans them at `instant`.
    ///
    /// The worklist is let go on return: the run holds only the plan's own lists.
    private func planTonight(at instant: Date) async throws(WarmError) -> (NightPlan, skippedLines: Int) {
        let worklist: Worklist
        do {
            guard !configuration.worklists.isEmpty else { throw WorklistError.empty }
            worklist = try Worklist.read(paths: configuration.worklists, format: configuration.worklistFormat)
        } catch let error as WorklistError {
            throw .worklist(error)
        } catch {
            throw .worklist(.empty)
        }
        worklist.log(to: logger)
        do {
            // The key's ledger rows under its old four-digit name are taken over before its use is read.
            let night = try await NightPlan.make(
                worklist: worklist, store: store, settings: configuration.planSettings, now: instant
            ) { [store, logger, key = configuration.apiKey] () async throws(StoreError) -> String? in
                let name = await key.derivedFingerprint
                let legacy = key.legacyFingerprint
                if try await store.adoptLegacyFingerprint(legacy, as: name) {
                    logger.notice(
                        "ledger rows of the old four-digit key name adopted",
                        metadata: ["old": "\(legacy)", "key": "\(KeyFingerprint.short(name))"])
                }
                return name
            }
            return (night, worklist.warnings.count)
        } catch {
            throw .store(error)
        }
    }

    private func run(stop: WarmStop) async throws(WarmError) -> WarmSummary {
        // A local copy: the property itself is not opened to its concrete clock type.
        let clock = time.clock
        return try await run(stop: stop, on: clock)
    }

    /// The run, with every wait, pause and commit interval on `clock`.
    private func run<C: Clock>(stop: WarmStop, on clock: C) async throws(WarmError) -> WarmSummary
    where C.Duration == Duration {
        let startedAt = now()
        let (night, skippedLines) = try await planTonight(at: startedAt)
        let runID: Int
        do {
            runID = try await store.beginRun(startedAt: startedAt, key: configuration.apiKey.fingerprint)
        } catch {
            throw .store(error)
        }
        let plan = night.plan
        var summary = WarmSummary()
        summary.considered = plan.considered
        summary.fresh = plan.fresh
        summary.missing = plan.missing
        summary.stale = plan.stale
        summary.awaitingRecheck = plan.notFoundAwaitingRecheck + plan.failedAwaitingRetry
        summary.skippedLines = skippedLines
        summary.titlesKnown = plan.titles.known
        logger.info(
            "plan",
            metadata: [
                "considered": "\(plan.considered)", "fresh": "\(plan.fresh)", "missing": "\(plan.missing)",
                "stale": "\(plan.stale)", "upgrades": "\(plan.upgrades)", "to_fetch": "\(plan.scheduled.count)",
                "titles_to_resolve": "\(plan.titles.toResolve)", "titles_known": "\(plan.titles.known)",
                "deferred": "\(plan.postponed.count)", "calls_left": "\(night.callsLeft)",
            ])
        let gate = QuotaGate(
            store: store, key: configuration.apiKey.fingerprint, dailyLimit: configuration.dailyLimit,
            usable: configuration.budget.usable, block: configuration.maxInFlight, runID: runID, time: time,
            quotaDay: { [configuration] in configuration.quotaDay(containing: $0) })
        let writer = BatchWriter(
            store: store, batchSize: configuration.batchSize,
            concurrentCommits: store.concurrentCommits,
            commitInterval: configuration.commitInterval, clock: clock)
        let tally = WarmTally()
        let shared = store.sharesPlanBetweenWarms
        let queue = WorkQueue(
            plan.scheduled, failedBefore: plan.failedBefore, stop: stop,
            claimer: shared
                ? Self.claimer(
                    store: store, runID: runID, plannedAt: startedAt, configuration: configuration, stop: stop,
                    clock: clock)
                : nil)
        let pacing = Pacing(configuration: configuration, clock: clock)
        let fetcher = FilmFetcher(
            transport: transport, urlPrefix: configuration.urlPrefix, requestPrefix: configuration.requestPrefix,
            echo: configuration.apiKey.echo,
            backoff: configuration.backoff, gate: gate,
            pacing: pacing, stop: stop, tally: tally, clock: clock, now: now, logger: logger)
        let recorder = WarmRecorder(
            configuration: configuration, store: store, writer: writer, tally: tally, queue: queue, gate: gate,
            now: now, logger: logger)
        let snapshot: @Sendable (Duration) -> WarmProgress = { [callsLeft = night.callsLeft] elapsed in
            let counts = tally.counts
            let sent = gate.sent
            return WarmProgress(
                done: counts.fetched + counts.notFound + counts.failed, total: plan.scheduled.count,
                fetched: counts.fetched, notFound: counts.notFound, failed: counts.failed, calls: sent,
                quotaLeft: max(0, callsLeft - sent), elapsed: elapsed)
        }

        // Progress reports and the writer's commit ticks run beside the fetch until this function returns.
        async let _ = Self.report(to: progress, on: clock, snapshot)
        async let _ = Self.tick(writer, every: configuration.commitInterval / 2, on: clock)
        async let _ = Self.renewClaims(
            of: store, if: shared, runID: runID, plannedAt: startedAt,
            lease: configuration.claimLease, on: clock)

        // Another warm on this key seeing OMDb's limit stops this one at once, mid-block.
        let limitWatch = Task { [store, key = configuration.apiKey.fingerprint] in
            await store.watchExhaustion(key: key) { day in recorder.limitReached(elsewhereOn: day) }
        }
        // The run's session with the database ending (the server restarted, the connection cut) lets
        // other warms take its claims at once: it stops sending, as it would for any other reason.
        let claimsLost = Mutex(false)
        let sessionWatch = Task { [store] in
            await store.waitUntilClaimsLost(runID: runID)
            guard !Task.isCancelled else { return }
            claimsLost.withLock { $0 = true }
            queue.stop()
            gate.close()
        }
        var failure: WarmError?
        do {
            // The first request goes alone: a rejected key or a spent limit then costs one call, not a wave.
            if let first = try await queue.next() {
                try await recorder.record(try await fetcher.fetch(first), for: first)
            }
            try await withThrowingTaskGroup(of: Void.self) { (group) throws(any Error) -> Void in
                for _ in 0..<max(1, min(configuration.maxInFlight, plan.scheduled.count)) {
                    group.addTask {
                        do {
                            while let id = try await queue.next() {
                                try await recorder.record(try await fetcher.fetch(id), for: id)
                            }
                        } catch {
                            // The group waits for every worker before it rethrows: without this the others
                            // would spend the rest of the day's calls on results that can no longer be
                            // stored (a full disk).
                            queue.stop()
                            gate.close()
                            throw error
                        }
                    }
                }
                try await group.waitForAll()
            }
            try await writer.flush()
            failure = nil
        } catch {
            failure = Self.warmError(error)
        }
        limitWatch.cancel()
        sessionWatch.cancel()
        if failure == nil, claimsLost.withLock({ $0 }) {
            failure = .store(
                .unavailable(
                    database: store.displayName,
                    message: "the session that held this run's claims ended; the other warms take what it had left"))
        }
        // Whatever happened above, commit what arrived and return unsent reservations.
        try? await writer.flush()
        try? await gate.finish()
        // IDs claimed and not fetched go to the other warms now, not when the lease passes.
        await queue.settle()
        try? await store.releaseClaims(runID: runID)
        if queue.answeredElsewhere > 0 {
            logger.info("IDs of the plan fetched by other warms", metadata: ["ids": "\(queue.answeredElsewhere)"])
        }

        let counts = tally.counts
        summary.fetched = counts.fetched
        summary.notFound = counts.notFound
        summary.failed = counts.failed
        summary.titlesResolved = counts.titlesResolved
        summary.titlesNotFound = counts.titlesNotFound
        summary.normalizationWarnings = counts.warnings
        summary.calls = gate.sent
        summary.callsByOutcome = counts.calls
        summary.deferred = queue.remaining + plan.postponed.count
        summary.stopReason = counts.stopReason ?? (summary.deferred > 0 ? stop.reason ?? .budgetSpent : nil)
        summary.stopDetail = counts.stopDetail
        // A run that never reached OMDb is recorded as such, not as done.
        if summary.stopReason == nil || summary.stopReason == .tooManyFailures,
            counts.fetched == 0 && counts.notFound == 0, let why = pacing.unreachableOnly
        {
            summary.stopReason = .unreachable
            summary.stopDetail = why
        }
        let error = failure
        let outcome =
            error.map { "error: \($0)" } ?? summary.stopReason?.rawValue
            ?? (summary.nothingSucceeded ? "failed" : "done")
        try? await store.finishRun(id: runID, summary: summary, finishedAt: now(), outcome: outcome)
        if let error { throw error }
        return summary
    }

    /// How this run claims its share of a plan other warms share: chunks of sixteen times the
    /// in-flight cap (a claim costs the server statements and a commit, so fewer and larger), and
    /// a pause before asking again for IDs another run holds: 0.2 seconds, doubling while nothing
    /// new is granted, up to a quarter lease or a second. The IDs held are most often in flight in
    /// a live run and answered within a second; a longer pause only keeps this run waiting after
    /// they are (with 5 seconds, four warms sharing a plan exited 3.5 s after the last request).
    private static func claimer<C: Clock>(
        store: any WorkClaims, runID: Int, plannedAt: Date, configuration: WarmConfiguration, stop: WarmStop,
        clock: C
    ) -> WorkQueue.Claimer where C.Duration == Duration {
        let lease = configuration.claimLease
        let longest = min(max(lease / 4, .milliseconds(200)), .seconds(1))
        return WorkQueue.Claimer(
            chunk: min(1024, max(16, configuration.maxInFlight * 16)),
            claim: { ids async throws(StoreError) in
                try await store.claim(ids, runID: runID, plannedAt: plannedAt, lease: lease)
            },
            pause: { attempt in
                let pause = min(longest, .milliseconds(200) * (1 << min(attempt, 10)))
                return (try? await stop.unlessStopped { try await clock.sleep(for: pause) }) ?? false
            })
    }

    /// Renews the run's leases (its claimed IDs and its run row) every third of `lease` on `clock`
    /// until cancelled, so a live run keeps what it claimed however long a chunk takes.
    private static func renewClaims<C: Clock>(
        of store: any WorkClaims, if shared: Bool, runID: Int, plannedAt: Date, lease: Duration, on clock: C
    ) async where C.Duration == Duration {
        guard shared else { return }
        while true {
            do {
                try await clock.sleep(for: lease / 3)
            } catch {
                return
            }
            _ = try? await store.claim([], runID: runID, plannedAt: plannedAt, lease: lease)
        }
    }

    /// Lets `writer` commit a batch that has waited its interval, every `interval` on `clock`, until cancelled.
    private static func tick<C: Clock>(_ writer: BatchWriter, every interval: Duration, on clock: C) async
    where C.Duration == Duration {
        while true {
            do {
                try await clock.sleep(for: interval)
            } catch {
                return
            }
            await writer.tick()
        }
    }

    /// Hands `sink` a snapshot every `sink.interval` on `clock` until the task is cancelled.
    private static func report<C: Clock>(
        to sink: (any ProgressSink)?, on clock: C, _ snapshot: @Sendable (Duration) -> WarmProgress
    ) async where C.Duration == Duration {
        guard let sink else { return }
        let start = clock.now
        while true {
            do {
                try await clock.sleep(for: sink.interval)
            } catch {
                return
            }
            sink.report(snapshot(start.duration(to: clock.now)))
        }
    }

    /// Maps whatever a worker threw onto the run's error vocabulary.
    private static func warmError(_ error: any Error) -> WarmError {
        switch error {
        case let error as WarmError: error
        case let error as StoreError: .store(error)
        default: .unreachable("\(error)")
        }
    }
}
