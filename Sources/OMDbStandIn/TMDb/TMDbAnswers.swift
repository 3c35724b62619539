/// Answers TMDb API v3 requests (paths under `/3/`) from the catalog, once the gate and the token
/// have let them through; limits, tokens and counting are ``TMDbService``'s business.
///
/// - `/find/{imdb_id}?external_source=imdb_id`: the title in `movie_results` or `tv_results`.
/// - `/movie/{id}`, `/tv/{id}` with `append_to_response` (at most 20 parts).
/// - `/tv/{id}/season/{n}`, `/tv/{id}/season/{n}/episode/{m}`.
/// - `/movie/changes`, `/tv/changes` with `start_date`, `end_date`, `page`.
/// - `/configuration`, `/search/multi?query=&page=`.
struct TMDbAnswers: Sendable {
    /// What a request asked for, as stats count it.
    enum Kind: String, Sendable {
        case find, movie, tv, season, episode, changes, configuration, search, other
    }

    /// One answer: its kind, the response, and what it served (for the per-title counters).
    struct Answer: Sendable {
        /// The kind of request.
        var kind: Kind
        /// The response.
        var response: HTTPResponse
        /// `movie:ID` / `tv:ID` of a details body served.
        var details: String?
        /// The IMDb ID of a `/find` answered.
        var find: String?
    }

    /// TMDb's JSON content type.
    static let contentType = "application/json;charset=utf-8"
    /// Results on a page of `/search/multi`.
    static let searchPageSize = 20
    /// The most parts `append_to_response` may name.
    static let maximumAppends = 20
    /// The longest window `/movie/changes` and `/tv/changes` accept, in days.
    static let maximumChangesWindow = 14
    /// The keys `/configuration` lists under `change_keys`.
    static let changeKeys = [
        "adult", "air_date", "also_known_as", "alternative_titles", "biography", "birthday", "budget", "cast",
        "certifications", "character_names", "created_by", "crew", "deathday", "episode", "episode_number",
        "episode_run_time", "freebase_id", "freebase_mid", "general", "genres", "guest_stars", "homepage", "images",
        "imdb_id", "languages", "name", "network", "origin_country", "original_name", "original_title", "overview",
        "parts", "place_of_birth", "plot_keywords", "production_code", "production_companies",
        "production_countries", "releases", "revenue", "runtime", "season", "season_number", "season_regular",
        "spoken_languages", "status", "tagline", "title", "translations", "tvdb_id", "tvrage_id", "type", "video",
        "videos",
    ]

    /// The bodies.
    let bodies: TMDbBodies
    private var catalog: TMDbCatalog { bodies.catalog }

    /// The kind of the API path `path` (starting `/3/`), known before the request is answered.
    static func kind(of path: String) -> Kind {
        let parts = path.split(separator: "/").dropFirst().map(String.init)
        switch (parts.first, parts.count) {
        case ("configuration", 1): return .configuration
        case ("find", 2): return .find
        case ("search", 2) where parts[1] == "multi": return .search
        case ("movie", 2) where parts[1] == "changes": return .changes
        case ("tv", 2) where parts[1] == "changes": return .changes
        case ("movie", 2): return .movie
        case ("tv", 2): return .tv
        case ("tv", 4) where parts[2] == "season": return .season
        case ("tv", 6) where parts[2] == "season" && parts[4] == "episode": return .episode
        default: return .other
        }
    }

    /// A TMDb error body: `{"success":false,"status_code":N,"status_message":"…"}`.
    static func error(_ status: Int, code: Int, _ message: String, extraHeaders: [(String, String)] = [])
        -> HTTPResponse
    {
        json(
            .object([("success", .bool(false)), ("status_code", .int(code)), ("status_message", .string(message))]),
            status: status, extraHeaders: extraHeaders)
    }

    /// TMDb's 401 (code 7), with its keys in TMDb's order for it.
    static let unauthorized = json(
        .object([
            ("status_code", .int(7)),
            ("status_message", .string("Invalid API key: You must be granted a valid key.")),
            ("success", .bool(false)),
        ]), status: 401)

    /// TMDb's 404 (code 34).
    static let notFound = error(404, code: 34, "The resource you requested could not be found.")

    /// TMDb's 400 for a page outside 1...500 (code 22).
    static let invalidPage = error(
        400, code: 22, "Invalid page: Pages start at 1 and max at 500. They are expected to be an integer.")

    /// TMDb's 400 for parameters it cannot use (code 5).
    static let invalidParameters = error(400, code: 5, "Invalid parameters: Your request parameters are incorrect.")

