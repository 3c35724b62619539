import Foundation
import SplitMix
import Testing

/// `filmcache export` and `filmcache import` as built, on a cache filled by a real warm from the stand-in.
@Suite(.serialized) struct TransferEndToEndTests {
    let dir = NSTemporaryDirectory() + "filmcache-transfer-" + UUID().uuidString
    var source: String { dir + "/source.sqlite" }
    let watchlist = BuiltBinaries.packageRoot + "/Data/watchlist.txt"

    init() throws {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    /// Warms the sample watchlist into `source` from a fresh stand-in.
    func warm() throws {
        let standIn = try StandInProcess()
        let out = try BuiltBinaries.run(
            "filmcache", ["warm", "--db", source, "--rate", "0", "--base-url", standIn.baseURL, watchlist],
            environment: ["OMDB_API_KEY": "test-key-e2e"])
        try #require(out.status == 0, "\(out.stderr)")
    }

    /// Runs `filmcache` with the output of standard output going to `file`.
    func run(_ arguments: [String], to file: String) throws -> BuiltBinaries.Output {
        try BuiltBinaries.run(
            "/bin/sh", ["-c", "\"$0\" \"$@\" > \"\(file)\"", BuiltBinaries.directory + "/filmcache"] + arguments)
    }

    func ids(_ db: String) throws -> [String] {
        try BuiltBinaries.sqlite(db, "SELECT imdb_id FROM films ORDER BY imdb_id").split(separator: "\n").map(
            String.init)
    }

    /// Every film of `a` is the same in `b`: the canonical form of each (the JSON Lines export holds
    /// it, the film's `show --json` compactly) is byte for byte the same, and `show --json` of a
    /// spread of them is too (one show per film would make the test wait on process start-up).
    func expectSameShows(_ a: String, _ b: String) throws {
        let films = try ids(a)
        #expect(films.count > 200)
        #expect(try ids(b) == films)
        let left = try run(["export", "--db", a], to: dir + "/left.jsonl")
        let right = try run(["export", "--db", b], to: dir + "/right.jsonl")
        #expect(left.status == 0 && right.status == 0)
        let leftLines = try String(contentsOfFile: dir + "/left.jsonl", encoding: .utf8)
        #expect(leftLines.split(separator: "\n").count == films.count)
        #expect(leftLines == (try String(contentsOfFile: dir + "/right.jsonl", encoding: .utf8)))
        for id in films.enumerated().filter({ $0.offset % 14 == 0 }).map(\.element) {
            let left = try BuiltBinaries.run("filmcache", ["show", id, "--db", a, "--json"])
            let right = try BuiltBinaries.run("filmcache", ["show", id, "--db", b, "--json"])
            #expect(left.status == 0 && left.stdout.contains(id) && left.stdout == right.stdout, "\(id)")
        }
        #expect(
            try BuiltBinaries.sqlite(
                b,
                "ATTACH '\(a)' AS a; SELECT count(*) FROM films f JOIN a.films g USING (imdb_id)"
                    + " WHERE f.raw_json IS NOT g.raw_json OR f.fetched_at IS NOT g.fetched_at"
                    + " OR f.data_version IS NOT g.data_version") == "0")
    }

    /// `key value` rows of an import report.
    func count(_ report: String, _ label: String) -> Int? {
        for line in report.split(separator: "\n") where line.trimmingCharacters(in: .whitespaces).hasPrefix(label) {
            return Int(line.dropFirst(2 + label.count).trimmingCharacters(in: .whitespaces).prefix { $0.isNumber })
        }
        return nil
    }

