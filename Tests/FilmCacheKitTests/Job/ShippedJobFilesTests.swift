import Foundation
import Testing

@testable import FilmCacheKit

/// The job files in `Jobs/` and the key reference in docs/JOBS.md stay valid and complete.
@Suite struct ShippedJobFilesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    static var jobFiles: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root + "/Jobs")) ?? []
        return names.filter { $0.hasSuffix(".toml") || $0.hasSuffix(".json") }.sorted()
    }

    @Test func thereAreJobFilesToCheck() {
        #expect(Self.jobFiles.contains("nightly.toml") && Self.jobFiles.contains("prewarm.toml"))
    }

    @Test(arguments: jobFiles)
    func parses(name: String) throws {
        let job = try JobFile.load(path: Self.root + "/Jobs/" + name, environment: [:])
        // serve answers what apps ask; it reads no worklist.
        #expect(job.worklists?.isEmpty == (name == "serve.toml" ? nil : false))
        #expect(job.databasePath != nil)
        #expect(job.apiKeyFile != nil || job.apiKeyVariable != nil)
    }

    @Test func theNightlyJobIsTheStandardNight() throws {
        let job = try JobFile.load(path: Self.root + "/Jobs/nightly.toml", environment: [:])
        #expect(job.worklists?.first == "/etc/filmcache/watchlist.txt")
        #expect(job.databasePath == "/var/lib/filmcache/films.sqlite")
        #expect(job.apiKeyFile == "/etc/filmcache/omdb.key")
        #expect(job.settings[.rate] == 5 && job.settings[.maxInFlight] == 8)
        #expect(job.settings[.dailyLimit] == 1000 && job.settings[.reserve] == 5)
        #expect(job.maxRuntime == .seconds(2 * 3600))
        // Off until a node exporter is there: a missing metrics directory stops a warm (exit 78).
        #expect(job.metricsFile == nil)

        let underSystemd = try JobFile.load(
            path: Self.root + "/Jobs/nightly.toml",
            environment: ["CREDENTIALS_DIRECTORY": "/run/credentials/filmcache-warm.service"])
        #expect(underSystemd.apiKeyFile == "/run/credentials/filmcache-warm.service/omdb.key")
    }

    @Test func theSharedJobWritesDebiansTextfileDirectory() throws {
        let job = try JobFile.load(path: Self.root + "/Jobs/shared.toml", environment: [:])
        #expect(job.metricsFile == "/var/lib/prometheus/node-exporter/filmcache.prom")
    }

    @Test func theServeJobSharesTheNightlyDatabaseAndKey() throws {
        let serve = try JobFile.load(path: Self.root + "/Jobs/serve.toml", environment: [:])
        let nightly = try JobFile.load(path: Self.root + "/Jobs/nightly.toml", environment: [:])
        #expect(serve.databasePath == nightly.databasePath)
        #expect(serve.apiKeyFile == nightly.apiKeyFile)
    }

    @Test func thePrewarmJobFindsItsWatchlistBesideIt() throws {
        let job = try JobFile.load(path: Self.root + "/Jobs/prewarm.toml", environment: [:])
        #expect(job.worklists == [Self.root + "/Jobs/watchlist.txt"])
        #expect((job.settings[.reserve] ?? 0) > 5)
    }

    @Test func docsDescribeEveryKey() throws {
        let docs = try String(contentsOfFile: Self.root + "/docs/JOBS.md", encoding: .utf8)
        for key in JobKey.allCases {
            #expect(docs.contains("| `\(key.rawValue)` |"), "docs/JOBS.md has a row for \(key.rawValue)")
        }
    }
}
