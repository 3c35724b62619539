import Foundation

/// A request as the engine reads it: method, path, query and headers (the stand-in ignores bodies).
struct HTTPRequest: Sendable {
    /// The request method, e.g. `GET`.
    var method: String
    /// The path without the query.
    var path: String
    /// Query parameters, percent-decoded, names lower-cased; the last occurrence of a name wins.
    var query: [String: String]
    /// Header fields in arrival order.
    var headers: [(name: String, value: String)]

    /// Returns the last value of the header named `name` (lower-case).
    func header(_ name: String) -> String? {
        headers.last { $0.name.lowercased() == name }?.value
    }

    /// Whether the client wants the connection kept open after this exchange (an HTTP/1.0 request
    /// that did not ask for keep-alive arrives marked `Connection: close`).
    var keepAlive: Bool {
        !(header("connection")?.lowercased().contains("close") ?? false)
    }

    /// Reads a request from its method, its target (origin form `/path?query`, or absolute form
    /// `http://host/path?query`) and its header fields.
    init(method: String, target: String, headers: [(name: String, value: String)]) {
        self.method = method
        self.headers = headers
        var target = Substring(target)
        if target.first != "/", let schemeEnd = target.range(of: "://") {
            // Absolute form (`GET http://host/path?q HTTP/1.1`): keep only path and query.
            let afterScheme = target[schemeEnd.upperBound...]
            target = afterScheme.firstIndex(of: "/").map { afterScheme[$0...] } ?? "/"
        }
        let questionMark = target.firstIndex(of: "?")
        path = String(target[..<(questionMark ?? target.endIndex)])
        query = [:]
        if let questionMark {
            for pair in target[target.index(after: questionMark)...].split(separator: "&") {
                let nameAndValue = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = Self.lowercased(Self.percentDecoded(nameAndValue[0]))
                guard !name.isEmpty else { continue }
                query[name] = nameAndValue.count > 1 ? Self.percentDecoded(nameAndValue[1]) : ""
            }
        }
    }

    /// Decodes `%XX` escapes and `+` (as a space, the form encoding clients use in queries).
    static func percentDecoded(_ text: Substring) -> String {
        // Most names and values hold neither: every request's query is read, so they are copied as they are.
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else {
            return String(text)
        }
        var bytes: [UInt8] = []
        let utf8 = Array(text.utf8)
        var index = 0
        while index < utf8.count {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%"), index + 2 < utf8.count,
                let high = hexValue(utf8[index + 1]), let low = hexValue(utf8[index + 2])
            {
                bytes.append(high << 4 | low)
                index += 3
                continue
            }
            bytes.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            index += 1
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `text` in lower case; as it is when it holds no capital ASCII letter and nothing beyond ASCII
    /// (OMDb's parameter names are mostly lower case already).
    private static func lowercased(_ text: String) -> String {
        text.utf8.contains { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) || $0 >= 0x80 }
            ? text.lowercased() : text
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// An HTTP response the stand-in sends.
struct HTTPResponse: Sendable {
    /// The content type of every OMDb answer.
    static let jsonContentType = "application/json; charset=utf-8"

    /// The status code.
    var status: Int
    /// Header fields other than `Content-Length` and `Connection`, which the server adds.
    var headers: [(name: String, value: String)] = []
    /// The body bytes.
    var body: [UInt8]

    /// Creates a response with a content type and extra headers.
    init(status: Int, contentType: String = jsonContentType, extraHeaders: [(String, String)] = [], body: [UInt8]) {
        self.status = status
        headers = [("Content-Type", contentType)] + extraHeaders.map { (name: $0.0, value: $0.1) }
        self.body = body
    }

    /// An OMDb error answer: `{"Response":"False","Error":"…"}`.
    static func omdbError(_ message: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, body: Array("{\"Response\":\"False\",\"Error\":\"\(message)\"}".utf8))
    }

    /// A short `text/plain` answer, used for non-OMDb statuses.
    static func text(_ text: String, status: Int, extraHeaders: [(String, String)] = []) -> HTTPResponse {
        HTTPResponse(
            status: status, contentType: "text/plain; charset=utf-8", extraHeaders: extraHeaders,
            body: Array((text + "\n").utf8))
    }

    /// The reason phrase for `status`.
    static func reason(for status: Int) -> String {
        switch status {
        case 200: "OK"
        case 302: "Found"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 410: "Gone"
        case 413: "Content Too Large"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }
}
