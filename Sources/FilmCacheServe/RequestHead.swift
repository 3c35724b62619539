/// The head of an HTTP/1.1 request at the start of a connection's unread bytes, read only as far as
/// ``RawHits`` needs: where it ends, and whether it may be a plain film request answered from memory.
///
/// It reads a strict subset of HTTP/1.1: `GET` or `HEAD`, an origin-form target of visible ASCII,
/// `HTTP/1.1`, fields of token names and values of visible ASCII, spaces and tabs, every line ended
/// by CR LF, no field that gives the request a body or changes how the connection goes on
/// (`Content-Length`, `Transfer-Encoding`, `Upgrade`, `Expect`, `Proxy-Connection`, a `Connection`
/// but `keep-alive` or `close`). A head within it has no body and ends where its blank line ends,
/// read by any parser the same way, NIO's included. Anything else is ``Scan/other``: the bytes from
/// there on are the HTTP/1 decoder's, which reads them as it always did, errors and limits included.
struct RequestHead: Equatable {
    /// The head's length, its blank line included: the whole request.
    let length: Int
    /// Where the query lies (after `GET /?`) when the request may be a memory hit: a `GET` of `/?…`
    /// with a query of plain characters and no `Connection` field but `keep-alive`, within
    /// `maxHitHead` bytes. nil when it takes the router whatever it asks.
    let query: Range<Int>?
    /// `Connection: close`: the connection ends with this request's answer.
    var closes = false

    enum Scan: Equatable {
        case whole(RequestHead)
        /// The bytes so far are a head's beginning, within `limit`: more are needed.
        case unfinished
        /// Not a head read here.
        case other
    }

    /// Reads the head at the start of `bytes`. A head not ended within `limit` bytes is
    /// ``Scan/other``; one with more than `maxFields` fields, too.
    static func scan(_ bytes: UnsafeRawBufferPointer, limit: Int, maxFields: Int, maxHitHead: Int) -> Scan {
        var reader = Reader(bytes: bytes)
        let get: Bool
        if reader.skip("GET ") {
            get = true
        } else if reader.skip("HEAD ") {
            get = false
        } else {
            return reader.atEnd ? .unfinished : .other
        }
        // The target: origin-form, visible ASCII up to the space.
        let targetStart = reader.index
        guard reader.peek(UInt8(ascii: "/")) else { return reader.atEnd ? reader.stop(limit) : .other }
        var plain = true
        while let byte = reader.next() {
            if byte == UInt8(ascii: " ") { break }
            guard byte > 0x20, byte < 0x7F else { return .other }
            plain = plain && Self.plainQueryByte(byte)
        }
        guard reader.last == UInt8(ascii: " ") else { return reader.stop(limit) }
        let target = targetStart..<(reader.index - 1)
        guard reader.skip("HTTP/1.1\r\n") else { return reader.atEnd ? reader.stop(limit) : .other }
        var hit = get && plain && target.count >= 2 && bytes[target.lowerBound + 1] == UInt8(ascii: "?")
        var fields = 0
        var closes = false
        while true {
            // A field line, or the blank line that ends the head.
            guard let first = reader.next() else { return reader.stop(limit) }
            if first == UInt8(ascii: "\r") {
                guard let lf = reader.next() else { return reader.stop(limit) }
                guard lf == UInt8(ascii: "\n"), reader.index <= limit else { return .other }
                let length = reader.index
                hit = hit && length <= maxHitHead
                let query = hit ? (target.lowerBound + 2)..<target.upperBound : nil
                return .whole(RequestHead(length: length, query: query, closes: closes))
            }
            fields += 1
            guard fields <= maxFields, Self.tokenByte(first) else { return .other }
            let nameStart = reader.index - 1
            while let byte = reader.next(), byte != UInt8(ascii: ":") {
                guard Self.tokenByte(byte) else { return .other }
            }
            guard reader.last == UInt8(ascii: ":") else { return reader.stop(limit) }
            let name = UnsafeRawBufferPointer(rebasing: bytes[nameStart..<(reader.index - 1)])
            let valueStart = reader.index
            while let byte = reader.next(), byte != UInt8(ascii: "\r") {
                guard byte == UInt8(ascii: "\t") || (byte >= 0x20 && byte < 0x7F) else { return .other }
            }
            guard reader.last == UInt8(ascii: "\r") else { return reader.stop(limit) }
            let value = UnsafeRawBufferPointer(rebasing: bytes[valueStart..<(reader.index - 1)])
            guard let lf = reader.next() else { return reader.stop(limit) }
            guard lf == UInt8(ascii: "\n") else { return .other }
            switch Self.field(name, value) {
            case .framing: return .other
            case .closing:
                hit = false
                closes = true
            case .plain: break
            }
        }
    }

