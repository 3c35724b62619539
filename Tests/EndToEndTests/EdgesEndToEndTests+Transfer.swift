import Foundation
import Testing

extension EdgesEndToEndTests {
    /// A film fetched in the future by some clock: refused on import, clamped on copy, stale to a warm.
    @Suite struct FutureInstants {
        let scratch: ReliabilityScratch
        static let future = "2099-01-01T00:00:00Z"

        init() throws {
            scratch = try ReliabilityScratch("edges-future")
        }

        /// An instant `seconds` from now, as exports write them.
        static func instant(_ seconds: TimeInterval) -> String {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime]
            return formatter.string(from: Date().addingTimeInterval(seconds))
        }

        /// Seconds between now and the stored `fetched_at` of `id` in `database`.
        func age(of id: String, in database: String? = nil) throws -> TimeInterval? {
            let text = try scratch.sqlite("SELECT fetched_at FROM films WHERE imdb_id = '\(id)'", database: database)
            return ISO8601DateFormatter().date(from: text).map { Date().timeIntervalSince($0) }
        }

        @Test func anExportLineFetchedInTheFutureIsSkippedAndNamedAndTheRestImported() async throws {
            try await offThePool {
                try EdgesEndToEndTests.warm(scratch, count: 20)
                let export = try EdgesEndToEndTests.filmcache(["export", "--db", scratch.db])
                try #require(export.status == 0)
                var lines = export.stdout.split(separator: "\n").map(String.init)
                #expect(lines.count == 20)
                // Line 5 in 2099, line 9 twenty minutes ahead: refused; line 12 a minute ahead (a clock
                // a little fast): taken.
                let stamp = try Regex(#""lastFetched":"[^"]*""#)
                for (index, instant) in [(4, Self.future), (8, Self.instant(1_200)), (11, Self.instant(60))] {
                    lines[index] = lines[index].replacing(
                        stamp, with: "\"lastFetched\":\"\(instant)\"", maxReplacements: 1)
                }
                let file = try scratch.write("future.jsonl", Array((lines.joined(separator: "\n") + "\n").utf8))
                let target = scratch.dir + "/target.sqlite"
                let out = try EdgesEndToEndTests.filmcache(["import", "--db", target, file])
                #expect(out.status == 65, "\(out.stderr)")
                let ids = EdgesEndToEndTests.ids
                for (line, id) in [(5, ids[4]), (9, ids[8])] {
                    #expect(out.stderr.contains("\(file):\(line): \(id): fetched_at "), "\(out.stderr)")
                    #expect(
                        try scratch.sqlite("SELECT count(*) FROM films WHERE imdb_id = '\(id)'", database: target)
                            == "0")
                }
                #expect(out.stderr.contains("lies in the future"))
                #expect(EdgesEndToEndTests.count(out.stdout, "added") == 18, "\(out.stdout)")
                #expect(try scratch.sqlite("SELECT count(*) FROM films", database: target) == "18")
                #expect(try age(of: ids[11], in: target).map { $0 < 0 } == true)
            }
        }

