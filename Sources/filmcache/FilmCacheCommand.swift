import ArgumentParser
import FilmCacheKit

@main
struct FilmCacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "filmcache")
}
