import Logging

/// What `filmcache show` prints for an ID: the film, then TMDb's entry for it when the cache holds one.
///
/// The one body of the command, however its command line was read: by the argument parser, or
/// without it for the plain `show` on a SQLite file that scripts run once per film.
public enum FilmShowing {
    /// Why nothing is shown: the message (after `filmcache: `) and the exit status.
    public struct Failure: Error, Sendable {
        public let message: String
        public let status: Int32
    }

    /// The ID `title` names: an IMDb ID or title URL, with spaces and tabs around it (Unicode's
    /// space separators, as Foundation's `CharacterSet.whitespaces`); `nil` when it names none.
    public static func imdbID(named title: String) -> String? {
        let blank = { (scalar: Unicode.Scalar) in scalar == "\t" || scalar.properties.generalCategory == .spaceSeparator
        }
        let scalars = title.unicodeScalars
        guard let first = scalars.firstIndex(where: { !blank($0) }), let last = scalars.lastIndex(where: { !blank($0) })
        else { return nil }
        return PlainTextWorklist.imdbID(in: String(scalars[first...last]))
    }

    /// The logger `show` reads with: logfmt lines on standard error at `level`.
    public static func logger(level: Logger.Level) -> Logger {
        Logger(label: "filmcache") {
            var handler = LineLogHandler(label: $0, format: .logfmt, now: WallClock.system.now)
            handler.logLevel = level
            return handler
        }
    }

    /// The text `show` prints for `imdbID` from `store`: the human form, or with `json` the canonical
    /// JSON. An alias names its target on standard error and shows it. Not held: exit 1, saying why
    /// when the last fetch of it failed or OMDb does not know it; a failed read: 75 or 74.
    public static func text(of imdbID: String, in store: any CacheBackend, json: Bool) async throws(Failure) -> String {
        var film: IMDBFilm?
        var tmdb: TMDbSide?
        do {
            film = try await store.film(imdbID)
            var target: String?
            if film == nil, let alias = try await store.aliasTarget(of: imdbID) {
                // IMDb merged the asked ID into another title; OMDb answers it with that one.
                StandardError.write("filmcache: \(imdbID) is an alias of \(alias) (IMDb merged them); showing \(alias)")
                film = try await store.film(alias)
                target = alias
            }
            tmdb = try await TMDbSide.load(imdbID, from: store)
            if tmdb == nil, let target { tmdb = try await TMDbSide.load(target, from: store) }
        } catch {
            throw Failure(message: error.description, status: ExitStatus.of(error))
        }
        guard film != nil || tmdb?.film != nil else {
            let lookup = try? await store.lookup(imdbID)
            let why =
                lookup.flatMap { $0 }.map {
                    " (\($0.status == .notFound ? "OMDb does not know it" : "last fetch failed"): \($0.message ?? "")"
                        + ")"
                } ?? ""
            throw Failure(message: "\(imdbID) is not in the cache\(why)", status: 1)
        }
        if json { return TMDbFilmText.json(imdbID: film?.imdbID ?? imdbID, film: film, tmdb: tmdb) }
        return [film.map(FilmText.human), tmdb.map(TMDbFilmText.human)].compactMap { $0 }.joined(separator: "\n\n")
    }
}
