import Foundation
import OMDbStandIn

/// What the stand-in's `s=` and `Season=` answers should hold, worked out here from the film bodies
/// alone (decoded with Foundation, matched by string search) rather than by the stand-in's indexes.
enum OMDbReference {
    /// A decoded film body's string values.
    static func fields(_ body: [UInt8]) -> [String: String] {
        let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:]
        return object.compactMapValues { $0 as? String }
    }

    /// A decoded answer.
    static func object(_ body: [UInt8]) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:]
    }

    /// ` w1 w2 … ` of `text`: lower-cased, accents dropped, every character that is not a letter or
    /// digit a space.
    static func spacedWords(_ text: String) -> String {
        let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
        let words = String(folded.map { $0.isLetter || $0.isNumber ? $0 : " " })
            .split(separator: " ").joined(separator: " ")
        return " \(words) "
    }

    /// The IDs `s=text` should find among `films`, with the `y=` and `type=` filters, in ID order.
    static func searchIDs(_ text: String, in films: [GeneratedFilm], year: String? = nil, type: String? = nil)
        -> [String]
    {
        let wanted = spacedWords(text)
        guard wanted != "  " else { return [] }
        return films.filter { film in
            spacedWords(film.title).contains(wanted) && (year.map { film.year.hasPrefix($0) } ?? true)
                && (type.map { film.kind.rawValue == $0 } ?? true)
        }.map(\.imdbID).sorted()
    }

    /// One `Search` entry as OMDb lists it.
    static func searchEntry(_ film: GeneratedFilm) -> [String: String] {
        let fields = fields(film.body)
        return [
            "Title": film.title, "Year": film.year, "imdbID": film.imdbID, "Type": film.kind.rawValue,
            "Poster": fields["Poster"] ?? "N/A",
        ]
    }

    /// Episodes of `seriesID` by season, each season's episodes by number; the lowest ID keeps a
    /// number two episodes claim.
    static func seasons(of seriesID: String, in films: [GeneratedFilm]) -> [Int: [(number: Int, film: GeneratedFilm)]] {
        var seasons: [Int: [Int: GeneratedFilm]] = [:]
        for film in films.sorted(by: { $0.imdbID < $1.imdbID }) where film.kind == .episode {
            let fields = fields(film.body)
            guard fields["seriesID"] == seriesID, let season = fields["Season"].flatMap({ Int($0) }),
                let episode = fields["Episode"].flatMap({ Int($0) }), seasons[season]?[episode] == nil
            else { continue }
            seasons[season, default: [:]][episode] = film
        }
        return seasons.mapValues { $0.sorted { $0.key < $1.key }.map { ($0.key, $0.value) } }
    }

    /// `12 Jan 2001` as `2001-01-12`, `N/A` for anything else.
    static func isoDate(_ released: String) -> String {
        let reader = DateFormatter()
        reader.locale = Locale(identifier: "en_US_POSIX")
        reader.timeZone = TimeZone(identifier: "UTC")
        reader.dateFormat = "dd MMM yyyy"
        guard let date = reader.date(from: released) else { return "N/A" }
        let writer = DateFormatter()
        writer.locale = reader.locale
        writer.timeZone = reader.timeZone
        writer.dateFormat = "yyyy-MM-dd"
        return writer.string(from: date)
    }

    /// `value` as a JSON string literal the way OMDb writes one (only `"` and `\` escaped, `/` kept).
    static func quoted(_ value: String) -> String {
        "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// A compact JSON object of string pairs in the given order.
    static func object(_ pairs: [(String, String)]) -> String {
        "{" + pairs.map { quoted($0.0) + ":" + quoted($0.1) }.joined(separator: ",") + "}"
    }

    /// A minimal OMDb body of a film, for hand-made corpora.
    static func entry(_ fields: [(String, String)]) -> (id: String, entry: FilmCorpus.Entry) {
        let values = Dictionary(fields, uniquingKeysWith: { $1 })
        let body = Array(object(fields + [("Response", "True")]).utf8)
        return (
            values["imdbID"] ?? "",
            FilmCorpus.Entry(body: body, title: values["Title"] ?? "", year: values["Year"] ?? "")
        )
    }

    /// A corpus of hand-made bodies.
    static func corpus(_ films: [[(String, String)]]) -> FilmCorpus {
        FilmCorpus(entries: Dictionary(films.map(entry), uniquingKeysWith: { $1 }))
    }
}
