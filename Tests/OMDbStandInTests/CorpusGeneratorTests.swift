import Foundation
import OMDbStandIn
import Testing

/// Determinism and OMDb shape of the generated corpus.
@Suite struct CorpusGeneratorTests {
    /// 2,000 films of seed 11, shared by the shape tests.
    static let sample = CorpusGenerator(seed: 11).films(count: 2_000)

    /// The same seed gives identical bytes, in memory and on disk.
    @Test func sameSeedGivesIdenticalBytes() throws {
        #expect(CorpusGenerator(seed: 5).films(count: 200) == CorpusGenerator(seed: 5).films(count: 200))
        let first = try StandInHarness.temporaryDirectory()
        let second = try StandInHarness.temporaryDirectory()
        defer {
            try? FileManager.default.removeItem(at: first)
            try? FileManager.default.removeItem(at: second)
        }
        try CorpusGenerator(seed: 5).write(count: 40, to: first)
        try CorpusGenerator(seed: 5).write(count: 40, to: second)
        let names = try FileManager.default.contentsOfDirectory(atPath: first.path).sorted()
        #expect(names.count == 40)
        #expect(try FileManager.default.contentsOfDirectory(atPath: second.path).sorted() == names)
        for name in names {
            #expect(
                try Data(contentsOf: first.appendingPathComponent(name))
                    == Data(contentsOf: second.appendingPathComponent(name)))
        }
    }

    /// Different seeds give different films.
    @Test func differentSeedsDiffer() {
        let one = CorpusGenerator(seed: 1).films(count: 20)
        let two = CorpusGenerator(seed: 2).films(count: 20)
        #expect(zip(one, two).filter { $0.body == $1.body }.isEmpty)
    }

    /// `film(at:)`, `imdbID(at:)` and `kind(at:)` agree with sequential generation.
    @Test func filmsAreRandomAccess() {
        let generator = CorpusGenerator(seed: 9)
        let all = generator.films(count: 60)
        for index in [0, 17, 59] {
            #expect(generator.film(at: index) == all[index])
            #expect(generator.imdbID(at: index) == all[index].imdbID)
            #expect(generator.kind(at: index) == all[index].kind)
        }
    }

    /// Every body parses and every value is a string.
    @Test func everyBodyParsesAndEveryValueIsAString() throws {
        for film in Self.sample {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(film.body)) as? [String: Any])
            for (key, value) in object where key != "Ratings" {
                #expect(value is String, "\(film.imdbID) \(key)")
            }
            let ratings = try #require(object["Ratings"] as? [[String: Any]])
            for rating in ratings {
                #expect(rating["Source"] is String && rating["Value"] is String)
            }
            #expect(object["Response"] as? String == "True")
            #expect(object["imdbID"] as? String == film.imdbID)
            #expect(object["Type"] as? String == film.kind.rawValue)
            #expect(object["Title"] as? String == film.title)
        }
    }

    /// Keys follow OMDb's order for movies, series and episodes.
    @Test func keysFollowOMDbOrder() throws {
        let movie = [
            "Title", "Year", "Rated", "Released", "Runtime", "Genre", "Director", "Writer", "Actors", "Plot",
            "Language", "Country", "Awards", "Poster", "Ratings", "Metascore", "imdbRating", "imdbVotes", "imdbID",
            "Type", "DVD", "BoxOffice", "Production", "Website", "Response",
        ]
        let series = Array(movie.prefix(20)) + ["totalSeasons", "Response"]
        let episode =
            Array(movie.prefix(4)) + ["Season", "Episode"] + Array(movie[4..<19]) + ["seriesID", "Type", "Response"]
        let expected: [FilmKind: [String]] = [.movie: movie, .series: series, .episode: episode]
        for film in Self.sample.prefix(300) {
            #expect(Self.topLevelKeys(film.json) == expected[film.kind], "\(film.imdbID)")
        }
    }

    /// The mix of kinds and the field shapes match OMDb's.
    @Test func mixOfKindsAndFieldShapes() throws {
        let counts = Dictionary(grouping: Self.sample, by: \.kind).mapValues(\.count)
        #expect((0.70...0.80).contains(Double(counts[.movie] ?? 0) / 2_000))
        #expect((0.11...0.19).contains(Double(counts[.series] ?? 0) / 2_000))
        #expect((0.06...0.14).contains(Double(counts[.episode] ?? 0) / 2_000))

        let series = Self.sample.filter { $0.kind == .series }
        #expect(series.allSatisfy { $0.year.contains("\u{2013}") })
        #expect(series.contains { $0.year.hasSuffix("\u{2013}") })
        #expect(series.contains { !$0.year.hasSuffix("\u{2013}") })

        let text = Self.sample.map(\.json)
        #expect(text.contains { $0.contains(#""Runtime":"1 h "#) })
        #expect(text.contains { $0.range(of: #""imdbVotes":"\d{1,3},\d{3}"#, options: .regularExpression) != nil })
        #expect(text.contains { $0.range(of: #""imdbVotes":"\d{4,}""#, options: .regularExpression) != nil })
        #expect(
            text.contains { $0.range(of: #""BoxOffice":"\$\d{1,3}(,\d{3})+""#, options: .regularExpression) != nil })
        #expect(
            text.contains {
                $0.range(of: #""Released":"\d\d [A-Z][a-z]{2} \d{4}""#, options: .regularExpression) != nil
            })
        #expect(text.contains { $0.contains(#""Value":"98%""#) || $0.contains(#"%"}"#) })
        #expect(text.contains { $0.contains(#"/100"}"#) })
        #expect(text.contains { $0.contains(" (screenplay)") })
        #expect(text.contains { $0.contains(#"\""#) })
        #expect(text.contains { $0.contains(#"\\"#) })
        #expect(Self.sample.contains { $0.title.unicodeScalars.contains { $0.value > 0x3000 } })
        #expect(Self.sample.contains { $0.json.components(separatedBy: "\"N/A\"").count > 15 })

        let episodes = Self.sample.filter { $0.kind == .episode }
        let ids = Set(Self.sample.map(\.imdbID))
        #expect(episodes.contains { film in ids.contains(Self.value("seriesID", in: film.json) ?? "") })
    }

    /// IDs are unique, `tt` plus 7 or 8 digits.
    @Test func idsAreUniqueAndIMDbShaped() {
        let ids = Self.sample.map(\.imdbID)
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { $0.range(of: #"^tt\d{7,8}$"#, options: .regularExpression) != nil })
        #expect(ids.contains { $0.count == 10 })
    }

    /// Bodies are about as large as OMDb's.
    @Test func bodiesAreOMDbSized() {
        let sizes = Self.sample.map(\.body.count).sorted()
        let median = sizes[sizes.count / 2]
        #expect((900...1_500).contains(median))
        #expect(sizes.last! < 2_000)
    }

    /// `Data/corpus` is exactly `generate --count 300 --seed 1`.
    @Test func checkedInCorpusIsSeedOneCountThreeHundred() throws {
        let directory = StandInHarness.repositoryRoot.appendingPathComponent("Data/corpus")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        let films = CorpusGenerator(seed: 1).films(count: 300)
        #expect(names == films.map { $0.imdbID + ".json" }.sorted())
        for film in films {
            #expect(try Data(contentsOf: directory.appendingPathComponent(film.imdbID + ".json")) == Data(film.body))
        }
    }

    /// The keys of the outer JSON object, in order.
    static func topLevelKeys(_ json: String) -> [String] {
        // Keys of the outer object, in order: every `"name":` at nesting depth 1.
        var keys: [String] = []
        var depth = 0
        var inString = false
        var escaped = false
        var current = ""
        var lastString = ""
        for character in json {
            if inString {
                if escaped {
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    inString = false
                    lastString = current
                } else {
                    current.append(character)
                }
                continue
            }
            switch character {
            case "\"":
                inString = true
                current = ""
            case "{", "[": depth += 1
            case "}", "]": depth -= 1
            case ":" where depth == 1: keys.append(lastString)
            default: break
            }
        }
        return keys
    }

    /// The string value of `key`, if any.
    static func value(_ key: String, in json: String) -> String? {
        let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        return object?[key] as? String
    }
}
