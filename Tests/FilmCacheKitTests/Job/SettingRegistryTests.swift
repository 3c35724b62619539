import Foundation
import Testing

@testable import FilmCacheKit

/// The settings registry: every key declared once, docs/JOBS.md's table made from it, the
/// configuration types' defaults taken from it, and one precedence for every setting.
@Suite struct SettingRegistryTests {
    static let jobsPath =
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path + "/docs/JOBS.md"

    /// Set `FILMCACHE_RECORD_JOBS=1` to rewrite docs/JOBS.md's table from the registry.
    static var recording: Bool { ProcessInfo.processInfo.environment["FILMCACHE_RECORD_JOBS"] == "1" }

    @Test func everyKeyIsDeclaredOnceInKeyOrder() {
        #expect(SettingSpec.all.map(\.key) == JobKey.allCases)
        for key in JobKey.allCases { #expect(key.setting.key == key) }
    }

    /// The lines of docs/JOBS.md's key table, and where they start and end.
    static func table(in text: String) -> (lines: [Substring], range: Range<Int>)? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0.hasPrefix("| key | type |") }) else { return nil }
        let end = lines[start...].firstIndex { !$0.hasPrefix("|") } ?? lines.endIndex
        return (Array(lines[start..<end]), start..<end)
    }

    @Test func docsTableIsTheRegistrys() throws {
        let text = try String(contentsOfFile: Self.jobsPath, encoding: .utf8)
        let (lines, range) = try #require(Self.table(in: text), "docs/JOBS.md has a key table")
        let generated = SettingSpec.markdownTable.split(separator: "\n")
        if Self.recording && lines != generated {
            var all = text.split(separator: "\n", omittingEmptySubsequences: false)
            all.replaceSubrange(range, with: generated)
            try all.joined(separator: "\n").write(toFile: Self.jobsPath, atomically: true, encoding: .utf8)
            return
        }
        #expect(lines.count == generated.count, "docs/JOBS.md's key table has another number of rows")
        for (written, made) in zip(lines, generated) where written != made {
            Issue.record(
                "docs/JOBS.md's row differs from the registry's (FILMCACHE_RECORD_JOBS=1 rewrites it):\n\(written)\n\(made)"
            )
        }
    }

    @Test func theConfigurationTypesStartAtTheRegistrysDefaults() {
        let configuration = WarmConfiguration(databasePath: "x", worklists: [], apiKey: APIKey("k")!)
        #expect(configuration.baseURL == Setting.baseURL.default && configuration.rate == Setting.rate.default)
        #expect(configuration.burst == 5 && configuration.maxInFlight == 8 && configuration.claimLease == .seconds(600))
        #expect(configuration.backoff.base == .seconds(1) && configuration.backoff.cap == .seconds(30))
        #expect(configuration.circuitBreaker.pauseAfter == 8 && configuration.circuitBreaker.stopAfter == 30)
        let plan = PlanSettings()
        #expect(plan.dailyLimit == 1_000 && plan.reservePercent == 5 && plan.freshness.ttl == 30 * 86_400)
        let options = CurlMultiTransport.Options()
        #expect(options.totalTimeout == .seconds(30) && options.connectTimeout == .seconds(10))
        let posters = PosterSettings()
        #expect(posters.rate == 10 && posters.maxBytes == 5_242_880 && posters.revalidateAfter == .seconds(30 * 86_400))
        let serve = ServeSettings()
        #expect(serve.answerTTL == 168 * 3_600 && serve.negativeAnswerTTL == 24 * 3_600)
        #expect(serve.requestDeadline == .seconds(10))
    }

    @Test func aFlagBeatsTheJobWhichBeatsTheDefault() {
        var job = SettingValues()
        job[.rate] = 2
        job[.burst] = 3
        var flags = SettingValues()
        flags[.rate] = 9
        let merged = job.overlaid(by: flags)
        #expect(merged.value(.rate) == 9)
        #expect(merged.value(.burst) == 3)
        #expect(merged.value(.maxInFlight) == 8)
        #expect(merged[.maxInFlight] == nil)
        #expect(merged.keys == [.rate, .burst])
    }

    @Test func helpIsMadeFromTheDeclaration() {
        #expect(Setting.maxInFlight.help == "Concurrent OMDb requests (also the connection cache size). Default 8.")
        #expect(Setting.posterMaxBytes.help == "The largest poster accepted, in bytes. Default 5242880.")
        #expect(Setting.quotaTimezone.help.hasSuffix("Default UTC."))
        #expect(Setting.claimLease.help.hasSuffix("without a renewal. Default 10m."))
        #expect(
            Setting.requestTimeout.help
                == "Seconds a request waits for OMDb before it gets a stale answer or an error (0.1 to 3600)."
                + " Default 10.")
        #expect(
            Setting.progressInterval.help
                == "Time between progress log lines when standard error is not a terminal (0.1 s to 1 day)."
                + " Default 30s.")
        #expect(
            Setting.maxRuntime.help == "Stop cleanly after this long (seconds, or 90s, 45m, 2h, 1h30m) and exit 75.")
    }

    @Test func aMarkerIsReplacedWhereverItStandsAndNothingElseIs() {
        #expect(SettingText.replacing("{range}", with: "1 to 9", in: "Calls ({range}).") == "Calls (1 to 9).")
        #expect(SettingText.replacing("{range}", with: "x", in: "{range}{range} and {range}") == "xx and x")
        #expect(SettingText.replacing("{range}", with: "x", in: "{rang} {range") == "{rang} {range")
        #expect(SettingText.replacing("{range}", with: "{range}", in: "a {range} b") == "a {range} b")
        #expect(SettingText.replacing("{range}", with: "0,1–2 s", in: "Pause ({range}) é") == "Pause (0,1–2 s) é")
        #expect(SettingText.replacing("{range}", with: "x", in: "") == "")
        #expect(SettingText.replacing("", with: "x", in: "abc") == "abc")
    }

    @Test func rangesAndOrderAreOneCheck() {
        let problems = SettingValues.problems([.maxInFlight: 0, .retryBase: 9, .retryCap: 2], name: \.flag)
        #expect(
            problems.map(\.1) == ["--max-in-flight must be from 1 to 256", "--retry-base is more than --retry-cap"])
        var given = SettingValues()
        given[.breakerStopAfter] = 5
        #expect(given.orderProblems().map(\.larger) == [.breakerStopAfter], "below the pause-after default")
        given = SettingValues()
        given[.breakerPauseAfter] = 1_000
        #expect(given.orderProblems().isEmpty, "a pause-after raised alone is taken")
    }

    @Test(arguments: [
        (0.001, "1 ms"), (0.1, "0.1 s"), (1, "1 s"), (600, "10 min"), (3_600, "1 hour"), (86_400, "1 day"),
        (31_536_000, "365 days"),
    ])
    func secondsInWords(seconds: Double, words: String) {
        #expect(SettingText.words(seconds: seconds) == words)
    }
}