    @Test(
        "Export, import into an empty cache: the same show --json for every film; twice changes nothing",
        arguments: ["jsonl", "csv"])
    func roundTrip(_ format: String) throws {
        try warm()
        let file = dir + "/films." + format
        let export = try run(["export", "--db", source, "--format", format], to: file)
        #expect(export.status == 0 && export.stderr.isEmpty, "\(export.stderr)")
        let target = dir + "/target.sqlite"
        let first = try BuiltBinaries.run("filmcache", ["import", "--db", target, file])
        #expect(first.status == 0, "\(first.stderr)")
        let films = try ids(source).count
        #expect(count(first.stdout, "lines read") == films && count(first.stdout, "added") == films, "\(first.stdout)")
        try expectSameShows(source, target)

        let again = try BuiltBinaries.run("filmcache", ["import", "--db", target, file])
        #expect(again.status == 0)
        #expect(count(again.stdout, "kept") == films && count(again.stdout, "added") == 0, "\(again.stdout)")
        #expect(count(again.stdout, "updated") == 0)
        try expectSameShows(source, target)
    }

    @Test("An older export imported over newer data keeps the newer; --since filters")
    func olderNeverWins() throws {
        try warm()
        // Fetched two days ago, so "a day newer" below is still in the past (a film stamped in the
        // future gives way to any import: no instant pins a film).
        _ = try BuiltBinaries.sqlite(
            source, "UPDATE films SET fetched_at = strftime('%Y-%m-%dT%H:%M:%SZ', fetched_at, '-2 days')")
        let old = dir + "/old.jsonl"
        _ = try run(["export", "--db", source], to: old)
        let target = dir + "/target.sqlite"
        _ = try BuiltBinaries.run("filmcache", ["import", "--db", target, old])
        // The target's films are refreshed later: a day newer, with another title.
        _ = try BuiltBinaries.sqlite(
            target,
            "UPDATE films SET title = 'Newer ' || title, fetched_at = strftime('%Y-%m-%dT%H:%M:%SZ', fetched_at, '+1 day')"
        )
        let out = try BuiltBinaries.run("filmcache", ["import", "--db", target, old])
        #expect(out.status == 0)
        #expect(count(out.stdout, "kept") == (try ids(source).count) && count(out.stdout, "updated") == 0)
        #expect(try BuiltBinaries.sqlite(target, "SELECT count(*) FROM films WHERE title NOT LIKE 'Newer %'") == "0")

        // Newer films in the source now: only those come out with --since.
        _ = try BuiltBinaries.sqlite(
            source,
            "UPDATE films SET fetched_at = '2031-05-05T00:00:00Z' WHERE rowid IN (SELECT rowid FROM films LIMIT 7)")
        for since in ["2031-05-05", "2031-05-05T02:00:00+02:00", "2031-05-04T23:59:59Z"] {
            let recent = dir + "/recent.jsonl"
            let export = try run(["export", "--db", source, "--since", since], to: recent)
            #expect(export.status == 0, "\(export.stderr)")
            #expect(try String(contentsOfFile: recent, encoding: .utf8).split(separator: "\n").count == 7, "\(since)")
        }
        let none = dir + "/none.jsonl"
        _ = try run(["export", "--db", source, "--since", "2031-05-05T00:00:01Z"], to: none)
        #expect(try Data(contentsOf: URL(fileURLWithPath: none)).isEmpty)
        let bad = try BuiltBinaries.run("filmcache", ["export", "--db", source, "--since", "last week"])
        #expect(bad.status == 64)
    }

