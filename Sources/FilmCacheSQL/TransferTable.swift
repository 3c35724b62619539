import FilmCacheKit
import Foundation

// What both backends share of a copy: each table's columns (its key first), the SQL that pages
// through it and the upsert that merges by its rule, and the mapping between rows and values.
// Values are in the SQLite store's forms (instants as `Timestamp` text, days as `YYYY-MM-DD`); the
// PostgreSQL backend casts them to its column types, as it does for films (`FilmSQL`).

/// How a column's value is carried between backends.
package enum TransferColumnKind: Sendable {
    case text
    case integer
    case real
    /// An instant, as `Timestamp` text.
    case instant
    /// A calendar day, `YYYY-MM-DD`.
    case day
    /// Bytes as they are: `answers.body`.
    case blob
    /// True or false, as 1 or 0: `answers.found`.
    case flag
}

extension CacheTable {
    /// The columns a copy moves, in the order of the row's values, the key's first; empty for
    /// `films`, which move as `IMDBFilm` (`FilmRow`).
    package var columns: [(name: String, kind: TransferColumnKind)] {
        switch self {
        case .films: []
        case .lookups:
            [
                ("imdb_id", .text), ("status", .text), ("message", .text), ("http_status", .integer),
                ("attempts", .integer), ("first_seen_at", .instant), ("last_attempt_at", .instant),
                ("next_attempt_at", .instant),
            ]
        case .aliases: [("asked_id", .text), ("imdb_id", .text), ("recorded_at", .instant)]
        case .titles:
            [
                ("title_key", .text), ("year", .integer), ("type", .text), ("asked_title", .text), ("imdb_id", .text),
                ("resolved_at", .instant), ("next_attempt_at", .instant),
            ]
        case .posters:
            [
                ("imdb_id", .text), ("url", .text), ("status", .text), ("sha256", .text), ("file", .text),
                ("bytes", .integer), ("content_type", .text), ("etag", .text), ("last_modified", .text),
                ("stored_at", .instant), ("checked_at", .instant), ("message", .text), ("attempts", .integer),
                ("next_attempt_at", .instant),
            ]
        case .quotaLedger:
            [
                ("key_fingerprint", .text), ("quota_day", .day), ("used", .integer), ("daily_limit", .integer),
                ("exhausted_at", .instant), ("reset_observed_at", .instant),
            ]
        case .quotaCalls: [("key_fingerprint", .text), ("minute", .integer), ("calls", .integer)]
        case .answers: [("query", .text), ("body", .blob), ("found", .flag), ("answered_at", .instant)]
        case .demand: [("imdb_id", .text), ("requests", .integer), ("last_requested_at", .instant)]
        case .tmdbFind: [("imdb_id", .text), ("media_type", .text), ("tmdb_id", .integer), ("checked_at", .instant)]
        case .tmdbFilms:
            [
                ("media_type", .text), ("tmdb_id", .integer), ("imdb_id", .text), ("title", .text),
                ("original_title", .text), ("overview", .text), ("release_date", .text), ("runtime", .integer),
                ("genres", .text), ("vote_average", .real), ("vote_count", .integer), ("popularity", .real),
                ("poster_path", .text), ("backdrop_path", .text), ("collection", .text), ("status", .text),
                ("body", .blob), ("fetched_at", .instant), ("changed", .flag),
            ]
        case .tmdbSync: [("id", .integer), ("synced_through", .instant)]
        case .tmdbCalls: [("day", .text), ("kind", .text), ("calls", .integer)]
        case .runs:
            [
                ("id", .integer), ("started_at", .instant), ("finished_at", .instant), ("key_fingerprint", .text),
                ("considered", .integer), ("fresh", .integer), ("fetched", .integer), ("not_found", .integer),
                ("failed", .integer), ("calls", .integer), ("reserved_calls", .integer), ("outcome", .text),
            ]
        }
    }

    /// How many of the first ``columns`` make the key.
    package var keyCount: Int {
        switch self {
        case .titles: 3
        case .quotaLedger, .quotaCalls, .tmdbFilms, .tmdbCalls: 2
        default: 1
        }
    }

