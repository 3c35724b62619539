import Foundation

/// Copying a cache (``CacheTransfer``) in memory: each table paged in the order of its key and merged
/// by its rule (``CacheTable``).
extension MemoryBackend {
    package func rowCount(_ table: CacheTable) async throws(StoreError) -> Int {
        switch table {
        case .films: films.count
        case .lookups: lookups.count
        case .aliases: aliases.count
        case .titles: titles.count
        case .posters: posters.count
        case .quotaLedger: ledgerRows.count
        case .quotaCalls: calls.values.reduce(0) { $0 + $1.count }
        case .runs: runRows.count
        case .answers: answers.count
        case .demand: demandRows.count
        case .tmdbFind: tmdb.mappings.count
        case .tmdbFilms: tmdb.films.count
        case .tmdbSync: tmdb.syncedThrough == nil ? 0 : 1
        case .tmdbCalls: tmdb.calls.values.reduce(0) { $0 + $1.count }
        }
    }

    package func transferPage(_ table: CacheTable, after cursor: TransferCursor, limit: Int) async throws(StoreError)
        -> TransferPage
    {
        let after = cursor.keyParts
        func page<Rows: Sequence>(_ rows: Rows, _ key: (Rows.Element) -> [TransferKeyPart]) -> [Rows.Element] {
            rows.map { (key: key($0), row: $0) }
                .filter { row in after.map { Self.keyPrecedes($0, row.key) } ?? true }
                .sorted { Self.keyPrecedes($0.key, $1.key) }
                .prefix(max(limit, 0)).map(\.row)
        }
        switch table {
        case .films: return .films(try await films(after: cursor.filmID, limit: limit, since: nil))
        case .lookups: return .lookups(page(lookups.values) { [.text($0.imdbID)] })
        case .aliases: return .aliases(page(aliases.values) { [.text($0.askedID)] })
        case .titles:
            return .titles(page(titles.values) { [.text($0.key.title), .integer($0.key.year), .text($0.key.type)] })
        case .posters: return .posters(page(posters.values) { [.text($0.imdbID)] })
        case .quotaLedger:
            return .quotaLedger(page(ledgerRows.values) { [.text($0.keyFingerprint), .text($0.day)] })
        case .quotaCalls:
            let rows = calls.flatMap { key, minutes in
                minutes.map { MinuteCalls(keyFingerprint: key, minute: $0.key, calls: $0.value) }
            }
            return .quotaCalls(page(rows) { [.text($0.keyFingerprint), .integer($0.minute)] })
        case .runs:
            let rows = page(runRows.values) { [.integer($0.record.id)] }.map { row in
                var row = row
                row.sameStartBefore =
                    runRows.values.filter {
                        $0.record.startedAt == row.record.startedAt
                            && $0.record.keyFingerprint == row.record.keyFingerprint && $0.record.id < row.record.id
                    }.count
                return row
            }
            return .runs(rows)
        case .answers: return .answers(page(answers.values) { [.text($0.query)] })
        case .demand: return .demand(page(demandRows.values) { [.text($0.imdbID)] })
        case .tmdbFind: return .tmdbFind(page(tmdb.mappings.values) { [.text($0.imdbID)] })
        case .tmdbFilms:
            let rows = tmdb.films.values.map { TMDbFilmRow(film: $0, changed: tmdb.changed.contains($0.ref)) }
            return .tmdbFilms(page(rows) { [.text($0.film.ref.mediaType.rawValue), .integer($0.film.ref.id)] })
        case .tmdbSync:
            return .tmdbSync(after == nil ? tmdb.syncedThrough.map { [$0] } ?? [] : [])
        case .tmdbCalls:
            let rows = tmdb.calls.flatMap { day, kinds in
                kinds.map { TMDbDayCalls(day: day, kind: $0.key, calls: $0.value) }
            }
            return .tmdbCalls(page(rows) { [.text($0.day), .text($0.kind)] })
        }
    }

