import ArgumentParser
import Foundation
import OMDbStandIn

extension OMDbStandInCommand {
    /// `omdb-standin serve`: answer OMDb requests on 127.0.0.1 (or `--host`) until SIGTERM or SIGINT.
    struct Serve: ParsableCommand {
        /// Help text, including the endpoints and fault names.
        static let configuration = CommandConfiguration(
            abstract: "Serve the corpus on 127.0.0.1 (the default subcommand).",
            discussion: """
                Prints exactly one line to stdout once listening:
                  omdb-standin listening on HOST:PORT
                (HOST is 127.0.0.1 unless --host names another address.)
                API keys come from OMDB_STANDIN_KEYS (comma-separated; default 'demo'),
                TMDb tokens from TMDB_STANDIN_TOKENS (default 'tmdb-demo-token').

                OMDb endpoint (every request counts against its key, limit answers
                and faults included):
                  GET /?apikey=KEY&i=ttNNNNNNN     the film's stored JSON
                  GET /?apikey=KEY&t=TITLE[&y=Y]   exact, case-insensitive title
                      (&plot=full: the same body with a longer Plot)
                  GET /?apikey=KEY&s=WORDS[&type=T&y=Y&page=N]
                      titles holding WORDS, 10 a page in ID order
                  GET /?apikey=KEY&i=ttSERIES&Season=N (or t=TITLE&Season=N)
                      the season's episodes; with &Episode=M that episode's JSON
                With --posters, Poster URLs point at GET /posters/NAME: a generated
                JPEG with ETag and Last-Modified; a conditional request that matches
                gets 304.
                Errors, as {"Response":"False","Error":"..."}:
                  401 No API key provided. | Invalid API key! | Request limit reached!
                  200 Incorrect IMDb ID. (unknown ID) | Movie not found! (title,
                      search, page past the last) | Too many results. (a search
                      of 1-2 letters matching more than a page) | Series or
                      season not found! | Series or episode not found! | The
                      offset specified in a OFFSET clause may not be negative.
                      (page not 1...100)

                TMDb API v3 on the same port (token as 'Authorization: Bearer T'
                or api_key=T; 401 without one; 429 + Retry-After over the limit):
                  GET /3/find/ttNNN?external_source=imdb_id
                  GET /3/movie/ID, /3/tv/ID [?append_to_response=external_ids,
                      images,credits,release_dates|content_ratings]
                  GET /3/tv/ID/season/N[/episode/M]
                  GET /3/movie/changes, /3/tv/changes [?start_date=&end_date=&page=]
                  GET /3/configuration, /3/search/multi?query=Q[&page=N]
                  GET /t/p/SIZE/FILE.jpg   images (no token)

                Control endpoints (never counted):
                  GET  /__standin/stats    counters as JSON (keys by index/fingerprint)
                  POST /__standin/reset    zero counters and daily usage (new day)
                  GET  /__standin/faults   current limits, faults, latency
                  POST /__standin/faults?fault-rate=F&faults=LIST&seed=S
                       &latency-ms=N&limit-after=N|none&daily-limit=N|none
                       &posters=on|off&poster-version=N&poster-fault-rate=F
                       &poster-faults=LIST&tmdb-rate-limit=N|none
                       &tmdb-retry-after=S&tmdb-changes-page-size=N
                  POST /__standin/tmdb/storm?requests=N&retry_after=S
                       the next N TMDb API requests get 429
                  POST /__standin/tmdb/changes?ids=movie:ID,tv:ID[&date=D]
                       (or count=N&seed=S) mark titles changed on D
                  POST /__standin/tmdb/changes/clear   empty the feed

                Faults for --faults (comma-separated, or 'all'): 500, 503, 429,
                429-retry-after, 503-retry-after, reset, truncate, malformed,
                error-getting-data.
                Named only (not in 'all'): html-403, html-404, 302 (answers
                that are not OMDb's), empty-film ({"Response":"True"}),
                wrong-id (another film's body), nul (a NUL in the Title).
                """
        )

        /// The IPv4 address to listen on.
        @Option(
            help:
                "IPv4 address to listen on (another host's or network namespace's way in; the stand-in has no authentication)."
        )
        var host = "127.0.0.1"

        /// Port on `host`.
        @Option(help: "Port on --host; 0 picks a free one.")
        var port: Int = 8765

        /// Corpus directory; nil serves a generated corpus.
        @Option(help: "Directory of <imdbID>.json files to serve (default: a generated corpus).")
        var corpus: String?

        /// Films to generate without `--corpus`.
        @Option(help: "Films to generate when --corpus is absent.")
        var generate: Int = 300

        /// Seed of the generated corpus.
        @Option(help: "Seed of the generated corpus when --corpus is absent.")
        var corpusSeed: UInt64 = 1

        /// Per-key daily request limit.
        @Option(help: "Requests per key per quota day; request N+1 gets 'Request limit reached!' (default: unlimited).")
        var dailyLimit: Int?

        /// Total requests after which every key is limited.
        @Option(help: "After N requests in total, every key gets 'Request limit reached!'.")
        var limitAfter: Int?

        /// Fraction of requests faulted.
        @Option(help: "Fraction (0-1) of requests answered with a fault from --faults.")
        var faultRate: Double = 0

        /// Comma-separated fault names.
        @Option(help: "Comma-separated faults to draw from, or 'all'.")
        var faults: String = ""

        /// Fault sequence seed.
        @Option(help: "Seed of the fault sequence.")
        var seed: UInt64 = 1

        /// Delay before every OMDb answer.
        @Option(help: "Milliseconds added before every OMDb answer.")
        var latencyMs: Int = 0

