import Foundation
import Testing

@testable import FilmCacheKit

@Suite struct TMDbBodyTests {
    let at = Date(timeIntervalSince1970: 1_795_000_000)

    @Test func aFilmsDetailsWithItsPartsAppendedGiveEveryColumnAndKeepTheBodyByteForByte() throws {
        let body = try TMDbFixtures.body("movie-603-append")
        let film = try TMDbBody.film(body, ref: TMDbRef(.movie, 603), fetchedAt: at)
        #expect(film.imdbID == "tt0133093")
        #expect(film.title == "The Matrix" && film.originalTitle == "The Matrix")
        #expect(film.releaseDate == "1999-03-31" && film.runtime == 136)
        #expect(film.genres == ["Action", "Science Fiction"] && film.genreText == "Action, Science Fiction")
        #expect(film.voteAverage == 8.2 && film.voteCount == 26112 && film.popularity == 81.417)
        #expect(film.posterPath == "/f89U3ADr1oiB1s9GkdPOEpXUk5H.jpg")
        #expect(film.backdropPath == "/icmmSD4vTTDKOq2vvdulafOGw93.jpg")
        #expect(film.collection == "The Matrix Collection" && film.status == "Released")
        #expect(film.overview?.contains("—") == true)
        #expect(film.body == body && film.fetchedAt == at)
    }

    @Test func aSeriesTakesItsNameFirstAirDateRuntimeAndItsIMDbIDFromExternalIDs() throws {
        let body = try TMDbFixtures.body("tv-1396-append")
        let series = try TMDbBody.film(body, ref: TMDbRef(.tv, 1396), fetchedAt: at)
        #expect(series.imdbID == "tt0903747")
        #expect(series.title == "Breaking Bad" && series.originalTitle == "Breaking Bad")
        #expect(series.releaseDate == "2008-01-20" && series.runtime == 47)
        #expect(series.genres == ["Drama", "Crime"] && series.status == "Ended" && series.collection == nil)
    }

