import Foundation
import Testing

@testable import FilmCacheKit

@Suite struct ServeQueryTests {
    private func query(_ text: String) -> ServeQuery { ServeQuery(QueryItems.parse(text[...])) }

    private func answer(_ text: String) -> AnswerQuery? {
        if case .answer(let answer) = query(text) { return answer }
        return nil
    }

    @Test func aPlainIDIsAFilmWhateverTheKeyAndCaseOfNames() {
        #expect(query("apikey=x&i=tt0133093") == .film(imdbID: "tt0133093"))
        #expect(query("I=tt0133093&plot=short") == .film(imdbID: "tt0133093"))
        #expect(query("i=%20tt0133093%20") == .film(imdbID: "tt0133093"))
        // The last of a repeated name counts, as OMDb reads it.
        #expect(query("i=tt0000001&i=tt0133093") == .film(imdbID: "tt0133093"))
    }

    @Test func aPlainFilmQueryIsReadWithoutItsItemsAsTheFullReadingReadsIt() throws {
        for text in ["apikey=app-token&i=tt0133093", "i=tt0133093&apikey=app-token", "APIKEY=app-token&I=tt0133093"] {
            let plain = try #require(ServeQuery.plainFilm(text[...]))
            #expect(plain.token == "app-token")
            #expect(plain.imdbID == "tt0133093")
            #expect(query(text) == .film(imdbID: plain.imdbID))
            #expect(QueryItems.parse(text[...]).last { $0.name.lowercased() == "apikey" }?.value == plain.token)
        }
        // Anything else takes the full reading: escapes, other items, repeats, a bad or missing ID or key.
        for text in [
            "apikey=app%2Dtoken&i=tt0133093", "apikey=app+token&i=tt0133093", "apikey=app-token&i=%20tt0133093",
            "apikey=app-token&i=tt0133093&plot=full", "apikey=app-token&i=tt0133093&r=xml",
            "apikey=app-token&i=tt0000001&i=tt0133093", "apikey=a&apikey=app-token&i=tt0133093",
            "apikey=app-token&i=tt01'--", "apikey=app-token&i=", "apikey=app-token", "i=tt0133093",
            "apikey&i=tt0133093", "apikey=app-token&i", "apikeys=app-token&i=tt0133093", "",
        ] {
            #expect(ServeQuery.plainFilm(text[...]) == nil, "\(text)")
        }
    }

