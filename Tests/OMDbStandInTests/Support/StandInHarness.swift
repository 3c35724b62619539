import Foundation
import OMDbStandIn

/// Shared fixtures for stand-in tests: a small generated corpus and a server on an ephemeral port.
enum StandInHarness {
    /// The first 60 films of seed 1.
    static let films = CorpusGenerator(seed: 1).films(count: 60)
    /// `films` as a corpus.
    static let corpus = FilmCorpus(films: films)

    /// The first generated film of `kind`.
    static func firstFilm(of kind: FilmKind) -> GeneratedFilm {
        films.first { $0.kind == kind }!
    }

    /// Runs `body` against a freshly started server and stops it afterwards.
    static func withServer<Result>(
        host: String = "127.0.0.1", keys: [String] = ["demo"], corpus: FilmCorpus = corpus,
        behaviour: StandInBehaviour = StandInBehaviour(),
        _ body: (OMDbStandInServer, Int) throws -> Result
    ) throws -> Result {
        let server = OMDbStandInServer(
            configuration: StandInConfiguration(host: host, apiKeys: keys, corpus: corpus, behaviour: behaviour))
        let port = try server.start()
        defer { server.stop() }
        return try body(server, port)
    }

    /// The bodies a fresh server over `corpus` answers to `targets` (queries after `apikey=demo&`), in order.
    static func answers(to targets: [String], corpus: FilmCorpus) throws -> [[UInt8]] {
        try withServer(corpus: corpus) { _, port in
            let connection = try RawHTTPConnection(port: port)
            return try targets.map { try connection.get("/?apikey=demo&\($0)").body }
        }
    }

    /// Films `0..<count` of `seed` written as a corpus directory and loaded back from it.
    static func loadedCorpus(count: Int, seed: UInt64) throws -> FilmCorpus {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try CorpusGenerator(seed: seed).write(count: count, to: directory)
        return try FilmCorpus(directory: directory)
    }

    /// The repository root, found from this file's location.
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// A fresh temporary directory.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("standin-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