    /// The key's columns.
    package var keyColumns: [String] { columns.prefix(keyCount).map(\.name) }

    /// The kinds of the values a page row reads (``pageSQL(select:afterKey:limit:)``): the columns',
    /// and a run's count of earlier runs with the same start.
    package var readKinds: [TransferColumnKind] { columns.map(\.kind) + (self == .runs ? [.integer] : []) }

    /// A page of the table after a key (`afterKey` placeholders for its values; `nil` at the start),
    /// in key order, `limit` rows; `select` gives the expression that reads a column. A run also
    /// reads how many of its database's runs started in the same second with the same key before it.
    package func pageSQL(
        select: ((name: String, kind: TransferColumnKind)) -> String, afterKey: [String]?, limit: String
    ) -> String {
        var expressions = columns.map(select)
        if self == .runs {
            expressions.append(
                "(SELECT count(*) FROM runs AS e WHERE e.started_at = runs.started_at"
                    + " AND e.key_fingerprint = runs.key_fingerprint AND e.id < runs.id)")
        }
        let key = keyColumns.joined(separator: ", ")
        let filter = afterKey.map { " WHERE (\(key)) > (\($0.joined(separator: ", ")))" } ?? ""
        return "SELECT \(expressions.joined(separator: ", ")) FROM \(rawValue)\(filter) ORDER BY \(key) LIMIT \(limit)"
    }

    /// The upsert that merges rows by the table's rule (``CacheTable``), `rows` the placeholders of
    /// each row's values (rows with distinct keys); it changes a held row only when it gives way.
    /// Written in the SQL both backends speak. `nil` for `films` (import's upsert) and `runs`
    /// (matched by their start). `now` is the merge's: a TMDb entry held with a later `fetched_at`
    /// than ``FreshnessPolicy/clockSkew`` after it gives way to any.
    package func mergeSQL(rows: [[String]], now: Date) -> String? {
        let names = columns.map(\.name)
        let keys = keyColumns.joined(separator: ", ")
        let insert =
            "INSERT INTO \(rawValue) (\(names.joined(separator: ", "))) VALUES "
            + rows.map { "(\($0.joined(separator: ", ")))" }.joined(separator: ", ")
        let held = rawValue
        func larger(_ c: String) -> String {
            "\(c) = CASE WHEN excluded.\(c) > \(held).\(c) THEN excluded.\(c) ELSE \(held).\(c) END"
        }
        switch self {
        case .quotaLedger:
            // The larger count, the earlier instant: never lower what either database counted.
            func earlier(_ c: String) -> String {
                "\(c) = CASE WHEN \(held).\(c) IS NULL OR excluded.\(c) < \(held).\(c) THEN excluded.\(c)"
                    + " ELSE \(held).\(c) END"
            }
            func earlierGiven(_ c: String) -> String {
                "(excluded.\(c) IS NOT NULL AND (\(held).\(c) IS NULL OR excluded.\(c) < \(held).\(c)))"
            }
            return insert + " ON CONFLICT (\(keys)) DO UPDATE SET "
                + [larger("used"), larger("daily_limit"), earlier("exhausted_at"), earlier("reset_observed_at")]
                .joined(separator: ", ")
                + " WHERE excluded.used > \(held).used OR excluded.daily_limit > \(held).daily_limit OR "
                + earlierGiven("exhausted_at") + " OR " + earlierGiven("reset_observed_at")
        case .quotaCalls, .tmdbCalls:
            return insert + " ON CONFLICT (\(keys)) DO UPDATE SET calls = excluded.calls"
                + " WHERE excluded.calls > \(held).calls"
        case .tmdbFilms:
            // The later fetch wins, as in import; of one fetch, the copy the changes feed marked. The
            // bound is a literal in `Timestamp` form (digits only), which both backends compare to an
            // instant column.
            let updates = names.dropFirst(keyCount).map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
            let latest = Timestamp.format(now.addingTimeInterval(FreshnessPolicy.clockSkew))
            return insert + " ON CONFLICT (\(keys)) DO UPDATE SET \(updates)"
                + " WHERE excluded.fetched_at > \(held).fetched_at OR \(held).fetched_at > '\(latest)'"
                + " OR (excluded.fetched_at = \(held).fetched_at AND excluded.changed > \(held).changed)"
        case .demand:
            // The larger count and the later request: merging twice counts no request twice.
            return insert + " ON CONFLICT (\(keys)) DO UPDATE SET "
                + [larger("requests"), larger("last_requested_at")].joined(separator: ", ")
                + " WHERE excluded.requests > \(held).requests"
                + " OR excluded.last_requested_at > \(held).last_requested_at"
        case .lookups, .aliases, .titles, .posters, .answers, .tmdbFind, .tmdbSync:
            let updates = names.dropFirst(keyCount).map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
            let stamp = laterWins
            let titleRule = self == .titles ? " AND " + TitleIndexRow.replacesSQL : ""
            return insert + " ON CONFLICT (\(keys)) DO UPDATE SET \(updates)"
                + " WHERE excluded.\(stamp) > \(held).\(stamp)" + titleRule
        case .films, .runs:
            return nil
        }
    }

