import Foundation
import SplitMix
import Testing

@testable import FilmCacheKit

/// The base URL's check reads a plain host as written, so that ICU is not loaded for it; the check
/// as it was, on the decoded host, is the oracle: the same verdict, in the same words, for every URL.
@Suite struct BaseURLTests {
    /// The check as it was written on `URLComponents`.
    static func oracle(_ text: String) -> String? {
        guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased() else {
            return "\"\(text)\" is not a URL (expected http://HOST[:PORT]/ or https://HOST[:PORT]/)"
        }
        guard scheme == "http" || scheme == "https" else {
            return "\"\(text)\" uses \(scheme):, but only http and https are allowed"
        }
        guard let host = url.host, !host.isEmpty else { return "\"\(text)\" names no host" }
        if let port = url.port, !(1...65_535).contains(port) {
            return "\"\(text)\" names port \(port), outside 1...65535"
        }
        if url.fragment != nil { return "\"\(text)\" has a #fragment, which would swallow the query" }
        if url.user != nil || url.password != nil { return "\"\(text)\" carries a user name or password" }
        return nil
    }

    static let written = [
        "http://www.omdbapi.com/", "https://www.omdbapi.com/", "HTTP://127.0.0.1:8080/", "https://omdb.example:443",
        "http://[::1]:8080/", "http://[fe80::1%25eth0]/", "http://[v1.x]/", "http://[]/", "http://[::1/",
        "http://[::1]x/", "http://localhost:/", "http://localhost:0/", "http://localhost:65535/",
        "http://localhost:65536/", "http://localhost:99999999999/", "http://localhost:123456789012345678901/",
        "http://localhost:8o/", "http://local host/", "http://%41/", "http://%4/", "http://%/", "http://a%zz/",
        "http://user@host/", "http://user:pw@host/", "http://@host/", "http://user@/", "http://host/#",
        "http://host/#frag", "http://host/?q=1#f", "http://host/?q=1", "http://host/a b", "http://host/a%20b",
        "file:///etc/passwd#", "ftp://127.0.0.1/", "mailto:someone@example.com", "http:", "http:/", "http://",
        "http:///path", "http:host", "//host/", "host", "", " http://host/", "http://host/ ", "1http://x/",
        "h+t.t-p://x/", "http://bücher.de/", "http://xn--bcher-kva.de/", "http://xn--zz/", "http://%FF/",
        "http://host/ü", "http://host:80:90/", "http://a@b@c/",
        "http://host/?a=[b]", "http://host/[x]", "http://h_o~s-t.x/", "http://h!$&'()*+,;=/", "http://ho^st/",
        "http://host/\\", "http://host/%00", "http://host:+80/", "http://host:-1/", "http://host:0080/",
        "https://omdb.example:0443/path?x=1",
        // Past 2,048 bytes the decoder refuses a host, plain or not; a DNS name ends at 253.
        "http://" + String(repeating: "a", count: 2049) + "/", "http://" + String(repeating: "a", count: 2048) + "/",
        "http://" + String(repeating: "a", count: 254) + "/", "http://" + String(repeating: "a.", count: 1100) + "/",
    ]

    @Test func writtenURLsGetTheVerdictFoundationsReadingGave() {
        for text in Self.written {
            #expect(BaseURL.problem(text) == Self.oracle(text), "\(text)")
        }
    }

    /// URLs put together from the pieces that make parsers disagree, 20,000 of them.
    @Test func generatedURLsGetTheVerdictFoundationsReadingGave() {
        var random = SplitMix64(seed: 20_261_128)
        let schemes = ["http", "HTTPS", "ftp", "h", "", "1x", "http+x", "htt p"]
        let pieces = [
            "a", "Z", "0", "9", ".", "-", "_", "~", ":", "/", "?", "#", "[", "]", "@", "!", "$", "&", "'", "(", ")",
            "*", "+", ",", ";", "=", "%", "%2", "%41", "%zz", " ", "\"", "<", ">", "\\", "^", "`", "{", "|", "}",
            "é", "%FF", "%C3%A9", "%e9", "xn--bcher-kva", "xn--a", "xn--", "XN--A", "xN-", "bxn--", "x", "n", "::1",
            "80", "65536", "0", "host", "www.omdbapi.com", "user:pw@",
        ]
        var disagreements: [String] = []
        for _ in 0..<20_000 {
            var text = random.pick(schemes) + random.pick([":", "://", ":/", "://", "://"])
            for _ in 0..<random.int(in: 0...8) { text += random.pick(pieces) }
            if BaseURL.problem(text) != Self.oracle(text) { disagreements.append(text) }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(20))")
    }
}
