import Foundation
import SplitMix
import Testing

@testable import FilmCacheKit

/// The JSON Lines form: the canonical film written compactly with `rawJSON`, and read back.
@Suite struct FilmLineTests {
    let reader = FilmLine(now: Date(timeIntervalSince1970: 1_800_000_000))

    func line(_ film: IMDBFilm) -> [UInt8] {
        var out: [UInt8] = []
        film.appendExportLine(to: &out)
        return out
    }

    @Test("An export line reads back as the same film, rawJSON included")
    func samplesRoundTrip() throws {
        for film in try TransferFilms.samples() + [SampleFilms.film("tt0172495")] {
            let bytes = line(film)
            #expect(bytes.last == 0x0A && bytes.dropLast().allSatisfy { $0 != 0x0A && $0 != 0x0D }, "one line")
            let read = try reader.film(from: Array(bytes.dropLast()))
            #expect(read.film == film)
            #expect(read.warnings.isEmpty)
        }
    }

    @Test("Generated films with quotes, line breaks and non-ASCII in every text round-trip")
    func generatedRoundTrip() throws {
        var random = SplitMix64(seed: 41)
        for n in 0..<300 {
            let film = TransferFilms.generated(n, &random)
            #expect(try reader.film(from: Array(line(film).dropLast())).film == film)
        }
    }

