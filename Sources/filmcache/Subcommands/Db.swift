import ArgumentParser

extension FilmCacheCommand {
    /// Commands on whole cache databases.
    struct Db: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "db",
            abstract: "Work on whole cache databases: copy one into another.",
            subcommands: [Copy.self]
        )
    }
}