    private enum FieldKind { case plain, closing, framing }

    /// What a field means to the head's reading: nothing (`plain`); the connection's end after the
    /// answer, which the router gives (`closing`: `Connection: close`); or a body, an upgrade or a
    /// wait the decoder must see (`framing`).
    private static func field(_ name: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) -> FieldKind {
        // By length first: most names are none of these, and are told so without a comparison.
        switch name.count {
        case 10 where name.isLowercased("connection"):
            var lower = value.startIndex
            var upper = value.endIndex
            while lower < upper, value[lower] == 0x20 || value[lower] == 0x09 { lower += 1 }
            while upper > lower, value[upper - 1] == 0x20 || value[upper - 1] == 0x09 { upper -= 1 }
            let text = UnsafeRawBufferPointer(rebasing: value[lower..<upper])
            if text.isLowercased("keep-alive") { return .plain }
            if text.isLowercased("close") { return .closing }
            return .framing
        case 14 where name.isLowercased("content-length"), 17 where name.isLowercased("transfer-encoding"),
            7 where name.isLowercased("upgrade"), 6 where name.isLowercased("expect"),
            16 where name.isLowercased("proxy-connection"):
            return .framing
        default:
            return .plain
        }
    }

    /// RFC 9110's `tchar`.
    private static func tokenByte(_ byte: UInt8) -> Bool { tokenBytes[Int(byte)] }

    /// A byte of a target that may be a memory hit: RFC 3986's unreserved and sub-delimiters, `/`,
    /// `?`, `:` and `@` (no `%`: a hit's query has nothing to decode).
    private static func plainQueryByte(_ byte: UInt8) -> Bool { plainQueryBytes[Int(byte)] }

    private static let tokenBytes = table(alphanumericsAnd: "!#$%&'*+-.^_`|~")
    private static let plainQueryBytes = table(alphanumericsAnd: "-._~!$&'()*+,;=:@/?")

    /// Whether each byte is an ASCII letter or digit or one of `others`.
    private static func table(alphanumericsAnd others: String) -> [Bool] {
        (0..<256).map { value in
            let byte = UInt8(value)
            return (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || others.utf8.contains(byte)
        }
    }

    /// Steps over a buffer's bytes.
    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        private(set) var index = 0

        var atEnd: Bool { index == bytes.count }
        /// The byte just read.
        var last: UInt8? { index > 0 ? bytes[index - 1] : nil }

        mutating func next() -> UInt8? {
            guard index < bytes.count else { return nil }
            defer { index += 1 }
            return bytes[index]
        }

        func peek(_ byte: UInt8) -> Bool { index < bytes.count && bytes[index] == byte }

        /// Reads `text` when the bytes go on with it. When they end before it does, while matching
        /// it, the index stays and ``atEnd`` is not set: callers check ``stop(_:)``.
        mutating func skip(_ text: StaticString) -> Bool {
            text.withUTF8Buffer { text in
                let available = min(text.count, bytes.count - index)
                guard bytes[index..<(index + available)].elementsEqual(text.prefix(available)) else { return false }
                guard available == text.count else {
                    index = bytes.count
                    return false
                }
                index += text.count
                return true
            }
        }

        /// Where a head that has not ended yet stands: ``Scan/unfinished`` within `limit`, else ``Scan/other``.
        func stop(_ limit: Int) -> Scan { bytes.count < limit ? .unfinished : .other }
    }
}

extension UnsafeRawBufferPointer {
    /// Whether these bytes, ASCII letters lowercased, are `lowercase`.
    fileprivate func isLowercased(_ lowercase: StaticString) -> Bool {
        guard count == lowercase.utf8CodeUnitCount else { return false }
        let letters = lowercase.utf8Start
        for index in 0..<count {
            let byte = self[index]
            guard (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte) == letters[index]
            else { return false }
        }
        return true
    }
}
