import CCrypto
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
    /// PBKDF2 rounds: about 60 ms once per process, the cost of every guess to whoever holds the database.
    static let rounds: Int32 = 200_000
    /// The salt: fixed (one key has one name in every database, so hosts sharing a ledger agree), naming its use.
    static let salt = Array("filmcache-ledger-v1".utf8)
    /// How many hex digits reports show.
    package static let shownDigits = 12

    /// Keys already hashed by this process: hashing is slow on purpose, and a process sees one key or two.
    private static let known = Mutex<[String: String]>([:])

    /// The stored name of `secret`: 64 lowercase hex digits.
    static func of(_ secret: String) -> String {
        if let name = known.withLock({ $0[secret] }) { return name }
        CryptoGlobal.initialize()
        var out = [UInt8](repeating: 0, count: 32)
        let utf8 = Array(secret.utf8)
        let ok = utf8.withUnsafeBufferPointer { password in
            password.withMemoryRebound(to: CChar.self) { password in
                fc_pbkdf2_sha256(
                    password.baseAddress, Int32(password.count), salt, Int32(salt.count), rounds, &out, Int32(out.count)
                )
            }
        }
        // PKCS5_PBKDF2_HMAC fails only when out of memory; no weaker name may stand in for it.
        precondition(ok == 1, "PBKDF2 failed")
        let name = hex(out)
        known.withLock { $0[secret] = name }
        return name
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
