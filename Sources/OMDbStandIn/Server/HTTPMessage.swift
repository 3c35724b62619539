import Foundation

/// A parsed HTTP/1.x request head (the stand-in ignores request bodies).
struct HTTPRequest: Sendable {
    /// The request method, e.g. `GET`.
    var method: String
    /// The path without the query.
    var path: String
    /// Query parameters, percent-decoded, names lower-cased; the last occurrence of a name wins.
    var query: [String: String]
    /// Header fields in arrival order.
    var headers: [(name: String, value: String)]
    /// Whether the request line said HTTP/1.0 (keep-alive then needs asking for).
    var isHTTP10: Bool

    /// Returns the last value of the header named `name` (lower-case).
    func header(_ name: String) -> String? {
        headers.last { $0.name.lowercased() == name }?.value
    }

    /// Whether the client wants the connection kept open after this exchange.
    var keepAlive: Bool {
        let connection = header("connection")?.lowercased() ?? ""
        if connection.contains("close") { return false }
        return isHTTP10 ? connection.contains("keep-alive") : true
    }

    /// The declared body length, 0 when absent.
    var contentLength: Int {
        header("content-length").flatMap { Int($0.trimmingSpaces()) } ?? 0
    }

    /// Parses a request head (request line and headers, without the blank line); nil when malformed.
    init?(head: ArraySlice<UInt8>) {
        let lines = String(decoding: head, as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false)
        guard let requestLine = lines.first else { return nil }
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 3, parts[2].hasPrefix("HTTP/1.") else { return nil }
        method = String(parts[0])
        isHTTP10 = parts[2] == "HTTP/1.0"
        var target = Substring(parts[1])
        if let schemeEnd = target.range(of: "://") {
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
                let name = Self.percentDecoded(nameAndValue[0]).lowercased()
                guard !name.isEmpty else { continue }
                query[name] = nameAndValue.count > 1 ? Self.percentDecoded(nameAndValue[1]) : ""
            }
        }
        headers = []
        for line in lines.dropFirst() where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            headers.append((String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingSpaces()))
        }
    }

    /// Decodes `%XX` escapes and `+` (as a space, the form encoding clients use in queries).
    static func percentDecoded(_ text: Substring) -> String {
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
    /// Header fields other than `Content-Length` and `Connection`.
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

    /// The status line and headers, ending with the blank line; `Content-Length` is the full body size.
    func head(keepAlive: Bool) -> [UInt8] {
        var text = "HTTP/1.1 \(status) \(Self.reason(for: status))\r\n"
        for header in headers { text += "\(header.name): \(header.value)\r\n" }
        text += "Content-Length: \(body.count)\r\n"
        text += "Connection: \(keepAlive ? "keep-alive" : "close")\r\n\r\n"
        return Array(text.utf8)
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

extension StringProtocol {
    fileprivate func trimmingSpaces() -> String {
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" { slice.removeFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice.removeLast() }
        return String(slice)
    }
}
