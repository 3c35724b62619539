/// A corpus film as TMDb lists it: its media type and TMDb ID beside its IMDb ID.
struct TMDbTitle: Sendable, Hashable {
    /// TMDb's two kinds of title the stand-in serves.
    enum MediaType: String, Sendable, Hashable, Codable {
        /// `/movie/{id}`.
        case movie
        /// `/tv/{id}`.
        case tv
    }

    /// Movie or series.
    let mediaType: MediaType
    /// The TMDb ID, unique within the corpus.
    let id: Int
    /// The corpus film's IMDb ID.
    let imdbID: String

    /// `movie:550` or `tv:1399`, as stats and the changes control name a title.
    var key: String { "\(mediaType.rawValue):\(id)" }
}

/// The corpus as TMDb sees it, derived from the IMDb IDs alone so it is the same on every start:
/// series are `tv`, every other film a `movie`; about one film in ten (chosen by a hash of its ID)
/// is not on TMDb at all.
///
/// TMDb IDs are the IMDb number modulo ``idPrime`` plus one; the rare collision takes the next
/// free number, in IMDb ID order, so IDs stay unique and stable.
struct TMDbCatalog: Sendable {
    /// The modulus of the IMDb number that gives the TMDb ID.
    static let idPrime = 1_999_993

    /// The films the titles come from.
    let corpus: FilmCorpus
    /// The titles on TMDb, in IMDb ID order.
    let titles: [TMDbTitle]
    private let byIMDbID: [String: TMDbTitle]
    private let byKey: [String: TMDbTitle]

    /// Indexes `corpus`.
    init(corpus: FilmCorpus) {
        self.corpus = corpus
        var taken = Set<Int>()
        var titles: [TMDbTitle] = []
        for imdbID in corpus.entries.keys.sorted() {
            var id = Self.number(of: imdbID) % Self.idPrime + 1
            while !taken.insert(id).inserted { id += 1 }
            guard Self.isOnTMDb(imdbID: imdbID) else { continue }
            let type: TMDbTitle.MediaType =
                corpus.entries[imdbID]?.facts.type == FilmKind.series.rawValue ? .tv : .movie
            titles.append(TMDbTitle(mediaType: type, id: id, imdbID: imdbID))
        }
        self.titles = titles
        byIMDbID = Dictionary(titles.map { ($0.imdbID, $0) }, uniquingKeysWith: { first, _ in first })
        byKey = Dictionary(titles.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The title of `imdbID`, nil when the corpus does not hold it or TMDb does not list it.
    func title(imdbID: String) -> TMDbTitle? {
        byIMDbID[imdbID]
    }

    /// The title of `type` with TMDb ID `id`, or nil.
    func title(_ type: TMDbTitle.MediaType, id: Int) -> TMDbTitle? {
        byKey["\(type.rawValue):\(id)"]
    }

    /// The title named by `movie:123` or `tv:456`, or nil.
    func title(key: String) -> TMDbTitle? {
        byKey[key]
    }

    /// Whether TMDb lists `imdbID`: nine films in ten, the same ones every time.
    static func isOnTMDb(imdbID: String) -> Bool {
        hash(imdbID + "#tmdb") % 10 != 0
    }

    /// The digits of an IMDb ID as a number (0 when it has none).
    static func number(of imdbID: String) -> Int {
        Int(String(imdbID.unicodeScalars.filter { ("0"..."9").contains($0) }).prefix(15)) ?? 0
    }

    /// FNV-1a of `text`: a hash that is the same in every process, unlike `Hasher`.
    static func hash(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }

    /// The titles whose title holds `query` ignoring case and accents, in IMDb ID order.
    func titles(matching query: String) -> [TMDbTitle] {
        let wanted = FilmCorpus.titleKey(query)
        guard !wanted.isEmpty else { return [] }
        return titles.filter { title in
            corpus.entries[title.imdbID].map { FilmCorpus.titleKey($0.title).contains(wanted) } ?? false
        }
    }
}