    package func merge(_ page: TransferPage, now: Date) async throws(StoreError) -> ImportCounts {
        var counts = ImportCounts()
        /// Adds `row` where nothing is held; else lets `merged` say what the held row becomes, if it gives way.
        func mergeRow<Key: Hashable, Row>(
            _ table: inout [Key: Row], _ key: Key, _ row: Row, _ merged: (_ held: Row) -> Row?
        ) {
            guard let held = table[key] else {
                table[key] = row
                counts.added += 1
                return
            }
            if let next = merged(held) {
                table[key] = next
                counts.updated += 1
            } else {
                counts.kept += 1
            }
        }
        switch page {
        case .films(let rows): return try await importFilms(rows, now: now)
        case .runs(let rows): return mergeRuns(rows)
        case .lookups(let rows):
            for var row in rows {
                (row.firstSeenAt, row.lastAttemptAt) = (row.firstSeenAt.storedSecond, row.lastAttemptAt.storedSecond)
                row.nextAttemptAt = row.nextAttemptAt.storedSecond
                mergeRow(&lookups, row.imdbID, row) { row.lastAttemptAt > $0.lastAttemptAt ? row : nil }
            }
        case .aliases(let rows):
            for var row in rows {
                row.recordedAt = row.recordedAt.storedSecond
                mergeRow(&aliases, row.askedID, row) { row.recordedAt > $0.recordedAt ? row : nil }
            }
        case .titles(let rows):
            for var row in rows {
                (row.answeredAt, row.nextAttemptAt) = (row.answeredAt.storedSecond, row.nextAttemptAt?.storedSecond)
                mergeRow(&titles, row.key, row) {
                    row.answeredAt > $0.answeredAt && (row.imdbID != nil || $0.imdbID == nil) ? row : nil
                }
            }
        case .posters(let rows):
            for var row in rows {
                (row.storedAt, row.checkedAt) = (row.storedAt?.storedSecond, row.checkedAt.storedSecond)
                row.nextAttemptAt = row.nextAttemptAt?.storedSecond
                mergeRow(&posters, row.imdbID, row) { row.checkedAt > $0.checkedAt ? row : nil }
            }
        case .quotaLedger(let rows):
            for var row in rows {
                (row.exhaustedAt, row.resetObservedAt) = (
                    row.exhaustedAt?.storedSecond, row.resetObservedAt?.storedSecond
                )
                mergeRow(&ledgerRows, LedgerKey(key: row.keyFingerprint, day: row.day), row) { held in
                    // The larger count, the earlier instant: never lower what either database counted.
                    func earlierGiven(_ a: Date?, _ b: Date?) -> Bool {
                        a.map { a in b.map { a < $0 } ?? true } ?? false
                    }
                    guard
                        row.used > held.used || row.dailyLimit > held.dailyLimit
                            || earlierGiven(row.exhaustedAt, held.exhaustedAt)
                            || earlierGiven(row.resetObservedAt, held.resetObservedAt)
                    else { return nil }
                    var next = held
                    next.used = max(held.used, row.used)
                    next.dailyLimit = max(held.dailyLimit, row.dailyLimit)
                    if earlierGiven(row.exhaustedAt, held.exhaustedAt) { next.exhaustedAt = row.exhaustedAt }
                    if earlierGiven(row.resetObservedAt, held.resetObservedAt) {
                        next.resetObservedAt = row.resetObservedAt
                    }
                    return next
                }
            }
        case .quotaCalls(let rows):
            for row in rows {
                var minutes = calls[row.keyFingerprint] ?? [:]
                mergeRow(&minutes, row.minute, row.calls) { row.calls > $0 ? row.calls : nil }
                calls[row.keyFingerprint] = minutes
            }
        case .answers(let rows):
            for var row in rows {
                row.answeredAt = row.answeredAt.storedSecond
                mergeRow(&answers, row.query, row) { row.answeredAt > $0.answeredAt ? row : nil }
            }
        case .demand(let rows):
            for var row in rows {
                (row.title, row.lastRequestedAt) = (nil, row.lastRequestedAt.storedSecond)
                mergeRow(&demandRows, row.imdbID, row) { held in
                    // The larger count and the later request: merging twice counts no request twice.
                    guard row.requests > held.requests || row.lastRequestedAt > held.lastRequestedAt else { return nil }
                    return DemandEntry(
                        imdbID: row.imdbID, title: nil, requests: max(row.requests, held.requests),
                        lastRequestedAt: max(row.lastRequestedAt, held.lastRequestedAt))
                }
            }
        case .tmdbFind(let rows):
            for var row in rows {
                row.checkedAt = row.checkedAt.storedSecond
                mergeRow(&tmdb.mappings, row.imdbID, row) { row.checkedAt > $0.checkedAt ? row : nil }
            }
        case .tmdbFilms(let rows):
            let latest = now.addingTimeInterval(FreshnessPolicy.clockSkew)
            for var row in rows {
                row.film.fetchedAt = row.film.fetchedAt.storedSecond
                let ref = row.film.ref
                let wasChanged = tmdb.changed.contains(ref)
                // The later fetch wins, as in import; of one fetch, the copy the changes feed marked.
                let lands =
                    tmdb.films[ref].map { held in
                        row.film.fetchedAt > held.fetchedAt || held.fetchedAt > latest
                            || (row.film.fetchedAt == held.fetchedAt && row.changed && !wasChanged)
                    } ?? true
                mergeRow(&tmdb.films, ref, row.film) { _ in lands ? row.film : nil }
                if lands {
                    if row.changed { tmdb.changed.insert(ref) } else { tmdb.changed.remove(ref) }
                }
            }
        case .tmdbSync(let rows):
            for instant in rows.map(\.storedSecond) {
                if let held = tmdb.syncedThrough {
                    if instant > held {
                        tmdb.syncedThrough = instant
                        counts.updated += 1
                    } else {
                        counts.kept += 1
                    }
                } else {
                    tmdb.syncedThrough = instant
                    counts.added += 1
                }
            }
        case .tmdbCalls(let rows):
            for row in rows {
                var kinds = tmdb.calls[row.day] ?? [:]
                mergeRow(&kinds, row.kind, row.calls) { row.calls > $0 ? row.calls : nil }
                tmdb.calls[row.day] = kinds
            }
        }
        return counts
    }

