/// A string value of an OMDb body as the reader found it, before any `String` is made.
enum RawValue {
    /// Missing, or not a string (the reader recorded an anomaly).
    case absent
    /// Valid UTF-8 without escapes: the value is these bytes of the body, as is.
    case bytes(start: Int, end: Int)
    /// Decoded (escapes) or repaired (bad UTF-8) text.
    case text(String)

    /// The value as text; `body` is the buffer the reader read.
    func string(in body: UnsafeBufferPointer<UInt8>) -> String? {
        switch self {
        case .absent: nil
        case .bytes(let start, let end): FieldText.string(body, start..<end)
        case .text(let text): text
        }
    }

    /// Runs `use` on the value's bytes; `nil` when absent.
    @inline(__always)
    func withBytes<R>(in body: UnsafeBufferPointer<UInt8>, _ use: (FieldBytes) -> R?) -> R? {
        switch self {
        case .absent: nil
        case .bytes(let start, let end): use(FieldBytes(buffer: body, range: start..<end))
        case .text(let text): FieldText.withBytes(text) { use(FieldBytes(buffer: $0, range: 0..<$0.count)) }
        }
    }
}

/// Where a field's bytes are: a buffer and the range of the value in it.
struct FieldBytes {
    /// The whole body, or the UTF-8 of one decoded string.
    let buffer: UnsafeBufferPointer<UInt8>
    /// The value within `buffer`.
    let range: Range<Int>
}

/// One `Ratings` entry as the reader found it.
struct RawRating {
    /// `Source`.
    var source: RawValue
    /// `Value`.
    var value: RawValue
}

/// Everything the reader found in a `"Response":"True"` body, by key, still as bytes.
struct RawBody {
    /// Indexed by `OMDbKey.rawValue`.
    var values = [RawValue](repeating: .absent, count: OMDbKey.caseCount)
    /// Entries of `Ratings` that had a `Source` and a `Value` string.
    var ratings: [RawRating] = []
    /// What did not fit the shape, in body order.
    var anomalies: [WireAnomaly] = []

    /// The value of `key`.
    @inline(__always)
    subscript(key: OMDbKey) -> RawValue { values[key.rawValue] }

    /// A raw body holding the DTO's strings, so one normalizer serves both entry points.
    init(_ dto: IMDBFilmDTO) {
        func v(_ s: String?) -> RawValue { s.map(RawValue.text) ?? .absent }
        values[OMDbKey.imdbID.rawValue] = v(dto.imdbID)
        values[OMDbKey.title.rawValue] = v(dto.title)
        values[OMDbKey.year.rawValue] = v(dto.year)
        values[OMDbKey.rated.rawValue] = v(dto.rated)
        values[OMDbKey.released.rawValue] = v(dto.released)
        values[OMDbKey.runtime.rawValue] = v(dto.runtime)
        values[OMDbKey.genre.rawValue] = v(dto.genre)
        values[OMDbKey.director.rawValue] = v(dto.director)
        values[OMDbKey.writer.rawValue] = v(dto.writer)
        values[OMDbKey.actors.rawValue] = v(dto.actors)
        values[OMDbKey.plot.rawValue] = v(dto.plot)
        values[OMDbKey.language.rawValue] = v(dto.language)
        values[OMDbKey.country.rawValue] = v(dto.country)
        values[OMDbKey.awards.rawValue] = v(dto.awards)
        values[OMDbKey.poster.rawValue] = v(dto.poster)
        values[OMDbKey.metascore.rawValue] = v(dto.metascore)
        values[OMDbKey.imdbRating.rawValue] = v(dto.imdbRating)
        values[OMDbKey.imdbVotes.rawValue] = v(dto.imdbVotes)
        values[OMDbKey.type.rawValue] = v(dto.type)
        values[OMDbKey.dvd.rawValue] = v(dto.dvd)
        values[OMDbKey.boxOffice.rawValue] = v(dto.boxOffice)
        values[OMDbKey.production.rawValue] = v(dto.production)
        values[OMDbKey.website.rawValue] = v(dto.website)
        values[OMDbKey.totalSeasons.rawValue] = v(dto.totalSeasons)
        values[OMDbKey.season.rawValue] = v(dto.season)
        values[OMDbKey.episode.rawValue] = v(dto.episode)
        values[OMDbKey.seriesID.rawValue] = v(dto.seriesID)
        ratings = dto.ratings.map { RawRating(source: .text($0.source), value: .text($0.value)) }
        anomalies = dto.anomalies
    }

    /// Creates an empty raw body, for the reader to fill.
    init() {}

    /// The wire-shape DTO, with a `String` for every present value.
    func dto(in body: UnsafeBufferPointer<UInt8>) -> IMDBFilmDTO {
        var dto = IMDBFilmDTO()
        func s(_ key: OMDbKey) -> String? { self[key].string(in: body) }
        dto.imdbID = s(.imdbID)
        dto.title = s(.title)
        dto.year = s(.year)
        dto.rated = s(.rated)
        dto.released = s(.released)
        dto.runtime = s(.runtime)
        dto.genre = s(.genre)
        dto.director = s(.director)
        dto.writer = s(.writer)
        dto.actors = s(.actors)
        dto.plot = s(.plot)
        dto.language = s(.language)
        dto.country = s(.country)
        dto.awards = s(.awards)
        dto.poster = s(.poster)
        dto.metascore = s(.metascore)
        dto.imdbRating = s(.imdbRating)
        dto.imdbVotes = s(.imdbVotes)
        dto.type = s(.type)
        dto.dvd = s(.dvd)
        dto.boxOffice = s(.boxOffice)
        dto.production = s(.production)
        dto.website = s(.website)
        dto.totalSeasons = s(.totalSeasons)
        dto.season = s(.season)
        dto.episode = s(.episode)
        dto.seriesID = s(.seriesID)
        dto.ratings = ratings.map {
            RatingDTO(source: $0.source.string(in: body) ?? "", value: $0.value.string(in: body) ?? "")
        }
        dto.anomalies = anomalies
        return dto
    }
}

/// What the reader made of a body.
enum RawOutcome {
    /// `"Response":"True"`.
    case film(RawBody)
    /// `"Response":"False"` with OMDb's `Error` text.
    case error(String)
}
