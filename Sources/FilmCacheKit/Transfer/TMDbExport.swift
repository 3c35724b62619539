import Foundation

/// Writes the TMDb side of a cache as export lines (``TMDbLine``) or as TMDb's CSV, reading the
/// store only.
///
/// Entries come in (media type, ID) order, then mappings in IMDb ID order, each read in pages of
/// `pageSize` and handed to the sink a page at a time, so memory stays flat whatever the cache's
/// size. Like the films' export, it is not one snapshot: a warm writing meanwhile may land an entry
/// before or after its page is read, and each is written once.
public struct TMDbExport: Sendable {
    /// Where an export's bytes go, a page at a time.
    public typealias Sink = ([UInt8]) async throws(TransferError) -> Void

    public let store: any TMDbStore
    /// Only entries fetched, and mappings checked, at or after this instant (all when `nil`).
    public var since: Date?
    /// Rows read at once.
    public var pageSize: Int

    /// What an export wrote.
    public struct Written: Sendable, Equatable {
        public var entries = 0
        public var mappings = 0
    }

    public init(store: any TMDbStore, since: Date? = nil, pageSize: Int = 1000) {
        self.store = store
        self.since = since
        self.pageSize = max(1, pageSize)
    }

    /// Whether the store holds any TMDb entry or mapping: an export writes TMDb lines only then.
    public func holdsAny() async throws(StoreError) -> Bool {
        if try await !store.tmdbFilms(after: nil, limit: 1).isEmpty { return true }
        return try await !store.tmdbMappings(after: nil, limit: 1).isEmpty
    }

    /// Writes every entry, then every mapping, as export lines; `progress` gets the lines written so far.
    public func writeLines(to sink: Sink, progress: (Int) -> Void = { _ in }) async throws(TransferError) -> Written {
        var written = Written()
        written.entries = try await entries(to: sink) { films, out in
            for film in films { TMDbLine.appendFilm(film, to: &out) }
        } progress: {
            progress($0)
        }
        let entries = written.entries
        var after: String?
        while true {
            let page: [TMDbMapping]
            do {
                page = try await store.tmdbMappings(after: after, limit: pageSize)
            } catch {
                throw .store(error)
            }
            guard let last = page.last else { break }
            after = last.imdbID
            var out: [UInt8] = []
            for mapping in page where bound.map({ mapping.checkedAt >= $0 }) ?? true {
                TMDbLine.appendMapping(mapping, to: &out)
                written.mappings += 1
            }
            if !out.isEmpty { try await sink(out) }
            progress(entries + written.mappings)
            if page.count < pageSize { break }
        }
        return written
    }

    /// Writes TMDb's CSV: a header of the entries' columns, then one record an entry (no body, no
    /// mappings); returns how many entries.
    public func writeCSV(to sink: Sink, progress: (Int) -> Void = { _ in }) async throws(TransferError) -> Int {
        try await sink(TMDbCSV.header)
        return try await entries(to: sink) { films, out in
            for film in films { TMDbCSV.appendRecord(film, to: &out) }
        } progress: {
            progress($0)
        }
    }

    /// `since` rounded up to the whole second the store keeps, so that nothing stamped before it is included.
    private var bound: Date? {
        since.map { Date(timeIntervalSince1970: $0.timeIntervalSince1970.rounded(.up)) }
    }

    /// Pages through the entries, rendering each page with `render` and handing it to `sink`.
    private func entries(
        to sink: Sink, render: ([TMDbFilm], inout [UInt8]) -> Void, progress: (Int) -> Void
    ) async throws(TransferError) -> Int {
        var after: TMDbRef?
        var count = 0
        while true {
            let page: [TMDbFilm]
            do {
                page = try await store.tmdbFilms(after: after, limit: pageSize)
            } catch {
                throw .store(error)
            }
            guard let last = page.last else { break }
            after = last.ref
            let kept = bound.map { bound in page.filter { $0.fetchedAt >= bound } } ?? page
            var out: [UInt8] = []
            render(kept, &out)
            if !out.isEmpty { try await sink(out) }
            count += kept.count
            progress(count)
            if page.count < pageSize { break }
        }
        return count
    }
}

/// TMDb's CSV form: one header row of the entries' columns (``TMDbLine/columns``), then one record
/// an entry, each column as the cache keeps it (genres as `Drama, Thriller`), NULL an empty field,
/// RFC 4180 quoting, CRLF. No body: the JSON Lines form carries it.
package enum TMDbCSV {
    /// The header record, CRLF included.
    package static var header: [UInt8] {
        Array((TMDbLine.columns.joined(separator: ",") + "\r\n").utf8)
    }

    /// Appends the record of `film`, CRLF included.
    package static func appendRecord(_ film: TMDbFilm, to out: inout [UInt8]) {
        let fields: [String?] = [
            film.ref.mediaType.rawValue, String(film.ref.id), film.imdbID, film.title, film.originalTitle,
            film.overview, film.releaseDate, film.runtime.map(String.init), film.genreText,
            film.voteAverage.map { "\($0)" }, film.voteCount.map(String.init), film.popularity.map { "\($0)" },
            film.posterPath, film.backdropPath, film.collection, film.status, Timestamp.format(film.fetchedAt),
        ]
        for (index, field) in fields.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            if let field { FilmCSV.appendField(field, to: &out) }
        }
        out += "\r\n".utf8
    }
}
