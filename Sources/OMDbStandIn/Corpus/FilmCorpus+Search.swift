/// OMDb's `s=` search over the corpus's titles.
extension FilmCorpus {
    /// The IDs of the films `s=text` finds, in ID order, optionally only of year `year` and type `type`
    /// (the filters `t=` applies).
    ///
    /// A film is found when the words of its title hold the words of `text` as one unbroken run,
    /// case and accents ignored, as OMDb matches whole words: `harbor`, `silent harbor` and
    /// `SILENT HARBOR` find `The Silent Harbor`; `harb` and `harbor silent` do not. Words are runs
    /// of letters and digits (see ``searchWords(_:)``), so punctuation never has to be typed.
    /// A text without words finds nothing.
    func searchIDs(_ text: String, year: String? = nil, type: String? = nil) -> [String] {
        let wanted = Self.searchWords(Self.titleKey(text))
        guard !wanted.isEmpty else { return [] }
        var found: [String] = []
        for title in searchTitles where Self.contains(title.words, run: wanted) {
            found += title.ids.filter { entries[$0]?.matches(year: year, type: type) ?? false }
        }
        return found.sorted()
    }

    /// The words of an already folded title: maximal runs of letters and digits, so `Alice's
    /// Harbor: Part 2` has the words `alice`, `s`, `harbor`, `part`, `2`. A title without spaces
    /// (`東京の夜明け`) is one word.
    static func searchWords(_ folded: String) -> [String] {
        folded.split { !($0.isLetter || $0.isNumber) }.map(String.init)
    }

    /// Whether `words` holds `run` as consecutive elements.
    private static func contains(_ words: [String], run: [String]) -> Bool {
        guard run.count <= words.count else { return false }
        return (0...(words.count - run.count)).contains { start in
            zip(words[start...], run).allSatisfy { $0 == $1 }
        }
    }
}
