/// The cache schema's history: one named step per version, in order, the one list every backend
/// follows.
///
/// A backend gives each step's SQL in an exhaustive `switch`, so a step added here does not compile
/// until every backend has it (as GRDB's `DatabaseMigrator` registers each migration by name, the
/// list is the names, not positions kept equal by hand). A step's version is its place: the number
/// SQLite keeps in `PRAGMA user_version` and PostgreSQL in `schema_migrations`. Never edit a shipped
/// step; add one. docs/SCHEMA.md documents the result.
public enum SchemaStep: Int, CaseIterable, Sendable, CustomStringConvertible {
    /// `films`, `lookups`, `quota_ledger` and `runs`.
    case createCache = 1
    /// `films` as a rowid table, the list columns as views, an index for the planner's lookups.
    case filmsWithRowid
    /// IDs OMDb answers with another title's body (IMDb merged them), and which title.
    case aliases
    /// The calls each run reserved, so a killed run is closed with what the ledger counted for it.
    case runReservations
    /// Calls by the minute they were sent in, so a quota day in any time zone counts its own.
    case callsByMinute
    /// The title index: what OMDb's `t=` answered for a normalized title, year and type.
    case titleIndex
    /// Each film's poster in the content-addressed poster store.
    case posters
    /// What `serve` keeps beside the films: OMDb's answers to other queries, and demand.
    case serveAnswers
    /// TMDb beside OMDb: `/find`'s mapping of IMDb IDs, TMDb's entries, the changes feed's progress,
    /// the calls made each day, and the `film_sources` view joining both sources by IMDb ID.
    case tmdb

    /// The schema version the step brings a database to.
    public var version: Int { rawValue }

    /// The step's name, as logs show it.
    public var description: String {
        switch self {
        case .createCache: "createCache"
        case .filmsWithRowid: "filmsWithRowid"
        case .aliases: "aliases"
        case .runReservations: "runReservations"
        case .callsByMinute: "callsByMinute"
        case .titleIndex: "titleIndex"
        case .posters: "posters"
        case .serveAnswers: "serveAnswers"
        case .tmdb: "tmdb"
        }
    }

    /// The latest step: the version this build writes and understands.
    public static var latest: SchemaStep { allCases[allCases.count - 1] }

    /// The steps after `version`, in order.
    public static func after(_ version: Int) -> [SchemaStep] {
        allCases.filter { $0.version > version }
    }
}
