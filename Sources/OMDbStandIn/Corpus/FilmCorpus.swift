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

        /// Creates an entry from a body and the title and year it carries.
        public init(body: [UInt8], title: String, year: String) {
            self.body = body
            self.title = title
            self.year = year
        }
    }

    /// Errors met while loading a corpus directory.
    public enum LoadError: Error, CustomStringConvertible {
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

    /// Creates a corpus from entries keyed by IMDb ID.
    public init(entries: [String: Entry]) {
        self.entries = entries
        var idsByTitle: [String: [String]] = [:]
        for id in entries.keys.sorted() {
            guard let title = entries[id]?.title, !title.isEmpty else { continue }
            idsByTitle[Self.titleKey(title), default: []].append(id)
        }
        self.idsByTitle = idsByTitle
    }

    /// Creates a corpus from generated films.
    public init(films: [GeneratedFilm]) {
        var entries: [String: Entry] = [:]
        for film in films {
            entries[film.imdbID] = Entry(body: film.body, title: film.title, year: film.year)
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
                body: Array(body), title: object?["Title"] as? String ?? "", year: object?["Year"] as? String ?? "")
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
        return candidates.first { id in
            guard let entry = entries[id] else { return false }
            if let year, !year.isEmpty, !entry.year.hasPrefix(year) { return false }
            guard let type, !type.isEmpty else { return true }
            let object = (try? JSONSerialization.jsonObject(with: Data(entry.body))) as? [String: Any]
            return (object?["Type"] as? String)?.lowercased() == type.lowercased()
        }
    }

    /// A title as `t=` matches it: case and accents ignored, white space trimmed.
    static func titleKey(_ title: String) -> String {
        title.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
            .trimmingCharacters(in: .whitespaces)
    }
}
