import Foundation
import PostgresScratch
import Testing

/// Lists that name films by title, not ID, warmed by the built `filmcache` against the stand-in's `t=`.
@Suite(.serialized) struct TitleListEndToEndTests {
    let dir = NSTemporaryDirectory() + "filmcache-titles-" + UUID().uuidString
    var db: String { dir + "/cache.sqlite" }
    let environment = ["OMDB_API_KEY": "test-key-e2e"]

    init() throws {
        try FileManager.default.createDirectory(atPath: dir + "/corpus", withIntermediateDirectories: true)
    }

    /// Film `n` of the test's corpus: an ID, a title with accents, quotes, commas or apostrophes
    /// (some of them shared by films of different years), and a year.
    static func film(_ n: Int) -> (id: String, title: String, year: Int) {
        let names = [
            "Amélie", #"The "Burbs""#, "Crouching Tiger, Hidden Dragon", "Schindler's List", "Léon: The Professional",
            "Heat", "Æon Flux", "8½", "Spider-Man: No Way Home", "Das Boot",
        ]
        // Every 25th title is shared with the film 10 before it, told apart by the year alone.
        let base = n % 25 == 0 ? n - 10 : n
        return (String(format: "tt9%06d", n), "\(names[base % names.count]) \(base / 10)", 1950 + n % 70)
    }

    /// A CSV field, quoted when it must be.
    static func csv(_ field: String) -> String {
        field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" })
            ? "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : field
    }

