/// Answers every query form of OMDb's endpoint from a corpus, with OMDb's shapes and words; keys,
/// quota, faults and latency are the engine's business, not this one's.
///
/// - `i=` / `t=` (with `y=`, `type=`): the film's stored body; `plot=full` adds to its `Plot`
///   (``FilmCorpus/fullPlotBody(forID:)``).
/// - `s=` (with `y=`, `type=`, `page=`): `{"Search":[{"Title","Year","imdbID","Type","Poster"}…],
///   "totalResults":"N","Response":"True"}`, ten films a page in ID order
///   (``FilmCorpus/searchIDs(_:year:type:)`` says which films match).
/// - `Season=` with `i=` or `t=` (a series): `{"Title","Season","totalSeasons","Episodes":[{"Title",
///   "Released","Episode","imdbRating","imdbID"}…],"Response":"True"}`; with `Episode=` as well, the
///   episode's own body.
///
/// A request is read in that order: `Season=` (when not empty, with `i=` or `t=`), `i=`, `t=`, `s=`.
struct OMDbAnswers: Sendable {
    /// How an answer counts.
    enum Outcome: Equatable {
        /// A film body; `servedID` names a plain `i=` lookup (with `&plot=full` for the full form),
        /// so a repeat can be counted.
        case film(servedID: String?)
        /// A page of search results.
        case search
        /// A season's episode list.
        case season
        /// An OMDb miss: not found, too many results.
        case notFound
        /// A request OMDb cannot read: no film named, or a bad page.
        case badRequest
    }

    /// Films on one page of search results.
    static let pageSize = 10
    /// The pages OMDb serves.
    static let pages = 1...100
    /// Search texts of at most this many letters and digits that match more than a page get
    /// `Too many results.`, as very short searches do on OMDb.
    static let shortSearchLength = 2

    /// The films answered from.
    let corpus: FilmCorpus

    /// The answer to one query (names lower-cased, values percent-decoded).
    func answer(_ query: [String: String]) -> (outcome: Outcome, response: HTTPResponse) {
        let fullPlot = query["plot"]?.lowercased() == "full"
        let title = query["t"].flatMap { $0.isEmpty ? nil : $0 }
        if let season = query["season"], !season.isEmpty, query["i"] != nil || title != nil {
            return seasonAnswer(query, season: season, fullPlot: fullPlot)
        }
        if let id = query["i"] {
            guard let body = filmBody(id, fullPlot: fullPlot) else {
                return (.notFound, .omdbError("Incorrect IMDb ID."))
            }
            return (.film(servedID: fullPlot ? id + "&plot=full" : id), Self.json(body))
        }
        if let title {
            guard let id = corpus.imdbID(forTitle: title, year: query["y"], type: query["type"]),
                let body = filmBody(id, fullPlot: fullPlot)
            else {
                return (.notFound, .omdbError("Movie not found!"))
            }
            return (.film(servedID: nil), Self.json(body))
        }
        if let text = query["s"], !text.isEmpty {
            return searchAnswer(text, query: query)
        }
        return (.badRequest, .omdbError("Something went wrong."))
    }

    private func filmBody(_ id: String, fullPlot: Bool) -> [UInt8]? {
        fullPlot ? corpus.fullPlotBody(forID: id) : corpus.body(forID: id)
    }

    /// `s=`: one page of matches; a missing or empty `page` is page 1.
    private func searchAnswer(_ text: String, query: [String: String]) -> (outcome: Outcome, response: HTTPResponse) {
        var page = 1
        if let pageText = query["page"], !pageText.isEmpty {
            guard let number = Int(pageText), Self.pages.contains(number) else {
                return (.badRequest, .omdbError("The offset specified in a OFFSET clause may not be negative."))
            }
            page = number
        }
        let ids = corpus.searchIDs(text, year: query["y"], type: query["type"])
        let length = FilmCorpus.searchWords(FilmCorpus.titleKey(text)).joined().count
        if length <= Self.shortSearchLength && ids.count > Self.pageSize {
            return (.notFound, .omdbError("Too many results."))
        }
        let first = (page - 1) * Self.pageSize
        guard first < ids.count else { return (.notFound, .omdbError("Movie not found!")) }
        var json = CompactJSON()
        json.add(
            "Search",
            objects: ids[first..<min(ids.count, first + Self.pageSize)].compactMap { id in
                corpus.entries[id].map { entry in
                    [
                        ("Title", entry.title), ("Year", entry.year), ("imdbID", id), ("Type", entry.facts.type),
                        ("Poster", entry.facts.poster),
                    ]
                }
            })
        json.add("totalResults", String(ids.count))
        json.add("Response", "True")
        return (.search, Self.json(Array(json.finished().utf8)))
    }

    /// `Season=` with `i=` or `t=`, and `Episode=` when present and not empty.
    private func seasonAnswer(_ query: [String: String], season seasonText: String, fullPlot: Bool) -> (
        outcome: Outcome, response: HTTPResponse
    ) {
        let seriesID =
            if let id = query["i"] { corpus.series(id: id) } else {
                query["t"].flatMap { corpus.series(title: $0, year: query["y"]) }
            }
        if let episodeText = query["episode"], !episodeText.isEmpty {
            guard let seriesID, let season = Int(seasonText), let episode = Int(episodeText),
                let id = corpus.episodeID(ofSeries: seriesID, season: season, episode: episode),
                let body = filmBody(id, fullPlot: fullPlot)
            else {
                return (.notFound, .omdbError("Series or episode not found!"))
            }
            return (.film(servedID: nil), Self.json(body))
        }
        guard let seriesID, let series = corpus.entries[seriesID], let season = Int(seasonText) else {
            return (.notFound, .omdbError("Series or season not found!"))
        }
        let episodes = corpus.episodes(ofSeries: seriesID, season: season)
        guard !episodes.isEmpty else { return (.notFound, .omdbError("Series or season not found!")) }
        var json = CompactJSON()
        json.add("Title", series.title)
        json.add("Season", String(season))
        json.add("totalSeasons", series.facts.totalSeasons)
        json.add(
            "Episodes",
            objects: episodes.compactMap { number, id in
                corpus.entries[id].map { entry in
                    [
                        ("Title", entry.title), ("Released", entry.facts.releasedDate), ("Episode", String(number)),
                        ("imdbRating", entry.facts.imdbRating), ("imdbID", id),
                    ]
                }
            })
        json.add("Response", "True")
        return (.season, Self.json(Array(json.finished().utf8)))
    }

    private static func json(_ body: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: 200, body: body)
    }
}
