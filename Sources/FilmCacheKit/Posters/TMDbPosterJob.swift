import Foundation
import Logging

/// Fills the poster store from TMDb's image paths: for every stored TMDb entry with a
/// `poster_path`, the image at `{secure_base_url}{size}{poster_path}`.
///
/// The machinery is ``PosterJob``'s (the store, the rate gate, the destination policy, conditional
/// revalidation, pages committed after their files are synced); only where the due posters come
/// from differs. Each poster is recorded in the poster index under a key of its own,
/// `tmdb/{size}/{media type}/{id}` (``key(_:size:)``), never under the film's IMDb ID, so it never
/// touches OMDb's poster row of the same film, and each size is kept apart. The index has no tie
/// to the films table: such a row is never due in OMDb's poster run, and prune keeps its file as
/// it keeps any file a row names.
///
/// A file is written (atomically) and synced before the row naming it is committed, so a kill or a
/// power loss leaves at worst a file no row names yet, which the next run finds held and records.
/// The image host never gets the TMDb token: image requests carry no credential.
public struct TMDbPosterJob: Sendable {
    let job: PosterJob
    let tmdb: any TMDbStore
    let images: TMDbImages
    let size: String

    /// A run fetching through `job`'s machinery the posters of `tmdb`'s entries at `size`, a size
    /// `images` lists (``TMDbImages/check(size:)``).
    public init(job: PosterJob, tmdb: any TMDbStore, images: TMDbImages, size: String) {
        self.job = job
        self.tmdb = tmdb
        self.images = images
        self.size = size
    }

    /// The poster index's key of `ref`'s poster at `size`: `tmdb/w342/movie/550`.
    public static func key(_ ref: TMDbRef, size: String) -> String {
        "tmdb/\(size)/\(ref.mediaType.rawValue)/\(ref.id)"
    }

    /// Fetches every due poster until done or `stop` is requested.
    public func run(stop: WarmStop) async throws(PosterJobError) -> PosterSummary {
        var after: TMDbRef?
        var exhausted = false
        return try await job.run(stop: stop) { (now, revalidateBefore) throws(StoreError) -> [PosterDue]? in
            guard !exhausted else { return nil }
            let films = try await tmdb.tmdbFilms(after: after, limit: PosterJob.pageSize)
            guard let last = films.last else { return nil }
            after = last.ref
            exhausted = films.count < PosterJob.pageSize
            var due: [PosterDue] = []
            for film in films {
                guard let path = film.posterPath else { continue }
                let url = images.url(size: size, path: path)
                let entry = try await job.cache.poster(Self.key(film.ref, size: size))
                if let poster = Self.due(
                    Self.key(film.ref, size: size), url: url, entry: entry, now: now,
                    revalidateBefore: revalidateBefore, settings: job.settings)
                {
                    due.append(poster)
                }
            }
            return due
        }
    }

    /// The request due for the poster at `url` under `key`, given its row, or `nil` when it is not
    /// due: never fetched, its URL changed, stored and last checked at or before `revalidateBefore`,
    /// or gone or failed with its retry reached by `now` (the rule the index applies to films).
    static func due(
        _ key: String, url: String, entry: PosterEntry?, now: Date, revalidateBefore: Date, settings: PosterSettings
    ) -> PosterDue? {
        guard let entry, entry.url == url else { return PosterDue(imdbID: key, url: url, held: nil, failures: 0) }
        let failures: Int
        if entry.status == "stored" {
            guard entry.checkedAt <= revalidateBefore else { return nil }
            failures = 0
        } else {
            guard let next = entry.nextAttemptAt, next <= now else { return nil }
            failures =
                entry.status == "failed"
                ? PosterJob.failures(retryDelay: next.timeIntervalSince(entry.checkedAt), settings: settings) : 0
        }
        // Validators only for the same URL, and only with the file they validate.
        let held = entry.file.map {
            PosterDue.Held(file: $0, sha256: "", etag: entry.etag, lastModified: entry.lastModified)
        }
        return PosterDue(imdbID: key, url: url, held: held, failures: failures)
    }
}

/// Where TMDb's images are, from its `/configuration`: the secure base URL and the poster sizes.
public struct TMDbImages: Sendable, Equatable {
    /// `images.secure_base_url`, e.g. `https://image.tmdb.org/t/p/`.
    public var secureBaseURL: String
    /// `images.poster_sizes`, e.g. `w92`, `w154`, …, `original`.
    public var posterSizes: [String]

    /// The size fetched unless told otherwise.
    public static let defaultSize = "w342"

    public init(secureBaseURL: String, posterSizes: [String]) {
        self.secureBaseURL = secureBaseURL
        self.posterSizes = posterSizes
    }

    /// The image URL of `path` (`/abc.jpg`) at `size`: `{secure_base_url}{size}{path}`.
    public func url(size: String, path: String) -> String {
        secureBaseURL + size + path
    }

    /// Checks `size` against the poster sizes TMDb lists; the error names them.
    public func check(size: String) throws(TMDbPosterError) {
        guard posterSizes.contains(size) else {
            throw .unknownSize(size, known: posterSizes)
        }
    }

    /// Reads TMDb's `/configuration` answer; a field missing or of the wrong kind is named.
    public static func read(_ body: [UInt8]) throws(TMDbPosterError) -> TMDbImages {
        let answer: Configuration
        do {
            answer = try JSONDecoder().decode(Configuration.self, from: Data(body))
        } catch {
            throw .configuration("TMDb's /configuration has no images.secure_base_url and images.poster_sizes")
        }
        let base = answer.images.secureBaseURL
        let lower = base.lowercased()
        guard lower.hasPrefix("https://") || lower.hasPrefix("http://") else {
            throw .configuration(
                "TMDb's /configuration gives images.secure_base_url \(LogText.escaped(base)), not an http(s) URL")
        }
        return TMDbImages(secureBaseURL: base, posterSizes: answer.images.posterSizes)
    }

    /// Asks TMDb's `/configuration` through `caller` (with the token) and reads it.
    package static func fetch(_ caller: TMDbCaller) async throws(TMDbPosterError) -> TMDbImages {
        let answer: TMDbAnswer
        do {
            answer = try await caller.get("/configuration", kind: "configuration")
        } catch let stopped as TMDbStopped {
            throw .refused(stopped.reason)
        } catch {
            throw .configuration("TMDb's /configuration was not asked: \(error)")
        }
        switch answer {
        case .ok(let body): return try read(body)
        case .notFound: throw .configuration("TMDb answered /configuration with 404")
        case .failed(let why): throw .configuration(why)
        }
    }

    private struct Configuration: Decodable {
        var images: Images

        struct Images: Decodable {
            var secureBaseURL: String
            var posterSizes: [String]

            enum CodingKeys: String, CodingKey {
                case secureBaseURL = "secure_base_url"
                case posterSizes = "poster_sizes"
            }
        }
    }
}

/// Why TMDb's poster run could not start.
public enum TMDbPosterError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `/configuration` failed or did not read; worth trying later.
    case configuration(String)
    /// TMDb refused the token (or its breaker stopped the run).
    case refused(String)
    /// The size asked for is not one TMDb lists.
    case unknownSize(String, known: [String])

    public var description: String {
        switch self {
        case .configuration(let why): why
        case .refused(let why): why
        case .unknownSize(let size, let known):
            "--size \(LogText.escaped(size)): TMDb's poster sizes are \(known.joined(separator: ", "))"
        }
    }
}
