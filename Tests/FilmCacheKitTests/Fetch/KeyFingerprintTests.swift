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

    @Test func theDerivationIsPBKDF2HMACSHA256ForEveryLengthOfKeySaltAndOutput() {
        // Python's hashlib.pbkdf2_hmac("sha256", password, salt, rounds, length).hex(); the first two
        // are RFC 7914's test vectors (two output blocks).
        let salt = Array("filmcache-ledger-v1".utf8)
        let vectors: [(password: [UInt8], salt: [UInt8], rounds: Int32, length: Int, hex: String)] = [
            (
                Array("passwd".utf8), Array("salt".utf8), 1, 64,
                "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc"
                    + "49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783"
            ),
            (
                Array("Password".utf8), Array("NaCl".utf8), 80_000, 64,
                "4ddcd8f60b98be21830cee5ef22701f9641a4418d04c0414aeff08876b34ab56"
                    + "a1d425a1225833549adb841b51c9b3176a272bdebba1d078478f62b397f33c8d"
            ),
            // A key of a whole block, and one a byte longer, which HMAC hashes first.
            (
                Array(repeating: UInt8(ascii: "k"), count: 64), salt, 3, 32,
                "e50d2a62f766b9ceb9fa9b52d74ee498ea45f036bf3061c54ab3ddc2734750db"
            ),
            (
                Array(repeating: UInt8(ascii: "k"), count: 65), salt, 3, 32,
                "758f68f33d207e0f4eae7f83fa394394b1053a73e396ccbc0d74908372aacca9"
            ),
            // Nothing at all, and a part of a second block.
            ([], [], 2, 40, "97398411d6aea43a77acef92226ab8278d4db0668bd1d7a76a725f7680ac45c504d715e13d3c31a6"),
            (
                Array("Schl\u{FC}ssel \u{2603}".utf8), salt, 200_000, 32,
                "b5ed4f5a28ffb4dd0ad9eb4f2515d865e8c4edd1c349bb81511d4086e5ac75a8"
            ),
        ]
        for vector in vectors {
            let derived = KeyFingerprint.derive(
                vector.password, salt: vector.salt, rounds: vector.rounds, length: vector.length)
            #expect(
                KeyFingerprint.hex(derived) == vector.hex, "\(vector.password.count) bytes, \(vector.rounds) rounds")
        }
    }

    @Test func everyoneWaitingForAKeysNameGetsTheOneName() async {
        // A key no other test names: its derivation starts here, and threads and tasks wait on it at once.
        let secret = "c0ffee\(UInt32.random(in: 0...UInt32.max))"
        let expected = KeyFingerprint.hex(
            KeyFingerprint.derive(
                Array(secret.utf8), salt: KeyFingerprint.salt, rounds: KeyFingerprint.rounds, length: 32))
        let key = APIKey(secret)!
        let names = await withTaskGroup(of: String.self) { group in
            for index in 0..<8 {
                group.addTask {
                    index.isMultiple(of: 2) ? await key.derivedFingerprint : APIKey(secret)!.fingerprint
                }
            }
            return await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(names == Array(repeating: expected, count: 8))
        #expect(key == APIKey(" \(secret)\n")! && key != APIKey("1234abcd")!)
    }

    @Test func theHashingThreadBlocksTheStopSignalsWhateverThreadReadsTheKey() throws {
        // A thread that let SIGINT, SIGTERM or SIGHUP in would take a stop signal the command
        // ignores (SIG_IGN, to read it from a signal source) and lose it. This thread blocks none
        // of them itself. (Every hashing thread is found by one name: any of them must block them.)
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        var before = sigset_t()
        pthread_sigmask(SIG_SETMASK, &unblocked, &before)
        defer { pthread_sigmask(SIG_SETMASK, &before, nil) }
        let key = APIKey("feed\(UInt32.random(in: 0...UInt32.max))")!
        // The hash takes tens of milliseconds at least: its thread is found while it runs.
        var blocked: UInt64?
        for _ in 0..<100_000 where blocked == nil {
            blocked = Self.blockedSignals(ofThreadNamed: KeyFingerprint.threadName)
        }
        let mask = try #require(blocked, "no thread named \(KeyFingerprint.threadName) while the key was hashed")
        for signal in [SIGINT, SIGTERM, SIGHUP] {
            #expect(mask & (1 << UInt64(signal - 1)) != 0, "signal \(signal) reaches the hashing thread")
        }
        // A fault there still reaches the runtime's crash handler.
        for fault in [SIGSEGV, SIGBUS, SIGILL, SIGTRAP] {
            #expect(mask & (1 << UInt64(fault - 1)) == 0, "fault \(fault) is blocked on the hashing thread")
        }
        #expect(key.fingerprint.count == 64)
    }

    /// The blocked-signal mask (SigBlk) of a live thread of this process named `name`.
    static func blockedSignals(ofThreadNamed name: String) -> UInt64? {
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") else { return nil }
        for task in tasks {
            guard let comm = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8),
                comm.trimmingCharacters(in: .newlines) == name,
                let status = try? String(contentsOfFile: "/proc/self/task/\(task)/status", encoding: .utf8),
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigBlk:") })
            else { continue }
            return UInt64(line.dropFirst("SigBlk:".count).trimmingCharacters(in: .whitespaces), radix: 16)
        }
        return nil
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