    @Test("A bad line in the middle: the rest is imported and file:line named; OMDb bodies one a line")
    func badLinesAndBodies() throws {
        try warm()
        let file = dir + "/films.jsonl"
        _ = try run(["export", "--db", source], to: file)
        var lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").map(String.init)
        lines.insert(#"{"imdbID":"tt0000001","lastFetched":"2026-01-02T03:04:05Z","dataVersion":1}"#, at: 10)
        lines.insert("not json at all", at: 20)
        let mixed = dir + "/mixed.jsonl"
        try (lines.joined(separator: "\n") + "\n").write(toFile: mixed, atomically: true, encoding: .utf8)
        let target = dir + "/target.sqlite"
        let out = try BuiltBinaries.run("filmcache", ["import", "--db", target, mixed])
        // Lines were skipped: the status says so (the rest is imported all the same).
        #expect(out.status == 65, "\(out.stderr)")
        #expect(out.stderr.contains("2 lines were skipped"), "\(out.stderr)")
        #expect(out.stderr.contains("mixed.jsonl:11: no rawJSON"), "\(out.stderr)")
        #expect(out.stderr.contains("mixed.jsonl:21: not valid JSON"), "\(out.stderr)")
        #expect(count(out.stdout, "bad, skipped") == 2 && count(out.stdout, "added") == lines.count - 2)

        // The corpus's own bodies, one a line, as OMDb sent them.
        let corpus = BuiltBinaries.packageRoot + "/Data/corpus"
        let names = try FileManager.default.contentsOfDirectory(atPath: corpus).filter { $0.hasSuffix(".json") }
            .sorted()
            .prefix(20)
        let bodies = try names.map {
            try String(contentsOfFile: corpus + "/" + $0, encoding: .utf8).replacingOccurrences(of: "\n", with: " ")
        }
        let bodiesFile = dir + "/bodies.jsonl"
        try (bodies.joined(separator: "\n") + "\n").write(toFile: bodiesFile, atomically: true, encoding: .utf8)
        let fresh = dir + "/bodies.sqlite"
        let imported = try BuiltBinaries.run("filmcache", ["import", "--db", fresh, bodiesFile])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(count(imported.stdout, "added") == 20, "\(imported.stdout)")
        let id = String(try #require(names.first).dropLast(5))
        let left = try BuiltBinaries.run("filmcache", ["show", id, "--db", source])
        let right = try BuiltBinaries.run("filmcache", ["show", id, "--db", fresh])
        #expect(left.stdout.split(separator: "\n").dropLast() == right.stdout.split(separator: "\n").dropLast())
    }

    @Test("Exit statuses: a missing database, a missing file, nothing importable, a full disk, standard input")
    func failures() throws {
        let missing = try BuiltBinaries.run("filmcache", ["export", "--db", dir + "/absent.sqlite"])
        #expect(missing.status == 66 && missing.stderr.contains("absent.sqlite"), "\(missing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/absent.sqlite"))

        try warm()
        let target = dir + "/target.sqlite"
        let noFile = try BuiltBinaries.run("filmcache", ["import", "--db", target, dir + "/nope.jsonl"])
        #expect(noFile.status == 66 && noFile.stderr.contains("nope.jsonl"), "\(noFile.stderr)")
        #expect(!FileManager.default.fileExists(atPath: target), "nothing is created when a file cannot be opened")
        let directory = try BuiltBinaries.run("filmcache", ["import", "--db", target, dir])
        #expect(directory.status == 74, "\(directory.stderr)")
        let usage = try BuiltBinaries.run("filmcache", ["import", "--db", target])
        #expect(usage.status == 64)

        let junk = dir + "/junk.jsonl"
        try "{\"a\":1}\n{\"b\":2}\n".write(toFile: junk, atomically: true, encoding: .utf8)
        let nothing = try BuiltBinaries.run("filmcache", ["import", "--db", target, junk])
        #expect(nothing.status == 65 && nothing.stderr.contains("junk.jsonl"), "\(nothing.stderr)")

        let full = try BuiltBinaries.run(
            "/bin/sh", ["-c", "\"$0\" export --db \"$1\" > /dev/full", BuiltBinaries.directory + "/filmcache", source])
        #expect(full.status == 74 && full.stderr.contains("standard output"), "\(full.stderr)")

        let piped = try BuiltBinaries.run(
            "/bin/sh",
            [
                "-c", "\"$0\" export --db \"$1\" --format csv | \"$0\" import --db \"$2\" -",
                BuiltBinaries.directory + "/filmcache", source, target,
            ])
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(count(piped.stdout, "added") == (try ids(source).count), "\(piped.stdout)")
    }

    /// Imports killed at seeded random moments, checkpoints (on their own thread) running among the
    /// commits: every film another reader saw committed just before the kill is there after it, the
    /// file passes SQLite's integrity check, and an import left to finish holds every film and empties
    /// its WAL.
    @Test func importsKilledAtRandomMomentsLoseNoCommittedRow() throws {
        let films = 8000
        let filled = try BuiltBinaries.run("filmcache-bench", ["fill", "--db", source, "--rows", "\(films)"])
        try #require(filled.status == 0, "\(filled.stderr)")
        let file = dir + "/films.jsonl"
        let export = try run(["export", "--db", source, "--format", "jsonl"], to: file)
        try #require(export.status == 0, "\(export.stderr)")
        // Over 1,000 pages of WAL, so checkpoints run while the imports commit.
        #expect(try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int ?? 0 > 8 << 20)
        var rng = SplitMix64(seed: 0xC4EC_4B01)
        for round in 0..<6 {
            let target = dir + "/target-\(round).sqlite"
            let running = try RunningBinary("filmcache", ["import", "--db", target, file])
            usleep(UInt32(rng.int(in: 100...700)) * 1000)
            // What a reader sees committed (none while the file or its schema is not there yet).
            var seen = 0
            if FileManager.default.fileExists(atPath: target) {
                let answer = try BuiltBinaries.sqlite(
                    target, "PRAGMA busy_timeout = 5000; SELECT count(*) FROM films")
                // The pragma's line ("5000"), then the count's, unless the table is not made yet.
                let lines = answer.split(separator: "\n")
                seen = lines.count == 2 ? Int(lines[1]) ?? 0 : 0
            }
            running.send(SIGKILL)
            _ = running.wait()
            guard FileManager.default.fileExists(atPath: target) else { continue }
            #expect(try BuiltBinaries.sqlite(target, "PRAGMA integrity_check") == "ok", "round \(round)")
            // A kill before the schema was made leaves a file with no films table, and nothing seen.
            let tables = try BuiltBinaries.sqlite(target, "SELECT count(*) FROM sqlite_master WHERE name = 'films'")
            let count = tables == "0" ? 0 : Int(try BuiltBinaries.sqlite(target, "SELECT count(*) FROM films")) ?? -1
            #expect(count >= seen, "round \(round): \(count) films after the kill, \(seen) seen committed before")
            // The kill may have come while the empty cache's fetch-time index was set aside: the next
            // writer to open the cache builds it.
            guard tables == "1" else { continue }
            let missing = try BuiltBinaries.sqlite(target, Self.fetchedAtIndex) == "0"
            let opened = try BuiltBinaries.run("filmcache", ["import", "--db", target, "/dev/null"])
            // The open builds it, before this import's own end would.
            #expect(
                !missing || opened.stderr.contains("building the films' fetched_at index"),
                "round \(round): \(opened.stderr)")
            #expect(try BuiltBinaries.sqlite(target, Self.fetchedAtIndex) == "1", "round \(round)")
            #expect(try BuiltBinaries.sqlite(target, "PRAGMA integrity_check") == "ok", "round \(round)")
        }
        let target = dir + "/target.sqlite"
        let last = try BuiltBinaries.run("filmcache", ["import", "--db", target, file])
        #expect(last.status == 0, "\(last.stderr)")
        // Read before anything else opens the file: the sqlite3 CLI's close deletes the -wal.
        #expect(try FileManager.default.attributesOfItem(atPath: target + "-wal")[.size] as? Int == 0)
        #expect(try BuiltBinaries.sqlite(target, "SELECT count(*) FROM films") == "\(films)")
        #expect(try BuiltBinaries.sqlite(target, "PRAGMA integrity_check") == "ok")
        // The index set aside while the films came in is there again, as a fresh cache has it.
        let schema = "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name"
        #expect(try BuiltBinaries.sqlite(target, schema) == (try BuiltBinaries.sqlite(source, schema)))
        #expect(try BuiltBinaries.sqlite(target, Self.fetchedAtIndex) == "1")
    }

    /// The JSON Lines export of a cache of `rows` generated films (`filmcache-bench fill`), a line each.
    func exportedLines(_ rows: Int) throws -> [Substring] {
        let filled = try BuiltBinaries.run("filmcache-bench", ["fill", "--db", source, "--rows", "\(rows)"])
        try #require(filled.status == 0, "\(filled.stderr)")
        let file = dir + "/films.jsonl"
        try #require(try run(["export", "--db", source, "--format", "jsonl"], to: file).status == 0)
        let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").map { $0 + "\n" }
        try #require(lines.count == rows)
        return lines
    }

    /// An import into an empty cache drops `films`' fetch-time index while its films come in (a
    /// reader sees the first batch committed and no index) and builds it at its end.
    @Test func anImportIntoAnEmptyCacheBuildsItsFetchTimeIndexAtItsEnd() throws {
        let lines = try exportedLines(1200)
        let fifo = dir + "/films.fifo"
        try #require(mkfifo(fifo, 0o600) == 0)
        let target = dir + "/target.sqlite"
        let running = try RunningBinary("filmcache", ["import", "--db", target, fifo])
        // Opens once the import has opened the FIFO to read it.
        let writer = try #require(FileHandle(forWritingAtPath: fifo))
        // More than a batch (500 films): the first is committed while the import waits for the rest.
        writer.write(Data(lines[..<600].joined().utf8))
        var committed = 0
        let deadline = Date() + 120
        while committed == 0, Date() < deadline {
            let answer = try BuiltBinaries.sqlite(target, "PRAGMA busy_timeout = 5000; SELECT count(*) FROM films")
            let answerLines = answer.split(separator: "\n")
            committed = answerLines.count == 2 ? Int(answerLines[1]) ?? 0 : 0
            if committed == 0 { usleep(20_000) }
        }
        #expect(committed >= 500, "no batch committed within two minutes")
        #expect(try BuiltBinaries.sqlite(target, Self.fetchedAtIndex) == "0", "set aside while the films come in")
        writer.write(Data(lines[600...].joined().utf8))
        try writer.close()
        let out = running.wait()
        #expect(out.status == 0, "\(out.stderr)")
        #expect(try BuiltBinaries.sqlite(target, "SELECT count(*) FROM films") == "1200")
        #expect(try BuiltBinaries.sqlite(target, Self.fetchedAtIndex) == "1")
        #expect(!out.stderr.contains("building the films' fetched_at index"), "built by the import, not an open")
    }

    /// Two imports at once into one empty cache, each setting the index aside and building it at its
    /// end while the other may still be writing: every film of both lands once, the index is there,
    /// and the file is whole.
    @Test func twoImportsAtOnceIntoAnEmptyCacheLeaveEveryFilmAndTheIndex() throws {
        let lines = try exportedLines(6000)
        // Films 0..<4000 and 2000..<6000: 2,000 in both.
        try lines[..<4000].joined().write(toFile: dir + "/a.jsonl", atomically: true, encoding: .utf8)
        try lines[2000...].joined().write(toFile: dir + "/b.jsonl", atomically: true, encoding: .utf8)
        let target = dir + "/target.sqlite"
        _ = try BuiltBinaries.run("filmcache", ["import", "--db", target, "/dev/null"])
        let first = try RunningBinary("filmcache", ["import", "--db", target, dir + "/a.jsonl"])
        let second = try RunningBinary("filmcache", ["import", "--db", target, dir + "/b.jsonl"])
        let (a, b) = (first.wait(), second.wait())
        #expect(a.status == 0 && b.status == 0, "\(a.stderr)\n\(b.stderr)")
        #expect((count(a.stdout, "added") ?? 0) + (count(b.stdout, "added") ?? 0) == 6000, "\(a.stdout)\(b.stdout)")
        #expect(try BuiltBinaries.sqlite(target, "SELECT count(*) FROM films") == "6000")
        #expect(try BuiltBinaries.sqlite(target, Self.fetchedAtIndex) == "1")
        #expect(try BuiltBinaries.sqlite(target, "PRAGMA integrity_check") == "ok")
    }

    /// Counts `films`' `fetched_at` index (1, or 0 when it is missing).
    static let fetchedAtIndex = "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'films_fetched_at'"
}
