import FilmCacheKit
import Foundation
import Testing

/// Thousands of randomly mutated OMDb bodies, with a fixed seed, checked field by field.
///
/// For every field a mutation touched, the typed value must be what the mutation implies or a
/// warning must name that field; every other field must come out exactly as in the unmutated
/// body, and no warning may name a field that was not touched. That is what "no silent loss"
/// means in practice.
@Suite("Normalizing mutated bodies")
struct NormalizeMutationTests {
    /// A body as ordered `(key, JSON value text)` pairs, so mutations keep OMDb's key order.
    typealias Fields = [(key: String, json: String)]

    static func fields(_ pairs: KeyValuePairs<String, String>, ratings: String) -> Fields {
        var result = pairs.map { (key: $0.key, json: "\"\($0.value)\"") }
        let at = result.firstIndex { $0.key == "Metascore" } ?? result.count - 1
        result.insert((key: "Ratings", json: ratings), at: at)
        return result
    }

    static let movie = fields(
        [
            "Title": "Gladiator", "Year": "2000", "Rated": "R", "Released": "05 May 2000", "Runtime": "155 min",
            "Genre": "Action, Adventure, Drama", "Director": "Ridley Scott",
            "Writer": "David Franzoni (story), John Logan (screenplay)", "Actors": "Russell Crowe, Joaquin Phoenix",
            "Plot": "A former Roman General sets out to exact vengeance.", "Language": "English",
            "Country": "United States, United Kingdom", "Awards": "Won 5 Oscars.",
            "Poster": "https://example.com/g.jpg",
            "Metascore": "67", "imdbRating": "8.5", "imdbVotes": "1,603,120", "imdbID": "tt0172495", "Type": "movie",
            "DVD": "21 Nov 2000", "BoxOffice": "$187,705,427", "Production": "DreamWorks", "Website": "N/A",
            "Response": "True",
        ],
        ratings: #"[{"Source":"Internet Movie Database","Value":"8.5/10"},{"Source":"Rotten Tomatoes","Value":"80%"}]"#)

    static let episode = fields(
        [
            "Title": "Winter Is Coming", "Year": "2011", "Rated": "TV-MA", "Released": "17 Apr 2011", "Season": "1",
            "Episode": "1", "Runtime": "62 min", "Genre": "Drama", "Director": "Tim Van Patten",
            "Writer": "David Benioff",
            "Actors": "Sean Bean", "Plot": "Eddard Stark is torn.", "Language": "English", "Country": "United States",
            "Awards": "N/A", "Poster": "N/A", "Metascore": "N/A", "imdbRating": "8.9", "imdbVotes": "52,341",
            "imdbID": "tt1480055", "seriesID": "tt0944947", "Type": "episode", "Response": "True",
        ],
        ratings: #"[{"Source":"Internet Movie Database","Value":"8.9/10"}]"#)

    static let series = fields(
        [
            "Title": "The Simpsons", "Year": "1989–", "Rated": "TV-PG", "Released": "17 Dec 1989", "Runtime": "22 min",
            "Genre": "Animation, Comedy", "Director": "N/A", "Writer": "Matt Groening", "Actors": "Dan Castellaneta",
            "Plot": "N/A", "Language": "English", "Country": "United States", "Awards": "N/A", "Poster": "N/A",
            "Metascore": "N/A", "imdbRating": "8.7", "imdbVotes": "435,201", "imdbID": "tt0096697", "Type": "series",
            "totalSeasons": "36", "Response": "True",
        ],
        ratings: #"[{"Source":"Metacritic","Value":"94/100"}]"#)

    static func body(_ fields: Fields) -> [UInt8] {
        Array(("{" + fields.map { "\"\($0.key)\":\($0.json)" }.joined(separator: ",") + "}").utf8)
    }

    /// The film property (or properties) an OMDb key feeds, as comparable text.
    static func project(_ f: IMDBFilm, _ key: String) -> String {
        func s(_ v: Any?) -> String { v.map { "\($0)" } ?? "nil" }
        switch key {
        case "Title": return s(f.title)
        case "Year": return s(f.yearStart) + "–" + s(f.yearEnd)
        case "Rated": return s(f.rated)
        case "Released": return s(f.released)
        case "Runtime": return s(f.runtimeMinutes)
        case "Genre": return f.genres.joined(separator: "|")
        case "Director": return f.directors.joined(separator: "|")
        case "Writer": return f.writers.map { "\($0.name)(\($0.role ?? ""))" }.joined(separator: "|")
        case "Actors": return f.actors.joined(separator: "|")
        case "Plot": return s(f.plot)
        case "Language": return f.languages.joined(separator: "|")
        case "Country": return f.countries.joined(separator: "|")
        case "Awards": return s(f.awards)
        case "Poster": return s(f.posterURL)
        case "Ratings": return f.ratings.map { "\($0.source)=\($0.value)=\(s($0.score))" }.joined(separator: "|")
        case "Metascore": return s(f.metascore)
        case "imdbRating": return s(f.imdbRating)
        case "imdbVotes": return s(f.imdbVotes)
        case "imdbID": return f.imdbID
        case "Type": return s(f.type)
        case "DVD": return s(f.dvd)
        case "BoxOffice": return s(f.boxOfficeUSD)
        case "Production": return s(f.production)
        case "Website": return s(f.website)
        case "totalSeasons": return s(f.totalSeasons)
        case "Season": return s(f.season)
        case "Episode": return s(f.episode)
        case "seriesID": return s(f.seriesID)
        default: return ""
        }
    }

    static let textKeys: Set = ["Title", "Rated", "Plot", "Awards", "Poster", "Production", "Website", "seriesID"]
    static let listKeys: Set = ["Genre", "Director", "Writer", "Actors", "Language", "Country"]
    static let allKeys = [
        "Title", "Year", "Rated", "Released", "Runtime", "Genre", "Director", "Writer", "Actors", "Plot", "Language",
        "Country", "Awards", "Poster", "Ratings", "Metascore", "imdbRating", "imdbVotes", "imdbID", "Type", "DVD",
        "BoxOffice", "Production", "Website", "totalSeasons", "Season", "Episode", "seriesID",
    ]

    /// What a mutation of one field must lead to.
    enum Expectation {
        /// The projection must be exactly this; a warning is not required but allowed.
        case value(String)
        /// A warning must name the field (the value is then absent or repaired).
        case warning
    }

    /// Pieces of text as JSON and as the decoded text, for escape and unicode injection.
    static let pieces: [(json: String, text: String)] = [
        ("é", "é"), (#"\u00e9"#, "é"), (#"\""#, "\""), (#"\\"#, "\\"), (#"\/"#, "/"), (#"\ud83c\udfac"#, "🎬"),
        ("東京", "東京"), ("Ōkami", "Ōkami"), (#"\t"#, "\t"), (" ", " "), ("ñ", "ñ"), (#"\u6771"#, "東"), ("x", "x"),
    ]

    struct Mutator {
        var rng: SplitMix

        /// `"A…Z"` with random pieces between, as JSON and as text.
        mutating func injected() -> (json: String, text: String) {
            var json = "A"
            var text = "A"
            for _ in 0..<rng.int(1...6) {
                let piece = NormalizeMutationTests.pieces[rng.int(0...(NormalizeMutationTests.pieces.count - 1))]
                json += piece.json
                text += piece.text
            }
            return (json + "Z", text + "Z")
        }

        /// Mutates `key` in `fields`; returns what the normalized film must show for it.
        mutating func mutate(_ key: String, in fields: inout Fields, id: String) -> Expectation {
            let absent = NormalizeMutationTests.project(
                IMDBFilm(imdbID: id, lastFetched: .now, dataVersion: 0, rawJSON: ""), key)
            let index = fields.firstIndex { $0.key == key }
            func set(_ json: String) {
                if let index { fields[index].json = json } else { fields.insert((key, json), at: 0) }
            }
            switch rng.int(0...6) {
            case 0:
                if let index { fields.remove(at: index) }
                return .value(absent)
            case 1:
                set(key == "Ratings" ? "[]" : #""N/A""#)
                return .value(absent)
            case 2:
                set(key == "Ratings" ? #""""# : #""  ""#)
                return .value(absent)
            case 3:
                let swaps = ["94", "-1.5", "true", "false", "null", #"{"a":"b"}"#, #"["x"]"#, "[]", "{}"]
                let swap = swaps[rng.int(0...(swaps.count - 1))]
                if key == "Ratings" && swap == "[]" { set(#"[1,"x",{"Source":7}]"#) } else { set(swap) }
                return .warning
            default:
                let (json, text) = injected()
                if key == "Ratings" {
                    set(#"[{"Source":"\#(json)","Value":"\#(json)"}]"#)
                    return .warning  // an unknown source is kept, but the value is no score
                }
                set("\"\(json)\"")
                if NormalizeMutationTests.textKeys.contains(key) { return .value(text) }
                if NormalizeMutationTests.listKeys.contains(key) { return .value(key == "Writer" ? text + "()" : text) }
                if key == "Type" { return .value(text) }
                return .warning  // a number, date or ID field cannot be read from free text
            }
        }
    }

    @Test("Random field mutations never crash and never lose a field silently")
    func mutations() throws {
        var mutator = Mutator(rng: SplitMix(seed: 0xF11_CACE))
        let normalizer = FilmNormalizer()
        let bases = [Self.movie, Self.episode, Self.series]
        var checkedFields = 0
        var truncations = 0
        for iteration in 0..<4000 {
            let base = bases[iteration % bases.count]
            let id = base.first { $0.key == "imdbID" }!.json.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            let baseline = try Self.film(normalizer.normalize(body: Self.body(base), requestedID: id, fetchedAt: .now))

            var fields = base
            if mutator.rng.int(1...20) == 1 {
                var bytes = Self.body(fields)
                bytes.removeLast(mutator.rng.int(1...(bytes.count - 1)))
                #expect(throws: NormalizeError.self) {
                    try normalizer.normalize(body: bytes, requestedID: id, fetchedAt: .now)
                }
                truncations += 1
                continue
            }
            var expectations: [String: Expectation] = [:]
            var keys = Self.allKeys
            for _ in 0..<mutator.rng.int(1...3) {
                let key = keys.remove(at: mutator.rng.int(0...(keys.count - 1)))
                expectations[key] = mutator.mutate(key, in: &fields, id: id)
            }
            var extra: String?
            if mutator.rng.int(1...8) == 1 {
                let name = "Extra\(iteration)"
                fields.insert((name, #"{"nested":[1,2,{"x":null}]}"#), at: mutator.rng.int(0...fields.count))
                extra = name
            }

            let body = Self.body(fields)
            let result: NormalizedBody
            do {
                result = try normalizer.normalize(body: body, requestedID: id, fetchedAt: .now)
            } catch {
                // Both mutated away: a body naming no film is a failed answer.
                if error == .noFilm, expectations["imdbID"] != nil, expectations["Title"] != nil { continue }
                throw error
            }
            guard case .film(let normalized) = result else {
                Issue.record("iteration \(iteration): no film from \(String(decoding: body, as: UTF8.self))")
                continue
            }
            let warned = Set(normalized.warnings.map(\.field))
            let context = Comment(rawValue: "iteration \(iteration): \(String(decoding: body, as: UTF8.self))")
            for key in Self.allKeys {
                let got = Self.project(normalized.film, key)
                switch expectations[key] {
                case nil:
                    #expect(got == Self.project(baseline, key), context)
                    #expect(!warned.contains(key), context)
                case .value(let expected)?:
                    #expect(got == expected || warned.contains(key), context)
                case .warning?:
                    #expect(warned.contains(key), context)
                }
                checkedFields += 1
            }
            if let extra { #expect(warned.contains(extra), context) }
            #expect(warned.isSubset(of: Set(expectations.keys).union([extra].compactMap { $0 })), context)
            #expect(normalized.warnings.allSatisfy { $0.imdbID == id })
        }
        #expect(checkedFields > 100_000)
        #expect(truncations > 100)
    }

    static func film(_ body: NormalizedBody) throws -> IMDBFilm {
        guard case .film(let normalized) = body else { throw CancellationError() }
        #expect(normalized.warnings.isEmpty)
        return normalized.film
    }
}

/// SplitMix64: a tiny seeded generator, so a failing iteration can be replayed.
struct SplitMix {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }
}