    @Test("The line is the canonical form, compact: same keys, same order, same values, then rawJSON")
    func sameAsCanonical() throws {
        for film in try TransferFilms.samples() {
            let text = String(decoding: line(film), as: UTF8.self)
            let pretty = String(decoding: film.canonicalJSON(), as: UTF8.self)
            let prettyKeys = pretty.split(separator: "\n").compactMap { row -> String? in
                guard row.hasPrefix("  \"") else { return nil }
                return String(row.dropFirst(3).prefix { $0 != "\"" })
            }
            let compactKeys = Self.topLevelKeys(text)
            #expect(compactKeys == prettyKeys + ["rawJSON"])
            let compact = try #require(
                try JSONSerialization.jsonObject(with: Data(text.utf8)) as? NSDictionary)
            let canonical = try #require(try JSONSerialization.jsonObject(with: film.canonicalJSON()) as? NSDictionary)
            let withoutRaw = compact.mutableCopy() as! NSMutableDictionary
            withoutRaw.removeObject(forKey: "rawJSON")
            #expect(withoutRaw == canonical)
            #expect(compact["rawJSON"] as? String == film.rawJSON)
        }
    }

    /// The keys of the outermost object, in order: strings at depth 1 that follow `{` or `,`.
    static func topLevelKeys(_ text: String) -> [String] {
        let bytes = Array(text.utf8)
        var keys: [String] = []
        var depth = 0
        var previous = UInt8(ascii: " ")
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                var end = index + 1
                while bytes[end] != UInt8(ascii: "\"") { end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1 }
                if depth == 1 && (previous == UInt8(ascii: "{") || previous == UInt8(ascii: ",")) {
                    keys.append(String(decoding: bytes[(index + 1)..<end], as: UTF8.self))
                }
                previous = byte
                index = end + 1
                continue
            }
            if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") { depth += 1 }
            if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") { depth -= 1 }
            previous = byte
            index += 1
        }
        return keys
    }

    @Test("An OMDb body is normalized under the ID it names, fetched now")
    func omdbBody() throws {
        let read = try reader.film(from: Array(OMDbSamples.gladiator.utf8))
        #expect(read.film.imdbID == "tt0172495")
        #expect(read.film.title == "Gladiator")
        #expect(read.film.lastFetched == Date(timeIntervalSince1970: 1_800_000_000))
        #expect(read.film.rawJSON == OMDbSamples.gladiator)
    }

    @Test(
        "A line that is not a film says why",
        arguments: [
            (#"{"imdbID":"tt0172495","lastFetched":"2026-01-02T03:04:05Z","dataVersion":1}"#, "no rawJSON"),
            (
                #"{"imdbID":"tt0172495","lastFetched":"2026-01-02T03:04:05Z","dataVersion":1,"rawJSON":""}"#,
                "no rawJSON"
            ),
            (
                #"{"imdbID":"nm0000001","lastFetched":"2026-01-02T03:04:05Z","dataVersion":1,"rawJSON":"{}"}"#,
                #"imdbID "nm0000001" is not an IMDb ID"#
            ),
            (#"{"imdbID":"tt0172495","dataVersion":1,"rawJSON":"{}"}"#, "no lastFetched"),
            (
                #"{"imdbID":"tt0172495","lastFetched":"yesterday","dataVersion":1,"rawJSON":"{}"}"#,
                "lastFetched: not an instant"
            ),
            (
                #"{"imdbID":"tt0172495","lastFetched":"2026-01-02T03:04:05Z","dataVersion":"1","rawJSON":"{}"}"#,
                "dataVersion: not a number"
            ),
            (
                #"{"imdbID":"tt0172495","genres":"Drama","lastFetched":"2026-01-02T03:04:05Z","dataVersion":1,"rawJSON":"{}"}"#,
                "genres: not a list"
            ),
            (
                #"{"imdbID":"tt0172495","released":"2001-02-30","lastFetched":"2026-01-02T03:04:05Z","dataVersion":1,"rawJSON":"{}"}"#,
                "released: not an ISO date"
            ),
            (#"{"imdbID":"tt0172495","lastFetched":"2026-01-02T03:04:05Z","#, "not valid JSON"),
            ("[1,2]", "not a JSON object"),
            (#"{"Response":"False","Error":"Movie not found!"}"#, #"an OMDb error answer ("Movie not found!")"#),
            (#"{"Title":"Heat","imdbID":"banana","Response":"True"}"#, "no valid imdbID"),
            (#"{"Year":"1995","Response":"True"}"#, "neither imdbID nor Title"),
            (#"{"Title":"Heat","Response":true}"#, "not an OMDb body"),
        ])
    func faults(_ text: String, _ reason: String) {
        #expect(throws: FilmLine.Fault.self) { try reader.film(from: Array(text.utf8)) }
        do {
            _ = try reader.film(from: Array(text.utf8))
        } catch {
            #expect(error.reason.contains(reason), "\(error.reason)")
        }
    }

    @Test("A film titled Response is an export line, not an OMDb body")
    func titledResponse() throws {
        var film = SampleFilms.film("tt0172495", title: "Response")
        film.plot = #"She said "Response": and left."#
        #expect(!FilmLine.hasResponseKey(line(film)))
        #expect(try reader.film(from: Array(line(film).dropLast())).film == film)
        #expect(FilmLine.hasResponseKey(Array(#"{"Title":"X", "Response" : "True"}"#.utf8)))
    }

    @Test("Lines as filmcache writes them are read in one pass, to the film the decoder gives")
    func onePassReader() throws {
        var random = SplitMix64(seed: 43)
        let films = try TransferFilms.samples() + (0..<300).map { TransferFilms.generated($0, &random) }
        let decoder = IMDBFilm.canonicalDecoder()
        for film in films {
            let bytes = Array(line(film).dropLast())
            let fast = bytes.withUnsafeBufferPointer(ExportLineReader.film)
            #expect(fast == film)
            var decoded = try decoder.decode(IMDBFilm.self, from: Data(bytes))
            decoded.rawJSON = film.rawJSON
            #expect(fast == decoded)
        }
    }

    @Test(
        "A line in another form is left to the decoder, which reads the same film",
        arguments: [
            ("{\"imdbID\"", "{ \"imdbID\""), ("\"title\":", "\"title\" :"), (",\"dataVersion\"", ", \"dataVersion\""),
            ("\"title\":\"Gladiator\"", "\"title\":\"Gladi\\u0061tor\""),
            ("\"title\":\"Gladiator\"", "\"title\":\"Gladiator\\/\""), ("\"imdbRating\":8.5", "\"imdbRating\":85e-1"),
        ])
    func otherForms(_ from: String, _ to: String) throws {
        let film = try #require(try TransferFilms.samples().first)
        let text = String(decoding: line(film).dropLast(), as: UTF8.self)
        #expect(text.contains(from))
        let changed = Array(text.replacingOccurrences(of: from, with: to).utf8)
        #expect(changed.withUnsafeBufferPointer(ExportLineReader.film) == nil)
        var expected = film
        if to.hasSuffix("\\/\"") { expected.title = "Gladiator/" }
        #expect(try reader.film(from: changed).film == expected)
    }
}
