import Foundation
import Testing

@testable import FilmCacheKit

/// A key as OMDb's are long (eight characters or more), recognisable.
private let key = "Zq7EchoKey4711"

/// `text` with every character written as `%XX`.
private func percentEncoded(_ text: String) -> String {
    text.utf8.map { String(format: "%%%02X", $0) }.joined()
}

/// `text` with every character written as a JSON `\uXXXX` escape.
private func jsonEscaped(_ text: String) -> String {
    text.utf8.map { String(format: "\\u%04x", $0) }.joined()
}

/// The OMDb key found in whatever an upstream echoes back, in every spelling an echo takes, and
/// nowhere it is only part of another word.
@Suite struct SecretEchoTests {
    let echo = SecretEcho(key)
    /// A key under eight characters, as tests and stand-ins use.
    let short = SecretEcho("demo")

    @Test(
        "The key as sent, in any case, percent-encoded, JSON-escaped, or both, is an echo",
        arguments: [
            "GET /?apikey=\(key)&i=tt0111161",
            "apikey=\(key.uppercased())&i=tt0111161",
            "apikey=\(key.lowercased())",
            "the key \(key) was used",
            "\(key)",
            "apikey=%5A\(key.dropFirst())&i=tt0111161",
            "apikey=%5a\(key.dropFirst())",
            "apikey=\(percentEncoded(key))",
            "apikey%3D\(key)%26i%3Dtt0111161",
            #"{"Plot":"cached from http:\/\/omdb.example\/?apikey=\u005a\#(key.dropFirst())&i=tt1"}"#,
            #"{"Plot":"apikey=\u005A\#(key.dropFirst())"}"#,
            #"{"Plot":"\#(jsonEscaped(key))"}"#,
            // A JSON text holding a percent-encoded URL, and a percent-encoded JSON escape.
            #"{"Plot":"apikey=%5a\#(key.dropFirst())"}"#,
            "apikey=%5Cu005a\(key.dropFirst())",
            // Each character escaped its own way, in mixed case.
            #"\u005A%51\#(key.dropFirst(2).uppercased())"#,
        ])
    func anEchoInAnySpellingIsFound(_ text: String) {
        #expect(echo.isEchoed(in: text), "\(text)")
        #expect(echo.isEchoed(in: Array(text.utf8)), "\(text)")
    }

    @Test func aSlashEscapedInJSONIsReadAsTheSlashOfAKeyThatHoldsOne() {
        let slashed = SecretEcho("ab/cd/ef12")
        #expect(slashed.isEchoed(in: #"{"Plot":"apikey=ab\/cd\/ef12&i=tt1"}"#))
        #expect(slashed.isEchoed(in: #"{"Plot":"apikey=ab\u002fcd%2Fef12"}"#))
        #expect(!slashed.isEchoed(in: #"{"Plot":"ab\/cd\/ef1"}"#))
    }

    @Test(
        "The key as part of a longer word, or only part of the key, is no echo",
        arguments: [
            "x\(key)", "\(key)9", "\(key)x", "_\(key)" + "a", String(key.dropLast()), String(key.dropFirst()),
            "apikey=\(key.dropLast())&i=1", "%5A\(key.dropFirst())9", #"\u005a\#(key.dropFirst())x"#, "",
            "an ordinary plot with no key in it",
        ])
    func partsAndLongerWordsAreNoEcho(_ text: String) {
        #expect(!echo.isEchoed(in: text), "\(text)")
    }

