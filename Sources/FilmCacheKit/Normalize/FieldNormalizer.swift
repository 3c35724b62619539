/// Types the fields of one DTO and collects a warning for each one it cannot read.
struct FieldNormalizer {
    /// The requested ID, named in every warning.
    let imdbID: String
    /// Warnings in field order.
    private(set) var warnings: [NormalizationWarning] = []

    init(imdbID: String) {
        self.imdbID = imdbID
    }

    /// Sets every field of `film` from `dto`.
    mutating func fill(_ film: inout IMDBFilm, from dto: IMDBFilmDTO) {
        for anomaly in dto.anomalies { warn(anomaly.field, anomaly.message) }
        if let bodyID = text(dto.imdbID), bodyID != imdbID {
            warn("imdbID", "body says \(bodyID), requested \(imdbID); kept the requested ID")
        }
        film.title = text(dto.title)
        film.type = text(dto.type).map(FilmType.init(omdb:))
        (film.yearStart, film.yearEnd) = year(dto.year)
        film.rated = text(dto.rated)
        film.released = date("Released", dto.released)
        film.runtimeMinutes = runtime(dto.runtime)
        film.genres = genres(dto.genre)
        film.directors = names(dto.director)
        film.writers = credits(dto.writer)
        film.actors = names(dto.actors)
        film.languages = names(dto.language)
        film.countries = names(dto.country)
        film.plot = text(dto.plot)
        film.awards = text(dto.awards)
        film.posterURL = text(dto.poster)
        film.imdbRating = imdbRating(dto.imdbRating)
        film.imdbVotes = integer("imdbVotes", dto.imdbVotes)
        film.metascore = integer("Metascore", dto.metascore, max: 100)
        film.ratings = ratings(dto.ratings)
        film.boxOfficeUSD = integer("BoxOffice", dto.boxOffice, dollar: true)
        film.totalSeasons = integer("totalSeasons", dto.totalSeasons)
        film.season = integer("Season", dto.season)
        film.episode = integer("Episode", dto.episode)
        film.seriesID = text(dto.seriesID)
        film.dvd = date("DVD", dto.dvd)
        film.production = text(dto.production)
        film.website = text(dto.website)
    }

    private mutating func warn(_ field: String, _ message: String) {
        warnings.append(NormalizationWarning(imdbID: imdbID, field: field, message: message))
    }

    /// Runs `body` on the trimmed bytes of a present value; `nil` for missing, blank or `N/A`.
    @inline(__always)
    private func present<R>(_ value: String?, _ body: (UnsafeBufferPointer<UInt8>, Range<Int>) -> R?) -> R? {
        guard let value else { return nil }
        return FieldText.withBytes(value) { b in
            let r = FieldText.trimmed(b, 0..<b.count)
            guard !r.isEmpty, !FieldText.isNA(b, r) else { return nil }
            return body(b, r)
        }
    }

    /// Trimmed text, reusing the original string when there was nothing to trim.
    private func text(_ value: String?) -> String? {
        present(value) { b, r in r.count == b.count ? value : FieldText.string(b, r) }
    }

    private mutating func year(_ value: String?) -> (Int?, Int?) {
        guard let value else { return (nil, nil) }
        let reading = present(value) { b, r in FieldText.year(b, r) }
        switch reading {
        case nil: return (nil, nil)
        case .years(let start, let end)?: return (start, end)
        case .endsBeforeStart(let start)?:
            warn("Year", "range \"\(value)\" ends before it starts; kept the first year")
            return (start, nil)
        case .unreadable?:
            warn("Year", "not a year or year range: \"\(value)\"")
            return (nil, nil)
        }
    }

    private mutating func date(_ field: String, _ value: String?) -> CalendarDate? {
        guard let value else { return nil }
        switch present(value, { b, r in FieldText.date(b, r) }) {
        case nil: return nil
        case .date(let date)?: return date
        case .impossible?:
            warn(field, "no such day: \"\(value)\"")
            return nil
        case .unreadable?:
            warn(field, "not a date like \"12 Jan 2001\" or \"2001-01-12\": \"\(value)\"")
            return nil
        }
    }

    private mutating func runtime(_ value: String?) -> Int? {
        guard let value else { return nil }
        switch present(value, { b, r in Optional(FieldText.runtime(b, r)) }) {
        case nil: return nil
        case let minutes??: return minutes
        case .some(nil):
            warn("Runtime", "not a runtime like \"120 min\" or \"1 h 50 min\": \"\(value)\"")
            return nil
        }
    }

    private mutating func integer(_ field: String, _ value: String?, max: Int? = nil, dollar: Bool = false) -> Int? {
        guard let value else { return nil }
        switch present(value, { b, r in Optional(FieldText.integer(b, r, dollar: dollar)) }) {
        case nil: return nil
        case let n??:
            if let max, n > max {
                warn(field, "\(n) is above \(max)")
                return nil
            }
            return n
        case .some(nil):
            warn(field, dollar ? "not a US dollar amount: \"\(value)\"" : "not a whole number: \"\(value)\"")
            return nil
        }
    }

    private mutating func imdbRating(_ value: String?) -> Double? {
        guard let value else { return nil }
        switch present(value, { b, r in Optional(FieldText.decimal(b, r)) }) {
        case nil: return nil
        case let (mantissa, scale)??:
            // Both are exact in a Double, so one division gives the nearest Double to the text.
            let rating = Double(mantissa) / Double(scale)
            guard rating <= 10 else {
                warn("imdbRating", "\(value) is outside 0–10")
                return nil
            }
            return rating
        case .some(nil):
            warn("imdbRating", "not a rating like \"7.9\": \"\(value)\"")
            return nil
        }
    }

    private mutating func ratings(_ entries: [RatingDTO]) -> [Rating] {
        var result: [Rating] = []
        result.reserveCapacity(entries.count)
        for entry in entries {
            guard let source = text(entry.source) else {
                warn("Ratings", "entry with no source (value \"\(entry.value)\"); skipped")
                continue
            }
            guard let value = text(entry.value) else {
                warn("Ratings", "\(source): no value; skipped")
                continue
            }
            let score = FieldText.withBytes(value) { b in FieldText.ratingScore(b, 0..<b.count) }
            if score == nil { warn("Ratings", "\(source): value \"\(value)\" is not a 0–100 score, kept as text") }
            result.append(Rating(source: RatingSource(omdb: source), value: value, score: score))
        }
        return result
    }

    // MARK: - Lists

    private func names(_ value: String?) -> [String] {
        guard let value else { return [] }
        return FieldText.withBytes(value) { b in
            var result: [String] = []
            FieldText.forEachItem(b, 0..<b.count) { r in Self.appendUnique(FieldText.string(b, r), to: &result) }
            return result
        }
    }

    private func genres(_ value: String?) -> [String] {
        guard let value else { return [] }
        return FieldText.withBytes(value) { b in
            var result: [String] = []
            FieldText.forEachItem(b, 0..<b.count) { r in
                Self.appendUnique(Genre.canonical(FieldText.string(b, r)), to: &result)
            }
            return result
        }
    }

    private func credits(_ value: String?) -> [Credit] {
        guard let value else { return [] }
        return FieldText.withBytes(value) { b in
            var result: [Credit] = []
            FieldText.forEachItem(b, 0..<b.count) { r in
                let credit = Self.credit(b, r)
                if !result.contains(credit) { result.append(credit) }
            }
            return result
        }
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

    private static func appendUnique(_ item: String, to list: inout [String]) {
        if !list.contains(item) { list.append(item) }
    }
}
