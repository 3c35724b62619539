/// The sources an export or a poster run reads: OMDb's films, TMDb's entries.
public enum ExportSource: String, Sendable, CaseIterable {
    case omdb
    case tmdb
}