    /// Writes the corpus of films `1...count` in the shape of the shipped corpus.
    func writeCorpus(count: Int) throws {
        let template =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: BuiltBinaries.packageRoot + "/Data/corpus/tt0100044.json")))
            as? [String: Any] ?? [:]
        for n in 1...count {
            let film = Self.film(n)
            var body = template
            body["Title"] = film.title
            body["Year"] = String(film.year)
            body["imdbID"] = film.id
            body["Type"] = "movie"
            try JSONSerialization.data(withJSONObject: body).write(
                to: URL(fileURLWithPath: dir + "/corpus/\(film.id).json"))
        }
    }

    /// A Letterboxd export of `rows` (name, year), one per line after the header, with `extra` columns.
    func writeExport(_ name: String, rows: [(String, Int)], diary: Bool = false) throws -> String {
        var text =
            diary
            ? "Date,Name,Year,Letterboxd URI,Rating,Rewatch,Tags,Watched Date\n"
            : "Date,Name,Year,Letterboxd URI\n"
        for (index, row) in rows.enumerated() {
            let uri = "https://boxd.it/\(String(index, radix: 36))"
            text +=
                "2024-02-03,\(Self.csv(row.0)),\(row.1),\(uri)"
                + (diary ? ",4.5,\(index % 7 == 0 ? "Yes" : ""),\(Self.csv("rewatch, cosy")),2024-02-02" : "") + "\n"
        }
        let path = dir + "/" + name
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func run(_ arguments: [String]) throws -> BuiltBinaries.Output {
        try BuiltBinaries.run("filmcache", arguments + ["--db", db], environment: environment)
    }

    @Test func aLetterboxdExportWarmsWithOneCallPerDistinctTitleThenNone() throws {
        try writeCorpus(count: 260)
        let standIn = try StandInProcess(corpus: dir + "/corpus")
        // The watchlist names films 1–200 and ten titles OMDb lacks; the diary names 150–260, some of
        // them twice (rewatches), the overlap in other letter cases and without accents.
        let missing = (1...10).map { ("Film That Never Was \($0)", 2001) }
        let watchlistRows = (1...200).map { (Self.film($0).title, Self.film($0).year) }
        let watchlist = try writeExport(
            "watchlist.csv", rows: Array(watchlistRows[..<100]) + missing + watchlistRows[100...])
        let diaryRows = (150...260).flatMap { n -> [(String, Int)] in
            let film = Self.film(n)
            let shown =
                n <= 200 && n % 2 == 0
                ? film.title.uppercased().folding(options: .diacriticInsensitive, locale: nil) : film.title
            return n % 9 == 0 ? [(shown, film.year), (film.title, film.year)] : [(shown, film.year)]
        }
        let diary = try writeExport("diary.csv", rows: diaryRows, diary: true)

        // The plan, before any call: every distinct title is to resolve, one call each.
        let plan = try run(["plan", "--json", watchlist, diary])
        #expect(plan.status == 0, "\(plan.stderr)")
        let planned = try JSONSerialization.jsonObject(with: Data(plan.stdout.utf8)) as? [String: Any]
        let titles = planned?["titles"] as? [String: Any]
        #expect(titles?["distinct"] as? Int == 270 && titles?["toResolve"] as? Int == 270, "\(plan.stdout)")
        #expect(planned?["toFetch"] as? Int == 270)
        let kinds = (planned?["worklists"] as? [[String: Any]])?.compactMap { $0["kind"] as? String }
        #expect(kinds == ["Letterboxd export", "Letterboxd export"])
        let text = try run(["plan", watchlist, diary])
        #expect(text.stdout.contains("watchlist.csv (Letterboxd export: 210 titles)"), "\(text.stdout)")
        #expect(text.stdout.contains("270 to resolve, 270 of them tonight (1 call each)"), "\(text.stdout)")

        // The first warm: one call per distinct title, every film stored under its own ID.
        let first = try run(["warm", "--rate", "0", "--base-url", standIn.baseURL, watchlist, diary])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try standIn.requestCount() == 270, "\(first.stdout)")
        let stored = try BuiltBinaries.sqlite(db, "SELECT imdb_id FROM films ORDER BY imdb_id").split(separator: "\n")
        #expect(stored == (1...260).map { Self.film($0).id[...] })
        // Each title's answer is the film of that title and year: stored under its own ID, never
        // another's (every 25th title is shared by two films, told apart by the year alone).
        let answers = try BuiltBinaries.sqlite(
            db, "SELECT f.imdb_id, f.title, t.year FROM titles t JOIN films f ON f.imdb_id = t.imdb_id")
        for row in answers.split(separator: "\n") {
            let fields = row.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            let film = Self.film(Int(fields[0].dropFirst(3)) ?? 0)
            #expect(fields[1] == film.title && fields[2] == String(film.year), "\(row)")
        }
        let index = try BuiltBinaries.sqlite(
            db, "SELECT count(*), count(imdb_id), count(DISTINCT imdb_id) FROM titles")
        #expect(index.trimmingCharacters(in: .whitespacesAndNewlines) == "270|260|260", "\(index)")
        // Each title OMDb lacks is reported once, at its file and line.
        let reports = first.stderr.split(separator: "\n").filter { $0.contains("OMDb finds no title") }
        let lines = reports.compactMap { report in
            report.range(of: "watchlist.csv:").flatMap { Int(report[$0.upperBound...].prefix { $0.isNumber }) }
        }
        #expect(Set(lines) == Set(102...111) && lines.count == 10, "\(first.stderr)")
        #expect(first.stdout.contains("titles resolved"), "\(first.stdout)")

        // The second warm of the same lists: no call at all.
        let second = try run(["warm", "--rate", "0", "--base-url", standIn.baseURL, watchlist, diary])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(try standIn.requestCount() == 270)
        #expect(!second.stderr.contains("OMDb finds no title"), "a not-found title is not reported again")

        // An IMDb-ID list of the same films afterwards: no call either.
        let ids = dir + "/ids.txt"
        try (1...260).map { Self.film($0).id }.joined(separator: "\n").write(
            toFile: ids, atomically: true, encoding: .utf8)
        let byID = try run(["warm", "--rate", "0", "--base-url", standIn.baseURL, ids])
        #expect(byID.status == 0, "\(byID.stderr)")
        #expect(try standIn.requestCount() == 270)
    }

    @Test func aTitleAndItsIDInOneRunArePaidForOnce() throws {
        try writeCorpus(count: 20)
        let standIn = try StandInProcess(corpus: dir + "/corpus")
        // The title list ranks first (two files name its films); the ID list names the same films after.
        let titles = try writeExport("watchlist.csv", rows: (1...20).map { (Self.film($0).title, Self.film($0).year) })
        let again = try writeExport("ratings.csv", rows: (1...20).map { (Self.film($0).title, Self.film($0).year) })
        let ids = dir + "/ids.txt"
        try (1...20).map { Self.film($0).id }.joined(separator: "\n").write(
            toFile: ids, atomically: true, encoding: .utf8)
        let warm = try run([
            "warm", "--rate", "0", "--max-in-flight", "1", "--base-url", standIn.baseURL, titles, again, ids,
        ])
        #expect(warm.status == 0, "\(warm.stderr)")
        #expect(try standIn.requestCount() == 20, "each film once: \(warm.stdout)")
    }

    @Test func aHandWrittenListOfTitlesAndYearsWarmsAndABudgetDefersTheRest() throws {
        try writeCorpus(count: 30)
        let standIn = try StandInProcess(corpus: dir + "/corpus")
        let list = dir + "/to-watch.txt"
        try ((1...30).map { "\(Self.film($0).title) (\(Self.film($0).year))" } + ["Nothing Like It (1999)"])
            .joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
        // A day of 20 usable calls: the titles compete for it like IDs and the rest waits.
        let limited = ["--daily-limit", "20", "--reserve", "0"]
        let plan = try run(["plan", "--json"] + limited + [list])
        let planned = try JSONSerialization.jsonObject(with: Data(plan.stdout.utf8)) as? [String: Any]
        let titles = planned?["titles"] as? [String: Any]
        #expect(titles?["toResolveTonight"] as? Int == 20 && planned?["deferred"] as? Int == 11, "\(plan.stdout)")
        let warm = try run(["warm", "--rate", "0", "--base-url", standIn.baseURL] + limited + [list])
        // 75: the budget ended the run with work left for the next quota day.
        #expect(warm.status == 75 && warm.stdout.contains("budget is spent"), "\(warm.stdout)\n\(warm.stderr)")
        #expect(try standIn.requestCount() == 20)
        #expect(try BuiltBinaries.sqlite(db, "SELECT count(*) FROM titles").hasPrefix("20"))
    }
}

