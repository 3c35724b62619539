/// Word lists the corpus generator draws from; all names are invented.
///
/// Arrays (never dictionaries or sets) keep every draw independent of hashing order.
enum CorpusVocabulary {
    /// Title adjectives.
    static let adjectives = [
        "Silent", "Last", "Broken", "Golden", "Hidden", "Crimson", "Distant", "Endless", "Forgotten", "Burning",
        "Hollow", "Secret", "Savage", "Gentle", "Frozen", "Electric", "Midnight", "Wild", "Lonely", "Restless",
        "Invisible", "Iron", "Velvet", "Paper", "Final", "Second", "Northern", "Bitter", "Lucky", "Quiet",
    ]
    /// Title nouns.
    static let nouns = [
        "Harbor", "Mirror", "Kingdom", "River", "Orchard", "Signal", "Garden", "Empire", "Frontier", "Station",
        "Promise", "Machine", "Summer", "Winter", "Horizon", "Witness", "Island", "Circus", "Letter", "Compass",
        "Lighthouse", "Verdict", "Carnival", "Shadow", "Highway", "Tide", "Ballad", "Theory", "Heist", "Echo",
    ]
    /// Titles with accents, CJK, Cyrillic and Greek, to exercise UTF-8 handling.
    static let unicodeTitles = [
        "Amélie des Étoiles", "Crónica de una Noche", "Ça recommence demain", "Straße der Sehnsucht",
        "Smørrebrød og Sorg", "東京の夜明け", "千の風の物語", "기생충의 겨울", "Мастер и Море", "Ζωή στο Νησί",
        "Le Fabuleux Été", "Niño del Desierto", "Über den Wolken", "Lågor i Natten", "花様の時間",
    ]
    /// Episode titles.
    static let episodeTitles = [
        "Pilot", "The Reckoning", "Homecoming", "Aftermath", "Crossroads", "The Long Night", "Old Debts",
        "Fault Lines", "Exit Strategy", "Undertow", "The Ledger", "Ghosts", "Cold Open", "Lockdown",
    ]
    /// Given names, some with diacritics.
    static let firstNames = [
        "Alice", "Marcus", "Elena", "Tomás", "Priya", "Jonah", "Renée", "Hiroshi", "Chloë", "Dmitri",
        "Fatima", "Oliver", "Björn", "Ingrid", "Kwame", "Lucía", "Nadia", "Samuel", "Yuki", "Zoë",
        "Camille", "Declan", "Esther", "Felix", "Grace", "Henrik", "Imani", "Jasper", "Keiko", "Leon",
    ]
    /// Family names, some with diacritics or apostrophes.
    static let lastNames = [
        "Hartley", "Moreau", "Okafor", "Lindqvist", "Tanaka", "Álvarez", "Brennan", "Castellano", "Dahl",
        "Everett", "Fischer", "Gallagher", "Haddad", "Iversen", "Jovanović", "Kowalski", "Laurent", "Mbeki",
        "Novak", "O'Connell", "Petrov", "Quinn", "Rossi", "Søndergaard", "Thornton", "Ueda", "Vasquez",
        "Whitfield", "Yilmaz", "Zimmermann",
    ]
    /// Roles OMDb appends to writer credits, such as `(screenplay)`.
    static let writerRoles = [
        "screenplay", "story", "novel", "characters", "created by", "based on the play by", "teleplay",
    ]
    /// OMDb genres.
    static let genres = [
        "Action", "Adventure", "Animation", "Biography", "Comedy", "Crime", "Documentary", "Drama", "Family",
        "Fantasy", "History", "Horror", "Music", "Mystery", "Romance", "Sci-Fi", "Sport", "Thriller", "War",
        "Western",
    ]
    /// Languages.
    static let languages = [
        "English", "French", "Spanish", "German", "Japanese", "Korean", "Italian", "Mandarin", "Swedish",
        "Danish", "Russian", "Greek", "Portuguese", "Hindi", "Arabic",
    ]
    /// Countries.
    static let countries = [
        "United States", "United Kingdom", "France", "Germany", "Japan", "South Korea", "Italy", "Spain",
        "Canada", "Sweden", "Denmark", "Mexico", "India", "Australia", "Brazil",
    ]
    /// MPAA-style ratings for movies.
    static let movieRatings = ["G", "PG", "PG-13", "R", "NC-17", "Not Rated", "Unrated", "Approved", "Passed"]
    /// TV parental ratings for series and episodes.
    static let tvRatings = ["TV-MA", "TV-14", "TV-PG", "TV-G", "TV-Y7", "Not Rated"]
    /// English month abbreviations as OMDb writes them.
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    /// Production companies.
    static let productions = [
        "Northlight Pictures", "Harbor Lane Films", "Blue Meridian", "Quarry Road Studios", "Paper Crane Media",
    ]
    /// Plot openings; `%@` takes a role.
    static let plotOpenings = [
        "A retired %@ is pulled back into",
        "Two estranged siblings and a wary %@ cross the country to settle",
        "When a mysterious %@ arrives in a small town, a young teacher uncovers",
        "A stubborn detective and a reluctant %@ race against time to stop",
        "After losing everything, a former %@ rebuilds her life around",
        "A group of teenagers discovers that the %@ behind their school hides",
        "An ambitious %@ stakes his reputation on",
        "In the last winter before the war, a %@ keeps a promise that changes",
    ]
    /// Roles substituted into plot openings.
    static let plotRoles = [
        "cartographer", "safecracker", "violinist", "lighthouse keeper", "journalist", "chess prodigy",
        "smuggler", "botanist", "stunt pilot", "archivist",
    ]
    /// Plot middles.
    static let plotMiddles = [
        "one final job that nobody believes can be done",
        "a decades-old feud over a crumbling family estate",
        "a conspiracy reaching the highest levels of the city council",
        "the truth about a fire that everyone has agreed to forget",
        "a bargain with a stranger who knows far too much",
        "an ancient map, a stolen ledger and a debt that must be paid",
        "the fate of an entire valley",
    ]
    /// Closing sentences; two carry quotes and a backslash so escaping gets exercised.
    static let plotClosings = [
        "Nothing, it turns out, is what it seems.",
        "Along the way, old loyalties are tested and new ones are forged.",
        "The clock is ticking, and the only way out is through.",
        "What begins as a simple favor becomes the adventure of a lifetime.",
        "She soon learns that some secrets are better left buried.",
        "Their motto, \"never look back\", is about to be put to the test.",
        "Every clue leads back to a file called C:\\ARCHIVE\\LOST.TXT and the woman who wrote it.",
    ]
    /// Sentences `plot=full` adds to a film's plot; none is ever drawn for a generated body.
    static let fullPlotSentences = [
        "Years later, the people who were there still disagree about what really happened that night.",
        "The search takes them from crowded city markets to a half-flooded village on the coast.",
        "Every ally has a price, and every price is paid in a currency nobody expected.",
        "A second letter, delivered to the wrong address, changes the meaning of the first.",
        "By the time the snow melts, the whole town knows a version of the story, and none of them is true.",
        "What was meant to last a weekend stretches into a season of favors, lies and unlikely friendships.",
        "Old photographs, a borrowed car and a half-remembered song are all they have to go on.",
        "The closer they come to the answer, the less either of them wants to hear it.",
    ]
    /// Characters of the fake poster image codes.
    static let posterAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
}
