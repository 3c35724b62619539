import Foundation
import SplitMix
import Testing

@testable import FilmCacheKit

/// Thousands of random and mutated worklists, from a fixed seed, through every parser.
///
/// Whatever the bytes, a parser returns or throws a `WorklistError`; it never crashes or hangs,
/// every ID it returns is an IMDb title ID, and every entry and warning points at a real line.
@Suite("Worklist parsers on mutated input")
struct WorklistFuzzTests {
    static let seeds: [String] = [
        CSVWorklistTests.export,
        "\u{FEFF}# list\r\ntt0172495\r\nhttps://www.imdb.com/title/tt0133093/ # matrix\r\nnot an id\r\n",
        #"[{"type": "movie", "movie": {"ids": {"imdb": "tt0172495"}}}, {"imdbID": "nm0000128"}, "tt0133093"]"#,
        "ȺȺȺimdb.com/title/tt0172495\nİMDB.com/title/tt0133093\n",
        "[\n  {\"imdb_id\": \"tt0944947\",\n   \"title\": \"a \\\"quoted\\\" title, with a comma\"},\n  \"tt0110912\"\n]\n",
        CSVWorklistTests.letterboxdDiary,
        "Heat (1995)\nAmélie\n\"Burbs\", The (1989)\nLa Haine # cult\nSe7en (1995)\n",
        #"[{"title": "Heat", "year": 1995}, {"type": "show", "show": {"title": "The Wire", "year": "2002"}}]"#,
    ]

    /// Bytes that matter to at least one of the formats.
    static let interesting: [UInt8] = Array("\",\n\r[]{}:\\#tn0 ".utf8) + [0x00, 0xFF, 0xEF, 0xBB, 0xBF, 0xC3]

    static func mutate(_ input: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
        var bytes = input
        for _ in 0..<Int.random(in: 1...8, using: &rng) {
            let at = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &rng)
            switch Int.random(in: 0..<6, using: &rng) {
            case 0 where !bytes.isEmpty: bytes[at] = UInt8.random(in: 0...255, using: &rng)
            case 1 where !bytes.isEmpty: bytes[at] = interesting.randomElement(using: &rng)!
            case 2: bytes.insert(interesting.randomElement(using: &rng)!, at: at)
            case 3 where !bytes.isEmpty:
                bytes.removeSubrange(at..<min(bytes.count, at + Int.random(in: 1...16, using: &rng)))
            case 4 where !bytes.isEmpty:
                let end = min(bytes.count, at + Int.random(in: 1...64, using: &rng))
                bytes.insert(contentsOf: bytes[at..<end], at: Int.random(in: 0...bytes.count, using: &rng))
            default: bytes = Array(bytes.prefix(at))
            }
        }
        return bytes
    }

    static func randomBytes(_ rng: inout SplitMix64) -> [UInt8] {
        (0..<Int.random(in: 0...512, using: &rng)).map { _ in
            Bool.random(using: &rng) ? interesting.randomElement(using: &rng)! : UInt8.random(in: 0...255, using: &rng)
        }
    }

    /// Lines as the parsers count them: LF, CRLF and a lone CR each end one.
    static func lineCount(_ bytes: [UInt8]) -> Int {
        bytes.withUnsafeBufferPointer { buffer in
            var count = 1
            var index = 0
            while index < buffer.count {
                if buffer[index] == 0x0D && index + 1 < buffer.count && buffer[index + 1] == 0x0A { index += 1 }
                if buffer[index] == 0x0A || buffer[index] == 0x0D { count += 1 }
                index += 1
            }
            return count
        }
    }

    /// What each parser did wrong with `bytes`, one line per fault; empty when all behaved.
    static func faults(_ bytes: [UInt8]) -> [String] {
        let lines = lineCount(bytes)
        var faults: [String] = []
        for format in WorklistFormat.allCases {
            let parsed: ParsedWorklist
            do {
                parsed = try format.parse(Data(bytes), file: "fuzz")
            } catch {
                if case .malformed(_, let line?, _, _) = error, !(1...lines).contains(line) {
                    faults.append("\(format): error at line \(line) of \(lines): \(error)")
                }
                continue
            }
            for entry in parsed.entries
            where !PlainTextWorklist.isIMDbID(entry.imdbID) || !(1...lines).contains(entry.line) {
                faults.append("\(format): \(entry) in \(lines) lines")
            }
            for warning in parsed.warnings where !(1...lines).contains(warning.line) {
                faults.append("\(format): \(warning) in \(lines) lines")
            }
            // A title is something to ask OMDb for: a line it stands on, letters or digits, a sane length
            // and year, and nothing that is not text (a control character, a byte that is not UTF-8).
            for title in parsed.titles {
                let query = title.query
                let sane =
                    (1...lines).contains(title.line) && !TitleQuery.normalize(query.title).isEmpty
                    && query.title.count <= TitleQuery.maxLength && query.year.map(TitleQuery.years.contains) != false
                    && !query.title.unicodeScalars.contains {
                        $0.properties.generalCategory == .control || $0 == "\u{FFFD}"
                    }
                if !sane { faults.append("\(format): title \(query) at line \(title.line) of \(lines)") }
            }
        }
        return faults
    }

    @Test func mutatedAndRandomInputs() {
        var rng = SplitMix64(seed: 0x5EED_F11E)
        let seeds = Self.seeds.map { Array($0.utf8) }
        var faults: [(input: [UInt8], fault: String)] = []
        for round in 0..<3_000 {
            let bytes = round % 5 == 4 ? Self.randomBytes(&rng) : Self.mutate(seeds[round % seeds.count], &rng)
            faults += Self.faults(bytes).map { (bytes, $0) }
        }
        #expect(
            faults.isEmpty, "\(faults.count) faults, first: \(faults.prefix(3).map { "\($0.fault) from \($0.input)" })")
    }

    /// Inputs that break naive parsers: huge lines and fields, deep nesting, NULs, bytes that are not UTF-8.
    static let pathological: [(name: String, bytes: [UInt8])] = [
        ("a 10 MB line", Array(repeating: UInt8(ascii: "t"), count: 10 << 20)),
        ("a 10 MB quoted CSV field", Array("Const,Note\ntt0172495,\"".utf8) + Array(repeating: 0x2C, count: 10 << 20)),
        ("JSON nested 200,000 deep", Array(repeating: UInt8(ascii: "["), count: 200_000)),
        ("JSON objects nested 200,000 deep", Array(String(repeating: "{\"a\":", count: 200_000).utf8)),
        ("NUL bytes", Array(repeating: 0, count: 4096)),
        ("invalid UTF-8", Array(repeating: 0xFF, count: 4096) + Array("\ntt0172495\n".utf8)),
    ]

    @Test(arguments: pathological.map(\.name))
    func pathologicalInput(name: String) throws {
        let input = try #require(Self.pathological.first { $0.name == name })
        #expect(Self.faults(input.bytes) == [])
    }
}
