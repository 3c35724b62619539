import CCrypto
import Foundation

/// An OMDb API key that never prints itself.
///
/// `description` and string interpolation show only the short fingerprint, so a key
/// that slips into a log line or an error message stays secret (and, like ``fingerprint``,
/// wait for the key's slow name to be worked out).
public struct APIKey: Sendable, Equatable, CustomStringConvertible {
    /// The key text; only the URL builder reads it.
    let secret: String
    /// The slow keyed hash that names the key (``KeyFingerprint``), begun when the key is read.
    private let derivation: KeyFingerprint.Derivation

    /// The key's name in the ledger and the runs: a slow keyed hash in full (``KeyFingerprint``).
    ///
    /// Waits for the hash, which runs on a thread of its own from the moment the key is read.
    public var fingerprint: String { derivation.name() }

    /// ``fingerprint``, waited for without holding a thread.
    package var derivedFingerprint: String {
        get async { await derivation.derived() }
    }

    /// Wraps `secret`, trimmed of surrounding whitespace and newlines; `nil` when empty.
    public init?(_ secret: String) {
        let trimmed = secret.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return nil }
        self.secret = trimmed
        self.derivation = KeyFingerprint.derivation(of: trimmed)
    }

    /// Two keys are one when their text is: the name follows from it.
    public static func == (a: APIKey, b: APIKey) -> Bool { a.secret == b.secret }

    /// What finds the key echoed in an upstream's answer.
    var echo: SecretEcho { SecretEcho(secret) }

    /// The fingerprint as reports show it: its first twelve hex digits.
    package var shortFingerprint: String { KeyFingerprint.short(fingerprint) }

    /// The name databases from before the slow hash gave this key (four hex digits, shared by many keys).
    package var legacyFingerprint: String { KeyFingerprint.legacy(secret) }

    /// The environment variable the key is read from unless a job names another.
    public static let variable = "OMDB_API_KEY"

    /// Reads the key from the environment variable `name` or, if given, a file.
    ///
    /// The file wins when both are present: an operator who names a file means it.
    public static func load(environment: [String: String], variable name: String = APIKey.variable, file: String?)
        throws(ConfigurationError) -> APIKey
    {
        if let file {
            let text: String
            do {
                text = try String(contentsOfFile: file, encoding: .utf8)
            } catch {
                throw .unreadableKeyFile(path: file, reason: "\(error.localizedDescription)")
            }
            guard let key = APIKey(text) else { throw .unreadableKeyFile(path: file, reason: "the file is empty") }
            return key
        }
        guard let value = environment[name], let key = APIKey(value) else { throw .missingKey(variable: name) }
        return key
    }

    public var description: String { "key:\(shortFingerprint)" }
}

/// A setting that stops filmcache before it does any work.
public enum ConfigurationError: Error, Equatable, CustomStringConvertible {
    case missingKey(variable: String)
    case unreadableKeyFile(path: String, reason: String)

    public var description: String {
        switch self {
        case .missingKey(let variable):
            "no OMDb API key: set \(variable), pass --api-key-file FILE, or name api_key_file in the job file"
                + " (to try filmcache without one: `omdb-standin serve`, then --base-url http://127.0.0.1:8765/)"
        case .unreadableKeyFile(let path, let reason):
            "cannot read the API key file \(path): \(reason)"
        }
    }
}

/// libcrypto, loaded once, when the first digest is asked for (CCrypto.h says why it is not linked).
enum CryptoGlobal {
    /// Exits with 72 (EX_OSFILE) when libcrypto cannot be loaded: no key or poster can be named without it.
    private static let once: Void = {
        guard let failure = fc_crypto_load() else { return }
        StandardError.write("filmcache: libcrypto could not be loaded (\(String(cString: failure))); install libssl3")
        exit(ExitStatus.osFile)
    }()

    static func initialize() { _ = once }
}

/// SHA-256, from libcrypto: the four-digit key names of databases from before ``KeyFingerprint``,
/// and the names of poster files.
enum SHA256 {
    /// The digest of `message`.
    static func digest(_ message: some ContiguousBytes) -> [UInt8] {
        CryptoGlobal.initialize()
        var out = [UInt8](repeating: 0, count: 32)
        let ok = message.withUnsafeBytes { fc_sha256($0.baseAddress, $0.count, &out) }
        // EVP_Digest fails only when out of memory; there is no other digest to fall back on.
        precondition(ok == 1, "SHA-256 failed")
        return out
    }

    /// The digest of `message` as lowercase hex.
    static func hex(_ message: some ContiguousBytes) -> String {
        KeyFingerprint.hex(digest(message))
    }
}
