/// IMDb's genre names, so that a differently cased or spelled genre still groups with its kin.
enum Genre {
    /// IMDb's own spellings, as OMDb sends them.
    static let known: Set<String> = [
        "Action", "Adult", "Adventure", "Animation", "Biography", "Comedy", "Crime", "Documentary", "Drama",
        "Family", "Fantasy", "Film-Noir", "Game-Show", "History", "Horror", "Music", "Musical", "Mystery", "News",
        "Reality-TV", "Romance", "Sci-Fi", "Short", "Sport", "Talk-Show", "Thriller", "War", "Western",
    ]

    /// Lower-cased spellings (and a few common variants) mapped to IMDb's spelling.
    private static let byFoldedName: [String: String] = {
        var table: [String: String] = [:]
        for name in known { table[name.lowercased()] = name }
        table["science fiction"] = "Sci-Fi"
        table["scifi"] = "Sci-Fi"
        table["sci fi"] = "Sci-Fi"
        table["film noir"] = "Film-Noir"
        table["game show"] = "Game-Show"
        table["talk show"] = "Talk-Show"
        table["reality tv"] = "Reality-TV"
        table["biopic"] = "Biography"
        return table
    }()

    /// IMDb's spelling of `name`, or `name` unchanged when it is not a known genre.
    static func canonical(_ name: String) -> String {
        if known.contains(name) { return name }
        return byFoldedName[name.lowercased()] ?? name
    }
}
