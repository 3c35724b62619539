import Foundation
import Testing

@testable import FilmCacheKit

@Suite struct JobFileTests {
    let directory = TemporaryDirectory()

    /// A job with every key, each on its own line.
    static let everyKey = """
        # every key
        worklists = ["lists/watchlist.txt", "/etc/filmcache/more.txt"]
        db = "films.sqlite"
        db_password_file = "secrets/pg.password"
        claim_lease = "2m"
        api_key_file = "${KEYS:-/etc/filmcache}/omdb.key"
        base_url = "http://127.0.0.1:8089/"
        rate = 2.5
        burst = 3
        max_in_flight = 4
        daily_limit = 100000
        reserve = 10
        quota_timezone = "America/Los_Angeles"
        ttl_days = 20
        recent_ttl_days = 3
        recent_window_days = 100
        old_ttl_days = 120
        old_after_years = 15
        not_found_ttl_days = 60
        title_not_found_ttl_days = 45
        max_runtime = "45m"
        worklist_format = "csv"
        metrics_file = "/var/lib/node_exporter/textfile_collector/filmcache.prom"
        log_format = "json"
        timeout = 20
        connect_timeout = "5s"
        max_attempts = 6
        retry_base = 0.5
        retry_cap = "1m"
        breaker_pause_after = 4
        breaker_stop_after = 12
        breaker_cool_down = "10s"
        poster_store = "posters"
        poster_rate = 40
        poster_max_in_flight = 12
        poster_max_bytes = 2000000
        poster_revalidate_days = 14
        poster_gone_retry_days = 90
        answer_ttl_hours = 72
        negative_ttl_hours = 2.5
        request_timeout = "4s"
        request_head_timeout = 0.5
        io_threads = 3
        progress_interval = "1m"
        poster_allow_hosts = ["Images.LAN.", "[::1]"]
        sources = ["TMDb", "omdb", "tmdb"]
        tmdb_token_file = "secrets/tmdb.token"
        tmdb_base_url = "http://127.0.0.1:8089/3"
        tmdb_rate = 30
        tmdb_max_in_flight = 6
        tmdb_ttl_days = 10
        tmdb_find_ttl_days = 60
        """

    func parse(_ text: String, name: String = "job.toml", environment: [String: String] = [:]) throws(JobFileError)
        -> JobFile
    {
        try JobFile.parse(text, path: directory.file(name), environment: environment)
    }

    /// The issues of a job that must fail to parse.
    func issues(_ text: String, name: String = "job.toml", environment: [String: String] = [:]) -> [JobFileError
        .Issue]
    {
        do {
            _ = try parse(text, name: name, environment: environment)
            Issue.record("expected the job to be refused")
            return []
        } catch {
            return error.issues
        }
    }

    @Test func aPostgreSQLURLIsKeptAsWrittenNotMadeAPath() throws {
        let job = try parse("db = \"postgresql://filmcache@db.internal:5432/films?sslmode=require\"")
        #expect(job.databasePath == "postgresql://filmcache@db.internal:5432/films?sslmode=require")
        #expect(try parse("db = \"postgres://u@h/d\"").databasePath == "postgres://u@h/d")
    }