    /// The instant whose later value wins, for the tables merged that way.
    private var laterWins: String {
        switch self {
        case .lookups: "last_attempt_at"
        case .aliases: "recorded_at"
        case .titles: "resolved_at"
        case .posters: "checked_at"
        case .answers: "answered_at"
        case .films, .tmdbFilms: "fetched_at"
        case .tmdbFind: "checked_at"
        case .tmdbSync: "synced_through"
        case .quotaLedger, .quotaCalls, .runs, .demand, .tmdbCalls: ""
        }
    }
}

extension TransferCursor {
    /// The values of the key a page starts after; `nil` at the start.
    package var keyValues: [SQLValue]? {
        keyParts?.map { part in
            switch part {
            case .text(let text): .text(text)
            case .integer(let number): .integer(number)
            }
        }
    }
}

extension TransferPage {
    /// Each row's values, in ``CacheTable/columns`` order; empty for films.
    package var rowValues: [[SQLValue]] {
        func instant(_ date: Date?) -> SQLValue { .optional(date.map(Timestamp.format)) }
        switch self {
        case .films: return []
        case .lookups(let rows):
            return rows.map {
                [
                    .text($0.imdbID), .text($0.status.rawValue), .optional($0.message), .optional($0.httpStatus),
                    .integer($0.attempts), instant($0.firstSeenAt), instant($0.lastAttemptAt),
                    instant($0.nextAttemptAt),
                ]
            }
        case .aliases(let rows):
            return rows.map { [.text($0.askedID), .text($0.imdbID), instant($0.recordedAt)] }
        case .titles(let rows):
            return rows.map {
                [
                    .text($0.key.title), .integer($0.key.year), .text($0.key.type), .text($0.askedTitle),
                    .optional($0.imdbID), instant($0.answeredAt), instant($0.nextAttemptAt),
                ]
            }
        case .posters(let rows):
            return rows.map {
                [
                    .text($0.imdbID), .text($0.url), .text($0.status), .optional($0.sha256), .optional($0.file),
                    .optional($0.bytes), .optional($0.contentType), .optional($0.etag), .optional($0.lastModified),
                    instant($0.storedAt), instant($0.checkedAt), .optional($0.message), .integer($0.attempts),
                    instant($0.nextAttemptAt),
                ]
            }
        case .quotaLedger(let rows):
            return rows.map {
                [
                    .text($0.keyFingerprint), .text($0.day), .integer($0.used), .integer($0.dailyLimit),
                    instant($0.exhaustedAt), instant($0.resetObservedAt),
                ]
            }
        case .quotaCalls(let rows):
            return rows.map { [.text($0.keyFingerprint), .integer($0.minute), .integer($0.calls)] }
        case .answers(let rows):
            return rows.map { [.text($0.query), .blob($0.body), .integer($0.found ? 1 : 0), instant($0.answeredAt)] }
        case .demand(let rows):
            return rows.map { [.text($0.imdbID), .integer($0.requests), instant($0.lastRequestedAt)] }
        case .tmdbFind(let rows):
            return rows.map {
                [
                    .text($0.imdbID), .optional($0.ref?.mediaType.rawValue), .optional($0.ref?.id),
                    instant($0.checkedAt),
                ]
            }
        case .tmdbFilms(let rows):
            return rows.map { row in
                let f = row.film
                return [
                    .text(f.ref.mediaType.rawValue), .integer(f.ref.id), .optional(f.imdbID), .text(f.title),
                    .optional(f.originalTitle), .optional(f.overview), .optional(f.releaseDate), .optional(f.runtime),
                    .optional(f.genres.isEmpty ? nil : f.genreText), .optional(f.voteAverage), .optional(f.voteCount),
                    .optional(f.popularity), .optional(f.posterPath), .optional(f.backdropPath),
                    .optional(f.collection),
                    .optional(f.status), .blob(f.body), instant(f.fetchedAt), .integer(row.changed ? 1 : 0),
                ]
            }
        case .tmdbSync(let rows):
            return rows.map { [.integer(1), instant($0)] }
        case .tmdbCalls(let rows):
            return rows.map { [.text($0.day), .text($0.kind), .integer($0.calls)] }
        case .runs(let rows):
            return rows.map {
                let r = $0.record
                return [
                    .integer(r.id), instant(r.startedAt), instant(r.finishedAt), .text(r.keyFingerprint),
                    .integer(r.considered), .integer(r.fresh), .integer(r.fetched), .integer(r.notFound),
                    .integer(r.failed), .integer(r.calls), .integer($0.reservedCalls), .optional(r.outcome),
                ]
            }
        }
    }

