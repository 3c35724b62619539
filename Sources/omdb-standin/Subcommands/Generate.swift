import ArgumentParser
import Foundation
import OMDbStandIn

extension OMDbStandInCommand {
    /// `omdb-standin generate`: write a deterministic corpus as `<imdbID>.json` files.
    struct Generate: ParsableCommand {
        /// Help text.
        static let configuration = CommandConfiguration(
            abstract: "Write a deterministic corpus of OMDb-shaped films as <imdbID>.json files.",
            discussion: """
                The same --seed and --count give byte-identical files on every machine. Existing tt*.json \
                files in --out are replaced. Data/corpus holds '--count 300 --seed 1'.
                """
        )

        /// Number of films to write.
        @Option(help: "Number of films.")
        var count: Int

        /// Corpus seed.
        @Option(help: "Corpus seed.")
        var seed: UInt64 = 1

        /// Output directory.
        @Option(help: "Output directory (created when missing).")
        var out: String

        /// Rejects counts outside the supported range.
        func validate() throws {
            guard (1...CorpusGenerator.maximumCount).contains(count) else {
                throw ValidationError("--count must be within 1...\(CorpusGenerator.maximumCount)")
            }
        }

        /// Writes the corpus.
        func run() throws {
            let films: [GeneratedFilm]
            do {
                films = try CorpusGenerator(seed: seed).write(count: count, to: URL(fileURLWithPath: out))
            } catch {
                throw failure("cannot write corpus to \(out): \(error.localizedDescription)", exitCode: 73)
            }
            standardError("omdb-standin: wrote \(films.count) films to \(out)")
        }
    }
}