        @Test func aCSVRecordFetchedInTheFutureIsSkippedAndNamedAndTheRestImported() async throws {
            try await offThePool {
                try EdgesEndToEndTests.warm(scratch, count: 20)
                let export = try EdgesEndToEndTests.filmcache(["export", "--db", scratch.db, "--format", "csv"])
                try #require(export.status == 0)
                let id = EdgesEndToEndTests.ids[6]
                var bytes = Array(export.stdout.utf8)
                let (start, line) = try #require(EdgesEndToEndTests.record(id, in: bytes))
                let end = try #require(EdgesEndToEndTests.rawJSONEnd(in: bytes, from: start))
                bytes.replaceSubrange(end.fetchedAt, with: Array(Self.future.utf8))
                let file = try scratch.write("future.csv", bytes)
                let target = scratch.dir + "/target.sqlite"
                let out = try EdgesEndToEndTests.filmcache(["import", "--db", target, file])
                #expect(out.status == 65, "\(out.stderr)")
                #expect(out.stderr.contains("\(file):\(line): \(id): fetched_at \(Self.future)"), "\(out.stderr)")
                #expect(try scratch.sqlite("SELECT count(*) FROM films", database: target) == "19")
                #expect(
                    try scratch.sqlite("SELECT count(*) FROM films WHERE imdb_id = '\(id)'", database: target) == "0")
            }
        }

        @Test func aCopyLandsAFilmFetchedInTheFutureAsFetchedNow() async throws {
            try await offThePool {
                try EdgesEndToEndTests.warm(scratch, count: 10)
                let id = EdgesEndToEndTests.ids[3]
                _ = try scratch.sqlite("UPDATE films SET fetched_at = '\(Self.future)' WHERE imdb_id = '\(id)'")
                let target = scratch.dir + "/copy.sqlite"
                let out = try EdgesEndToEndTests.filmcache(["db", "copy", scratch.db, target])
                #expect(out.status == 0, "\(out.stderr)")
                #expect(out.stdout.contains("1 films fetched in the future by FROM's clock were copied as fetched now"))
                let age = try #require(try age(of: id, in: target))
                #expect(abs(age) < 60, "fetched_at \(age) s ago")
                #expect(try scratch.sqlite("SELECT count(*) FROM films", database: target) == "10")
                // FROM is only read.
                #expect(try scratch.sqlite("SELECT fetched_at FROM films WHERE imdb_id = '\(id)'") == Self.future)
                let json = try EdgesEndToEndTests.filmcache([
                    "db", "copy", scratch.db, scratch.dir + "/json.sqlite", "--json",
                ])
                #expect(json.stdout.contains("\"clampedToNow\" : 1"), "\(json.stdout)")
            }
        }

        @Test func aFilmPinnedInTheFutureIsStaleAndAWarmFetchesItAgain() async throws {
            try await offThePool {
                let standIn = try StandInProcess()
                let worklist = try EdgesEndToEndTests.warm(scratch, count: 10, standIn: standIn)
                let id = EdgesEndToEndTests.ids[2]
                _ = try scratch.sqlite("UPDATE films SET fetched_at = '\(Self.future)' WHERE imdb_id = '\(id)'")
                let stats = try EdgesEndToEndTests.filmcache(["stats", "--db", scratch.db, "--json", worklist])
                let object = try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any]
                #expect(object?["stale"] as? Int == 1 && object?["fresh"] as? Int == 9, "\(stats.stdout.prefix(600))")
                let plan = try scratch.plan([worklist])
                #expect(plan["toFetchIDs"] as? [String] == [id], "\(plan)")
                let before = try standIn.requestCount()
                let warm = try EdgesEndToEndTests.filmcache(
                    [
                        "warm", "--db", scratch.db, "--rate", "0", "--no-progress", "--base-url", standIn.baseURL,
                        worklist,
                    ],
                    environment: ["OMDB_API_KEY": "test-key-e2e"])
                #expect(warm.status == 0, "\(warm.stderr)")
                #expect(try standIn.requestCount() == before + 1)
                let age = try #require(try age(of: id))
                #expect(abs(age) < 60, "fetched_at \(age) s ago")
            }
        }

        @Test func aFilmPinnedInTheFutureIsReplacedByAnImportOrCopyOfOneFetchedNow() async throws {
            try await offThePool {
                try EdgesEndToEndTests.warm(scratch, count: 5)
                let id = EdgesEndToEndTests.ids[1]
                let export = try EdgesEndToEndTests.filmcache(["export", "--db", scratch.db])
                let file = try scratch.write("now.jsonl", Array(export.stdout.utf8))
                for how in ["import", "db copy"] {
                    let pinned = scratch.dir + "/pinned-\(how.count).sqlite"
                    _ = try EdgesEndToEndTests.filmcache(["import", "--db", pinned, file])
                    _ = try scratch.sqlite(
                        "UPDATE films SET fetched_at = '\(Self.future)', title = 'Pinned' WHERE imdb_id = '\(id)'",
                        database: pinned)
                    let out = try EdgesEndToEndTests.filmcache(
                        how == "import" ? ["import", "--db", pinned, file] : ["db", "copy", scratch.db, pinned])
                    #expect(out.status == 0, "\(how): \(out.stderr)")
                    let title = try scratch.sqlite(
                        "SELECT title FROM films WHERE imdb_id = '\(id)'", database: pinned)
                    #expect(title != "Pinned", "\(how): a film fetched now replaces one pinned in the future")
                }
            }
        }
    }
}

