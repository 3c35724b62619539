import FilmCacheKit
import Foundation
import Testing

@Suite("Decoding OMDb bodies")
struct NormalizeDecodeTests {
    let normalizer = FilmNormalizer()

    @Test("Each OMDb error body becomes .error with its text", arguments: OMDbSamples.errorTexts)
    func errorBodies(_ text: String) throws {
        let body = #"{"Response":"False","Error":"\#(text)"}"#
        #expect(try normalizer.decode(Array(body.utf8)) == .error(text))
        let fused = try normalizer.normalize(body: Array(body.utf8), requestedID: "tt1", fetchedAt: .now)
        #expect(fused == .error(text))
    }

    @Test("Error order and spacing do not matter")
    func errorBodyWithSpaces() throws {
        let body = "\n { \"Error\" : \"Movie not found!\" ,\r\n\t\"Response\" : \"False\" } \n"
        #expect(try normalizer.decode(Array(body.utf8)) == .error("Movie not found!"))
    }

    static let malformed: [(String, String)] = [
        ("empty", ""),
        ("only spaces", "  \n "),
        ("array", #"[{"Response":"True"}]"#),
        ("string", #""Response""#),
        ("number", "42"),
        ("garbage", "<html><body>502 Bad Gateway</body></html>"),
        ("truncated in a value", String(OMDbSamples.gladiator.prefix(200))),
        ("truncated before the end", String(OMDbSamples.gladiator.dropLast())),
        ("truncated in an escape", #"{"Title":"a\"#),
        ("truncated in a unicode escape", #"{"Title":"a\u00"#),
        ("no Response", #"{"Title":"Gladiator"}"#),
        ("Response not a string", #"{"Title":"Gladiator","Response":true}"#),
        ("Response neither True nor False", #"{"Response":"Maybe"}"#),
        ("trailing data", OMDbSamples.gladiator + "x"),
        ("two objects", #"{"Response":"False"}{"Response":"False"}"#),
        ("missing colon", #"{"Response" "True"}"#),
        ("trailing comma", #"{"Response":"True",}"#),
        ("bad escape", #"{"Title":"a\x","Response":"True"}"#),
        ("bad literal", #"{"Metascore":nul,"Response":"True"}"#),
        ("bad number", #"{"Metascore":-,"Response":"True"}"#),
        ("single quotes", "{'Response':'True'}"),
        (
            "deep nesting",
            #"{"X":"# + String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
                + #","Response":"True"}"#
        ),
    ]

    @Test("Bodies that are not an OMDb object throw malformedJSON", arguments: malformed)
    func malformedBodies(_ name: String, _ body: String) {
        #expect(throws: NormalizeError.self, "\(name)") { try normalizer.decode(Array(body.utf8)) }
        #expect(throws: NormalizeError.self, "\(name)") {
            try normalizer.normalize(body: Array(body.utf8), requestedID: "tt1", fetchedAt: .now)
        }
    }

    @Test("A truncated body says where it ended")
    func truncationMessage() {
        let body = Array(#"{"Title":"Glad"#.utf8)
        #expect(throws: NormalizeError.malformedJSON("truncated: ended at byte 14 while expecting the end of a string"))
        {
            try normalizer.decode(body)
        }
    }

    static let escapes: [(json: String, text: String)] = [
        (#"plain"#, "plain"),
        (#"a \"quoted\" word"#, "a \"quoted\" word"),
        (#"back\\slash and \/ slash"#, "back\\slash and / slash"),
        (#"Am\u00e9lie"#, "Amélie"),
        (#"\u00C9T\u00C9"#, "ÉTÉ"),
        (#"clapper \ud83c\udfac board"#, "clapper 🎬 board"),
        (#"line\nbreak\ttab\r\b\f"#, "line\nbreak\ttab\r\u{8}\u{C}"),
        ("raw UTF-8 Ōkami 東京物語 🎬", "raw UTF-8 Ōkami 東京物語 🎬"),
        (#"\u6771\u4eac"#, "東京"),
    ]

    @Test("JSON escapes decode to the right text", arguments: escapes)
    func escapesDecode(_ json: String, _ text: String) throws {
        let body = #"{"Title":"\#(json)","Plot":"x\#(json)","Response":"True"}"#
        guard case .film(let dto) = try normalizer.decode(Array(body.utf8)) else {
            Issue.record("not a film")
            return
        }
        #expect(dto.title == text)
        #expect(dto.plot == "x" + text)
        #expect(dto.anomalies.isEmpty)
    }

    @Test("A lone surrogate becomes U+FFFD with a warning")
    func loneSurrogate() throws {
        let body = #"{"Title":"a\ud83cb","Response":"True"}"#
        guard case .film(let dto) = try normalizer.decode(Array(body.utf8)) else {
            Issue.record("not a film")
            return
        }
        #expect(dto.title == "a\u{FFFD}b")
        #expect(dto.anomalies.map(\.field) == ["Title"])
    }

    @Test("Invalid UTF-8 is repaired with a warning, not dropped")
    func invalidUTF8() throws {
        var body = Array(#"{"Title":"ab","Response":"True"}"#.utf8)
        body.insert(0xFF, at: 11)
        guard case .film(let dto) = try normalizer.decode(body) else {
            Issue.record("not a film")
            return
        }
        #expect(dto.title == "a\u{FFFD}b")
        #expect(dto.anomalies.map(\.field) == ["Title"])
    }

    static let unexpectedShapes: [(value: String, found: String)] = [
        ("94", "number 94"), ("-1.5e3", "number -1.5e3"), ("true", "true"), ("false", "false"), ("null", "null"),
        (#"{"a":[1,{"b":null}]}"#, "an object"), ("[]", "a list"), (#"["x", 2]"#, "a list"),
    ]

    @Test("A non-string value is skipped with a warning naming the field", arguments: unexpectedShapes)
    func nonStringValues(_ value: String, _ found: String) throws {
        let body = OMDbSamples.gladiator(replacing: #""Rated":"R""#, with: #""Rated":\#(value)"#)
        let result = try normalizer.normalize(body: Array(body.utf8), requestedID: "tt0172495", fetchedAt: .now)
        guard case .film(let normalized) = result else {
            Issue.record("not a film")
            return
        }
        #expect(normalized.film.rated == nil)
        #expect(normalized.film.title == "Gladiator")
        #expect(normalized.warnings.map(\.description) == ["tt0172495: field Rated: expected a string, found \(found)"])
    }

    static let badRatings: [(json: String, kept: Int)] = [
        (#""Ratings":"N/A""#, 0),
        (#""Ratings":{"Source":"Metacritic"}"#, 0),
        (#""Ratings":[{"Source":"Metacritic","Value":94},{"Source":"IMDb","Value":"9/10"}]"#, 1),
        (#""Ratings":[{"Source":"Metacritic"},"x",{"Value":"9/10","Extra":"1","Source":"Rotten Tomatoes"}]"#, 1),
    ]

    @Test("Bad Ratings entries are skipped with a warning, good ones kept", arguments: badRatings)
    func badRatingEntries(_ json: String, _ kept: Int) throws {
        let start = OMDbSamples.gladiator.range(of: #""Ratings":["#)!.lowerBound
        let end = OMDbSamples.gladiator.range(of: #"}],"#)!.upperBound
        var body = OMDbSamples.gladiator
        body.replaceSubrange(start..<end, with: json + ",")
        let result = try normalizer.normalize(body: Array(body.utf8), requestedID: "tt0172495", fetchedAt: .now)
        guard case .film(let normalized) = result else {
            Issue.record("not a film")
            return
        }
        #expect(normalized.film.ratings.count == kept)
        let warned = normalized.warnings.contains { $0.field == "Ratings" }
        #expect(warned == (json != #""Ratings":"N/A""#))
    }

    @Test("A repeated key warns and the last value wins")
    func duplicateKey() throws {
        let body = OMDbSamples.gladiator(replacing: #""Rated":"R""#, with: #""Rated":"PG","Rated":"R""#)
        guard
            case .film(let normalized) = try normalizer.normalize(
                body: Array(body.utf8), requestedID: "tt0172495", fetchedAt: .now)
        else {
            Issue.record("not a film")
            return
        }
        #expect(normalized.film.rated == "R")
        #expect(normalized.warnings.map(\.field) == ["Rated"])
    }

    @Test("Keys in any order and with escapes are still recognized")
    func keyOrderAndEscapedKeys() throws {
        let body = #"{"Response":"True","imdbVotes":"9471","\u0054itle":"Tiny","Year":"1999"}"#
        guard case .film(let dto) = try normalizer.decode(Array(body.utf8)) else {
            Issue.record("not a film")
            return
        }
        #expect(dto.title == "Tiny")
        #expect(dto.year == "1999")
        #expect(dto.imdbVotes == "9471")
        #expect(dto.anomalies.isEmpty)
    }

    @Test("A leading UTF-8 byte order mark is skipped")
    func byteOrderMark() throws {
        let body = [0xEF, 0xBB, 0xBF] + Array(#"{"Response":"False","Error":"Movie not found!"}"#.utf8)
        #expect(try normalizer.decode(body) == .error("Movie not found!"))
    }

    @Test("rawJSON keeps the body verbatim")
    func rawKept() throws {
        let body = " " + OMDbSamples.episode + "\n"
        guard
            case .film(let normalized) = try normalizer.normalize(
                body: Array(body.utf8), requestedID: "tt1480055", fetchedAt: .now)
        else {
            Issue.record("not a film")
            return
        }
        #expect(normalized.film.rawJSON == body)
    }
}

@Suite("Normalizing long lists")
struct NormalizeLongListTests {
    @Test("Long lists keep order and drop every duplicate")
    func longLists() throws {
        let names = (0..<200).map { "Actor \($0 % 50)" }
        let body = OMDbSamples.gladiator(
            replacing: "Russell Crowe, Joaquin Phoenix, Connie Nielsen", with: names.joined(separator: ", "))
        guard
            case .film(let normalized) = try FilmNormalizer().normalize(
                body: Array(body.utf8), requestedID: "tt0172495", fetchedAt: .now)
        else {
            Issue.record("not a film")
            return
        }
        #expect(normalized.film.actors == (0..<50).map { "Actor \($0)" })
    }
}
