import Foundation
import OMDbStandIn
import Testing

/// TMDb's 429 storms and the `Retry-After` bookkeeping, and the changes feed with its control.
@Suite struct TMDbLimitAndChangesTests {
    /// Films the tests mark changed.
    static let corpus = TMDbAnswerTests.corpus

    /// A storm answers its N requests 429 with `Retry-After`; a request sent well after a 429 (past
    /// the grace for requests already in flight) counts as inside the announced wait and is answered
    /// 429 again; one sent after the wait does not.
    @Test func stormsAnnounceRetryAfterAndEarlyRequestsAreCounted() throws {
        try StandInHarness.withServer(corpus: Self.corpus) { server, port in
            let connection = try RawHTTPConnection(port: port)
            #expect(try connection.get("/__standin/tmdb/storm?requests=3&retry_after=30", method: "POST").status == 200)
            for _ in 0..<3 {
                let response = try connection.tmdb("/3/configuration")
                #expect(response.status == 429)
                #expect(response.headers["retry-after"] == "30")
                let object = TMDbReference.object(response.body)
                #expect(object["status_code"] as? Int == 25)
                #expect(object["success"] as? Bool == false)
            }
            // The second and third may have been on their way before the first answer was read:
            // within the grace they are not counted; a request sent well after it is.
            let before = server.stats().tmdb.requestsInsideRetryAfter
            #expect(before <= 2)
            Thread.sleep(forTimeInterval: 0.4)
            let early = try connection.tmdb("/3/configuration")
            #expect(early.status == 429)
            #expect((1...30).contains(Int(early.headers["retry-after"] ?? "") ?? 0))
            let stats = try connection.standInStats().tmdb
            #expect(stats.requestsInsideRetryAfter == before + 1)
            #expect(stats.retryAfterPending)
            #expect(stats.byStatus == ["429": 4])
            // Images never meet the gate.
            #expect(try connection.tmdb("/t/p/w92/none.jpg", auth: .none).status == 404)

            #expect(try connection.get("/__standin/reset", method: "POST").status == 200)
            #expect(try connection.get("/__standin/tmdb/storm?requests=1&retry_after=1", method: "POST").status == 200)
            let stormed = try connection.tmdb("/3/configuration")
            #expect(stormed.status == 429)
            #expect(stormed.headers["retry-after"] == "1")
            #expect(TMDbReference.wait { !server.stats().tmdb.retryAfterPending })
            #expect(try connection.tmdb("/3/configuration").status == 200)
            #expect(server.stats().tmdb.requestsInsideRetryAfter == 0)
        }
    }