    /// The fast reading and the full one must agree wherever the fast one answers: random queries built from
    /// the pieces that tell them apart (names in any case, escapes, repeats, empty items, look-alike IDs).
    @Test func wheneverThePlainFilmReadingAnswersTheFullReadingGivesTheSameTokenAndFilm() {
        let names = ["apikey", "APIKEY", "ApiKey", "i", "I", "plot", "r", "apikeys", "", "%69", "api key"]
        let values = [
            "app-token", "tt0133093", "TT0133093", "tt0000001", "%20tt0133093", "tt0133093%20", "a+b", "", "tt01'--",
            "full", "xml", "tt0133093=5", "tt12345678", "app=token", "%61pp-token",
        ]
        var seed: UInt64 = 0x2545_F491_4F6C_DD1D
        func next(_ bound: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(bound))
        }
        var answered = 0
        for _ in 0..<20_000 {
            // Half start from a plain film query, the key and the ID in either order, then take more items.
            var items: [String] = []
            if next(2) == 0 {
                items = ["apikey=app-token", "i=tt0133093"]
                if next(2) == 0 { items.reverse() }
            }
            for _ in 0..<next(3) {
                let name = names[next(names.count)]
                let item = next(10) == 0 ? name : name + "=" + values[next(values.count)]
                items.insert(item, at: next(items.count + 1))
            }
            let text = items.joined(separator: next(8) == 0 ? "&&" : "&") + (next(8) == 0 ? "&" : "")
            guard let plain = ServeQuery.plainFilm(text[...]) else { continue }
            answered += 1
            #expect(query(text) == .film(imdbID: plain.imdbID), "\(text)")
            #expect(
                QueryItems.parse(text[...]).last { $0.name.lowercased() == "apikey" }?.value == plain.token, "\(text)")
        }
        // The fast reading did answer a good share of them: the comparison was made.
        #expect(answered > 2_000)
    }

    @Test func anIDThatIsNoIDIsOMDbsIncorrectIMDbID() {
        #expect(query("i=0133093") == .invalid(status: 200, message: "Incorrect IMDb ID."))
        #expect(query("i=tt01'--") == .invalid(status: 200, message: "Incorrect IMDb ID."))
        #expect(query("apikey=x") == .invalid(status: 200, message: "Something went wrong."))
        #expect(query("Season=1") == .invalid(status: 200, message: "Something went wrong."))
        #expect(query("r=XML&i=tt0133093") == .xml)
    }

    @Test func titlesFoldCaseAccentsAndSpacesInTheKeyButAskOMDbAsWritten() throws {
        let a = try #require(answer("t=Am%C3%A9lie&y=2001&type=Movie"))
        let b = try #require(answer("type=movie&y=2001&t=+AMELIE++"))
        #expect(a.cacheKey == b.cacheKey)
        #expect(a.cacheKey == "t=amelie&y=2001&type=movie")
        #expect(a.upstream == "t=Am%C3%A9lie&y=2001&type=movie")
        #expect(a.kind == .title)
        #expect(a.answersWithFilm)
        #expect(a.titleQuery?.key == TitleKey(title: "amelie", year: 2001, type: "movie"))
        // Another year, another answer.
        #expect(answer("t=Amelie&y=2002")?.cacheKey != a.cacheKey)
    }

    @Test func searchesKeepTheirPageFiltersAndDropDefaults() throws {
        let first = try #require(answer("s=Star%20Wars&page=1"))
        #expect(first.cacheKey == "s=star%20wars")
        #expect(first.kind == .search)
        #expect(!first.answersWithFilm)
        let second = try #require(answer("s=star+wars&page=2&type=series&y=1999&plot=full"))
        #expect(second.cacheKey == "s=star%20wars&type=series&y=1999&page=2")
        #expect(second.upstream == "s=star%20wars&type=series&y=1999&page=2")
        // A type OMDb does not know and a year that is no year are left out, as OMDb ignores them.
        #expect(answer("s=heat&type=film&y=19x5")?.cacheKey == "s=heat")
    }

    @Test func seasonsAndEpisodesNameTheirSeriesByIDOrTitle() throws {
        let season = try #require(answer("i=tt0944947&Season=1"))
        #expect(season.kind == .season)
        #expect(season.cacheKey == "i=tt0944947&season=1")
        #expect(season.imdbID == "tt0944947")
        #expect(!season.answersWithFilm)
        let episode = try #require(answer("t=Game+of+Thrones&season=1&episode=2"))
        #expect(episode.kind == .episode)
        #expect(episode.cacheKey == "t=game%20of%20thrones&season=1&episode=2")
        #expect(episode.answersWithFilm)
    }

    @Test func theFullPlotIsAnAnswerOfItsOwn() throws {
        let full = try #require(answer("i=tt0133093&plot=FULL"))
        #expect(full.kind == .id)
        #expect(full.cacheKey == "i=tt0133093&plot=full")
        #expect(full.imdbID == "tt0133093")
        let title = try #require(answer("t=Heat&plot=full"))
        #expect(title.cacheKey == "t=heat&plot=full")
        // The film body of a full plot is not the stored (short) film.
        #expect(!title.answersWithFilm)
    }

    @Test func theKeyNeverHoldsTheTokenOrACallback() throws {
        let a = try #require(answer("apikey=secret-token-1&t=Heat&callback=cb"))
        #expect(!a.cacheKey.contains("secret") && !a.upstream.contains("secret"))
        #expect(!a.cacheKey.contains("cb") && !a.upstream.contains("callback"))
    }

    @Test func queryItemsDecodeAsAFormDoes() {
        let items = QueryItems.parse("t=The+Matrix&y=1999&x=%E2%9C%93&bad=%ZZ&flag&=v"[...])
        #expect(items.map(\.name) == ["t", "y", "x", "bad", "flag", ""])
        #expect(items.map(\.value) == ["The Matrix", "1999", "✓", "%ZZ", "", "v"])
    }
}

@Suite struct ServeTokensTests {
    @Test func readsOneTokenALineWithComments() throws {
        let tokens = try ServeTokens(
            text: "# apps\nphone-app-7f3a9c  # the phone app\n\n  web-frontend-2b8e\r\n", file: "tokens")
        #expect(tokens.count == 2)
        #expect(tokens.accepts("phone-app-7f3a9c"))
        #expect(tokens.accepts("web-frontend-2b8e"))
        #expect(!tokens.accepts("phone-app"))
        #expect(!tokens.accepts(""))
    }

    @Test func aBadLineIsNamedByFileAndLineNeverByItsText() {
        #expect(throws: ServeTokensError.self) { try ServeTokens(text: "ok-token-123\nshort\n", file: "t.txt") }
        do {
            _ = try ServeTokens(text: "ok-token-123\ntwo words-here\n", file: "t.txt")
            Issue.record("a token with a space was taken")
        } catch {
            #expect(error.description.hasPrefix("t.txt:2: "))
            #expect(!error.description.contains("words-here"))
        }
        do {
            _ = try ServeTokens(text: "# only comments\n\n", file: "t.txt")
            Issue.record("an empty tokens file was taken")
        } catch {
            #expect(error.description.contains("lists no token"))
        }
    }
}
