import Foundation
import Testing

/// Every `--help` fits an 80-column terminal and lists only the flags its command uses.
@Suite struct HelpEndToEndTests {
    @Test(arguments: [[], ["warm"], ["plan"], ["show"], ["quota"], ["stats"]])
    func helpFitsEightyColumns(command: [String]) throws {
        let out = try BuiltBinaries.run("filmcache", command + ["--help"], environment: ["COLUMNS": "80"])
        #expect(out.status == 0)
        let long = out.stdout.split(separator: "\n").filter { $0.count > 80 }
        #expect(long.isEmpty, "\(command): \(long)")
        #expect(!out.stdout.contains("8089"), "examples use the stand-in's default port, 8765")
    }

    @Test func quotaListsNoFreshnessFlagAndStatsNoBudgetFlag() throws {
        let quota = try BuiltBinaries.run("filmcache", ["quota", "--help"], environment: ["COLUMNS": "80"]).stdout
        #expect(quota.contains("--daily-limit") && !quota.contains("--ttl-days") && !quota.contains("ignored"))
        let stats = try BuiltBinaries.run("filmcache", ["stats", "--help"], environment: ["COLUMNS": "80"]).stdout
        #expect(stats.contains("--ttl-days") && !stats.contains("--daily-limit") && !stats.contains("ignored"))
        let show = try BuiltBinaries.run("filmcache", ["show", "--help"], environment: ["COLUMNS": "80"]).stdout
        #expect(!show.contains("created when absent") && !show.contains("--job"))
    }
}
