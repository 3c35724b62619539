import Foundation

/// What a TMDb body says about a film, read from the film's OMDb body so the two sources agree on
/// title, year, genres, runtime and plot.
struct TMDbFacts: Sendable {
    /// `Title`.
    var title = ""
    /// The year the film (or series) starts in, nil when unknown.
    var startYear: Int?
    /// `Released` as `YYYY-MM-DD`, or the start year's 1 January when only the year is known, or "".
    var date = ""
    /// `Runtime` in minutes, nil when unknown.
    var runtime: Int?
    /// `Genre`, as OMDb names them.
    var genres: [String] = []
    /// `Plot`, "" when `N/A`.
    var plot = ""
    /// `Language`, as OMDb names them.
    var languages: [String] = []
    /// `Country`, as OMDb names them.
    var countries: [String] = []
    /// `Rated`, "" when `N/A`.
    var rated = ""
    /// `Director`.
    var directors: [String] = []
    /// `Writer`, without the roles in parentheses.
    var writers: [String] = []
    /// `Actors`.
    var actors: [String] = []
    /// `imdbRating`, nil when `N/A`.
    var rating: Double?
    /// `imdbVotes` as a number, 0 when `N/A`.
    var votes = 0
    /// A series' `totalSeasons`, nil when unknown.
    var totalSeasons: Int?
    /// Whether a series' `Year` is a closed range (`2011–2019`): it has ended.
    var hasEnded = false

    /// Reads the facts of `body` (an OMDb film body); unknown or `N/A` values keep their defaults.
    init(body: [UInt8]) {
        let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:]
        func text(_ key: String) -> String? {
            guard let value = object[key] as? String, value != "N/A", !value.isEmpty else { return nil }
            return value
        }
        func list(_ key: String) -> [String] {
            text(key)?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } ?? []
        }
        title = text("Title") ?? ""
        let year = text("Year") ?? ""
        startYear = Int(year.prefix(4))
        hasEnded = year.count > 5 && year.unicodeScalars.contains("\u{2013}")
        let released = FilmFacts(object: object).releasedDate
        date = released != "N/A" ? released : startYear.map { "\($0)-01-01" } ?? ""
        runtime = text("Runtime").flatMap(Self.minutes)
        genres = list("Genre")
        plot = text("Plot") ?? ""
        languages = list("Language")
        countries = list("Country")
        rated = text("Rated") ?? ""
        directors = list("Director")
        writers = list("Writer").map { name in
            name.firstIndex(of: "(").map { String(name[..<$0]).trimmingCharacters(in: .whitespaces) } ?? name
        }
        actors = list("Actors")
        rating = text("imdbRating").flatMap(Double.init)
        votes = Int(text("imdbVotes")?.replacingOccurrences(of: ",", with: "") ?? "") ?? 0
        totalSeasons = text("totalSeasons").flatMap { Int($0) }
    }

    /// `120 min` or `1 h 50 min` in minutes.
    private static func minutes(_ text: String) -> Int? {
        let numbers = text.split(separator: " ").compactMap { Int($0) }
        if text.contains(" h ") && numbers.count == 2 { return numbers[0] * 60 + numbers[1] }
        return numbers.first
    }
}

/// TMDb's names and codes for the words OMDb uses.
enum TMDbVocabulary {
    /// TMDb's movie genres by OMDb genre name.
    static let movieGenres: [String: (Int, String)] = [
        "Action": (28, "Action"), "Adventure": (12, "Adventure"), "Animation": (16, "Animation"),
        "Biography": (36, "History"), "Comedy": (35, "Comedy"), "Crime": (80, "Crime"),
        "Documentary": (99, "Documentary"), "Drama": (18, "Drama"), "Family": (10751, "Family"),
        "Fantasy": (14, "Fantasy"), "History": (36, "History"), "Horror": (27, "Horror"), "Music": (10402, "Music"),
        "Mystery": (9648, "Mystery"), "Romance": (10749, "Romance"), "Sci-Fi": (878, "Science Fiction"),
        "Sport": (18, "Drama"), "Thriller": (53, "Thriller"), "War": (10752, "War"), "Western": (37, "Western"),
    ]
    /// TMDb's TV genres by OMDb genre name (TV merges some, and has no thriller or horror of its own).
    static let tvGenres: [String: (Int, String)] = [
        "Action": (10759, "Action & Adventure"), "Adventure": (10759, "Action & Adventure"),
        "Animation": (16, "Animation"), "Biography": (99, "Documentary"), "Comedy": (35, "Comedy"),
        "Crime": (80, "Crime"), "Documentary": (99, "Documentary"), "Drama": (18, "Drama"),
        "Family": (10751, "Family"), "Fantasy": (10765, "Sci-Fi & Fantasy"), "History": (18, "Drama"),
        "Horror": (9648, "Mystery"), "Music": (10764, "Reality"), "Mystery": (9648, "Mystery"),
        "Romance": (10766, "Soap"), "Sci-Fi": (10765, "Sci-Fi & Fantasy"), "Sport": (10764, "Reality"),
        "Thriller": (9648, "Mystery"), "War": (10768, "War & Politics"), "Western": (37, "Western"),
    ]
    /// ISO 639-1 codes by OMDb language name.
    static let languages: [String: String] = [
        "English": "en", "French": "fr", "Spanish": "es", "German": "de", "Japanese": "ja", "Korean": "ko",
        "Italian": "it", "Mandarin": "zh", "Swedish": "sv", "Danish": "da", "Russian": "ru", "Greek": "el",
        "Portuguese": "pt", "Hindi": "hi", "Arabic": "ar",
    ]
    /// ISO 3166-1 codes and TMDb's names by OMDb country name.
    static let countries: [String: (String, String)] = [
        "United States": ("US", "United States of America"), "United Kingdom": ("GB", "United Kingdom"),
        "France": ("FR", "France"), "Germany": ("DE", "Germany"), "Japan": ("JP", "Japan"),
        "South Korea": ("KR", "South Korea"), "Italy": ("IT", "Italy"), "Spain": ("ES", "Spain"),
        "Canada": ("CA", "Canada"), "Sweden": ("SE", "Sweden"), "Denmark": ("DK", "Denmark"),
        "Mexico": ("MX", "Mexico"), "India": ("IN", "India"), "Australia": ("AU", "Australia"),
        "Brazil": ("BR", "Brazil"),
    ]
    /// TV networks a series is shown on.
    static let networks: [(id: Int, name: String, country: String)] = [
        (49, "HBO", "US"), (213, "Netflix", "US"), (4, "BBC One", "GB"), (1024, "Prime Video", "US"),
        (2739, "Disney+", "US"), (6, "NBC", "US"),
    ]

    /// The `{"id","name"}` genres of `omdbGenres`, without repeats.
    static func genres(_ omdbGenres: [String], tv: Bool) -> [(id: Int, name: String)] {
        var seen = Set<Int>()
        return omdbGenres.compactMap { (tv ? tvGenres : movieGenres)[$0] }.filter { seen.insert($0.0).inserted }
    }
}