extension EdgesEndToEndTests {
    /// Where the record of `id` starts in the CSV export `bytes`, and the line it starts on.
    static func record(_ id: String, in bytes: [UInt8]) -> (start: Int, line: Int)? {
        let needle = Array("\n\(id),".utf8)
        guard
            let at = (0...(bytes.count - needle.count)).first(where: {
                bytes[$0..<($0 + needle.count)].elementsEqual(needle)
            })
        else { return nil }
        return (at + 1, bytes[...at].filter { $0 == 0x0A }.count + 1)
    }

    /// In the CSV export `bytes`, the first record end at or after `start`: the closing quote of its
    /// raw_json (`}"`), and its fetched_at (`,2026-01-02T03:04:05Z,`) after it.
    static func rawJSONEnd(in bytes: [UInt8], from start: Int) -> (quote: Int, fetchedAt: Range<Int>)? {
        let shape = Array("0000-00-00T00:00:00Z".utf8)
        func fits(_ at: Int) -> Bool {
            guard at + 4 + shape.count < bytes.count, bytes[at] == UInt8(ascii: "}"), bytes[at + 1] == 0x22,
                bytes[at + 2] == UInt8(ascii: ","), bytes[at + 3 + shape.count] == UInt8(ascii: ",")
            else { return false }
            return zip(bytes[(at + 3)...], shape).allSatisfy { byte, want in
                want == UInt8(ascii: "0") ? (0x30...0x39).contains(byte) : byte == want
            }
        }
        guard let at = (start..<bytes.count).first(where: fits) else { return nil }
        return (at + 1, (at + 3)..<(at + 3 + shape.count))
    }
}

extension EdgesEndToEndTests {
    /// A CSV export that is broken in one record: that record is lost, nothing else.
    @Suite struct BrokenCSV {
        let scratch: ReliabilityScratch

        init() throws {
            scratch = try ReliabilityScratch("edges-csv")
        }

        /// The CSV export of a warmed cache of `count` films.
        func export(count: Int) throws -> [UInt8] {
            try EdgesEndToEndTests.warm(scratch, count: count)
            let out = try EdgesEndToEndTests.filmcache(["export", "--db", scratch.db, "--format", "csv"])
            try #require(out.status == 0 && out.stdout.hasPrefix("imdb_id,"))
            return Array(out.stdout.utf8)
        }

        @Test func aQuoteNeverClosedCostsItsRecordOnlyAndNamesItsLine() async throws {
            try await offThePool {
                var bytes = try export(count: 12)
                let ids = EdgesEndToEndTests.ids
                let (start, line) = try #require(EdgesEndToEndTests.record(ids[4], in: bytes))
                // The closing quote of the record's raw_json taken away.
                let end = try #require(EdgesEndToEndTests.rawJSONEnd(in: bytes, from: start))
                bytes.remove(at: end.quote)
                let file = try scratch.write("broken.csv", bytes)
                let target = scratch.dir + "/target.sqlite"
                let out = try EdgesEndToEndTests.filmcache(["import", "--db", target, file])
                #expect(out.status == 65, "\(out.stderr)")
                #expect(out.stderr.contains("\(file):\(line): "), "\(out.stderr)")
                #expect(EdgesEndToEndTests.count(out.stdout, "bad, skipped") == 1, "\(out.stdout)")
                let stored = try scratch.column("SELECT imdb_id FROM films ORDER BY imdb_id", database: target)
                #expect(stored == ids.prefix(12).filter { $0 != ids[4] }, "the next record's film is imported")
            }
        }

