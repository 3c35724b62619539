import Foundation

/// A worklist entry that names a film by its title, and perhaps its year and type, instead of an ID.
///
/// OMDb answers it with `t=` (and `y=`, `type=`): one call gives both the ID and the whole film.
/// The cache's title index keeps the answer under ``key``, so the same film named again, in
/// this list or another, costs nothing.
public struct TitleQuery: Sendable, Hashable, CustomStringConvertible {
    /// The title as the list writes it, white space trimmed.
    public var title: String
    /// The release year the list gives, if any.
    public var year: Int?
    /// OMDb's `type` (`movie`, `series` or `episode`) when the list says it.
    public var type: String?

    /// A query for `title`; `nil` when it holds no letter or digit (nothing to ask OMDb), runs past
    /// ``maxLength`` characters (no film's title does), or holds a control character or bytes that
    /// were not UTF-8 (U+FFFD): a damaged list, not a film to pay for.
    public init?(title: String, year: Int? = nil, type: String? = nil) {
        let trimmed = title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.count <= Self.maxLength, !Self.normalize(trimmed).isEmpty,
            !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0 == "\u{FFFD}" })
        else { return nil }
        self.title = trimmed
        self.year = year.flatMap { Self.years.contains($0) ? $0 : nil }
        self.type = type.flatMap(Self.omdbType)
    }

    /// What the title index is keyed by: the normalized title, the year (0: none), the type ("": any).
    public var key: TitleKey { TitleKey(title: Self.normalize(title), year: year ?? 0, type: type ?? "") }

    /// Whether a film titled `title`, first released in `yearStart`, answers this query: the same
    /// title under ``normalize(_:)``, and the same year when the query gives one.
    package func isAnswered(byTitle title: String?, yearStart: Int?) -> Bool {
        Self.normalize(title ?? "") == key.title && (year == nil || year == yearStart)
    }

    /// `"Heat" (1995)`, as messages show it.
    public var description: String {
        title.debugDescription + (year.map { " (\($0))" } ?? "") + (type.map { " [\($0)]" } ?? "")
    }

    /// The query part of the OMDb request after the key: `t=Heat&y=1995`, percent-encoded.
    package var requestQuery: String {
        var query = "t=" + QueryItems.encode(title)
        if let year { query += "&y=\(year)" }
        if let type { query += "&type=\(type)" }
        return query
    }

    /// The longest title asked for, in characters.
    package static let maxLength = 300

    /// The years a film can be from; another number is no year (a typo, a rating, a count).
    static let years = 1870...2100

    /// OMDb's type for how a list names one: `movie`/`film`, `series`/`show`/`tv series`, `episode`.
    static func omdbType(_ text: String) -> String? {
        switch text.trimmingCharacters(in: .whitespaces).lowercased() {
        case "movie", "film", "feature film", "tv movie": "movie"
        case "series", "show", "tv series", "tv mini series", "tv mini-series", "tvseries", "tvminiseries": "series"
        case "episode", "tv episode", "tvepisode": "episode"
        default: nil
        }
    }

    /// The title as the index keys it: case, accents and character width folded away, and every
    /// run of characters that are not letters or digits made one space, trimmed.
    ///
    /// `Amélie` and `AMELIE` are one key, as are `Spider-Man: No Way Home` and `spider man no way
    /// home`. docs/SCHEMA.md states the same rule, so apps can look a title up too.
    public static func normalize(_ title: String) -> String {
        let folded = title.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
        var key = String.UnicodeScalarView()
        var gap = false
        for scalar in folded.unicodeScalars {
            guard scalar.properties.isAlphabetic || scalar.properties.numericType != nil else {
                gap = true
                continue
            }
            if gap && !key.isEmpty { key.append(" ") }
            gap = false
            key.append(scalar)
        }
        return String(key)
    }
}

/// The title index's key for a query: the normalized title, the year (0 when none is given) and the
/// type ("" when none is given).
public struct TitleKey: Sendable, Hashable {
    public var title: String
    public var year: Int
    public var type: String

    public init(title: String, year: Int, type: String) {
        self.title = title
        self.year = year
        self.type = type
    }

    /// The key a run claims the title by, beside IDs: `t:<year>:<type>:<title>`. No ID starts so,
    /// and a normalized title has no colon, so it reads back unambiguously (docs/SCHEMA.md).
    public var claimKey: String { "t:\(year):\(type):\(title)" }
}

/// A title query and where a worklist named it.
public struct TitleEntry: Sendable, Equatable {
    public var query: TitleQuery
    /// The worklist file, as it was named.
    public var file: String
    /// The 1-based line it stands on (for a CSV record or JSON element, the line it starts on).
    public var line: Int

    /// `file:line`, as messages show where the entry is.
    public var place: String { "\(file):\(line)" }
}

/// What the title index holds for one ``TitleKey``: the film OMDb's `t=` found, or its "not found"
/// and when to ask again, and the title as it was asked.
public struct TitleIndexRow: Sendable, Equatable {
    /// The film found; `nil` for OMDb's "not found".
    public var imdbID: String?
    /// When a "not found" may be asked again.
    public var nextAttemptAt: Date?
    /// The title as it was sent to OMDb.
    public var askedTitle: String

    public init(imdbID: String?, nextAttemptAt: Date?, askedTitle: String) {
        self.imdbID = imdbID
        self.nextAttemptAt = nextAttemptAt
        self.askedTitle = askedTitle
    }

    /// When an upsert's row (`excluded`) replaces the index's (`titles`), in the SQL both backends
    /// speak: a film found stays found, whatever spelling later got a "not found" under its key.
    public static let replacesSQL = "(excluded.imdb_id IS NOT NULL OR titles.imdb_id IS NULL)"

    /// How a title stands in the index.
    public enum Standing: Sendable, Equatable {
        /// Known: the film it names.
        case resolved(String)
        /// OMDb did not find it, and it is not due again yet.
        case notFound
        /// To ask OMDb.
        case due
    }

    /// How `query` stands at `now` given the index's `row` for its key (`nil`: none): the one rule
    /// both backends plan titles by.
    ///
    /// A film found answers every spelling of the key. OMDb's "not found" answers only the spelling
    /// it was asked in: the key folds case, accents and punctuation, and a misspelling's miss must
    /// not deny the right title that folds to the same key.
    public static func standing(of query: TitleQuery, row: TitleIndexRow?, at now: Date) -> Standing {
        guard let row else { return .due }
        if let id = row.imdbID { return .resolved(id) }
        if let next = row.nextAttemptAt, next > now, row.askedTitle == query.title { return .notFound }
        return .due
    }
}