    @Test(
        "A key under eight characters counts only right after apikey=, in any case and spelling",
        arguments: [
            ("GET /?apikey=demo&i=tt1", true), ("APIKEY=DEMO", true), ("ApiKey=Demo&", true),
            ("apikey=%64emo&i=tt1", true), (#"apikey=\u0064emo"#, true), ("apikey%3Ddemo%26", true),
            (#"apikey\u003ddemo"#, true), ("a demo of the film", false), ("demo", false), ("key=demo", false),
            ("apikey=demonstration", false), ("apikey=xdemo", false), ("apikey= demo", false),
            (#"{"Plot":"The demo tape that started it all."}"#, false),
        ])
    func aShortKeyCountsOnlyAfterTheParameter(_ text: String, _ echoed: Bool) {
        #expect(short.isEchoed(in: text) == echoed, "\(text)")
    }

    @Test func redactingMasksEveryLiteralOccurrenceInAnyCaseAndKeepsTheRest() {
        let text = "GET /?apikey=\(key)&i=tt1 (again: \(key.uppercased()), \(key.lowercased()))"
        let masked = String(decoding: echo.redacting(Array(text.utf8)), as: UTF8.self)
        #expect(masked == "GET /?apikey=***&i=tt1 (again: ***, ***)")
        #expect(!echo.isEchoed(in: masked))
        #expect(echo.redacting(text, replacement: "gone") == masked)
        // A word the key is only part of is kept as it is.
        let longer = "x\(key) and \(key)9"
        #expect(String(decoding: echo.redacting(Array(longer.utf8)), as: UTF8.self) == longer)
        #expect(short.redacting("a demo at apikey=demo&", replacement: "gone") == "a demo at apikey=***&")
    }

    @Test func aTextStillHoldingTheKeyInAnEscapedSpellingIsWithheldWhole() {
        let escaped = "Movie not found! (GET /?apikey=%5A\(key.dropFirst())&i=tt1) and \(key)"
        let redacted = echo.redacting(escaped, replacement: SecretEcho.withheld)
        #expect(redacted == SecretEcho.withheld)
        #expect(!redacted.lowercased().contains(key.dropFirst().lowercased()))
        let plain = "Movie not found!"
        #expect(echo.redacting(plain, replacement: SecretEcho.withheld) == plain)
    }

    /// An encoded URL encoded again, HTML's numeric references, and the two mixed with JSON's
    /// escapes: three layers are undone in any order.
    @Test func doubleEncodingsAndHTMLReferencesAreEchoesToo() {
        let echo = SecretEcho(key)
        let twice = percentEncoded(key).replacingOccurrences(of: "%", with: "%25")
        let decimal = key.utf8.map { "&#\($0);" }.joined()
        let hex = key.utf8.map { String(format: "&#x%x;", $0) }.joined()
        let mixed = "&#x5c;u00" + String(format: "%02x", key.utf8.first ?? 0) + key.dropFirst()
        for text in ["GET /?apikey=\(twice)&i=tt1", "<p>\(decimal)</p>", "<p>\(hex)</p>", "{\"e\":\"\(mixed)\"}"] {
            #expect(echo.isEchoed(in: text), "\(text)")
        }
        #expect(!echo.isEchoed(in: "<p>Fast &#38; Furious 98% \\u00e9</p>"))
    }

    @Test func theKeyIsFoundPastEveryDecoyOfItsFirstLetterAndEveryEscapePastTheirLookAlikes() {
        // Its first letter in both cases, and its start standing inside longer words, many times before it.
        let decoys = String(repeating: "zq7 Zq7Echo ZZq7EchoKey4711 zzzz ", count: 40)
        #expect(!echo.isEchoed(in: decoys))
        for spelling in ["(\(key))", "(\(key.lowercased()))", "(\(key.uppercased()))"] {
            #expect(echo.isEchoed(in: decoys + spelling), "\(spelling)")
            #expect(echo.isEchoed(in: spelling + decoys), "\(spelling)")
        }
        #expect(echo.redacting(decoys + key + " " + decoys, replacement: "gone") == decoys + "*** " + decoys)
        // Escapes after bytes that only look like their start: a rating's %, a lone \ and &.
        let lookAlikes = String(repeating: "98% & \\n 7%z &amp; ", count: 40)
        #expect(!echo.isEchoed(in: lookAlikes))
        #expect(echo.isEchoed(in: lookAlikes + "apikey=" + percentEncoded(key)))
        #expect(echo.isEchoed(in: lookAlikes + "apikey=" + jsonEscaped(key)))
        #expect(echo.isEchoed(in: lookAlikes + key.utf8.map { "&#\($0);" }.joined()))
        // A short key only after `apikey=`, found past its decoys too.
        #expect(!short.isEchoed(in: String(repeating: "a demo, Demo; ", count: 40)))
        #expect(short.isEchoed(in: String(repeating: "a demo, Demo; ", count: 40) + "apikey=DEMO&"))
    }

    @Test func anEmptySecretIsEchoedNowhere() {
        let none = SecretEcho("")
        #expect(!none.isEchoed(in: "apikey=&i=tt1"))
        #expect(none.redacting(Array("apikey=".utf8)) == Array("apikey=".utf8))
    }

    @Test func generatedKeysEchoedInEverySpellingAreFoundAndMaskedWhenLiteral() {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(bound))
        }
        for _ in 0..<200 {
            let key = String((0..<(8 + next(9))).map { _ in alphabet[next(alphabet.count)] })
            let echo = SecretEcho(key)
            let spellings = [
                "apikey=\(key)&i=tt1", "apikey=\(percentEncoded(key))&i=tt1",
                "{\"Plot\":\"apikey=\(jsonEscaped(key))\"}", "(\(key.uppercased()))",
            ]
            for text in spellings {
                #expect(echo.isEchoed(in: text), "\(key): \(text)")
            }
            #expect(!echo.isEchoed(in: "apikey=\(key)Z"), "\(key)")
            let masked = echo.redacting("[\(key)] [\(key.lowercased())]", replacement: "gone")
            #expect(masked == "[***] [***]", "\(key)")
        }
    }
}