    /// The page of `table` made of rows read by ``CacheTable/pageSQL(select:afterKey:limit:)``.
    package init(_ table: CacheTable, rows: [[SQLValue]]) {
        func rowsOf<T>(_ make: (TransferValues) -> T) -> [T] { rows.map { make(TransferValues($0)) } }
        switch table {
        case .films: self = .films([])
        case .lookups:
            self = .lookups(
                rowsOf {
                    LookupRow(
                        imdbID: $0.text(0), status: LookupStatus(rawValue: $0.text(1)) ?? .failed,
                        message: $0.optionalText(2), httpStatus: $0.optionalInt(3), attempts: $0.int(4),
                        firstSeenAt: $0.instant(5), lastAttemptAt: $0.instant(6), nextAttemptAt: $0.instant(7))
                })
        case .aliases:
            self = .aliases(rowsOf { FilmAlias(askedID: $0.text(0), imdbID: $0.text(1), recordedAt: $0.instant(2)) })
        case .titles:
            self = .titles(
                rowsOf {
                    TitleAnswer(
                        key: TitleKey(title: $0.text(0), year: $0.int(1), type: $0.text(2)), askedTitle: $0.text(3),
                        imdbID: $0.optionalText(4), answeredAt: $0.instant(5), nextAttemptAt: $0.optionalInstant(6))
                })
        case .posters:
            self = .posters(
                rowsOf {
                    PosterRow(
                        imdbID: $0.text(0), url: $0.text(1), status: $0.text(2), sha256: $0.optionalText(3),
                        file: $0.optionalText(4), bytes: $0.optionalInt(5), contentType: $0.optionalText(6),
                        etag: $0.optionalText(7), lastModified: $0.optionalText(8), storedAt: $0.optionalInstant(9),
                        checkedAt: $0.instant(10), message: $0.optionalText(11), attempts: $0.int(12),
                        nextAttemptAt: $0.optionalInstant(13))
                })
        case .quotaLedger:
            self = .quotaLedger(
                rowsOf {
                    LedgerEntry.row(
                        keyFingerprint: $0.text(0), day: $0.text(1), used: $0.int(2), dailyLimit: $0.int(3),
                        exhaustedAt: $0.optionalInstant(4), resetObservedAt: $0.optionalInstant(5))
                })
        case .quotaCalls:
            self = .quotaCalls(rowsOf { MinuteCalls(keyFingerprint: $0.text(0), minute: $0.int(1), calls: $0.int(2)) })
        case .answers:
            self = .answers(
                rowsOf {
                    CachedAnswer(query: $0.text(0), body: $0.bytes(1), found: $0.int(2) != 0, answeredAt: $0.instant(3))
                })
        case .demand:
            self = .demand(
                rowsOf {
                    DemandEntry(imdbID: $0.text(0), title: nil, requests: $0.int(1), lastRequestedAt: $0.instant(2))
                })
        case .tmdbFind:
            self = .tmdbFind(
                rowsOf { row in
                    let type = TMDbMediaType(rawValue: row.text(1))
                    let ref = type.flatMap { type in row.optionalInt(2).map { TMDbRef(type, $0) } }
                    return TMDbMapping(imdbID: row.text(0), ref: ref, checkedAt: row.instant(3))
                })
        case .tmdbFilms:
            self = .tmdbFilms(
                rowsOf {
                    let film = TMDbFilm(
                        ref: TMDbRef(TMDbMediaType(rawValue: $0.text(0)) ?? .movie, $0.int(1)),
                        imdbID: $0.optionalText(2),
                        title: $0.text(3), originalTitle: $0.optionalText(4), overview: $0.optionalText(5),
                        releaseDate: $0.optionalText(6), runtime: $0.optionalInt(7),
                        genres: TMDbFilm.genres(fromText: $0.optionalText(8)), voteAverage: $0.optionalDouble(9),
                        voteCount: $0.optionalInt(10), popularity: $0.optionalDouble(11),
                        posterPath: $0.optionalText(12),
                        backdropPath: $0.optionalText(13), collection: $0.optionalText(14), status: $0.optionalText(15),
                        body: $0.bytes(16), fetchedAt: $0.instant(17))
                    return TMDbFilmRow(film: film, changed: $0.int(18) != 0)
                })
        case .tmdbSync:
            self = .tmdbSync(rowsOf { $0.instant(1) })
        case .tmdbCalls:
            self = .tmdbCalls(rowsOf { TMDbDayCalls(day: $0.text(0), kind: $0.text(1), calls: $0.int(2)) })
        case .runs:
            self = .runs(
                rowsOf {
                    RunRow(
                        record: RunRecord(
                            id: $0.int(0), startedAt: $0.instant(1), finishedAt: $0.optionalInstant(2),
                            keyFingerprint: $0.text(3), considered: $0.int(4), fresh: $0.int(5), fetched: $0.int(6),
                            notFound: $0.int(7), failed: $0.int(8), calls: $0.int(9), outcome: $0.optionalText(11)),
                        reservedCalls: $0.int(10), sameStartBefore: $0.int(12))
                })
        }
    }
}

