import Foundation
import Logging

/// Turns each ID's fetch result into the run's writes: films, aliases and lookups through the
/// batch writer, quota marks in the ledger, the counters, and a stop of the queue and the gate
/// when the run must end.
struct WarmRecorder: Sendable {
    let configuration: WarmConfiguration
    let store: any QuotaLedger
    let writer: BatchWriter
    let tally: WarmTally
    let queue: WorkQueue
    let gate: QuotaGate
    /// The wall clock, for the rows' times and the quota day.
    let now: @Sendable () -> Date
    let logger: Logger

    /// Writes what `result` says about `target`: the film, lookup, title answer or quota mark, the
    /// counters, and whether the run goes on.
    func record(_ result: FetchResult, for target: FetchTarget) async throws {
        let at = now()
        switch result {
        case .film, .notFound, .answer: try await noteFirstSuccess(at: at)
        case .failed, .limitReached, .noBudget, .circuitOpen, .stopped, .notOMDb, .unreachable: break
        }
        if let entry = target.title {
            try await record(result, for: entry, at: at)
            return
        }
        let id = target.imdbID ?? ""
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
        case .limitReached, .noBudget, .stopped, .circuitOpen, .notOMDb, .unreachable:
            try await end(result, subject: ["imdb_id": "\(id)"], at: at)
        case .answer:
            // A warm fetches IDs and titles; a query's answer is `filmcache serve`'s.
            break
        }
    }

    /// Writes what `result` says about a title: the film and the index's answer, or OMDb's "not
    /// found" (reported at the entry's `file:line`), the counters, and whether the run goes on.
    private func record(_ result: FetchResult, for entry: TitleEntry, at: Date) async throws {
        let query = entry.query
        switch result {
        case .film(let normalized):
            for warning in normalized.warnings { logger.warning("\(warning)") }
            let film = normalized.film
            let id = film.imdbID
            queue.arrived(id)
            // The body is a real film, paid for: it is kept under its own ID whatever it is.
            try await writer.add(film)
            // Another title back (a wrong answer, a proxy's mix-up) must not send this title to that
            // film for good: it stays out of the index and the title is asked again next run.
            let matches = query.isAnswered(byTitle: film.title, yearStart: film.yearStart)
            if matches {
                try await writer.add(TitleAnswer(query: query, imdbID: id, answeredAt: at))
                logger.debug(
                    "title resolved", metadata: ["title": "\(query)", "at": "\(entry.place)", "imdb_id": "\(id)"])
            } else {
                logger.warning(
                    "\(entry.place): OMDb answered \(query) with another title; kept under its own ID, not in the title index",
                    metadata: ["answered_with": "\(id)", "answered_title": "\(film.title ?? "")"])
            }
            tally.withLock {
                $0.fetched += 1
                if matches { $0.titlesResolved += 1 }
                $0.warnings += normalized.warnings.count
                $0.calls[.film, default: 0] += 1
            }
        case .notFound(let message):
            logger.warning("\(entry.place): OMDb finds no title \(query) (\(message))")
            try await writer.add(
                TitleAnswer(
                    query: query, imdbID: nil, answeredAt: at,
                    nextAttemptAt: at.addingTimeInterval(configuration.freshness.titleNotFoundTTL)))
            tally.withLock {
                $0.notFound += 1
                $0.titlesNotFound += 1
                $0.calls[.notFound, default: 0] += 1
            }
        case .failed(let message, _, let sent):
            // Nothing is stored: the title is asked again next run.
            logger.warning(
                "fetch failed", metadata: ["title": "\(query)", "at": "\(entry.place)", "error": "\(message)"])
            tally.withLock {
                $0.failed += 1
                if sent { $0.calls[.failed, default: 0] += 1 }
            }
        case .limitReached, .noBudget, .stopped, .circuitOpen, .notOMDb, .unreachable:
            try await end(result, subject: ["title": "\(query)"], at: at)
        case .answer:
            break
        }
    }

    /// Acts on a result that ends the run or this worker: the limit, no budget, a stop, the breaker,
    /// answers not OMDb's, an unreachable OMDb.
    private func end(_ result: FetchResult, subject: Logger.Metadata, at: Date) async throws {
        switch result {
        case .film, .notFound, .failed, .answer: break
        case .limitReached(let message):
            logger.warning(
                "OMDb daily limit reached; stopping", metadata: subject.merging(["message": "\(message)"]) { $1 })
            gate.close()
            queue.stop()
            // Counted before the mark, whose notice comes back to this run too.
            tally.withLock {
                $0.stopReason = .limitReached
                $0.calls[.limit, default: 0] += 1
            }
            try await store.markExhausted(
                key: configuration.apiKey.fingerprint, day: configuration.quotaDay(containing: at).key,
                dailyLimit: configuration.dailyLimit, at: at)
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

    /// Another process recorded OMDb's "limit reached" for this key on `day`: when that is the day
    /// calls are now charged to, no further call, and the run ends as if it had seen the limit.
    func limitReached(elsewhereOn day: String) {
        guard day == configuration.quotaDay(containing: now()).key else { return }
        if end(.limitReached, detail: nil) {
            logger.warning("OMDb daily limit reached by another warm on this key; stopping")
        }
    }

    /// Ends the run for `reason`: no further call. Returns whether this was the first reason given,
    /// the one reported.
    private func end(_ reason: StopReason, detail: String?) -> Bool {
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
    private func noteFirstSuccess(at instant: Date) async throws(StoreError) {
        let first = tally.withLock { counts -> Bool in
            defer { counts.answered = true }
            return !counts.answered
        }
        guard first else { return }
        try await store.recordResetObserved(
            key: configuration.apiKey.fingerprint, before: configuration.quotaDay(containing: instant).key, at: instant)
    }
}
