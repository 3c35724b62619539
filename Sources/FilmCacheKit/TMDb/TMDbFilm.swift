import Foundation

/// Which of TMDb's two title kinds an entry is: a film (`/movie/{id}`) or a series (`/tv/{id}`).
public enum TMDbMediaType: String, Sendable, Hashable, CaseIterable, Codable, Comparable {
    case movie
    case tv

    public static func < (a: TMDbMediaType, b: TMDbMediaType) -> Bool { a.rawValue < b.rawValue }
}

/// One TMDb entry by its own ID: the media type and TMDb's number, `movie:550` in text.
public struct TMDbRef: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var mediaType: TMDbMediaType
    public var id: Int

    public init(_ mediaType: TMDbMediaType, _ id: Int) {
        self.mediaType = mediaType
        self.id = id
    }

    /// Parses `movie:550` or `tv:1399`.
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: ":", maxSplits: 1)
        guard parts.count == 2, let type = TMDbMediaType(rawValue: String(parts[0])), let id = Int(parts[1]), id > 0
        else { return nil }
        self.init(type, id)
    }

    public var description: String { "\(mediaType.rawValue):\(id)" }

    /// TMDb's path of the entry, below the API's base: `/movie/550`.
    public var path: String { "/\(mediaType.rawValue)/\(id)" }

    public static func < (a: TMDbRef, b: TMDbRef) -> Bool { (a.mediaType, a.id) < (b.mediaType, b.id) }
}

/// What TMDb's `/find` answered for one IMDb ID: the entry it names, or none (a negative answer,
/// kept as long as a positive one is, by its own TTL).
public struct TMDbMapping: Sendable, Equatable {
    public var imdbID: String
    /// The TMDb entry, or `nil` when TMDb knows no entry of this IMDb ID.
    public var ref: TMDbRef?
    /// When `/find` answered.
    public var checkedAt: Date

    public init(imdbID: String, ref: TMDbRef?, checkedAt: Date) {
        self.imdbID = imdbID
        self.ref = ref
        self.checkedAt = checkedAt
    }
}

/// One TMDb entry as the cache keeps it: TMDb's body byte for byte (the details with the parts
/// appended), and the columns read from it.
public struct TMDbFilm: Sendable, Equatable {
    public var ref: TMDbRef
    /// The IMDb ID: `imdb_id` of a film, `external_ids.imdb_id` of a series; `nil` when TMDb has none.
    public var imdbID: String?
    /// `title` of a film, `name` of a series.
    public var title: String
    /// `original_title` or `original_name`.
    public var originalTitle: String?
    public var overview: String?
    /// `release_date` of a film, `first_air_date` of a series, as TMDb writes it (`YYYY-MM-DD`).
    public var releaseDate: String?
    /// Minutes: `runtime`, or a series's first `episode_run_time`.
    public var runtime: Int?
    /// Genre names, in TMDb's order.
    public var genres: [String]
    public var voteAverage: Double?
    public var voteCount: Int?
    public var popularity: Double?
    public var posterPath: String?
    public var backdropPath: String?
    /// The collection a film belongs to (`belongs_to_collection.name`).
    public var collection: String?
    /// `Released`, `Returning Series`, `Ended`…
    public var status: String?
    /// TMDb's answer, byte for byte.
    public var body: [UInt8]
    /// When TMDb answered.
    public var fetchedAt: Date

    public init(
        ref: TMDbRef, imdbID: String?, title: String, originalTitle: String? = nil, overview: String? = nil,
        releaseDate: String? = nil, runtime: Int? = nil, genres: [String] = [], voteAverage: Double? = nil,
        voteCount: Int? = nil, popularity: Double? = nil, posterPath: String? = nil, backdropPath: String? = nil,
        collection: String? = nil, status: String? = nil, body: [UInt8], fetchedAt: Date
    ) {
        self.ref = ref
        self.imdbID = imdbID
        self.title = title
        self.originalTitle = originalTitle
        self.overview = overview
        self.releaseDate = releaseDate
        self.runtime = runtime
        self.genres = genres
        self.voteAverage = voteAverage
        self.voteCount = voteCount
        self.popularity = popularity
        self.posterPath = posterPath
        self.backdropPath = backdropPath
        self.collection = collection
        self.status = status
        self.body = body
        self.fetchedAt = fetchedAt
    }

    /// The genres as one column keeps them: `Drama, Thriller`.
    public var genreText: String { genres.joined(separator: ", ") }

    /// Genres back from their column.
    public static func genres(fromText text: String?) -> [String] {
        guard let text, !text.isEmpty else { return [] }
        return text.components(separatedBy: ", ")
    }
}
