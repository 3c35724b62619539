/// Types the fields of one body and collects a warning for each one it cannot read.
///
/// It reads values where the JSON reader left them (byte ranges of the body), so a field
/// that becomes a number, a date or a list never becomes an intermediate `String`.
struct FieldNormalizer {
    /// The requested ID, named in every warning.
    let imdbID: String
    /// The values, by key.
    private let raw: RawBody
    /// The body the ranges in `raw` point into; empty when every value is `.text`.
    private let body: UnsafeBufferPointer<UInt8>
    /// Warnings in field order.
    private(set) var warnings: [NormalizationWarning] = []

    /// Prepares to normalize `raw`, whose byte ranges point into `body`.
    init(imdbID: String, raw: RawBody, body: UnsafeBufferPointer<UInt8>) {
        self.imdbID = imdbID
        self.raw = raw
        self.body = body
    }

    /// The ID the body names, when it is a well-formed IMDb ID.
    var bodyID: String? { text(.imdbID).flatMap { PlainTextWorklist.isIMDbID($0) ? $0 : nil } }

    /// Whether the body names a title.
    var hasTitle: Bool { text(.title).map { !$0.isEmpty } ?? false }

    /// Sets every field of `film`.
    mutating func fill(_ film: inout IMDBFilm) {
        for anomaly in raw.anomalies { warn(anomaly.field, anomaly.message) }
        if let bodyID = text(.imdbID), bodyID != imdbID {
            warn("imdbID", "body says \(bodyID), stored under \(imdbID)")
        }
        film.title = text(.title)
        film.type = type()
        (film.yearStart, film.yearEnd) = year()
        film.rated = text(.rated)
        film.released = date(.released)
        film.runtimeMinutes = runtime()
        film.genres = genres()
        film.directors = names(.director)
        film.writers = credits()
        film.actors = names(.actors)
        film.languages = names(.language)
        film.countries = names(.country)
        film.plot = text(.plot)
        film.awards = text(.awards)
        film.posterURL = text(.poster)
        film.imdbRating = imdbRating()
        film.imdbVotes = integer(.imdbVotes)
        film.metascore = integer(.metascore, max: 100)
        film.ratings = ratings()
        film.boxOfficeUSD = integer(.boxOffice, dollar: true)
        film.totalSeasons = integer(.totalSeasons)
        film.season = integer(.season)
        film.episode = integer(.episode)
        film.seriesID = text(.seriesID)
        film.dvd = date(.dvd)
        film.production = text(.production)
        film.website = text(.website)
    }

    private mutating func warn(_ field: String, _ message: String) {
        warnings.append(NormalizationWarning(imdbID: imdbID, field: field, message: message))
    }

    /// Runs `use` on the trimmed bytes of a present value; `nil` for missing, blank or `N/A`.
    @inline(__always)
    private func present<R>(_ value: RawValue, _ use: (UnsafeBufferPointer<UInt8>, Range<Int>) -> R?) -> R? {
        value.withBytes(in: body) { field in
            let r = FieldText.trimmed(field.buffer, field.range)
            guard !r.isEmpty, !FieldText.isNA(field.buffer, r) else { return nil }
            return use(field.buffer, r)
        }
    }

    @inline(__always)
    private func present<R>(_ key: OMDbKey, _ use: (UnsafeBufferPointer<UInt8>, Range<Int>) -> R?) -> R? {
        present(raw[key], use)
    }

    /// The value quoted for a warning.
    private func quoted(_ key: OMDbKey) -> String {
        "\"" + (raw[key].string(in: body) ?? "") + "\""
    }

    /// Trimmed text, reusing a decoded string when there was nothing to trim.
    private func text(_ value: RawValue) -> String? {
        if case .text(let s) = value {
            return present(value) { b, r in r.count == b.count ? s : FieldText.string(b, r) }
        }
        return present(value) { b, r in FieldText.string(b, r) }
    }

    private func text(_ key: OMDbKey) -> String? { text(raw[key]) }

    private func type() -> FilmType? {
        present(.type) { b, r in
            switch r.count {
            case 5 where FieldText.equalsFolded(b, r, "movie"): .movie
            case 6 where FieldText.equalsFolded(b, r, "series"): .series
            case 7 where FieldText.equalsFolded(b, r, "episode"): .episode
            case 4 where FieldText.equalsFolded(b, r, "game"): .game
            default: FilmType(omdb: FieldText.string(b, r))
            }
        }
    }

    private mutating func year() -> (Int?, Int?) {
        switch present(.year, { b, r in FieldText.year(b, r) }) {
        case nil: return (nil, nil)
        case .years(let start, let end)?: return (start, end)
        case .endsBeforeStart(let start)?:
            warn("Year", "range \(quoted(.year)) ends before it starts; kept the first year")
            return (start, nil)
        case .unreadable?:
            warn("Year", "not a year or year range: \(quoted(.year))")
            return (nil, nil)
        }
    }

    private mutating func date(_ key: OMDbKey) -> CalendarDate? {
        switch present(key, { b, r in FieldText.date(b, r) }) {
        case nil: return nil
        case .date(let date)?: return date
        case .impossible?:
            warn(key.name, "no such day: \(quoted(key))")
            return nil
        case .unreadable?:
            warn(key.name, "not a date like \"12 Jan 2001\" or \"2001-01-12\": \(quoted(key))")
            return nil
        }
    }

