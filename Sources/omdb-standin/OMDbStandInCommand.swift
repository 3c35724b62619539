import ArgumentParser

/// The `omdb-standin` command: serve a fixture corpus the way OMDb would, or generate one.
@main
struct OMDbStandInCommand: ParsableCommand {
    /// Names, help text and subcommands; `serve` is the default.
    static let configuration = CommandConfiguration(
        commandName: "omdb-standin",
        abstract: "A local stand-in for the OMDb API (omdbapi.com), serving a fixture corpus on 127.0.0.1.",
        discussion: """
            Accepted API keys come from the environment variable OMDB_STANDIN_KEYS (comma-separated; \
            'demo' when unset). Keys are never read from arguments and never printed.
            """,
        subcommands: [Serve.self, Generate.self],
        defaultSubcommand: Serve.self
    )
}
