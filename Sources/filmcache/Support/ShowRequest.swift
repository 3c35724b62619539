import FilmCacheKit
import FilmCacheSQLite
import Foundation

/// A `filmcache show` answered without the argument parser: `show [--db FILE] [--json] ID`, in any
/// order, the ID an IMDb ID or title URL, the file a SQLite cache that exists.
///
/// `show` is the command scripts run once per film, so its start is most of its time, and the
/// parser's reflection over the command's options (each first cast scanning every protocol
/// conformance of a binary that links NIO, Hummingbird and postgres-nio) took about a third of it.
/// What this takes is answered by the command's own code (`FilmShowing`) as the parsed command
/// answers it; every other command line, and every `show` the parsed command would answer
/// otherwise (an option this does not take, `--help`, a PostgreSQL URL, an ID or a file the command
/// reports on), goes to the parser.
struct ShowRequest {
    let title: String
    let database: String?
    let json: Bool

    /// The request `arguments` (without the program's name) make, or `nil` when they are not one
    /// answered here: another command, any other option or a repeated one, `--` or a second
    /// argument.
    init?(_ arguments: [String]) {
        guard arguments.first == "show" else { return nil }
        var title: String?
        var database: String?
        var json = false
        var rest = arguments.dropFirst()[...]
        while let argument = rest.popFirst() {
            if argument == "--json", !json {
                json = true
            } else if argument == "--db", database == nil, let value = rest.popFirst(), !value.hasPrefix("-") {
                database = value
            } else if argument.hasPrefix("--db="), database == nil {
                database = String(argument.dropFirst("--db=".count))
            } else if !argument.hasPrefix("-"), title == nil {
                title = argument
            } else {
                return nil
            }
        }
        guard let title else { return nil }
        self.title = title
        self.database = database
        self.json = json
    }

    /// Shows the film as the parsed command does and returns the exit status, or `nil`, having
    /// printed nothing, when the parsed command is the one to say what is wrong: the title is no
    /// IMDb ID, the database a URL, a name the command refuses or no file, or it cannot be opened.
    func run() async -> Int32? {
        guard let imdbID = FilmShowing.imdbID(named: title) else { return nil }
        let name = database ?? "filmcache.sqlite"
        guard !DatabaseName.isURL(name), let path = try? DatabaseName.resolve(name),
            FileManager.default.fileExists(atPath: path),
            let store = try? await SQLiteBackend.open(
                path: path, logger: FilmShowing.logger(level: .notice), readOnly: true)
        else { return nil }
        var status: Int32 = 0
        do {
            print(try await FilmShowing.text(of: imdbID, in: store, json: json))
        } catch {
            StandardError.write("filmcache: \(error.message)")
            status = error.status
        }
        await store.close()
        return StandardOutput.finish(status: status)
    }
}