    @Test func detailsOfAnotherEntryOrWithoutATitleAreRefusedNamingTheField() throws {
        let body = try TMDbFixtures.body("movie-603-append")
        #expect(throws: TMDbBody.Problem.self) { try TMDbBody.film(body, ref: TMDbRef(.movie, 604), fetchedAt: at) }
        let untitled = Array(#"{"id":603,"title":""}"#.utf8)
        #expect(throws: TMDbBody.Problem("movie:603: field title is missing")) {
            try TMDbBody.film(untitled, ref: TMDbRef(.movie, 603), fetchedAt: at)
        }
        let wrongType = Array(#"{"id":603,"title":"X","runtime":"long"}"#.utf8)
        #expect(
            throws: TMDbBody.Problem("movie:603: the details are not TMDb's JSON (field runtime has the wrong type)")
        ) {
            try TMDbBody.film(wrongType, ref: TMDbRef(.movie, 603), fetchedAt: at)
        }
        // An IMDb ID that is not one is not kept.
        let odd = Array(#"{"id":603,"title":"X","imdb_id":"nm0000206"}"#.utf8)
        #expect(try TMDbBody.film(odd, ref: TMDbRef(.movie, 603), fetchedAt: at).imdbID == nil)
    }

    @Test func findNamesTheFilmOrTheSeriesOrNothing() throws {
        #expect(try TMDbBody.found(try TMDbFixtures.body("find-tt0133093")) == TMDbRef(.movie, 603))
        #expect(try TMDbBody.found(try TMDbFixtures.body("find-tt0903747")) == TMDbRef(.tv, 1396))
        #expect(try TMDbBody.found(try TMDbFixtures.body("find-none")) == nil)
        #expect(throws: TMDbBody.Problem.self) { try TMDbBody.found(Array(#"{"results":[]}"#.utf8)) }
    }

    @Test func aChangesPageGivesItsIDsAndPages() throws {
        let page = try TMDbBody.changes(try TMDbFixtures.body("movie-changes-page1"))
        #expect(page.ids == [603, 604, 605] && page.page == 1 && page.totalPages == 2)
    }

    @Test func anErrorBodyGivesTMDbsCodeAndMessage() throws {
        #expect(TMDbBody.error(try TMDbFixtures.body("error-401"))?.code == 7)
        #expect(TMDbBody.error(try TMDbFixtures.body("error-404"))?.code == 34)
        #expect(TMDbBody.error(try TMDbFixtures.body("movie-603-append")) == nil)
    }

    @Test func aVersion4TokenGoesAsABearerHeaderAndAVersion3KeyAsAPIKeyNeverBoth() throws {
        let bearer = try TMDbEndpoint(
            baseURL: "http://127.0.0.1:9/3/", token: TMDbToken("eyJhbGciOiJIUzI1NiJ9.abc.def")!)
        let request = bearer.request("/find/tt0133093", query: [("external_source", "imdb_id")])
        #expect(request.url == "http://127.0.0.1:9/3/find/tt0133093?external_source=imdb_id")
        #expect(request.headers.contains("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.abc.def"))
        let v3 = try TMDbEndpoint(token: TMDbToken("0123456789abcdef0123456789abcdef")!)
        let keyed = v3.request("/movie/603")
        #expect(keyed.url == "https://api.themoviedb.org/3/movie/603?api_key=0123456789abcdef0123456789abcdef")
        #expect(!keyed.headers.contains { $0.hasPrefix("Authorization") })
        #expect("\(TMDbToken("eyJhbGciOiJIUzI1NiJ9.abc.def")!)".contains("eyJ") == false)
        #expect(throws: TMDbConfigurationError.self) { try TMDbEndpoint(baseURL: "ftp://x/3", token: TMDbToken("t")!) }
        let search = bearer.request("/search/multi", query: [("query", "Amélie & Co/2"), ("page", "1")])
        #expect(search.url == "http://127.0.0.1:9/3/search/multi?query=Am%C3%A9lie%20%26%20Co%2F2&page=1")
    }

    @Test func planResolvesUnaskedAndExpiredFetchesMissingStaleAndChangedAndLeavesTheRest() {
        let now = at
        let day: TimeInterval = 86_400
        let fresh = now.addingTimeInterval(-day)
        let old = now.addingTimeInterval(-40 * day)
        let states = [
            TMDbState(imdbID: "tt0000001", mapping: nil),
            TMDbState(imdbID: "tt0000002", mapping: TMDbMapping(imdbID: "tt0000002", ref: nil, checkedAt: fresh)),
            TMDbState(imdbID: "tt0000003", mapping: TMDbMapping(imdbID: "tt0000003", ref: nil, checkedAt: old)),
            TMDbState(
                imdbID: "tt0000004",
                mapping: TMDbMapping(imdbID: "tt0000004", ref: TMDbRef(.movie, 4), checkedAt: fresh),
                fetchedAt: fresh),
            TMDbState(
                imdbID: "tt0000005",
                mapping: TMDbMapping(imdbID: "tt0000005", ref: TMDbRef(.movie, 5), checkedAt: fresh),
                fetchedAt: fresh, changed: true),
            TMDbState(
                imdbID: "tt0000006", mapping: TMDbMapping(imdbID: "tt0000006", ref: TMDbRef(.tv, 6), checkedAt: fresh),
                fetchedAt: old),
            TMDbState(
                imdbID: "tt0000007", mapping: TMDbMapping(imdbID: "tt0000007", ref: TMDbRef(.tv, 7), checkedAt: fresh)),
            // A second ID of an entry already planned fetches nothing more.
            TMDbState(
                imdbID: "tt0000008", mapping: TMDbMapping(imdbID: "tt0000008", ref: TMDbRef(.tv, 7), checkedAt: fresh)),
        ]
        let plan = TMDbPlan.make(states: states, now: now, ttl: 30 * day, findTTL: 30 * day)
        #expect(plan.toResolve == ["tt0000001", "tt0000003"])
        #expect(plan.toFetch.map(\.ref) == [TMDbRef(.movie, 5), TMDbRef(.tv, 6), TMDbRef(.tv, 7)])
        #expect(plan.fresh == 1 && plan.notOnTMDb == 1 && plan.changed == 1 && plan.stale == 1 && plan.missing == 1)
        #expect(plan.changedRefs == [TMDbRef(.movie, 5)] && plan.considered == 8 && plan.calls == 5)
    }
}
