import Foundation
import Testing

/// Every `--help` fits an 80-column terminal and lists only the flags its command uses.
@Suite struct HelpEndToEndTests {
    @Test(arguments: [
        [], ["warm"], ["serve"], ["plan"], ["show"], ["quota"], ["stats"], ["posters"], ["export"], ["import"],
        ["db", "copy"],
    ])
    func helpFitsEightyColumns(command: [String]) throws {
        let out = try BuiltBinaries.run("filmcache", command + ["--help"], environment: ["COLUMNS": "80"])
        #expect(out.status == 0)
        let long = out.stdout.split(separator: "\n").filter { $0.count > 80 }
        #expect(long.isEmpty, "\(command): \(long)")
        #expect(!out.stdout.contains("8089"), "examples use the stand-in's default port, 8765")
        // A default is printed once: by the parser, or in the text when the parser cannot know it.
        let twice = out.stdout.split(separator: "\n").filter { $0.contains("Default ") && $0.contains("(default: ") }
        #expect(twice.isEmpty, "\(command): \(twice)")
    }

    /// An example line of a command's help that wraps would break when pasted: each fits as written.
    @Test(arguments: [["warm"], ["serve"], ["plan"], ["export"], ["import"], ["posters"]])
    func examplesAreWholeCommands(command: [String]) throws {
        let out = try BuiltBinaries.run("filmcache", command + ["--help"], environment: ["COLUMNS": "80"])
        let lines = out.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let examples = lines.drop { !$0.contains("Examples:") }.dropFirst().prefix { !$0.isEmpty }
        #expect(!examples.isEmpty, "\(command) has examples")
        for (line, next) in zip(examples, examples.dropFirst()) where !line.hasSuffix("\\") {
            #expect(next.hasPrefix("  filmcache") || next.hasPrefix("  OMDB_API_KEY"), "\(command): \(next)")
        }
    }

    @Test func quotaListsNoFreshnessFlagAndStatsNoBudgetFlag() throws {
        let quota = try BuiltBinaries.run("filmcache", ["quota", "--help"], environment: ["COLUMNS": "80"]).stdout
        #expect(quota.contains("--daily-limit") && !quota.contains("--ttl-days") && !quota.contains("ignored"))
        let stats = try BuiltBinaries.run("filmcache", ["stats", "--help"], environment: ["COLUMNS": "80"]).stdout
        #expect(stats.contains("--ttl-days") && !stats.contains("--daily-limit") && !stats.contains("ignored"))
        let show = try BuiltBinaries.run("filmcache", ["show", "--help"], environment: ["COLUMNS": "80"]).stdout
        #expect(!show.contains("created when absent") && !show.contains("--job"))
        #expect(show.contains("USAGE: filmcache show [--db <db>] [--json] <imdb-id>") && !show.contains("<title>"))
        let export = try BuiltBinaries.run("filmcache", ["export", "--help"], environment: ["COLUMNS": "80"]).stdout
        #expect(!export.contains("--job"), "export takes no job file")
    }
}