        @Test func aQuotedFieldPastTheCapCostsOneRecordAndAFewLinesOfWarning() async throws {
            try await offThePool {
                let text = try export(count: 20)
                let ids = EdgesEndToEndTests.ids
                let (start, line) = try #require(EdgesEndToEndTests.record(ids[10], in: text))
                // 16 MiB of short lines inside one quoted field.
                var bytes = Array(text[..<start])
                bytes += Array("tt0999999,\"".utf8)
                bytes += Array(String(repeating: "x\n", count: 8 << 20).utf8)
                bytes += Array("\",x\r\n".utf8) + Array(text[start...])
                let file = try scratch.write("huge.csv", bytes)
                let target = scratch.dir + "/target.sqlite"
                let started = Date()
                let out = try EdgesEndToEndTests.filmcache(["import", "--db", target, file])
                #expect(out.status == 65, "\(out.stderr.prefix(2_000))")
                #expect(out.stderr.split(separator: "\n").count <= 25, "\(out.stderr.prefix(2_000))")
                #expect(out.stderr.contains("\(file):\(line): "), "\(out.stderr.prefix(2_000))")
                #expect(EdgesEndToEndTests.count(out.stdout, "bad, skipped") == 1, "\(out.stdout)")
                #expect(
                    try scratch.column("SELECT imdb_id FROM films ORDER BY imdb_id", database: target)
                        == ids.prefix(20).map { $0 })
                #expect(Date().timeIntervalSince(started) < 60)
            }
        }

        @Test func aBrokenRecordCostsItselfOnlyWhateverTheColumnOrder() async throws {
            try await offThePool {
                // The export with a column put before imdb_id, as a spreadsheet adds a row number.
                let text = String(decoding: try export(count: 20), as: UTF8.self)
                var rows = text.components(separatedBy: "\r\n")
                rows = ["row," + rows[0]] + rows.dropFirst().map { $0.hasPrefix("tt") ? "1," + $0 : $0 }
                var bytes = Array(rows.joined(separator: "\r\n").utf8)
                let ids = EdgesEndToEndTests.ids
                let (start, _) = try #require(EdgesEndToEndTests.record("1,\(ids[10])", in: bytes))
                let huge = "1,tt0999999,\"" + String(repeating: "x\n", count: 3 << 20) + "\",x\r\n"
                bytes.insert(contentsOf: Array(huge.utf8), at: start)
                let file = try scratch.write("reordered.csv", bytes)
                let out = try EdgesEndToEndTests.filmcache(["import", "--db", scratch.dir + "/target.sqlite", file])
                #expect(out.status == 65, "\(out.stderr.prefix(2_000))")
                #expect(out.stderr.split(separator: "\n").count <= 25, "\(out.stderr.prefix(2_000))")
                withKnownIssue("records resync only when imdb_id is the first column") {
                    #expect(EdgesEndToEndTests.count(out.stdout, "bad, skipped") == 1, "\(out.stdout)")
                    #expect(EdgesEndToEndTests.count(out.stdout, "added") == 20, "\(out.stdout)")
                }
            }
        }

        @Test func warningsAreTheFirstTwentyThenACount() async throws {
            try await offThePool {
                try EdgesEndToEndTests.warm(scratch, count: 5)
                let films = try EdgesEndToEndTests.filmcache(["export", "--db", scratch.db]).stdout
                let junk = (1...45).map { "{\"not\":\"a film \($0)\"}" }.joined(separator: "\n")
                let file = try scratch.write("junk.jsonl", Array((junk + "\n" + films).utf8))
                let out = try EdgesEndToEndTests.filmcache(["import", "--db", scratch.dir + "/target.sqlite", file])
                #expect(out.status == 65, "\(out.stderr)")
                let named = out.stderr.split(separator: "\n").filter {
                    $0.contains("\(file):") && !$0.contains("not shown")
                }
                #expect(named.count == 20, "\(out.stderr)")
                #expect(out.stderr.contains("\(file): 25 more bad lines skipped, not shown"), "\(out.stderr)")
                #expect(EdgesEndToEndTests.count(out.stdout, "added") == 5)
            }
        }

