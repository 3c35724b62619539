import Foundation
import Testing

@testable import OMDbStandIn

/// The TMDb view of a corpus, the gate's decisions on a clock the test moves, and the day arithmetic.
@Suite struct TMDbCatalogTests {
    /// TMDb IDs are unique across a large corpus, even where the modulus makes two numbers meet.
    @Test func tmdbIDsAreUniqueAndStable() {
        let corpus = FilmCorpus(generatedCount: 20_000, seed: 5)
        let catalog = TMDbCatalog(corpus: corpus)
        let keys = catalog.titles.map(\.key)
        #expect(Set(keys).count == keys.count)
        #expect(Set(catalog.titles.map(\.id)).count == catalog.titles.count)
        let share = Double(catalog.titles.count) / Double(corpus.count)
        #expect(share > 0.85 && share < 0.95)
        // 8-digit numbers sit far above the modulus, so some IDs would meet without the probing.
        let raw = corpus.entries.keys.map { TMDbCatalog.number(of: $0) % TMDbCatalog.idPrime + 1 }
        #expect(Set(raw).count < raw.count)
        #expect(TMDbCatalog(corpus: corpus).titles == catalog.titles)
        for title in catalog.titles.prefix(200) {
            #expect(catalog.title(imdbID: title.imdbID) == title)
            #expect(catalog.title(title.mediaType, id: title.id) == title)
            #expect((corpus.entries[title.imdbID]?.facts.type == "series") == (title.mediaType == .tv))
        }
    }

    /// The gate answers a storm's requests 429, counts nothing against a client that waits, and
    /// enforces the per-second ceiling over a sliding window.
    @Test func theGateDecidesOnTheInstantsItIsGiven() {
        let start = ContinuousClock.now
        func at(_ milliseconds: Int) -> ContinuousClock.Instant { start + .milliseconds(milliseconds) }
        var gate = TMDbGate()
        gate.startStorm(requests: 2, retryAfterSeconds: 2)
        #expect(gate.admit(at: at(0), rateLimit: nil, retryAfterSeconds: 1) == .tooManyRequests(retryAfterSeconds: 2))
        #expect(gate.isInsideRetryAfter(at: at(10)))
        // Within the grace a request may have left before the answer arrived; after it, it is early.
        #expect(!gate.isEarly(at: at(10)) && gate.isEarly(at: at(300)))
        #expect(gate.admit(at: at(10), rateLimit: nil, retryAfterSeconds: 1) == .tooManyRequests(retryAfterSeconds: 2))
        // Inside the wait: answered with the wait that remains, which is not lengthened.
        #expect(
            gate.admit(at: at(1_500), rateLimit: nil, retryAfterSeconds: 1) == .tooManyRequests(retryAfterSeconds: 1))
        #expect(gate.isInsideRetryAfter(at: at(2_009)))
        #expect(!gate.isInsideRetryAfter(at: at(2_010)) && !gate.isEarly(at: at(2_010)))
        #expect(gate.admit(at: at(2_010), rateLimit: nil, retryAfterSeconds: 1) == .pass)

        var limited = TMDbGate()
        for offset in 0..<3 {
            #expect(limited.admit(at: at(offset * 100), rateLimit: 3, retryAfterSeconds: 1) == .pass)
        }
        #expect(
            limited.admit(at: at(300), rateLimit: 3, retryAfterSeconds: 4) == .tooManyRequests(retryAfterSeconds: 4))
        #expect(limited.isInsideRetryAfter(at: at(4_299)))
        #expect(limited.admit(at: at(4_300), rateLimit: 3, retryAfterSeconds: 4) == .pass)
    }

    /// Days read and write as `YYYY-MM-DD` across month, year and leap-day boundaries.
    @Test func daysRoundTrip() throws {
        for text in ["1970-01-01", "2024-02-29", "2024-03-01", "1999-12-31", "2026-11-26"] {
            #expect(TMDbDay(text)?.text == text)
        }
        #expect(TMDbDay("1970-01-02")?.number == 1)
        #expect(try #require(TMDbDay("2024-03-01")).number - #require(TMDbDay("2024-02-28")).number == 2)
        for bad in ["2023-02-29", "2024-13-01", "24-01-01", "2024-1-01", "", "yesterday"] {
            #expect(TMDbDay(bad) == nil)
        }
        #expect(TMDbDay(date: Date(timeIntervalSince1970: 86_400 * 3 + 5)).text == "1970-01-04")
    }

    /// Image names carry their own check: the names bodies hand out are known, altered ones are not.
    @Test func imageNamesCarryTheirCheck() {
        for subject in ["poster:tt0000001", "backdrop:tt0137523", "profile:Zoë Quinn"] {
            let path = TMDbImages.filePath(for: subject)
            #expect(path.count == 32)
            #expect(TMDbImages.isKnown(file: String(path.dropFirst())))
            var altered = Array(path.dropFirst())
            altered[3] = altered[3] == "x" ? "y" : "x"
            #expect(!TMDbImages.isKnown(file: String(altered)))
        }
    }
}
