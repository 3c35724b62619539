import Foundation

/// The films a stand-in serves: OMDb JSON bodies keyed by IMDb ID.
///
/// Bodies are kept as raw bytes and served unchanged, so a test can compare a response with the
/// corpus file byte for byte.
public struct FilmCorpus: Sendable {
    /// One served film.
    public struct Entry: Sendable, Equatable {
        /// The exact body served for the film.
        public let body: [UInt8]
        /// The `Title` value, used by `t=` lookups (empty when unknown).
        public let title: String
        /// The `Year` value, used by `y=` filters (empty when unknown).
        public let year: String
        /// The other values search and season answers list.
        let facts: FilmFacts

        /// Creates an entry from a body and the title and year it carries.
        public init(body: [UInt8], title: String, year: String) {
            let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
            self.init(body: body, title: title, year: year, facts: FilmFacts(object: object ?? [:]))
        }

        /// Creates an entry whose facts are known already.
        init(body: [UInt8], title: String, year: String, facts: FilmFacts) {
            self.body = body
            self.title = title
            self.year = year
            self.facts = facts
        }

        /// Whether the film passes OMDb's `y=` (the year it starts in) and `type=` filters; empty or
        /// absent filters pass everything.
        func matches(year filterYear: String?, type filterType: String?) -> Bool {
            if let filterYear, !filterYear.isEmpty, !year.hasPrefix(filterYear) { return false }
            guard let filterType, !filterType.isEmpty else { return true }
            return facts.type.lowercased() == filterType.lowercased()
        }
    }

    /// Errors met while loading a corpus directory.
    package enum LoadError: Error, CustomStringConvertible {
        /// The directory could not be listed.
        case unreadableDirectory(path: String, reason: String)
        /// The directory holds no `tt*.json` files.
        case empty(path: String)

        /// A message a person can act on.
        public var description: String {
            switch self {
            case .unreadableDirectory(let path, let reason): "cannot read corpus directory \(path): \(reason)"
            case .empty(let path): "corpus directory \(path) holds no tt*.json files"
            }
        }
    }

    /// Films by IMDb ID.
    public let entries: [String: Entry]
    /// IMDb IDs by title folded as ``titleKey(_:)`` folds it, each list sorted so lookups answer deterministically.
    private let idsByTitle: [String: [String]]
    /// The words of every title (see ``searchWords(_:)``) with the IDs carrying it, for `s=`.
    let searchTitles: [(words: [String], ids: [String])]
    /// Episode IDs by series ID, season and episode number (see ``episodeIndex(_:)``), for `Season=`.
    let episodeIDs: [String: [Int: [Int: String]]]

    /// Creates a corpus from entries keyed by IMDb ID.
    public init(entries: [String: Entry]) {
        self.entries = entries
        let sortedIDs = entries.keys.sorted()
        var idsByTitle: [String: [String]] = [:]
        for id in sortedIDs {
            guard let title = entries[id]?.title, !title.isEmpty else { continue }
            idsByTitle[Self.titleKey(title), default: []].append(id)
        }
        self.idsByTitle = idsByTitle
        searchTitles = idsByTitle.keys.sorted().map { (Self.searchWords($0), idsByTitle[$0] ?? []) }
        episodeIDs = Self.episodeIndex(sortedIDs.compactMap { id in entries[id].map { (id, $0.facts) } })
    }

    /// Creates a corpus from generated films.
    public init(films: [GeneratedFilm]) {
        var entries: [String: Entry] = [:]
        for film in films {
            entries[film.imdbID] = Entry(body: film.body, title: film.title, year: film.year, facts: film.facts)
        }
        self.init(entries: entries)
    }

    /// Creates the corpus of films `0..<count` generated from `seed`.
    public init(generatedCount count: Int, seed: UInt64) {
        self.init(films: CorpusGenerator(seed: seed).films(count: count))
    }

    /// Loads every `<imdbID>.json` file of a flat directory (the layout `CorpusGenerator.write` produces).
    public init(directory: URL) throws {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw LoadError.unreadableDirectory(path: directory.path, reason: error.localizedDescription)
        }
        var entries: [String: Entry] = [:]
        for name in names where name.hasPrefix("tt") && name.hasSuffix(".json") {
            let body = try Data(contentsOf: directory.appendingPathComponent(name))
            let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
            entries[String(name.dropLast(5))] = Entry(
                body: Array(body), title: object?["Title"] as? String ?? "", year: object?["Year"] as? String ?? "",
                facts: FilmFacts(object: object ?? [:]))
        }
        guard !entries.isEmpty else { throw LoadError.empty(path: directory.path) }
        self.init(entries: entries)
    }

    /// The number of films.
    public var count: Int { entries.count }

    /// Returns the body for `imdbID`, or `nil` when the corpus does not hold it.
    public func body(forID imdbID: String) -> [UInt8]? {
        entries[imdbID]?.body
    }

    /// Returns the first film (in ID order) whose title equals `title` ignoring case and accents, as
    /// OMDb's `t=` does, optionally of year `year` (the year it starts in) and of type `type`.
    public func imdbID(forTitle title: String, year: String? = nil, type: String? = nil) -> String? {
        let candidates = idsByTitle[Self.titleKey(title)] ?? []
        return candidates.first { entries[$0]?.matches(year: year, type: type) ?? false }
    }

    /// A title as `t=` matches it: case and accents ignored, white space trimmed.
    static func titleKey(_ title: String) -> String {
        title.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
            .trimmingCharacters(in: .whitespaces)
    }
}