    /// Merges runs by their start (``CacheTable/runs``), each keeping its id when it is free.
    private func mergeRuns(_ rows: [RunRow]) -> ImportCounts {
        var counts = ImportCounts()
        for var run in rows {
            run.record.startedAt = run.record.startedAt.storedSecond
            run.record.finishedAt = run.record.finishedAt?.storedSecond
            let sameStart = runRows.values.filter {
                $0.record.startedAt == run.record.startedAt && $0.record.keyFingerprint == run.record.keyFingerprint
            }.sorted { $0.record.id < $1.record.id }
            if run.sameStartBefore < sameStart.count {
                var held = sameStart[run.sameStartBefore]
                guard held.record.finishedAt == nil, run.record.finishedAt != nil else {
                    counts.kept += 1
                    continue
                }
                // Completed from the finished one: every column but its id and start.
                let id = held.record.id
                held.record = run.record
                held.record.id = id
                held.record.startedAt = sameStart[run.sameStartBefore].record.startedAt
                held.reservedCalls = run.reservedCalls
                runRows[id] = held
                counts.updated += 1
            } else {
                // A taken id: the run is added under the next one, as SQLite's AUTOINCREMENT gives.
                if runRows[run.record.id] != nil || run.record.id <= 0 { run.record.id = lastRunID + 1 }
                lastRunID = max(lastRunID, run.record.id)
                run.sameStartBefore = 0
                runRows[run.record.id] = run
                counts.added += 1
            }
        }
        return counts
    }

    /// A database in memory is itself: no other backend reaches it.
    package nonisolated func databaseIdentity() async throws(StoreError) -> String {
        "memory:\(ObjectIdentifier(self).hashValue)"
    }

    /// Whether key `a` sorts before key `b`: text in byte order, numbers by value, part by part.
    static func keyPrecedes(_ a: [TransferKeyPart], _ b: [TransferKeyPart]) -> Bool {
        for (x, y) in zip(a, b) {
            switch (x, y) {
            case (.text(let s), .text(let t)) where s != t: return precedes(s, t)
            case (.integer(let m), .integer(let n)) where m != n: return m < n
            default: continue
            }
        }
        return false
    }
}
