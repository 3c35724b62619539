import CCrypto
import Foundation
import Synchronization

/// How the ledger names an API key without storing it: a slow keyed hash, kept in full, shown short.
///
/// OMDb keys are eight hex digits, about four billion of them, so any fast hash of a key could be
/// turned back into the key by trying them all. The ledger stores PBKDF2-HMAC-SHA256 of the key
/// (200,000 rounds, a salt naming this use), so trying every key costs about 2^32 × 200,000 HMACs:
/// days of a GPU per database, for a value that only unlocks a free-tier quota. Stored in full (64
/// hex digits), two keys never share a budget by accident; reports show the first twelve digits
/// (more than the eight of a key, so a shown name is never mistaken for a key).
///
/// Databases from before this kept four hex digits of SHA-256 (``legacy(_:)``), which collide;
/// a warm adopts its key's old rows under the new name (``QuotaLedger/adoptLegacyFingerprint(_:as:)``).
public enum KeyFingerprint {
    /// PBKDF2 rounds: about 100 ms once per process, the cost of every guess to whoever holds the database.
    static let rounds: Int32 = 200_000
    /// The salt: fixed (one key has one name in every database, so hosts sharing a ledger agree), naming its use.
    static let salt = Array("filmcache-ledger-v1".utf8)
    /// How many hex digits reports show.
    package static let shownDigits = 12

    /// The name of the thread that works a key's name out, as `top -H` and `/proc` show it.
    static let threadName = "filmcache-key"

    /// Keys this process has named or is naming: hashing is slow on purpose, and a process sees one key or two.
    private static let known = Mutex<[String: Derivation]>([:])

    /// The derivation of `secret`'s name: begun on a thread of its own the first time `secret` is
    /// named, so a run can read its worklists and plan while the slow hash runs.
    static func derivation(of secret: String) -> Derivation {
        // Loaded here, on the caller's thread: without libcrypto the command stops before it does anything.
        CryptoGlobal.initialize()
        let (derivation, begun) = known.withLock { known in
            if let derivation = known[secret] { return (derivation, false) }
            let derivation = Derivation()
            known[secret] = derivation
            return (derivation, true)
        }
        if begun {
            // The thread starts with every signal blocked but the faults, whichever thread reads the
            // key: a stop signal is for the command's own handling (StopSignals), never for a thread
            // that only hashes; a fault there still reaches the runtime's crash handler.
            var all = sigset_t()
            var before = sigset_t()
            sigfillset(&all)
            for fault in [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGABRT] { sigdelset(&all, fault) }
            pthread_sigmask(SIG_BLOCK, &all, &before)
            Thread.detachNewThread {
                Thread.current.name = threadName
                derivation.finish(hex(derive(Array(secret.utf8), salt: salt, rounds: rounds, length: 32)))
            }
            pthread_sigmask(SIG_SETMASK, &before, nil)
        }
        return derivation
    }

    /// PBKDF2-HMAC-SHA256 of `password` with `salt`: `length` bytes.
    static func derive(_ password: [UInt8], salt: [UInt8], rounds: Int32, length: Int) -> [UInt8] {
        CryptoGlobal.initialize()
        var out = [UInt8](repeating: 0, count: length)
        let ok = password.withUnsafeBufferPointer { password in
            password.withMemoryRebound(to: CChar.self) { password in
                fc_pbkdf2_sha256(
                    password.baseAddress, Int32(password.count), salt, Int32(salt.count), rounds, &out, Int32(length))
            }
        }
        // It fails only on arguments out of range; no weaker name may stand in for it.
        precondition(ok == 1, "PBKDF2 failed")
        return out
    }

    /// A key's name being worked out: waited for by a thread (``name()``) or a task (``derived()``).
    final class Derivation: @unchecked Sendable {
        /// Guards both properties; broadcast when the name is known.
        private let condition = NSCondition()
        private var known: String?
        private var waiting: [CheckedContinuation<String, Never>] = []

        /// The name, once derived: blocks the calling thread until then.
        func name() -> String {
            condition.lock()
            defer { condition.unlock() }
            while known == nil { condition.wait() }
            return known ?? ""
        }

        /// The name, once derived: suspends the calling task until then.
        func derived() async -> String {
            await withCheckedContinuation { continuation in
                condition.lock()
                if let known {
                    condition.unlock()
                    continuation.resume(returning: known)
                } else {
                    waiting.append(continuation)
                    condition.unlock()
                }
            }
        }

        fileprivate func finish(_ name: String) {
            condition.lock()
            known = name
            let waiting = self.waiting
            self.waiting = []
            condition.broadcast()
            condition.unlock()
            for continuation in waiting { continuation.resume(returning: name) }
        }
    }

    /// The name `secret` had before: four hex digits of its SHA-256.
    static func legacy(_ secret: String) -> String {
        String(SHA256.hex(Array(secret.utf8)).prefix(4))
    }

    /// `stored` as reports show it: its first ``shownDigits`` hex digits (an old four-digit name as it is).
    public static func short(_ stored: String) -> String {
        String(stored.prefix(shownDigits))
    }

    /// Whether `text` could name a key on the command line: 4 to 64 hex digits.
    public static func isWellFormed(_ text: String) -> Bool {
        (4...64).contains(text.count) && text.allSatisfy(\.isHexDigit)
    }

    /// `bytes` as lowercase hex, two digits a byte.
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xf)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