        @Test func aPlotWithALineThatLooksLikeARecordStartSurvivesACSVRoundTrip() async throws {
            try await offThePool {
                // OMDb's body of one film whose plot holds a line break and then what starts an export record.
                let id = EdgesEndToEndTests.ids[0]
                var body =
                    try JSONSerialization.jsonObject(with: ServeEndToEndTests.corpusBody(id)) as? [String: Any] ?? [:]
                body["Plot"] = "A first line.\ntt0111161, a second line that starts as a record does."
                let json = try JSONSerialization.data(withJSONObject: body)
                let source = try scratch.write("body.jsonl", Array(json) + [0x0A])
                #expect(try EdgesEndToEndTests.filmcache(["import", "--db", scratch.db, source]).status == 0)
                let csv = try EdgesEndToEndTests.filmcache(["export", "--db", scratch.db, "--format", "csv"])
                let file = try scratch.write("plot.csv", Array(csv.stdout.utf8))
                let out = try EdgesEndToEndTests.filmcache(["import", "--db", scratch.dir + "/target.sqlite", file])
                withKnownIssue("the importer's resync splits a quoted plot at a line that starts like a record") {
                    #expect(out.status == 0, "\(out.stderr)")
                    #expect(EdgesEndToEndTests.count(out.stdout, "added") == 1, "\(out.stdout)")
                }
            }
        }
    }
}

extension EdgesEndToEndTests {
    /// A restore whose input held nothing (a backup that cannot be read, a failed pipe).
    @Suite struct EmptyRestores {
        let scratch: ReliabilityScratch

        init() throws {
            scratch = try ReliabilityScratch("edges-restore")
        }

        @Test func anImportThatReadsNothingFailsSaysSoAndLeavesTheCacheAsItWas() async throws {
            try await offThePool {
                try EdgesEndToEndTests.warm(scratch, count: 8)
                let before = try scratch.filmsChecksum()
                let empty = try scratch.write("empty.jsonl", [])
                let blank = try scratch.write("blank.jsonl", Array(" \n\n\r\n".utf8))
                let binary = BuiltBinaries.directory + "/filmcache"
                let runs: [(String, [String])] = [
                    ("empty standard input", ["-c", "\"$0\" import --db \"$1\" - < /dev/null", binary, scratch.db]),
                    (
                        "a pipe whose writer failed",
                        [
                            "-c", "gzip -dc \"$2\" | \"$0\" import --db \"$1\" -", binary, scratch.db,
                            scratch.dir + "/missing.gz",
                        ]
                    ),
                    ("an empty file", ["-c", "\"$0\" import --db \"$1\" \"$2\"", binary, scratch.db, empty]),
                    ("a file of blank lines", ["-c", "\"$0\" import --db \"$1\" \"$2\"", binary, scratch.db, blank]),
                ]
                for (name, arguments) in runs {
                    let out = try BuiltBinaries.run("/bin/sh", arguments)
                    #expect(out.status == 65, "\(name): \(out.stderr)")
                    #expect(out.stderr.contains("nothing was read from"), "\(name): \(out.stderr)")
                    #expect(EdgesEndToEndTests.count(out.stdout, "lines read") == 0, "\(name): \(out.stdout)")
                    #expect(try scratch.filmsChecksum() == before, "\(name)")
                }
                // A good file beside an empty one: the good one imported, the empty one named, 65.
                let films = try scratch.write(
                    "films.jsonl", Array(try EdgesEndToEndTests.filmcache(["export", "--db", scratch.db]).stdout.utf8))
                let target = scratch.dir + "/target.sqlite"
                let both = try EdgesEndToEndTests.filmcache(["import", "--db", target, films, empty])
                #expect(both.status == 65 && both.stderr.contains("nothing was read from \(empty)"), "\(both.stderr)")
                #expect(try scratch.filmsChecksum(database: target) == before)
            }
        }
    }
}
