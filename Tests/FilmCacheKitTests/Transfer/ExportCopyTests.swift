import CSQLite
import Foundation
import SplitMix
import Testing

@testable import FilmCacheKit
@testable import FilmCacheSQLite

/// Export lines and CSV records written straight from a row's values are the bytes the film read from
/// that row writes, whatever the row holds.
@Suite struct ExportCopyTests {
    let dir = TemporaryDirectory()

    /// Values filmcache does not write itself, each set by hand on one row: white space and other
    /// escapes in list columns, words in capitals, days and instants in other forms, bytes that are
    /// not UTF-8, NUL and control bytes, numbers stored as text.
    static let oddValues: [(column: String, sql: String)] = [
        ("genres", #"'[ "Drama" ]'"#), ("genres", #"'["Dr\u00e9ma"]'"#), ("genres", #"'["a\/b"]'"#),
        ("genres", #"'["\u0009"]'"#), ("genres", #"'["\u001B"]'"#), ("genres", #"'["\u001b"]'"#),
        ("genres", "'not json'"), ("genres", "'[1,2]'"), ("genres", "'[]'"), ("genres", "''"),
        ("genres", #"'["a",]'"#), ("genres", #"'["a"]x'"#), ("genres", "CAST(x'5b22ff225d' AS TEXT)"),
        ("directors", #"'["a","b\"c","d\\e","\n"]'"#),
        ("writers", #"'[{"role":null,"name":"A"}]'"#), ("writers", #"'[{"name":"A","role":"x","extra":1}]'"#),
        ("writers", #"'[{"name":"A","role":"x"},{"name":"B","role":null}]'"#), ("writers", #"'[{"name":"A"}]'"#),
        ("ratings", #"'[{"source":"Metacritic","value":"7/10","score":07}]'"#),
        ("ratings", #"'[{"source":"Metacritic","value":"7/10","score":7.0}]'"#),
        ("ratings", #"'[{"source":"Metacritic","value":"7/10","score":-0}]'"#),
        ("ratings", #"'[{"source":"Metacritic","value":"7/10","score":-12}]'"#),
        ("ratings", #"'[{"source":"Odd","value":"7/10","score":null}]'"#),
        ("ratings", #"'[{"source":"Metacritic","value":"7/10","score":1234567890123456789012}]'"#),
        ("type", "'Movie'"), ("type", "'SERIES'"), ("type", "'movie'"), ("type", "'Mini'"), ("type", "NULL"),
        ("type", "'gaME'"), ("type", "'épisode'"),
        ("released", "'+999-01-01'"), ("released", "'2001-02-30'"), ("released", "'2001-1-12'"),
        ("released", "20010112"), ("released", "'0000-01-01'"), ("dvd", "'1999-12-31'"), ("dvd", "'2000-02-29'"),
        ("fetched_at", "'2026-01-02T03:04:05.5Z'"), ("fetched_at", "'2026-13-02T03:04:05Z'"),
        ("fetched_at", "'2026-01-02 03:04:05'"), ("fetched_at", "'2026-01-02T24:00:00Z'"), ("fetched_at", "''"),
        ("title", "CAST(x'41ff42' AS TEXT)"), ("raw_json", "CAST(x'7b22c0af227d' AS TEXT)"),
        ("title", "'a' || char(0) || 'b'"), ("title", "char(1, 9, 10, 13, 31, 127, 34, 92)"), ("title", "NULL"),
        ("imdb_id", "'tt' || char(10) || '9'"), ("raw_json", "''"),
        ("imdb_rating", "7"), ("imdb_rating", "'7.5'"), ("imdb_rating", "1e300"), ("imdb_rating", "'abc'"),
        ("year_start", "'1999'"), ("year_start", "'abc'"), ("year_start", "19.5"), ("year_start", "-5"),
        ("plot", "x'00ff'"), ("data_version", "'x'"), ("metascore", "9223372036854775807"),
    ]

    /// A cache of generated films, one row for each odd value, and its path.
    func oddCache() throws -> String {
        var random = SplitMix64(seed: 11)
        let films = (0..<(Self.oddValues.count + 40)).map { TransferFilms.stored(TransferFilms.generated($0, &random)) }
        let path = dir.file("odd.sqlite")
        try CacheStore(path: path, logger: SampleFilms.logger).write(WriteBatch(films: films))
        let db = try SQLiteConnection(path: path)
        for (film, odd) in zip(films, Self.oddValues) {
            try db.execute("UPDATE films SET \(odd.column) = \(odd.sql) WHERE imdb_id = '\(film.imdbID)'")
        }
        return path
    }

    /// Each row of `path`'s `films`, selected as export selects them.
    func eachRow(_ path: String, _ body: (SQLiteStatement) throws -> Void) throws {
        let db = try SQLiteConnection.reader(path: path)
        let statement = try db.prepare("SELECT \(FilmRow.columns.joined(separator: ", ")) FROM films ORDER BY imdb_id")
        while try statement.step() { try body(statement) }
    }

    @Test("An export line copied from a row is the line of the film read from it, odd values or not")
    func linesMatchTheFilmsWritten() throws {
        var copied = 0
        var rows = 0
        try eachRow(try oddCache()) { row in
            var fast: [UInt8] = []
            FilmRow.appendExportLine(row, to: &fast)
            var slow: [UInt8] = []
            FilmRow.film(from: row).appendExportLine(to: &slow)
            #expect(
                fast == slow,
                "\(row.text(0) ?? "")\n\(String(decoding: fast, as: UTF8.self))\n\(String(decoding: slow, as: UTF8.self))"
            )
            var copy: [UInt8] = []
            if FilmRow.appendCopiedLine(row, to: &copy) {
                copied += 1
                #expect(copy == slow)
            }
            rows += 1
        }
        #expect(rows == Self.oddValues.count + 40)
        // The films filmcache wrote itself, and odd values that read back as themselves, are copied.
        #expect(copied >= 40)
    }

    @Test("A CSV record copied from a row is the record written from its values as text")
    func recordsMatchTheTextWritten() throws {
        try eachRow(try oddCache()) { row in
            var slow: [UInt8] = []
            for index in FilmRow.columns.indices {
                if index > 0 { slow.append(UInt8(ascii: ",")) }
                let column = Int32(index)
                if row.isReal(column), let value = row.double(column) {
                    slow += "\(value)".utf8
                } else if let text = row.text(column) {
                    FilmCSV.appendField(text, to: &slow)
                }
            }
            slow += "\r\n".utf8
            var fast: [UInt8] = []
            FilmCSV.appendRecord(row, to: &fast)
            #expect(fast == slow, "\(String(decoding: fast, as: UTF8.self))")
        }
    }

    @Test("List columns in the form JSONText writes are recognized; a list read and written again is the same")
    func writtenFormOfLists() throws {
        var random = SplitMix64(seed: 5)
        for _ in 0..<300 {
            let strings = (0..<random.int(in: 0...3)).map { _ in random.pick(TransferFilms.awkward) }
            let credits = strings.map {
                Credit(name: $0, role: random.chance(0.5) ? nil : random.pick(TransferFilms.awkward))
            }
            let ratings = strings.map {
                Rating(
                    source: RatingSource(omdb: $0), value: random.pick(TransferFilms.awkward),
                    score: random.chance(0.3) ? nil : random.int(in: -5...100))
            }
            for (text, shape) in [
                (JSONText.array(strings), JSONText.ListShape.strings), (JSONText.credits(credits), .credits),
                (JSONText.ratings(ratings), .ratings),
            ] {
                var text = text
                #expect(text.withUTF8 { JSONText.isWrittenForm($0, shape) }, "\(text)")
            }
        }
        // Text that is valid JSON, but not as JSONText writes it, is not taken for it.
        for (text, shape) in [
            (#"["a", "b"]"#, JSONText.ListShape.strings), (#"["\u00e9"]"#, .strings), (#"["\/"]"#, .strings),
            (#"[{"name":"a"}]"#, .credits), (#"[{"source":"a","value":"b","score":1.0}]"#, .ratings),
        ] {
            var text = text
            #expect(!text.withUTF8 { JSONText.isWrittenForm($0, shape) }, "\(text)")
        }
    }
}