    @Test func readsEveryKey() throws {
        let job = try parse(Self.everyKey)
        let day = FreshnessPolicy.day
        #expect(job.worklists == [directory.path + "/lists/watchlist.txt", "/etc/filmcache/more.txt"])
        #expect(job.databasePath == directory.path + "/films.sqlite")
        #expect(job.apiKeyFile == "/etc/filmcache/omdb.key")
        #expect(job.databasePasswordFile == directory.path + "/secrets/pg.password")
        #expect(job.claimLease == .seconds(120))
        #expect(job.apiKeyVariable == nil)
        #expect(job.settings[.baseURL] == "http://127.0.0.1:8089/")
        #expect(job.settings[.posterStore] == directory.path + "/posters")
        var posterSettings = PosterSettings()
        posterSettings.apply(job.settings)
        #expect(posterSettings.rate == 40 && posterSettings.maxInFlight == 12 && posterSettings.maxBytes == 2_000_000)
        #expect(posterSettings.revalidateAfter == .seconds(14 * 86_400))
        #expect(posterSettings.goneRetryAfter == .seconds(90 * 86_400))
        #expect(posterSettings.allowedHosts == ["images.lan", "::1"])
        #expect(job.settings[.rate] == 2.5)
        #expect(job.settings[.burst] == 3)
        #expect(job.settings[.maxInFlight] == 4)
        #expect(job.settings[.dailyLimit] == 100_000)
        #expect(job.settings[.reserve] == 10)
        #expect(job.settings[.quotaTimezone] == QuotaZone(identifier: "America/Los_Angeles"))
        var settings = PlanSettings()
        settings.apply(job.settings)
        #expect(settings.freshness.ttl == 20 * day)
        #expect(settings.freshness.recentTTL == 3 * day)
        #expect(settings.freshness.recentWindow == 100 * day)
        #expect(settings.freshness.oldTTL == 120 * day)
        #expect(settings.freshness.oldAfter == 15 * 365.25 * day)
        #expect(settings.freshness.notFoundTTL == 60 * day)
        #expect(settings.freshness.titleNotFoundTTL == 45 * day)
        #expect(job.maxRuntime == .seconds(45 * 60))
        #expect(job.worklistFormat == "csv")
        #expect(job.metricsFile == "/var/lib/node_exporter/textfile_collector/filmcache.prom")
        #expect(job.logFormat == "json")
        #expect(job.settings[.timeout] == .seconds(20))
        #expect(job.settings[.connectTimeout] == .seconds(5))
        #expect(job.settings[.maxAttempts] == 6)
        #expect(job.settings[.retryBase] == .milliseconds(500))
        #expect(job.settings[.retryCap] == .seconds(60))
        #expect(job.settings[.breakerPauseAfter] == 4)
        #expect(job.settings[.breakerStopAfter] == 12)
        #expect(job.settings[.breakerCoolDown] == .seconds(10))
        var serveSettings = ServeSettings()
        serveSettings.apply(job.settings)
        #expect(serveSettings.answerTTL == 72 * 3_600 && serveSettings.negativeAnswerTTL == 2.5 * 3_600)
        #expect(serveSettings.requestDeadline == .seconds(4))
        #expect(job.settings[.requestHeadTimeout] == .milliseconds(500))
        #expect(job.settings[.ioThreads] == 3)
        #expect(job.progressInterval == .seconds(60))
        #expect(job.settings[.sources] == ["tmdb", "omdb"], "named once each, in the case TMDb's paths use")
        #expect(job.settings[.tmdbTokenFile] == directory.path + "/secrets/tmdb.token")
        var tmdb = TMDbWarmConfiguration(endpoint: try TMDbEndpoint(token: TMDbToken("t")!))
        tmdb.apply(job.settings)
        #expect(tmdb.rate == 30 && tmdb.maxInFlight == 6 && tmdb.ttl == 10 * day && tmdb.findTTL == 60 * day)
        #expect(job.settings[.tmdbBaseURL] == "http://127.0.0.1:8089/3")
        #expect(
            Set(job.lines.keys) == Set(JobKey.allCases).subtracting([.apiKeyEnv]), "every key but the exclusive one")
        #expect(job.lines[.worklists] == 2 && job.lines[.breakerCoolDown] == 32)
        #expect(job.location(of: .rate) == directory.file("job.toml") + ":8")
    }

    @Test func anEmptyJobGivesNothing() throws {
        let job = try parse("# nothing here\n")
        #expect(job == JobFile(path: directory.file("job.toml")))
    }

    @Test func appliesToTheWarmConfigurationAndTransport() throws {
        let job = try parse(Self.everyKey)
        var configuration = WarmConfiguration(databasePath: "x", worklists: [], apiKey: APIKey("k")!)
        var options = CurlMultiTransport.Options()
        configuration.apply(job.settings)
        options.apply(job.settings)
        #expect(configuration.baseURL == "http://127.0.0.1:8089/")
        #expect(configuration.rate == 2.5 && configuration.burst == 3 && configuration.maxInFlight == 4)
        #expect(configuration.backoff.base == .milliseconds(500) && configuration.backoff.cap == .seconds(60))
        #expect(configuration.backoff.maxAttempts == 6 && configuration.backoff.maxWait == .seconds(120))
        #expect(configuration.circuitBreaker.pauseAfter == 4 && configuration.circuitBreaker.stopAfter == 12)
        #expect(configuration.circuitBreaker.coolDown == .seconds(10))
        #expect(options.maxInFlight == 4 && options.totalTimeout == .seconds(20))
        #expect(options.connectTimeout == .seconds(5))

        var flags = SettingValues()
        flags[.rate] = 9
        configuration.apply(flags)
        #expect(configuration.rate == 9, "a later override wins")
        #expect(configuration.burst == 3, "and leaves the rest alone")
    }

    @Test func unknownKeysAreNamedWithTheirLine() {
        let found = issues("rate = 5\n\nratee = 4\nmaxInFlight = 3\nwibble = true\n")
        #expect(
            found == [
                .init(line: 3, message: "unknown key 'ratee'; did you mean 'rate'?"),
                .init(line: 4, message: "unknown key 'maxInFlight'; did you mean 'max_in_flight'?"),
                .init(line: 5, message: "unknown key 'wibble' (see docs/JOBS.md)"),
            ])
    }

    @Test func tablesAreUnknownKeysOnTheirHeaderLine() {
        let found = issues("rate = 5\n# fetch settings\n[fetch]\ntimeout = 3\n")
        #expect(found == [.init(line: 3, message: "unknown key 'fetch' (see docs/JOBS.md)")])
    }

    @Test(arguments: [
        ("rate = \"fast\"", "rate: expected a number, found a string"),
        ("burst = 2.5", "burst: expected an integer, found a floating-point number"),
        ("max_in_flight = true", "max_in_flight: expected an integer, found a boolean"),
        ("db = 3", "db: expected a string, found an integer"),
        ("worklists = [1, 2]", "worklists: expected an array of strings, found an integer in it"),
        ("worklists = {a = \"x\"}", "worklists: expected an array of strings, found a table"),
        ("timeout = \"soon\"", "timeout: expected seconds or a duration such as \"90s\", \"45m\", \"2h\""),
        ("timeout = [3]", "timeout: expected seconds or a duration string, found an array"),
        ("max_runtime = 2026-01-01", "max_runtime: expected seconds or a duration string, found a date"),
        ("reserve = \"5%\"", "reserve: expected a percentage, found a string"),
        ("api_key_env = 42", "api_key_env: expected the name of an environment variable, found an integer"),
    ])
    func wrongTypesAreNamedWithKeyLineAndExpectedType(line: String, message: String) {
        let found = issues("# header\n\n" + line + "\n")
        #expect(found == [.init(line: 3, message: message)])
    }

    @Test(arguments: [
        ("rate = -1", "rate: must be 0 or from 0.001 to 1000 requests a second"),
        ("rate = 1e-20", "rate: must be 0 or from 0.001 to 1000 requests a second"),
        ("burst = 0", "burst: must be from 1 to 1000"),
        ("max_in_flight = 0", "max_in_flight: must be from 1 to 256"),
        ("max_in_flight = 1152921504606846976", "max_in_flight: must be from 1 to 256"),
        ("reserve = 100", "reserve: must be from 0 to 99 (percent)"),
        ("ttl_days = -3", "ttl_days: must be from 0 to 36500 days"),
        ("timeout = 0", "timeout: must be from 0.001 to 86400 seconds"),
        ("max_runtime = 1e300", "max_runtime: must be from 1 to 31536000 seconds"),
        ("retry_cap = \"400d\"", "retry_cap: must be from 0 to 86400 seconds"),
        ("max_attempts = 0", "max_attempts: must be from 1 to 100"),
        ("worklists = []", "worklists: name at least one file"),
        ("worklist_format = \"xml\"", "worklist_format: must be one of auto, text, csv, json"),
        (
            "quota_timezone = \"Mars/Olympus\"",
            "quota_timezone: unknown time zone (use an identifier such as UTC or America/Los_Angeles)"
        ),
        ("db = \"\"", "db: the path is empty"),
    ])
    func valuesOutOfRangeAreRefused(line: String, message: String) {
        #expect(issues(line) == [.init(line: 1, message: message)])
    }

    @Test(arguments: ["api_key", "API_KEY", "apikey", "omdb_api_key"])
    func theKeyItselfIsRefusedWithoutEchoingIt(name: String) {
        let secret = "0badc0de"
        do {
            _ = try parse("db = \"x.sqlite\"\n\(name) = \"\(secret)\"\n")
            Issue.record("a key in the job file must be refused")
        } catch {
            #expect(error.issues.map(\.line) == [2])
            #expect(error.description.contains("\(name): the API key itself never goes in a job file"))
            #expect(error.description.contains("api_key_file") && error.description.contains("api_key_env"))
            #expect(!error.description.contains(secret))
        }
    }

    @Test(arguments: ["tmdb_token", "TMDB_API_TOKEN", "tmdb_api_key"])
    func theTMDbTokenItselfIsRefusedWithoutEchoingIt(name: String) {
        let found = issues("db = \"x.sqlite\"\n\(name) = \"eyJhbGciOiJIUzI1NiJ9.secret\"\n")
        #expect(found.map(\.line) == [2])
        #expect(found.first?.message.contains("TMDb's token itself never goes in a job file") == true)
        #expect(found.first?.message.contains("tmdb_token_file") == true)
        #expect(found.first?.message.contains("eyJ") == false)
    }

    @Test func anUnknownSourceIsRefusedNamingTheChoices() {
        let found = issues("sources = [\"omdb\", \"imdb\"]\n")
        #expect(found.count == 1 && found.first?.line == 1)
        #expect(found.first?.message.contains("\"imdb\" is not one of omdb, tmdb") == true, "\(found)")
        #expect(issues("sources = []\n").first?.message.contains("at least one of omdb, tmdb") == true)
    }

    @Test func anAPIKeyGivenAsTheVariableNameIsRefused() {
        let found = issues("api_key_env = \"a1b2c3d4\"\n")
        #expect(found.count == 1)
        #expect(found.first?.message.contains("looks like an API key itself") == true)
        #expect(found.first?.message.contains("a1b2c3d4") == false)
    }

    @Test func theKeyComesFromTheNamedVariableOrFile() throws {
        let job = try parse("api_key_env = \"FILMCACHE_KEY\"\n")
        #expect(job.apiKeyVariable == "FILMCACHE_KEY")
        #expect(try job.apiKey(environment: ["FILMCACHE_KEY": "k1", "OMDB_API_KEY": "k2"]) == APIKey("k1"))
        #expect(throws: ConfigurationError.missingKey(variable: "FILMCACHE_KEY")) {
            try job.apiKey(environment: ["OMDB_API_KEY": "k2"])
        }
        let keyFile = directory.write("omdb.key", "k3\n")
        #expect(try job.apiKey(environment: [:], file: keyFile) == APIKey("k3"), "a flag's file wins")

        let withFile = try parse("api_key_file = \"omdb.key\"\n")
        #expect(withFile.apiKeyFile == keyFile)
        #expect(try withFile.apiKey(environment: ["OMDB_API_KEY": "k2"]) == APIKey("k3"))
    }

    @Test func relativePathsAreResolvedAgainstTheJobFilesDirectory() throws {
        let job = try parse(
            "worklists = [\"a.txt\", \"../shared/b.txt\", \"/abs/c.txt\", \"./d/e.txt\"]\ndb = \"cache/f.sqlite\"\n",
            name: "jobs/nightly.toml")
        #expect(
            job.worklists == [
                directory.path + "/jobs/a.txt", directory.path + "/shared/b.txt", "/abs/c.txt",
                directory.path + "/jobs/d/e.txt",
            ])
        #expect(job.databasePath == directory.path + "/jobs/cache/f.sqlite")
    }

    @Test func aSingleWorklistStringIsAListOfOne() throws {
        #expect(try parse("worklists = \"/w.txt\"\n").worklists == ["/w.txt"])
    }

    @Test func environmentVariablesAreExpandedInStrings() throws {
        let env = ["CREDENTIALS_DIRECTORY": "/run/credentials/filmcache-warm.service", "LISTS": "/srv/lists"]
        let job = try parse(
            """
            api_key_file = "${CREDENTIALS_DIRECTORY:-/etc/filmcache}/omdb.key"
            worklists = ["${LISTS}/watchlist.txt"]
            metrics_file = "${METRICS_DIR:-/var/lib/node_exporter/textfile_collector}/filmcache.prom"
            base_url = "http://host/$notexpanded"
            """, environment: env)
        #expect(job.apiKeyFile == "/run/credentials/filmcache-warm.service/omdb.key")
        #expect(job.worklists == ["/srv/lists/watchlist.txt"])
        #expect(job.metricsFile == "/var/lib/node_exporter/textfile_collector/filmcache.prom")
        #expect(job.settings[.baseURL] == "http://host/$notexpanded")
        #expect(
            try parse("api_key_file = \"${CREDENTIALS_DIRECTORY:-/etc/filmcache}/omdb.key\"\n").apiKeyFile
                == "/etc/filmcache/omdb.key")
    }

    @Test func anUnsetVariableIsAnErrorOnItsLine() {
        #expect(
            issues("\ndb = \"${STATE}/films.sqlite\"\n")
                == [.init(line: 2, message: "db: ${STATE} is not set (write ${STATE:-fallback} to give a default)")])
        #expect(
            issues("db = \"${STATE/films.sqlite\"\n")
                == [.init(line: 1, message: "db: malformed ${…}: write ${NAME} or ${NAME:-fallback}")])
    }

    @Test func contradictoryKeysAreReportedOnTheLaterLine() {
        let found = issues(
            """
            api_key_file = "/k"
            retry_cap = 1
            api_key_env = "OMDB_KEY"
            retry_base = 2
            breaker_stop_after = 2
            breaker_pause_after = 5
            """)
        #expect(
            found == [
                .init(line: 3, message: "give api_key_file or api_key_env, not both"),
                .init(line: 4, message: "retry_base is more than retry_cap"),
                .init(line: 6, message: "breaker_pause_after is more than breaker_stop_after"),
            ])
    }

    @Test func everyProblemIsReportedInLineOrderWithThePath() {
        let path = directory.file("bad.toml")
        do {
            _ = try JobFile.parse("zzz = 1\nrate = \"x\"\naaa = 2\n", path: path)
            Issue.record("expected a refusal")
        } catch {
            #expect(error.issues.map(\.line) == [1, 2, 3])
            #expect(
                error.messages == [
                    "job file \(path):1: unknown key 'zzz' (see docs/JOBS.md)",
                    "job file \(path):2: rate: expected a number, found a string",
                    "job file \(path):3: unknown key 'aaa' (see docs/JOBS.md)",
                ])
        }
    }

    @Test func aTOMLSyntaxErrorNamesItsLine() {
        let found = issues("rate = 5\nburst = \n")
        #expect(found.count == 1)
        #expect(found.first?.line == 2)
        #expect(found.first?.message.hasPrefix("not valid TOML") == true)
    }

    @Test func theJSONFormReadsTheSameKeys() throws {
        let json = """
            {
              "worklists": ["lists/watchlist.txt"],
              "db": "films.sqlite",
              "rate": 2,
              "max_in_flight": 4,
              "reserve": 2.5,
              "max_runtime": 5400,
              "retry_cap": "2m",
              "quota_timezone": "Europe/Berlin"
            }
            """
        let job = try parse(json, name: "job.json")
        #expect(job.worklists == [directory.path + "/lists/watchlist.txt"])
        #expect(job.databasePath == directory.path + "/films.sqlite")
        #expect(job.settings[.rate] == 2 && job.settings[.maxInFlight] == 4 && job.settings[.reserve] == 2.5)
        #expect(job.maxRuntime == .seconds(5400) && job.settings[.retryCap] == .seconds(120))
        #expect(job.settings[.quotaTimezone] == QuotaZone(identifier: "Europe/Berlin"))
        #expect(job.lines[.worklists] == 2 && job.lines[.quotaTimezone] == 9)
    }

    @Test func theJSONFormReportsKeysTypesAndSyntaxWithLines() {
        let json = "{\n  \"rate\": \"fast\",\n  \"api_key\": \"0badc0de\",\n  \"burst\": true,\n  \"ratee\": 1\n}\n"
        let found = issues(json, name: "job.json")
        #expect(found.map(\.line) == [2, 3, 4, 5])
        #expect(found[0].message == "rate: expected a number, found a string")
        #expect(found[1].message.hasPrefix("api_key: the API key itself never goes in a job file"))
        #expect(found[2].message == "burst: expected an integer, found a boolean")
        #expect(found[3].message == "unknown key 'ratee'; did you mean 'rate'?")

        let broken = issues("{\n  \"rate\": 5,\n  \"burst\": ,\n}\n", name: "job.json")
        #expect(broken.count == 1 && broken.first?.message.hasPrefix("not valid JSON") == true)
        #expect(broken.first?.line == 3)
        #expect(
            issues("{\"db\": null}", name: "job.json") == [.init(line: 1, message: "db: expected a string, found null")]
        )
        #expect(
            issues("{\"rate\": 1e400}", name: "job.json")
                == [.init(line: 1, message: "rate: expected a number, found a number too large")])
    }

    @Test func aMissingFileIsAnErrorWithoutALine() {
        let path = directory.file("absent.toml")
        #expect {
            try JobFile.load(path: path, environment: [:])
        } throws: { error in
            let messages = (error as? JobFileError)?.messages ?? []
            return messages.count == 1 && messages[0].hasPrefix("job file \(path): cannot read it")
        }
    }

    @Test func aByteOrderMarkIsSkipped() throws {
        #expect(try parse("\u{FEFF}rate = 3\n").settings[.rate] == 3)
        #expect(try parse("\u{FEFF}{\"rate\": 3}", name: "j.json").settings[.rate] == 3)
    }
}