    /// `value` as a JSON response.
    static func json(_ value: TMDbJSON, status: Int = 200, extraHeaders: [(String, String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, contentType: contentType, extraHeaders: extraHeaders, body: value.bytes)
    }

    /// Answers `path` (under `/3/`) with `query`, the `Host` the client named, the changes feed as
    /// it stands, today's date and the changes page size.
    func answer(
        path: String, query: [String: String], host: String?, feed: TMDbChangesFeed, today: TMDbDay, pageSize: Int
    ) -> Answer {
        let kind = Self.kind(of: path)
        let parts = path.split(separator: "/").dropFirst().map(String.init)
        var answer = Answer(kind: kind, response: Self.notFound)
        switch kind {
        case .configuration:
            answer.response = Self.json(configuration(host: host))
        case .find:
            guard query["external_source"] == "imdb_id" else {
                answer.response = Self.invalidParameters
                break
            }
            answer.find = parts[1]
            answer.response = Self.json(find(parts[1], feed: feed))
        case .search:
            answer.response = search(query, feed: feed)
        case .changes:
            answer.response = changes(
                parts[0] == "tv" ? .tv : .movie, query: query, feed: feed, today: today, pageSize: pageSize)
        case .movie, .tv:
            guard let id = Int(parts[1]), let title = catalog.title(kind == .tv ? .tv : .movie, id: id) else { break }
            var append: [String] = []
            for part in (query["append_to_response"] ?? "").split(separator: ",") {
                let name = part.trimmingCharacters(in: .whitespaces)
                if !name.isEmpty && !append.contains(name) { append.append(name) }
            }
            guard append.count <= Self.maximumAppends else {
                answer.response = Self.error(
                    400, code: 47, "The input is not valid: append_to_response names more than 20 parts.")
                break
            }
            answer.details = title.key
            answer.response = Self.json(bodies.details(title, revision: feed.revision(of: title), append: append))
        case .season, .episode:
            guard let id = Int(parts[1]), let title = catalog.title(.tv, id: id), let season = Int(parts[3]) else {
                break
            }
            let body =
                kind == .season
                ? bodies.seasonDetails(title, number: season)
                : Int(parts[5]).flatMap { bodies.episodeDetails(title, season: season, episode: $0) }
            if let body { answer.response = Self.json(body) }
        case .other:
            break
        }
        return answer
    }

    private func configuration(host: String?) -> TMDbJSON {
        let base = "http://\(host ?? "127.0.0.1")\(TMDbImages.path)"
        func sizes(_ list: [String]) -> TMDbJSON { .array(list.map(TMDbJSON.string)) }
        return .object([
            (
                "images",
                .object([
                    ("base_url", .string(base)), ("secure_base_url", .string(base)),
                    ("backdrop_sizes", sizes(TMDbImages.backdropSizes)), ("logo_sizes", sizes(TMDbImages.logoSizes)),
                    ("poster_sizes", sizes(TMDbImages.posterSizes)),
                    ("profile_sizes", sizes(TMDbImages.profileSizes)), ("still_sizes", sizes(TMDbImages.stillSizes)),
                ])
            ),
            ("change_keys", sizes(Self.changeKeys)),
        ])
    }

    /// `/find/{imdb_id}`: the title in the list of its type, every list empty for a film TMDb
    /// does not list (or an ID that is no film at all).
    private func find(_ imdbID: String, feed: TMDbChangesFeed) -> TMDbJSON {
        let title = catalog.title(imdbID: imdbID)
        let item = title.map { bodies.listItem($0, revision: feed.revision(of: $0)) }
        return .object([
            ("movie_results", .array(title?.mediaType == .movie ? [item!] : [])), ("person_results", .array([])),
            ("tv_results", .array(title?.mediaType == .tv ? [item!] : [])), ("tv_episode_results", .array([])),
            ("tv_season_results", .array([])),
        ])
    }

    /// A 1-based page number from `text` (absent or empty: 1), nil when outside 1...500 or not a number.
    private static func page(_ text: String?) -> Int? {
        guard let text, !text.isEmpty else { return 1 }
        guard let page = Int(text), (1...500).contains(page) else { return nil }
        return page
    }

    /// `{"page","results","total_pages","total_results"}` for page `page` of `items`.
    private static func pageable<Item>(
        _ items: [Item], page: Int, size: Int, render: (Item) -> TMDbJSON
    ) -> (results: TMDbJSON, totalPages: Int) {
        let first = (page - 1) * size
        let slice = first < items.count ? Array(items[first..<min(items.count, first + size)]) : []
        return (.array(slice.map(render)), max(1, (items.count + size - 1) / size))
    }

    /// `/search/multi`: titles holding the query (case and accents ignored), movies and series
    /// together in IMDb ID order, 20 a page.
    private func search(_ query: [String: String], feed: TMDbChangesFeed) -> HTTPResponse {
        guard let page = Self.page(query["page"]) else { return Self.invalidPage }
        let found = catalog.titles(matching: query["query"] ?? "")
        let (results, totalPages) = Self.pageable(found, page: page, size: Self.searchPageSize) {
            bodies.listItem($0, revision: feed.revision(of: $0))
        }
        return Self.json(
            .object([
                ("page", .int(page)), ("results", results), ("total_pages", .int(totalPages)),
                ("total_results", .int(found.count)),
            ]))
    }

    /// `/movie/changes` or `/tv/changes`: the IDs marked changed on a day from `start_date` through
    /// `end_date` (by default yesterday and today, TMDb's last 24 hours).
    private func changes(
        _ type: TMDbTitle.MediaType, query: [String: String], feed: TMDbChangesFeed, today: TMDbDay, pageSize: Int
    ) -> HTTPResponse {
        guard let page = Self.page(query["page"]) else { return Self.invalidPage }
        func day(_ name: String) -> TMDbDay?? {
            guard let text = query[name], !text.isEmpty else { return .some(nil) }
            return TMDbDay(text).map { .some($0) } ?? nil
        }
        guard let startDay = day("start_date"), let endDay = day("end_date") else {
            return Self.error(400, code: 47, "The input is not valid: dates are YYYY-MM-DD.")
        }
        let end = endDay ?? (startDay.map { TMDbDay(number: $0.number + 1) } ?? today)
        let start = startDay ?? TMDbDay(number: end.number - 1)
        // 422 with status_code 20, TMDb's answer to a window it will not serve.
        guard start <= end, end.number - start.number <= Self.maximumChangesWindow else {
            return Self.error(422, code: 20, "Invalid date range: Should be a range no longer than 14 days.")
        }
        let ids = feed.ids(of: type, in: start...end)
        let (results, totalPages) = Self.pageable(ids, page: page, size: max(1, pageSize)) { id in
            .object([("id", .int(id)), ("adult", .bool(false))])
        }
        return Self.json(
            .object([
                ("results", results), ("page", .int(page)), ("total_pages", .int(totalPages)),
                ("total_results", .int(ids.count)),
            ]))
    }
}
