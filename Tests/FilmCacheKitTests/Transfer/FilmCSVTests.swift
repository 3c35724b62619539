import Foundation
import SplitMix
import Testing

@testable import FilmCacheKit

/// The CSV form: RFC 4180 quoting, and films read back from records.
@Suite struct FilmCSVTests {
    @Test(
        "Fields with a comma, quote, CR or LF are quoted, quotes doubled; others are bare",
        arguments: [
            ("plain", "plain"), ("a,b", "\"a,b\""), ("say \"hi\"", "\"say \"\"hi\"\"\""), ("a\nb", "\"a\nb\""),
            ("a\r\nb", "\"a\r\nb\""), ("ünï 花", "ünï 花"), (" spaced ", " spaced "), ("\"", "\"\"\"\""),
        ])
    func quoting(_ text: String, _ field: String) throws {
        var out: [UInt8] = []
        FilmCSV.appendField(text, to: &out)
        #expect(String(decoding: out, as: UTF8.self) == field)
        var reader = CSVReader(out, keepsLineBreaks: true)
        #expect(try reader.next()?.fields == [text])
    }

    @Test("The header is the films table's columns")
    func header() {
        #expect(String(decoding: FilmCSV.header, as: UTF8.self) == FilmRow.columns.joined(separator: ",") + "\r\n")
    }

    static let layout = try! FilmCSV.Layout(header: FilmRow.columns)

    func record(_ changes: [String: String]) -> [String] {
        var fields = Array(repeating: "", count: FilmRow.columns.count)
        let base = [
            "imdb_id": "tt0172495", "raw_json": "{}", "fetched_at": "2026-01-02T03:04:05Z", "data_version": "1",
        ]
        for (name, value) in base.merging(changes, uniquingKeysWith: { $1 }) {
            fields[FilmRow.columns.firstIndex(of: name)!] = value
        }
        return fields
    }

    @Test(
        "A value that does not read names its column",
        arguments: [
            (["year_start": "19x5"], #"year_start: "19x5" is not an integer"#),
            (["imdb_rating": "nan"], #"imdb_rating: "nan" is not a number"#),
            (["released": "2001-02-30"], "released: \"2001-02-30\" is not a date"),
            (["genres": "Drama"], "genres: \"Drama\" is not a JSON list"),
            (["writers": #"["Jane"]"#], "writers: "),
            (["fetched_at": "2026-01-02"], "fetched_at: \"2026-01-02\" is not an instant"),
            (["raw_json": ""], "no raw_json"),
            (["imdb_id": "tt12"], #"imdb_id "tt12" is not an IMDb ID"#),
        ])
    func faults(_ changes: [String: String], _ reason: String) {
        do {
            _ = try FilmCSV.film(record(changes), layout: Self.layout)
            Issue.record("read")
        } catch {
            #expect(error.reason.contains(reason), "\(error.reason)")
        }
    }

    @Test("A record with another number of fields than the header is a fault")
    func fieldCount() {
        #expect(throws: FilmLine.Fault.self) { try FilmCSV.film(Array(record([:]).dropLast()), layout: Self.layout) }
    }

    @Test("A header needs imdb_id, raw_json, fetched_at and data_version; other columns may be missing or unknown")
    func headers() throws {
        #expect(throws: FilmLine.Fault.self) { try FilmCSV.Layout(header: ["imdb_id", "title"]) }
        let layout = try FilmCSV.Layout(header: ["poster_sha", "data_version", "raw_json", "fetched_at", "imdb_id"])
        #expect(layout.unknown == ["poster_sha"])
        let film = try FilmCSV.film(["x", "1", "{}", "2026-01-02T03:04:05Z", "tt0172495"], layout: layout)
        #expect(film.imdbID == "tt0172495" && film.genres == [] && film.title == nil && film.dataVersion == 1)
    }
}
