import Testing

@testable import FilmCacheKit

/// The header callback's reading of one line, as libcurl hands it over (CR LF included).
@Suite struct HeaderLineTests {
    func value(_ line: String, of name: StaticString) -> String? {
        Array(line.utf8).withUnsafeBytes { HeaderLine.value($0, of: name) }
    }

    func starts(_ line: String, with prefix: StaticString, anyCase: Bool) -> Bool {
        Array(line.utf8).withUnsafeBytes { HeaderLine.starts($0, with: prefix, anyCase: anyCase) }
    }

    @Test func aHeaderIsFoundInAnyCaseAndItsValueTrimmedOfBlanks() {
        #expect(value("Content-Type: application/json\r\n", of: "content-type:") == "application/json")
        #expect(
            value("CONTENT-TYPE:\ttext/plain; charset=utf-8 \t\r\n", of: "content-type:") == "text/plain; charset=utf-8"
        )
        #expect(value("ETag: \"5f3a-1c2\"\r\n", of: "etag:") == "\"5f3a-1c2\"")
        #expect(value("retry-after: 120\r\n", of: "retry-after:") == "120")
        #expect(
            value("Last-Modified: Sat, 28 Nov 2026 09:00:00 GMT\r\n", of: "last-modified:")
                == "Sat, 28 Nov 2026 09:00:00 GMT")
        // A header with nothing after its colon has an empty value; the name alone is no header.
        #expect(value("ETag:\r\n", of: "etag:") == "")
        #expect(value("ETag:", of: "etag:") == nil)
    }

    @Test func anotherHeaderIsNotTakenForOne() {
        #expect(value("Content-Typo: text/plain\r\n", of: "content-type:") == nil)
        #expect(value("Retry-After-Seconds: 5\r\n", of: "retry-after:") == nil)
        #expect(value("E-Tag: x\r\n", of: "etag:") == nil)
        #expect(value("Content-Length: 12\r\n", of: "content-type:") == nil)
        #expect(value("\r\n", of: "etag:") == nil)
    }

    @Test func aStatusLineStartsWithHTTPInCapitals() {
        #expect(starts("HTTP/1.1 200 OK\r\n", with: "HTTP/", anyCase: false))
        #expect(starts("HTTP/2 429\r\n", with: "HTTP/", anyCase: false))
        #expect(!starts("http/1.1 200 OK\r\n", with: "HTTP/", anyCase: false))
        #expect(!starts("HTTP", with: "HTTP/", anyCase: false))
        #expect(starts("http/1.1 200 OK\r\n", with: "HTTP/", anyCase: true))
    }
}
