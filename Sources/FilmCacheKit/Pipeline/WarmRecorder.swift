import Foundation
import Logging

/// Turns each ID's fetch result into the run's writes: films, aliases and lookups through the
/// batch writer, quota marks in the ledger, the counters, and a stop of the queue and the gate
/// when the run must end.
struct WarmRecorder: Sendable {
    let configuration: WarmConfiguration
    let store: CacheStore
    let writer: BatchWriter
    let tally: WarmTally
    let queue: WorkQueue
    let gate: QuotaGate
    /// The wall clock, for the rows' times and the quota day.
    let now: @Sendable () -> Date
    let logger: Logger

    /// Writes what `result` says about `id`: the film, lookup or quota mark, the counters, and
    /// whether the run goes on.
    func record(_ result: FetchResult, for id: String) async throws {
        let at = now()
        switch result {
        case .film, .notFound: try noteFirstSuccess(at: at)
        case .failed, .limitReached, .noBudget, .circuitOpen, .stopped, .notOMDb, .unreachable: break
        }
        switch result {
        case .film(let normalized):
            for warning in normalized.warnings { logger.warning("\(warning)") }
            try await writer.add(normalized.film)
            if normalized.film.imdbID != id {
                logger.notice(
                    "OMDb answered with another title; stored under its own ID, the asked one kept as an alias",
                    metadata: ["imdb_id": "\(id)", "answered_with": "\(normalized.film.imdbID)"])
                try await writer.add(FilmAlias(askedID: id, imdbID: normalized.film.imdbID, recordedAt: at))
            }
            tally.withLock {
                $0.fetched += 1
                $0.warnings += normalized.warnings.count
                $0.calls[.film, default: 0] += 1
            }
        case .notFound(let message):
            try await writer.add(
                LookupRecord(
                    imdbID: id, status: .notFound, message: message, httpStatus: 200, attemptedAt: at,
                    nextAttemptAt: at.addingTimeInterval(configuration.freshness.notFoundTTL)))
            tally.withLock {
                $0.notFound += 1
                $0.calls[.notFound, default: 0] += 1
            }
        case .failed(let message, let status, let sent):
            logger.warning("fetch failed", metadata: ["imdb_id": "\(id)", "error": "\(message)"])
            try await writer.add(
                LookupRecord(
                    imdbID: id, status: .failed, message: message, httpStatus: status, attemptedAt: at,
                    nextAttemptAt: configuration.freshness.nextFailureAttempt(
                        after: queue.failedBefore(id) + 1, at: at)))
            tally.withLock {
                $0.failed += 1
                if sent { $0.calls[.failed, default: 0] += 1 }
            }
        case .limitReached(let message):
            logger.warning(
                "OMDb daily limit reached; stopping", metadata: ["imdb_id": "\(id)", "message": "\(message)"])
            gate.close()
            queue.stop()
            try store.markExhausted(
                key: configuration.apiKey.fingerprint, day: configuration.quotaDay(containing: at).key,
                dailyLimit: configuration.dailyLimit, at: at)
            tally.withLock {
                $0.stopReason = .limitReached
                $0.calls[.limit, default: 0] += 1
            }
        case .noBudget, .stopped:
            queue.stop()
        case .circuitOpen:
            queue.stop()
            tally.withLock { $0.stopReason = .tooManyFailures }
        case .notOMDb(let what):
            if end(.notOMDb, detail: what) {
                logger.error("the base URL does not answer like OMDb; stopping", metadata: ["answer": "\(what)"])
            }
        case .unreachable(let why):
            if end(.unreachable, detail: why) {
                logger.error("OMDb unreachable; stopping", metadata: ["error": "\(why)"])
            }
        }
    }

    /// Ends the run for `reason`: no further call. Returns whether this was the first reason given,
    /// the one reported.
    private func end(_ reason: StopReason, detail: String) -> Bool {
        gate.close()
        queue.stop()
        return tally.withLock {
            guard $0.stopReason == nil else { return false }
            $0.stopReason = reason
            $0.stopDetail = detail
            return true
        }
    }

    /// On the run's first answer from OMDb, records it as the observed reset of an exhausted earlier day.
    private func noteFirstSuccess(at instant: Date) throws(StoreError) {
        let first = tally.withLock { counts -> Bool in
            defer { counts.answered = true }
            return !counts.answered
        }
        guard first else { return }
        try store.recordResetObserved(
            key: configuration.apiKey.fingerprint, before: configuration.quotaDay(containing: instant).key, at: instant)
    }
}
