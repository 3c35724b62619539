import Foundation

/// Renders one cached film for `filmcache show`.
public enum FilmText {
    /// The canonical JSON form, pretty-printed, keys in documented order.
    public static func json(_ film: IMDBFilm) -> String {
        String(decoding: film.canonicalJSON(), as: UTF8.self)
    }

    /// A short human summary; text from OMDb has its control characters escaped (`\u{0}`, `\u{1B}`).
    public static func human(_ film: IMDBFilm) -> String {
        var years = film.yearStart.map(String.init) ?? "?"
        if film.type == .series { years += "–" + (film.yearEnd.map(String.init) ?? "") }
        var lines = ["\(film.title.map(LogText.escaped) ?? "(untitled)") (\(years)) — \(film.imdbID)"]
        func add(_ label: String, _ value: String?) {
            if let value, !value.isEmpty {
                lines.append(TextTable.pad(label, to: 10, .left) + LogText.escaped(value))
            }
        }
        add("type", film.type?.description)
        add("runtime", film.runtimeMinutes.map { "\($0) min" })
        add("genres", film.genres.joined(separator: ", "))
        add("rating", film.imdbRating.map { "\($0)/10" + (film.imdbVotes.map { " (\($0) votes)" } ?? "") })
        add("ratings", film.ratings.map { "\($0.source): \($0.value)" }.joined(separator: "; "))
        add("plot", film.plot)
        add("fetched", Timestamp.format(film.lastFetched))
        return lines.joined(separator: "\n")
    }
}
