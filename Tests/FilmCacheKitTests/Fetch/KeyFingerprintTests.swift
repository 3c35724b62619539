import Foundation
import Testing

@testable import FilmCacheKit
@testable import FilmCacheSQLite

@Suite struct KeyFingerprintTests {
    @Test func theStoredNameIsPBKDF2HMACSHA256OfTheKeyInFull() {
        // Python's hashlib.pbkdf2_hmac("sha256", b"1234abcd", b"filmcache-ledger-v1", 200000).hex():
        // another implementation of the same function.
        let key = APIKey("1234abcd")!
        #expect(key.fingerprint == "12d60d404f7fa14de5e3ee48d980a5718058cea8d81528df47d6cbc6951397dd")
        #expect(key.shortFingerprint == "12d60d404f7f" && "\(key)" == "key:12d60d404f7f")
        #expect(!key.fingerprint.contains("1234abcd"))
    }

    @Test func keysWhoseOldNamesCollideHaveNamesOfTheirOwn() {
        let (a, b) = (APIKey("5f35235b")!, APIKey("5f37cbe5")!)
        #expect(a.legacyFingerprint == "7ec9" && b.legacyFingerprint == "7ec9")
        #expect(a.fingerprint != b.fingerprint && a.shortFingerprint != b.shortFingerprint)
    }

    @Test func aKeyIsNamedTheSameWithOrWithoutSurroundingWhitespace() {
        #expect(APIKey(" 1234abcd\n")!.fingerprint == APIKey("1234abcd")!.fingerprint)
    }

    @Test func adoptingAnOldNameMovesAndMergesItsRows() throws {
        let dir = TemporaryDirectory()
        let store = try CacheStore(path: dir.file("adopt.sqlite"), logger: SampleFilms.logger)
        let key = APIKey("5f35235b")!
        _ = try store.reserveCalls(5, key: key.legacyFingerprint, day: "2026-11-21", dailyLimit: 100, usable: 95)
        _ = try store.reserveCalls(3, key: key.fingerprint, day: "2026-11-21", dailyLimit: 100, usable: 95)
        _ = try store.beginRun(startedAt: TestDates.utc(2026, 11, 21, 3, 0), key: key.legacyFingerprint)
        #expect(try store.adoptLegacyFingerprint(key.legacyFingerprint, as: key.fingerprint))
        #expect(try store.ledger(key: key.fingerprint, day: "2026-11-21")?.used == 8)
        #expect(try store.ledger(key: key.legacyFingerprint, day: "2026-11-21") == nil)
        #expect(try store.runs(key: key.fingerprint, since: .distantPast).count == 1)
        #expect(try store.adoptLegacyFingerprint(key.legacyFingerprint, as: key.fingerprint) == false)
    }
}