extension TitleListEndToEndTests {
    /// A server that answers wrongly: errors, block pages, truncated and empty bodies, and other
    /// films' bodies for the asked titles. Nothing it says may leave a title pointing at the wrong
    /// film or marked "not found" when it exists; runs after the storm finish the list.
    @Test func aFaultStormLeavesNoTitlePointingAtTheWrongFilm() throws {
        try writeCorpus(count: 60)
        let missing = (1...5).map { ("Never Made \($0)", 1999) }
        let list = try writeExport(
            "watchlist.csv", rows: (1...60).map { (Self.film($0).title, Self.film($0).year) } + missing)
        let stormy = try StandInProcess(
            arguments: ["--fault-rate", "0.3", "--faults", "all", "--seed", "15"], corpus: dir + "/corpus")
        let storm = try run([
            "warm", "--rate", "0", "--base-url", stormy.baseURL, "--retry-base", "0.01", "--retry-cap", "0.05",
            "--max-attempts", "2", list,
        ])
        #expect([0, 1, 75].contains(storm.status), "\(storm.stderr.suffix(2_000))")
        func checkIndex() throws {
            // Every title with an ID names the film of that title and year; only the missing ones are "not found".
            let rows = try BuiltBinaries.sqlite(
                db, "SELECT t.imdb_id, f.title, t.year FROM titles t JOIN films f ON f.imdb_id = t.imdb_id")
            for row in rows.split(separator: "\n") {
                let fields = row.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
                let film = Self.film(Int(fields[0].dropFirst(3)) ?? 0)
                #expect(fields[1] == film.title && fields[2] == String(film.year), "\(row)")
            }
            let negatives = try BuiltBinaries.sqlite(db, "SELECT asked_title FROM titles WHERE imdb_id IS NULL")
            #expect(
                negatives.split(separator: "\n").allSatisfy { $0.hasPrefix("Never Made") }, "\(negatives)")
        }
        try checkIndex()
        // Then a server that answers half the titles with another film's body.
        let mixedUp = try StandInProcess(
            arguments: ["--fault-rate", "0.5", "--faults", "wrong-id", "--seed", "3"], corpus: dir + "/corpus")
        let wrong = try run(["warm", "--rate", "0", "--base-url", mixedUp.baseURL, list])
        #expect(wrong.stderr.contains("with another title"), "\(wrong.stderr.suffix(2_000))")
        try checkIndex()

        // Calm runs finish the list: every film indexed, the five misses known as such.
        let calm = try StandInProcess(corpus: dir + "/corpus")
        for _ in 0..<2 {
            let out = try run(["warm", "--rate", "0", "--base-url", calm.baseURL, list])
            #expect(out.status == 0, "\(out.stderr.suffix(2_000))")
        }
        try checkIndex()
        let counts = try BuiltBinaries.sqlite(db, "SELECT count(*), count(imdb_id) FROM titles")
        #expect(counts.trimmingCharacters(in: .whitespacesAndNewlines) == "65|60", "\(counts)")
        let before = try calm.requestCount()
        let last = try run(["warm", "--rate", "0", "--base-url", calm.baseURL, list])
        let after = try calm.requestCount()
        #expect(last.status == 0 && after == before, "nothing left to ask")
    }

    @Test func warmsSharingAPostgreSQLPlanResolveEachTitleOnce() async throws {
        try await offThePool {
            try writeCorpus(count: 200)
            let list = try writeExport(
                "watchlist.csv", rows: (1...200).map { (Self.film($0).title, Self.film($0).year) })
            let server = try ScratchPostgres.shared()
            let database = try server.createDatabase()
            // Answers slow until both warms hold claims, however loaded the machine; quick after.
            let standIn = try StandInProcess(arguments: ["--latency-ms", "5000"], corpus: dir + "/corpus")
            var environment = environment
            environment["PGPASSWORD"] = server.password
            let warms = try (0..<2).map { _ in
                try RunningBinary(
                    "filmcache",
                    [
                        "warm", "--db", server.url(database: database), "--base-url", standIn.baseURL, "--rate", "0",
                        "--max-in-flight", "4", "--no-progress", list,
                    ], environment: environment)
            }
            try waitFor("both warms claim titles", while: warms.allSatisfy(\.isRunning)) {
                server.runsHoldingClaims(in: database) == 2
            }
            try standIn.setBehaviour("latency-ms=20")
            for out in warms.map({ $0.wait(timeout: 120) }) { #expect(out.status == 0, "\(out.stderr)") }
            // A title is claimed as an ID is: one call for each across both warms.
            #expect(try standIn.requestCount() == 200)
            #expect(try server.sql("SELECT count(*) FROM titles", database: database).contains("200"))
            let shares = try server.sql("SELECT string_agg(calls::text, ' ' ORDER BY id) FROM runs", database: database)
            #expect(
                shares.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
                    .filter { $0 > 0 }.count == 2, "each warm resolved a share: \(shares)")
        }
    }
}