    /// Past the per-second ceiling a request gets 429 with the configured `Retry-After`, and the
    /// requests that follow inside the wait are counted; the knobs change through `/__standin/faults`.
    @Test func theRateLimitAnswers429WithTheConfiguredRetryAfter() throws {
        try StandInHarness.withServer(corpus: Self.corpus) { server, port in
            let connection = try RawHTTPConnection(port: port)
            let change = try connection.get("/__standin/faults?tmdb-rate-limit=1&tmdb-retry-after=30", method: "POST")
            #expect(change.status == 200)
            #expect(server.behaviour.tmdbRateLimit == 1)
            #expect(server.behaviour.tmdbRetryAfterSeconds == 30)
            #expect(try connection.get("/__standin/faults?tmdb-retry-after=0", method: "POST").status == 400)
            #expect(try connection.get("/__standin/faults?tmdb-rate-limit=0", method: "POST").status == 400)
            // Two requests within one second pass the ceiling of one; send until that happens.
            var limited: RawResponse?
            for _ in 0..<50 where limited == nil {
                let response = try connection.tmdb("/3/configuration")
                if response.status == 429 { limited = response }
            }
            let response = try #require(limited)
            #expect(response.headers["retry-after"] == "30")
            #expect(
                response.text
                    == #"{"success":false,"status_code":25,"status_message":"Your request count (#) is over the allowed limit of (1)."}"#
            )
            let inside = server.stats().tmdb.requestsInsideRetryAfter
            // Past the grace for requests already in flight when the 429 left.
            Thread.sleep(forTimeInterval: 0.4)
            #expect(try connection.tmdb("/3/configuration").status == 429)
            #expect(server.stats().tmdb.requestsInsideRetryAfter == inside + 1)
            _ = try connection.get("/__standin/faults?tmdb-rate-limit=none", method: "POST")
            #expect(server.behaviour.tmdbRateLimit == nil)
        }
    }

    /// The changes control marks titles; the feed lists exactly those in its window, page by page;
    /// a window over 14 days is refused; a marked title's body changes; clearing empties the feed.
    @Test func theChangesFeedListsMarkedTitles() throws {
        let behaviour = StandInBehaviour(tmdbChangesPageSize: 2)
        try StandInHarness.withServer(corpus: Self.corpus, behaviour: behaviour) { _, port in
            let connection = try RawHTTPConnection(port: port)
            let today = TMDbReference.today()
            let empty = try connection.tmdb("/3/movie/changes")
            #expect(empty.status == 200)
            #expect(TMDbReference.changedIDs(empty.body).isEmpty)

            let mark = try connection.get("/__standin/tmdb/changes?count=3&seed=7&date=\(today)", method: "POST")
            #expect(mark.status == 200)
            let marked = TMDbReference.results(mark.body, "marked")
            #expect(marked.count == 3)
            #expect(Set(marked.compactMap { $0["imdb_id"] as? String }).count == 3)
            func ids(_ type: String) -> [Int] {
                marked.filter { $0["media_type"] as? String == type }.compactMap { $0["id"] as? Int }.sorted()
            }

            var listed: [String: [Int]] = [:]
            for type in ["movie", "tv"] {
                var page = 1
                var totalPages = 1
                repeat {
                    let response = try connection.tmdb(
                        "/3/\(type)/changes?start_date=\(TMDbReference.today(offsetDays: -3))&end_date=\(today)&page=\(page)"
                    )
                    #expect(response.status == 200)
                    let object = TMDbReference.object(response.body)
                    #expect(object["page"] as? Int == page)
                    #expect(object["total_results"] as? Int == ids(type).count)
                    #expect(TMDbReference.changedIDs(response.body).count <= 2)
                    totalPages = object["total_pages"] as? Int ?? 0
                    listed[type, default: []] += TMDbReference.changedIDs(response.body)
                    page += 1
                } while page <= totalPages
                #expect(listed[type] == ids(type))
            }
            let byDefault = try connection.tmdb("/3/movie/changes")
            #expect(TMDbReference.changedIDs(byDefault.body) == Array(ids("movie").prefix(2)))

            let before = try connection.tmdb(
                "/3/movie/changes?start_date=\(TMDbReference.today(offsetDays: -20))&end_date=\(TMDbReference.today(offsetDays: -10))"
            )
            #expect(before.status == 200)
            #expect(TMDbReference.changedIDs(before.body).isEmpty)
            let tooLong = try connection.tmdb(
                "/3/movie/changes?start_date=\(TMDbReference.today(offsetDays: -15))&end_date=\(today)")
            #expect(tooLong.status == 422)
            #expect(TMDbReference.object(tooLong.body)["status_code"] as? Int == 20)

            #expect(try connection.get("/__standin/tmdb/changes/clear", method: "POST").status == 200)
            #expect(TMDbReference.changedIDs(try connection.tmdb("/3/movie/changes").body).isEmpty)
        }
    }

    /// Marking a title changes its body (vote count and popularity), and only then.
    @Test func aMarkedTitlesBodyChanges() throws {
        try StandInHarness.withServer(corpus: Self.corpus) { server, port in
            let connection = try RawHTTPConnection(port: port)
            let film = try TMDbAnswerTests.listedFilm(.movie, on: connection)
            let id = TMDbReference.tmdbID(film.imdbID)
            let target = "/3/movie/\(id)"
            let before = try connection.tmdb(target)
            #expect(try connection.tmdb(target).body == before.body)
            let mark = try connection.get("/__standin/tmdb/changes?ids=movie:\(id)", method: "POST")
            #expect(mark.status == 200)
            #expect(TMDbReference.results(mark.body, "marked").first?["imdb_id"] as? String == film.imdbID)
            let after = try connection.tmdb(target)
            #expect(after.body != before.body)
            #expect(try connection.tmdb(target).body == after.body)
            let old = TMDbReference.object(before.body)
            let new = TMDbReference.object(after.body)
            #expect(new["vote_count"] as? Int != old["vote_count"] as? Int)
            #expect(new["popularity"] as? Double != old["popularity"] as? Double)
            #expect(new["title"] as? String == old["title"] as? String)
            #expect(TMDbReference.changedIDs(try connection.tmdb("/3/movie/changes").body) == [id])
            #expect(try connection.get("/__standin/tmdb/changes?ids=movie:1", method: "POST").status == 400)
            #expect(server.stats().tmdb.detailsFetches == ["movie:\(id)": 4])
        }
    }

    /// The same seed marks the same titles on another server.
    @Test func drawnChangesAreTheSameForTheSameSeed() throws {
        func marked(seed: Int) throws -> String {
            try StandInHarness.withServer(corpus: Self.corpus) { _, port in
                try RawHTTPConnection(port: port).get(
                    "/__standin/tmdb/changes?count=5&seed=\(seed)&date=2026-01-10", method: "POST"
                ).text
            }
        }
        let first = try marked(seed: 3)
        #expect(try marked(seed: 3) == first)
        #expect(try marked(seed: 4) != first)
        #expect(first.contains("\"date\":\"2026-01-10\""))
    }
}
