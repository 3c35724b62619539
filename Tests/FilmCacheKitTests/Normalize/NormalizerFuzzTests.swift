import FilmCacheKit
import Foundation
import OMDbStandIn
import SplitMix
import Testing

/// Tens of thousands of mutated OMDb bodies, from a fixed seed, through `FilmNormalizer.normalize(body:…)`.
///
/// The bodies start real: the sample corpus in `Data/corpus`, a generated corpus of every kind of
/// title, and hand-written samples; then bytes, tokens and whole values are changed, cut, repeated
/// and spliced across bodies. Whatever comes in, the normalizer returns a film, OMDb's error text or
/// a `NormalizeError`, never crashes; a film always carries the requested ID, and its canonical JSON
/// parses back with Foundation's reader and names that ID.
@Suite("Normalizer on mutated OMDb bodies")
struct NormalizerFuzzTests {
    /// Rounds of the main loop: under ten seconds in a debug build on the 2-core build machine.
    /// `FILMCACHE_FUZZ_ROUNDS` and `FILMCACHE_FUZZ_SEED` run a longer or different campaign by hand.
    static let rounds = ProcessInfo.processInfo.environment["FILMCACHE_FUZZ_ROUNDS"].flatMap { Int($0) } ?? 10_000
    /// The seed of the mutations.
    static let seed = ProcessInfo.processInfo.environment["FILMCACHE_FUZZ_SEED"].flatMap { UInt64($0) } ?? 0xF11_3CA5E

    /// Unmutated bodies: the sample corpus, generated films of every kind, and the shared samples.
    static let seeds: [[UInt8]] = {
        let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Data/corpus")
        let files = (try? FileManager.default.contentsOfDirectory(atPath: corpus.path))?.sorted() ?? []
        let sample = files.filter { $0.hasSuffix(".json") }.prefix(60).compactMap {
            try? [UInt8](Data(contentsOf: corpus.appendingPathComponent($0)))
        }
        let generated = CorpusGenerator(seed: 77).films(count: 60).map(\.body)
        let written = [
            OMDbSamples.gladiator, OMDbSamples.openSeries, OMDbSamples.finishedSeries, OMDbSamples.episode,
            OMDbSamples.almostEmpty,
        ].map { Array($0.utf8) }
        return sample + generated + written
    }()

    /// Bytes and tokens that mean something to a JSON reader or to OMDb's field formats.
    static let tokens: [[UInt8]] =
        [
            "\"", "\\", "\\u", "\\u00", "\\ud83c", "\\udc00", "\\ud83c\\udfac", "\\u0000", "\\\"", "{", "}", "[", "]",
            ",", ":", "null", "true", "false", "-0", "1e999", "-1e-999", "123456789012345678901234567890", "0.",
            "\"N/A\"", "N/A", "–", "—", "\u{FEFF}", "\n", "\t", " ", "\"Response\":\"True\"", "\"Response\":\"False\"",
            "\"Error\":\"Movie not found!\"", "\"imdbID\":\"tt0000001\"", "\"Ratings\":[", "{\"Source\":", "/10",
            "%", "/100", "$", ",000", " min", " h ", "Jan", "31 Feb 2001", "1999–", "2011–2019", "é", "東京", "🎬",
        ].map { Array($0.utf8) } + [[0x00], [0xFF], [0xC3], [0xE2, 0x80], [0xF0, 0x9F], [0xED, 0xA0, 0x80], [0x7F]]

    /// Whole JSON values a string value can be swapped for.
    static let values: [String] = [
        "null", "true", "0", "-1.5e3", "\"\"", "\"N/A\"", "[]", "{}", "[\"a\",1,null]", "{\"a\":{\"b\":[1,2]}}",
        "\"" + String(repeating: "9", count: 400) + "\"", "\"\\u0000\\t\\n\"", "\"\\ud800\"", "\"–\"",
        String(repeating: "[", count: 70) + String(repeating: "]", count: 70),
        "[{\"Source\":\"Internet Movie Database\",\"Value\":\"11/10\"},{\"Source\":1,\"Value\":[]}]",
    ]

    /// Swaps one to four values of `body` for others: still JSON, mostly, with fields of every wrong shape.
    static func mutateValues(_ body: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
        var bytes = body
        for _ in 0..<rng.int(in: 1...4) { bytes = replaceValue(in: bytes, &rng) }
        return bytes
    }