/// One row's values by index, read as their column's type; a value of another type reads as absent.
private struct TransferValues {
    let values: [SQLValue]

    init(_ values: [SQLValue]) { self.values = values }

    func optionalText(_ index: Int) -> String? {
        guard index < values.count, case .text(let text) = values[index] else { return nil }
        return text
    }

    func optionalInt(_ index: Int) -> Int? {
        guard index < values.count else { return nil }
        switch values[index] {
        case .integer(let number): return number
        case .real(let number): return Int(exactly: number)
        default: return nil
        }
    }

    func optionalDouble(_ index: Int) -> Double? {
        guard index < values.count else { return nil }
        switch values[index] {
        case .real(let number): return number
        case .integer(let number): return Double(number)
        default: return nil
        }
    }

    func optionalInstant(_ index: Int) -> Date? { optionalText(index).flatMap(Timestamp.parse) }

    func bytes(_ index: Int) -> [UInt8] {
        guard index < values.count, case .blob(let bytes) = values[index] else { return [] }
        return bytes
    }

    func text(_ index: Int) -> String { optionalText(index) ?? "" }
    func int(_ index: Int) -> Int { optionalInt(index) ?? 0 }
    func instant(_ index: Int) -> Date { optionalInstant(index) ?? .distantPast }
}
