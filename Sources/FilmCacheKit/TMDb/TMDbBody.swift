import Foundation

/// Reads TMDb's answers: details into a ``TMDbFilm``, `/find` into a mapping, the changes feed into
/// IDs, and the error body. Each failure names the field it could not read.
public enum TMDbBody {
    /// What a body could not give.
    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String

        public init(_ description: String) { self.description = description }
    }

    /// The details of `ref` (with any appended parts) as an entry fetched at `fetchedAt`.
    public static func film(_ body: [UInt8], ref: TMDbRef, fetchedAt: Date) throws(Problem) -> TMDbFilm {
        let details: Details
        do {
            details = try JSONDecoder().decode(Details.self, from: Data(body))
        } catch {
            throw Problem("\(ref): the details are not TMDb's JSON (\(describe(error)))")
        }
        guard details.id == ref.id else {
            throw Problem("\(ref): the details name id \(details.id.map(String.init) ?? "none")")
        }
        let title = (ref.mediaType == .movie ? details.title : details.name) ?? details.title ?? details.name
        guard let title, !title.isEmpty else {
            throw Problem("\(ref): field \(ref.mediaType == .movie ? "title" : "name") is missing")
        }
        let imdbID = [details.imdbID, details.externalIDs?.imdbID].compactMap { $0 }.first {
            PlainTextWorklist.isIMDbID($0)
        }
        return TMDbFilm(
            ref: ref, imdbID: imdbID, title: title,
            originalTitle: nonEmpty(ref.mediaType == .movie ? details.originalTitle : details.originalName),
            overview: nonEmpty(details.overview),
            releaseDate: nonEmpty(ref.mediaType == .movie ? details.releaseDate : details.firstAirDate),
            runtime: details.runtime ?? details.episodeRunTime?.first,
            genres: (details.genres ?? []).compactMap(\.name), voteAverage: details.voteAverage,
            voteCount: details.voteCount, popularity: details.popularity, posterPath: nonEmpty(details.posterPath),
            backdropPath: nonEmpty(details.backdropPath), collection: nonEmpty(details.collection?.name),
            status: nonEmpty(details.status), body: body, fetchedAt: fetchedAt)
    }

    /// The entry `/find` names for an IMDb ID: the first film, else the first series; `nil` when
    /// TMDb knows none of either.
    public static func found(_ body: [UInt8]) throws(Problem) -> TMDbRef? {
        let find: Find
        do {
            find = try JSONDecoder().decode(Find.self, from: Data(body))
        } catch {
            throw Problem("the /find answer is not TMDb's JSON (\(describe(error)))")
        }
        guard find.movieResults != nil || find.tvResults != nil else {
            throw Problem("the /find answer has neither movie_results nor tv_results")
        }
        if let movie = find.movieResults?.first { return TMDbRef(.movie, movie.id) }
        if let series = find.tvResults?.first { return TMDbRef(.tv, series.id) }
        return nil
    }

    /// One page of `/movie/changes` or `/tv/changes`.
    public struct ChangesPage: Sendable, Equatable {
        public var ids: [Int]
        public var page: Int
        public var totalPages: Int
    }

    /// Reads one page of the changes feed.
    public static func changes(_ body: [UInt8]) throws(Problem) -> ChangesPage {
        let page: Changes
        do {
            page = try JSONDecoder().decode(Changes.self, from: Data(body))
        } catch {
            throw Problem("the changes feed's page is not TMDb's JSON (\(describe(error)))")
        }
        return ChangesPage(ids: page.results.map(\.id), page: page.page ?? 1, totalPages: page.totalPages ?? 1)
    }

    /// TMDb's error body: `status_code` and `status_message`, when the body is one.
    public static func error(_ body: [UInt8]) -> (code: Int, message: String)? {
        guard let error = try? JSONDecoder().decode(ErrorBody.self, from: Data(body)), let code = error.statusCode
        else { return nil }
        return (code, error.statusMessage ?? "")
    }

    private static func nonEmpty(_ text: String?) -> String? {
        guard let text, !text.isEmpty else { return nil }
        return text
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            return "field \(path(context.codingPath + [key])) is missing"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            return "field \(path(context.codingPath)) has the wrong type"
        case DecodingError.dataCorrupted(let context) where !context.codingPath.isEmpty:
            return "field \(path(context.codingPath)) is malformed"
        default:
            return "malformed JSON"
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }

    private struct Details: Decodable {
        var id: Int?
        var title: String?
        var name: String?
        var originalTitle: String?
        var originalName: String?
        var overview: String?
        var releaseDate: String?
        var firstAirDate: String?
        var runtime: Int?
        var episodeRunTime: [Int]?
        var genres: [Genre]?
        var voteAverage: Double?
        var voteCount: Int?
        var popularity: Double?
        var posterPath: String?
        var backdropPath: String?
        var collection: Collection?
        var status: String?
        var imdbID: String?
        var externalIDs: ExternalIDs?

        enum CodingKeys: String, CodingKey {
            case id, title, name, overview, runtime, genres, popularity, status
            case originalTitle = "original_title"
            case originalName = "original_name"
            case releaseDate = "release_date"
            case firstAirDate = "first_air_date"
            case episodeRunTime = "episode_run_time"
            case voteAverage = "vote_average"
            case voteCount = "vote_count"
            case posterPath = "poster_path"
            case backdropPath = "backdrop_path"
            case collection = "belongs_to_collection"
            case imdbID = "imdb_id"
            case externalIDs = "external_ids"
        }
    }

    private struct Genre: Decodable { var name: String? }
    private struct Collection: Decodable { var name: String? }
    private struct ExternalIDs: Decodable {
        var imdbID: String?
        enum CodingKeys: String, CodingKey { case imdbID = "imdb_id" }
    }

    private struct Find: Decodable {
        var movieResults: [Item]?
        var tvResults: [Item]?
        enum CodingKeys: String, CodingKey {
            case movieResults = "movie_results"
            case tvResults = "tv_results"
        }
    }

    private struct Item: Decodable { var id: Int }

    private struct Changes: Decodable {
        var results: [Item]
        var page: Int?
        var totalPages: Int?
        enum CodingKeys: String, CodingKey {
            case results, page
            case totalPages = "total_pages"
        }
    }

    private struct ErrorBody: Decodable {
        var statusCode: Int?
        var statusMessage: String?
        enum CodingKeys: String, CodingKey {
            case statusCode = "status_code"
            case statusMessage = "status_message"
        }
    }
}