        /// Whether bodies' `Poster` URLs point here and the images are served.
        @Flag(help: "Point film bodies' Poster URLs at this server and serve the images under /posters/.")
        var posters = false

        /// The fraction of posters faulted.
        @Option(help: "Fraction (0-1) of posters answered with a fault from --poster-faults (the same ones each time).")
        var posterFaultRate: Double = 0

        /// Comma-separated poster fault names.
        @Option(help: "Comma-separated poster faults: 404, 503, html, mislabelled, huge, or 'all'.")
        var posterFaults: String = ""

        /// TMDb API requests allowed per second.
        @Option(help: "TMDb API requests per second (sliding window); more get 429 (default: unlimited).")
        var tmdbRateLimit: Int?

        /// `Retry-After` of the rate limit's 429s.
        @Option(help: "Retry-After seconds of a TMDb 429 for passing --tmdb-rate-limit.")
        var tmdbRetryAfter: Int = 1

        /// IDs per page of the changes feeds.
        @Option(help: "IDs per page of /3/movie/changes and /3/tv/changes.")
        var tmdbChangesPageSize: Int = 100

        /// Checks ranges and fault names before anything starts.
        func validate() throws {
            guard (tmdbRateLimit ?? 1) >= 1 else { throw ValidationError("--tmdb-rate-limit must be at least 1") }
            guard tmdbRetryAfter >= 1 else { throw ValidationError("--tmdb-retry-after must be at least 1") }
            guard tmdbChangesPageSize >= 1 else {
                throw ValidationError("--tmdb-changes-page-size must be at least 1")
            }
            guard (0...1).contains(posterFaultRate) else {
                throw ValidationError("--poster-fault-rate must be within 0...1")
            }
            do {
                _ = try PosterFault.parseList(posterFaults)
            } catch {
                throw ValidationError(error.description)
            }
            guard (0...65_535).contains(port) else { throw ValidationError("--port must be within 0...65535") }
            guard OMDbStandInServer.isIPv4Address(host) else {
                throw ValidationError("--host must be an IPv4 address such as 127.0.0.1, not '\(host)'")
            }
            guard (0...1).contains(faultRate) else { throw ValidationError("--fault-rate must be within 0...1") }
            guard (0...600_000).contains(latencyMs) else {
                throw ValidationError("--latency-ms must be within 0...600000")
            }
            guard (dailyLimit ?? 0) >= 0, (limitAfter ?? 0) >= 0 else {
                throw ValidationError("--daily-limit and --limit-after must not be negative")
            }
            guard (1...CorpusGenerator.maximumCount).contains(generate) else {
                throw ValidationError("--generate must be within 1...\(CorpusGenerator.maximumCount)")
            }
            do {
                _ = try FaultKind.parseList(faults)
            } catch {
                throw ValidationError(error.description)
            }
        }

        /// Starts the server, prints the listening line, and serves until SIGTERM or SIGINT.
        func run() throws {
            let films: FilmCorpus
            if let corpus {
                do {
                    films = try FilmCorpus(directory: URL(fileURLWithPath: corpus))
                } catch {
                    throw failure("\(error)", exitCode: 66)
                }
            } else {
                films = FilmCorpus(generatedCount: generate, seed: corpusSeed)
            }
            let keys = StandInConfiguration.apiKeys(
                fromEnvironmentValue: ProcessInfo.processInfo.environment["OMDB_STANDIN_KEYS"])
            let behaviour = StandInBehaviour(
                dailyLimit: dailyLimit, limitAfter: limitAfter, faultRate: faultRate,
                faults: (try? FaultKind.parseList(faults)) ?? [], seed: seed, latencyMilliseconds: latencyMs,
                servePosters: posters, posterFaultRate: posterFaultRate,
                posterFaults: (try? PosterFault.parseList(posterFaults)) ?? [], tmdbRateLimit: tmdbRateLimit,
                tmdbRetryAfterSeconds: tmdbRetryAfter, tmdbChangesPageSize: tmdbChangesPageSize)
            let tokens = StandInConfiguration.tmdbTokens(
                fromEnvironmentValue: ProcessInfo.processInfo.environment["TMDB_STANDIN_TOKENS"])
            let server = OMDbStandInServer(
                configuration: StandInConfiguration(
                    host: host, port: port, apiKeys: keys, corpus: films, behaviour: behaviour, tmdbTokens: tokens))
            let boundPort: Int
            do {
                boundPort = try server.start()
            } catch {
                throw failure("cannot start: \(error)", exitCode: 69)
            }
            let signalSources = [SIGTERM, SIGINT].map { number in
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler { server.stop() }
                source.resume()
                return source
            }
            // Written straight to the file descriptor, so scripts see it at once whatever stdout is.
            FileHandle.standardOutput.write(Data("omdb-standin listening on \(host):\(boundPort)\n".utf8))
            standardError(
                "omdb-standin: \(films.count) films, \(keys.count) key(s), \(tokens.count) TMDb token(s), daily limit \(dailyLimit.map(String.init) ?? "none")"
            )
            server.waitUntilStopped()
            signalSources.forEach { $0.cancel() }
            let stats = server.stats()
            standardError("omdb-standin: stopped after \(stats.totalRequests) requests")
        }
    }
}

/// Prints `message` to stderr and returns the exit code to throw (sysexits-style).
func failure(_ message: String, exitCode: Int32) -> ExitCode {
    standardError("omdb-standin: \(message)")
    return ExitCode(exitCode)
}

/// Writes one line to stderr (stdout carries only the listening line).
func standardError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