    private mutating func runtime() -> Int? {
        switch present(.runtime, { b, r in Optional(FieldText.runtime(b, r)) }) {
        case nil: return nil
        case let minutes??: return minutes
        case .some(nil):
            warn("Runtime", "not a runtime like \"120 min\" or \"1 h 50 min\": \(quoted(.runtime))")
            return nil
        }
    }

    private mutating func integer(_ key: OMDbKey, max: Int? = nil, dollar: Bool = false) -> Int? {
        switch present(key, { b, r in Optional(FieldText.integer(b, r, dollar: dollar)) }) {
        case nil: return nil
        case let n??:
            if let max, n > max {
                warn(key.name, "\(n) is above \(max)")
                return nil
            }
            return n
        case .some(nil):
            warn(key.name, dollar ? "not a US dollar amount: \(quoted(key))" : "not a whole number: \(quoted(key))")
            return nil
        }
    }

    private mutating func imdbRating() -> Double? {
        switch present(.imdbRating, { b, r in Optional(FieldText.decimal(b, r)) }) {
        case nil: return nil
        case let (mantissa, scale)??:
            // Both are exact in a Double, so one division gives the nearest Double to the text.
            let rating = Double(mantissa) / Double(scale)
            guard rating <= 10 else {
                warn("imdbRating", "\(quoted(.imdbRating)) is outside 0–10")
                return nil
            }
            return rating
        case .some(nil):
            warn("imdbRating", "not a rating like \"7.9\": \(quoted(.imdbRating))")
            return nil
        }
    }

    private mutating func ratings() -> [Rating] {
        var result: [Rating] = []
        result.reserveCapacity(raw.ratings.count)
        for entry in raw.ratings {
            let source = present(entry.source) { b, r -> RatingSource in
                switch r.count {
                case 23 where FieldText.equals(b, r, "Internet Movie Database"): .imdb
                case 15 where FieldText.equals(b, r, "Rotten Tomatoes"): .rottenTomatoes
                case 10 where FieldText.equals(b, r, "Metacritic"): .metacritic
                default: RatingSource(omdb: FieldText.string(b, r))
                }
            }
            guard let source else {
                warn("Ratings", "entry with no source (value \"\(entry.value.string(in: body) ?? "")\"); skipped")
                continue
            }
            guard
                let (value, score) = present(
                    entry.value, { b, r in (FieldText.string(b, r), FieldText.ratingScore(b, r)) })
            else {
                warn("Ratings", "\(source): no value; skipped")
                continue
            }
            if score == nil { warn("Ratings", "\(source): value \"\(value)\" is not a 0–100 score, kept as text") }
            result.append(Rating(source: source, value: value, score: score))
        }
        return result
    }

    // MARK: - Lists

    private func names(_ key: OMDbKey) -> [String] {
        present(key) { b, r in
            var result: [String] = []
            var seen: Set<String> = []
            FieldText.forEachItem(b, r) { item in
                Self.appendUnique(FieldText.string(b, item), to: &result, seen: &seen)
            }
            return result
        } ?? []
    }

    private func genres() -> [String] {
        present(.genre) { b, r in
            var result: [String] = []
            var seen: Set<String> = []
            FieldText.forEachItem(b, r) { item in
                Self.appendUnique(Genre.canonical(FieldText.string(b, item)), to: &result, seen: &seen)
            }
            return result
        } ?? []
    }

    private func credits() -> [Credit] {
        present(.writer) { b, r in
            var result: [Credit] = []
            var seen: Set<Credit> = []
            FieldText.forEachItem(b, r) { item in Self.appendUnique(Self.credit(b, item), to: &result, seen: &seen) }
            return result
        } ?? []
    }

    /// `Jane Doe (screenplay)` → name and role; text without a trailing `(…)` is all name.
    private static func credit(_ b: UnsafeBufferPointer<UInt8>, _ r: Range<Int>) -> Credit {
        guard b[r.upperBound - 1] == UInt8(ascii: ")"),
            let open = r.firstIndex(where: { b[$0] == UInt8(ascii: "(") })
        else { return Credit(name: FieldText.string(b, r)) }
        let name = FieldText.trimmed(b, r.lowerBound..<open)
        guard !name.isEmpty else { return Credit(name: FieldText.string(b, r)) }
        let role = FieldText.trimmed(b, (open + 1)..<(r.upperBound - 1))
        return Credit(name: FieldText.string(b, name), role: role.isEmpty ? nil : FieldText.string(b, role))
    }

    /// Appends `item` unless it is already there.
    ///
    /// OMDb lists are a handful long, so a linear scan is cheapest; past 16 items a set takes
    /// over so that a pathological body cannot make this quadratic.
    private static func appendUnique<T: Hashable>(_ item: T, to list: inout [T], seen: inout Set<T>) {
        if list.count < 16 {
            if !list.contains(item) { list.append(item) }
            return
        }
        if seen.isEmpty { seen = Set(list) }
        if seen.insert(item).inserted { list.append(item) }
    }
}