    /// Applies one to six random mutations to `body`; `other` is a second body to splice from.
    static func mutate(_ body: [UInt8], other: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
        var bytes = body
        for _ in 0..<rng.int(in: 1...6) {
            let at = bytes.isEmpty ? 0 : rng.int(in: 0...(bytes.count - 1))
            switch rng.int(in: 0...9) {
            case 0 where !bytes.isEmpty: bytes[at] = UInt8(truncatingIfNeeded: rng.next())
            case 1, 2: bytes.insert(contentsOf: rng.pick(tokens), at: at)
            case 3 where !bytes.isEmpty: bytes.removeSubrange(at..<min(bytes.count, at + rng.int(in: 1...24)))
            case 4 where !bytes.isEmpty:
                let piece = bytes[at..<min(bytes.count, at + rng.int(in: 1...80))]
                bytes.insert(contentsOf: piece, at: rng.int(in: 0...bytes.count))
            case 5 where !other.isEmpty:
                let from = rng.int(in: 0...(other.count - 1))
                bytes.insert(contentsOf: other[from..<min(other.count, from + rng.int(in: 1...200))], at: at)
            case 6, 7: bytes = replaceValue(in: bytes, &rng)
            case 8: bytes = Array(bytes.prefix(at))
            default:
                if let quote = bytes[at...].firstIndex(of: UInt8(ascii: "\"")) {
                    bytes[quote] = rng.pick([0x27, 0x5C, 0x20])
                }
            }
        }
        return bytes
    }

    /// Swaps the string value after a random `":"` for another JSON value.
    static func replaceValue(in bytes: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
        let starts = bytes.indices.dropLast(2).filter {
            bytes[$0] == 0x22 && bytes[$0 + 1] == 0x3A && bytes[$0 + 2] == 0x22
        }
        guard !starts.isEmpty else { return bytes }
        let open = rng.pick(Array(starts)) + 2
        var close = open + 1
        while close < bytes.count, bytes[close] != 0x22 || bytes[close - 1] == 0x5C { close += 1 }
        guard close < bytes.count else { return bytes }
        return Array(bytes[..<open]) + Array(rng.pick(values).utf8) + Array(bytes[(close + 1)...])
    }

    /// What went wrong with one input (empty when the normalizer behaved), and whether it was a film.
    static func check(_ body: [UInt8], requestedID: String) -> (faults: [String], film: Bool) {
        let fetchedAt = Date(timeIntervalSince1970: 1_900_000_000)
        let result: NormalizedBody
        do {
            result = try FilmNormalizer().normalize(body: body, requestedID: requestedID, fetchedAt: fetchedAt)
        } catch {
            return ([], false)  // a NormalizeError: the fetch stage records the body as malformed
        }
        guard case .film(let normalized) = result else { return ([], false) }
        var faults: [String] = []
        let film = normalized.film
        // A film is stored under the ID its body names when that is a well-formed IMDb ID, else the asked one.
        let expectedID = film.imdbID
        let namedInBody = body.indices.contains { body[$0...].starts(with: Array("\"\(expectedID)\"".utf8)) }
        if expectedID != requestedID && !(PlainTextWorklist.isIMDbID(expectedID) && namedInBody) {
            faults.append("imdbID \(film.imdbID), neither requested (\(requestedID)) nor named by the body")
        }
        if let other = normalized.warnings.first(where: { $0.imdbID != expectedID }) {
            faults.append("a warning names \(other.imdbID)")
        }
        let canonical = film.canonicalJSON()
        let parsed = try? JSONSerialization.jsonObject(with: canonical) as? [String: Any]
        if let parsed {
            if parsed["imdbID"] as? String != expectedID {
                faults.append("canonical JSON names \(parsed["imdbID"] ?? "nil")")
            }
        } else {
            faults.append("canonical JSON does not parse: \(String(decoding: canonical.prefix(300), as: UTF8.self))")
        }
        return (faults, true)
    }

    /// The main loop: every mutated body checked, every fault collected with its input.
    @Test func mutatedBodiesNeverCrashAndFilmsKeepTheIDTheyName() async {
        var rng = SplitMix64(seed: Self.seed)
        let seeds = Self.seeds
        #expect(seeds.count > 100, "the corpus was found")
        var films = 0
        var found: [(input: [UInt8], fault: String)] = []
        for round in 0..<Self.rounds {
            // Seconds of work on one of the cooperative pool's few threads: let other tests' tasks run.
            if round % 50 == 0 { await Task.yield() }
            let seed = seeds[round % seeds.count]
            let body =
                rng.chance(0.4) ? Self.mutateValues(seed, &rng) : Self.mutate(seed, other: rng.pick(seeds), &rng)
            let requested = rng.chance(0.5) ? "tt0172495" : "tt" + String(rng.int(in: 1_000_000...99_999_999))
            let checked = Self.check(body, requestedID: requested)
            found += checked.faults.map { (body, $0) }
            if checked.film { films += 1 }
        }
        #expect(
            found.isEmpty, "\(found.count) faults, first: \(found.prefix(3).map { "\($0.fault) from \($0.input)" })")
        #expect(films > Self.rounds / 4, "enough mutated bodies were still films to test the fields: \(films)")
    }

    /// The seeds themselves are films, so the loop starts from what OMDb really sends.
    @Test func everyUnmutatedSeedIsAFilmThatPassesTheChecks() {
        for seed in Self.seeds {
            let result = try? FilmNormalizer().normalize(body: seed, requestedID: "tt0000042", fetchedAt: Date())
            guard case .film? = result else {
                Issue.record("not a film: \(String(decoding: seed.prefix(120), as: UTF8.self))")
                continue
            }
            #expect(Self.check(seed, requestedID: "tt0000042").faults.isEmpty)
        }
    }
}
