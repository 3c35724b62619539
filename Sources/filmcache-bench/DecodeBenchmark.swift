import FilmCacheKit
import Foundation
import SplitMix

/// Measures how many OMDb bodies per second one thread decodes and normalizes.
///
/// The reference is Python's `json.loads` on the same bytes (`Scripts/bench_decode.py`),
/// which only parses; this also types every field, so matching it is the bar.
enum DecodeBenchmark {
    /// Normalizes `bodies` round-robin for about `seconds` on the calling thread.
    ///
    /// Returns films made and the seconds it took. The requested IDs are read before timing
    /// starts, so the loop measures exactly what the fetch stage pays per response.
    static func run(bodies: [[UInt8]], seconds: Double) -> (films: Int, seconds: Double) {
        let normalizer = FilmNormalizer()
        let ids = bodies.map { body -> String in
            guard case .film(let dto)? = try? normalizer.decode(body) else { return "tt0000000" }
            return dto.imdbID ?? "tt0000000"
        }
        guard !bodies.isEmpty else { return (0, 0) }
        let fetchedAt = Date()
        let clock = ContinuousClock()
        let start = clock.now
        let deadline = start.advanced(by: .nanoseconds(Int64(seconds * 1e9)))
        var films = 0
        var checksum = 0
        repeat {
            for (body, id) in zip(bodies, ids) {
                if case .film(let normalized)? = try? normalizer.normalize(
                    body: body, requestedID: id, fetchedAt: fetchedAt)
                {
                    films += 1
                    checksum &+= normalized.warnings.count &+ (normalized.film.runtimeMinutes ?? 0)
                }
            }
        } while clock.now < deadline
        let elapsed = start.duration(to: clock.now)
        // Keeps the optimizer from proving the loop has no effect.
        if checksum == Int.min { print(checksum) }
        return (films, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    /// `count` varied, realistic OMDb bodies (movies, series, episodes, sparse titles), the same for a seed.
    static func syntheticBodies(count: Int, seed: UInt64 = 42) -> [[UInt8]] {
        var generator = BodyGenerator(seed: seed)
        return (0..<count).map { _ in Array(generator.body().utf8) }
    }

    /// Writes `bodies` as `0000.json`, `0001.json`, … into `directory`, for the Python reference.
    static func write(_ bodies: [[UInt8]], to directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (index, body) in bodies.enumerated() {
            let name = String(repeating: "0", count: max(0, 4 - String(index).count)) + String(index) + ".json"
            try Data(body).write(to: directory.appendingPathComponent(name))
        }
    }
}

/// Makes OMDb-shaped bodies from word lists; a SplitMix64 stream keeps them reproducible.
private struct BodyGenerator {
    private var rng: SplitMix64

    init(seed: UInt64) { rng = SplitMix64(seed: seed) }

    private mutating func int(_ range: ClosedRange<Int>) -> Int { rng.int(in: range) }

    private mutating func pick(_ items: [String]) -> String { items[int(0...(items.count - 1))] }

    private mutating func chance(_ percent: Int) -> Bool { int(1...100) <= percent }

    private static let words = [
        "Night", "Return", "Shadow", "River", "Last", "City", "Glass", "Winter", "Kingdom", "Echo", "Silent", "Iron",
        "Garden", "Storm", "Paper", "Golden", "Station", "Café", "Ōkami", "Müller", "Road", "Empire", "Heart", "Fire",
    ]
    private static let people = [
        "Ridley Scott", "Greta Gerwig", "Denis Villeneuve", "Agnès Varda", "Bong Joon Ho", "Kathryn Bigelow",
        "Russell Crowe", "Joaquin Phoenix", "Connie Nielsen", "Emilia Clarke", "Peter Dinklage", "Penélope Cruz",
        "Tilda Swinton", "Song Kang-ho", "Frances McDormand", "Mads Mikkelsen", "Zhang Ziyi", "Idris Elba",
    ]
    private static let genres = [
        "Action", "Adventure", "Drama", "Comedy", "Crime", "Sci-Fi", "Thriller", "Romance", "Animation",
        "Documentary", "Horror", "Mystery", "Fantasy", "Biography", "History", "Family",
    ]
    private static let languages = [
        "English", "French", "Spanish", "German", "Korean", "Japanese", "Italian", "Mandarin",
    ]
    private static let countries = [
        "United States", "United Kingdom", "France", "South Korea", "Japan", "Germany", "Malta",
    ]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private mutating func list(_ items: [String], _ n: ClosedRange<Int>) -> String {
        (0..<int(n)).map { _ in pick(items) }.joined(separator: ", ")
    }

    private mutating func date() -> String {
        let day = int(1...28)
        return (day < 10 ? "0" : "") + "\(day) \(pick(Self.months)) \(int(1950...2024))"
    }

    private mutating func grouped(_ n: Int) -> String {
        var text = String(n)
        var k = text.count - 3
        while k > 0 {
            text.insert(",", at: text.index(text.startIndex, offsetBy: k))
            k -= 3
        }
        return text
    }

    private mutating func plot() -> String {
        var sentence = (0..<int(14...40)).map { _ in pick(Self.words).lowercased() }.joined(separator: " ")
        if chance(5) { sentence += " \\\"quoted\\\" caf\\u00e9" }
        return "A " + sentence + "."
    }

    /// One body, a movie most of the time.
    mutating func body() -> String {
        let kind = int(1...100)
        let type = kind <= 75 ? "movie" : kind <= 88 ? "series" : "episode"
        let sparse = chance(8)
        func na(_ value: String) -> String { sparse ? "N/A" : value }
        let year = int(1920...2024)
        var yearText = String(year)
        if type == "series" { yearText += chance(50) ? "–" : "–\(year + int(1...9))" }
        let rating = Double(int(10...95)) / 10
        var fields: [(String, String)] = [
            ("Title", (0..<int(1...4)).map { _ in pick(Self.words) }.joined(separator: " ")),
            ("Year", yearText), ("Rated", na(pick(["R", "PG-13", "PG", "TV-MA", "Not Rated"]))),
            ("Released", na(date())),
        ]
        if type == "episode" { fields += [("Season", String(int(1...10))), ("Episode", String(int(1...24)))] }
        fields += [
            ("Runtime", na(chance(3) ? "1 h \(int(1...59)) min" : "\(int(20...190)) min")),
            ("Genre", na(list(Self.genres, 1...3))), ("Director", na(list(Self.people, 1...2))),
            ("Writer", na("\(pick(Self.people)) (screenplay), \(pick(Self.people)) (story)")),
            ("Actors", na(list(Self.people, 3...4))), ("Plot", na(plot())),
            ("Language", na(list(Self.languages, 1...3))),
            ("Country", na(list(Self.countries, 1...2))),
            ("Awards", na("Won \(int(1...5)) Oscars. \(int(5...90)) wins & \(int(5...200)) nominations total")),
            ("Poster", na("https://m.media-amazon.com/images/M/MV5B\(rng.next() % 1_000_000_000)._V1_SX300.jpg")),
        ]
        var ratings = sparse ? [] : [#"{"Source":"Internet Movie Database","Value":"\#(rating)/10"}"#]
        if !sparse && type == "movie" {
            ratings.append(#"{"Source":"Rotten Tomatoes","Value":"\#(int(0...100))%"}"#)
            ratings.append(#"{"Source":"Metacritic","Value":"\#(int(10...100))/100"}"#)
        }
        let id = "tt" + String(int(1_000_000...9_999_999))
        var tail: [(String, String)] = [
            ("Metascore", sparse || type != "movie" ? "N/A" : String(int(10...100))), ("imdbRating", na("\(rating)")),
            ("imdbVotes", na(grouped(int(5...2_500_000)))), ("imdbID", id),
        ]
        switch type {
        case "movie":
            tail += [
                ("Type", "movie"), ("DVD", na(date())), ("BoxOffice", na("$" + grouped(int(10_000...900_000_000)))),
                ("Production", "N/A"), ("Website", "N/A"),
            ]
        case "series": tail += [("Type", "series"), ("totalSeasons", String(int(1...30)))]
        default: tail += [("seriesID", "tt" + String(int(1_000_000...9_999_999))), ("Type", "episode")]
        }
        tail.append(("Response", "True"))
        let head = fields.map { #""\#($0.0)":"\#($0.1)""# }.joined(separator: ",")
        let rest = tail.map { #""\#($0.0)":"\#($0.1)""# }.joined(separator: ",")
        return "{" + head + #","Ratings":["# + ratings.joined(separator: ",") + "]," + rest + "}"
    }
}
