import Foundation

extension JSONText {
    /// The three shapes of list column ``JSONText`` writes.
    package enum ListShape {
        /// `["a","b"]` (``JSONText/array(_:)``).
        case strings
        /// `[{"name":"…","role":"…"|null}]` (``JSONText/credits(_:)``).
        case credits
        /// `[{"source":"…","value":"…","score":79|null}]` (``JSONText/ratings(_:)``).
        case ratings
    }

    /// The list of `T` that `text` holds, `nil` when it is not one: read in one pass when it is in
    /// the form ``JSONText`` writes, else by `decoder`, which gives the same list for that form.
    package static func decodeList<T: Decodable>(_ text: String, _ type: T.Type, _ decoder: JSONDecoder) -> [T]? {
        var text = text
        if let list = text.withUTF8({ ExportLineReader.list($0, of: type) }) { return list }
        return try? decoder.decode([T].self, from: Data(text.utf8))
    }

    /// Whether `bytes` are exactly what ``JSONText`` writes for some list of `shape`: then reading
    /// the list and writing it again, in the canonical form or a list column, gives the same bytes,
    /// and they can be copied instead. Anything else (white space, other escapes, another key order)
    /// is `false`, for the caller to read and write the slow way.
    package static func isWrittenForm(_ bytes: UnsafeBufferPointer<UInt8>, _ shape: ListShape) -> Bool {
        var cursor = WrittenFormCursor(bytes: bytes)
        guard cursor.take("[") else { return false }
        if cursor.take("]") { return cursor.atEnd }
        repeat {
            switch shape {
            case .strings:
                guard cursor.string() else { return false }
            case .credits:
                guard cursor.take(#"{"name":"#), cursor.string(), cursor.take(#","role":"#),
                    cursor.take("null") || cursor.string(), cursor.take("}")
                else { return false }
            case .ratings:
                guard cursor.take(#"{"source":"#), cursor.string(), cursor.take(#","value":"#), cursor.string(),
                    cursor.take(#","score":"#), cursor.take("null") || cursor.integer(), cursor.take("}")
                else { return false }
            }
        } while cursor.take(",")
        return cursor.take("]") && cursor.atEnd
    }
}

/// Reads the exact text ``JSONText`` and the canonical writer produce, nothing looser.
package struct WrittenFormCursor {
    package let bytes: UnsafeBufferPointer<UInt8>
    package var index = 0

    /// A cursor at the start of `bytes`.
    package init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Whether every byte was read.
    package var atEnd: Bool { index == bytes.count }

    /// Takes `literal` when the bytes continue with it.
    package mutating func take(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - index >= count else { return false }
        let start = literal.utf8Start
        for offset in 0..<count where bytes[index + offset] != start[offset] { return false }
        index += count
        return true
    }

    /// Takes a string literal in the form ``JSONString`` writes; returns its bytes between the quotes.
    package mutating func stringBody() -> UnsafeBufferPointer<UInt8>? {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        var end = index + 1
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "\"") { break }
            end += byte == UInt8(ascii: "\\") ? 2 : 1
        }
        guard end < bytes.count else { return nil }
        let body = UnsafeBufferPointer(rebasing: bytes[(index + 1)..<end])
        guard JSONString.isWrittenForm(body) else { return nil }
        index = end + 1
        return body
    }

    /// Takes a string literal in the form ``JSONString`` writes.
    package mutating func string() -> Bool {
        stringBody() != nil
    }

    /// Takes an integer as Swift writes an `Int` (no plus, no leading zero, at most 18 digits).
    package mutating func integer() -> Bool {
        integerValue() != nil
    }

    /// Takes an integer as Swift writes an `Int` and returns it.
    package mutating func integerValue() -> Int? {
        var at = index
        let negative = at < bytes.count && bytes[at] == UInt8(ascii: "-")
        if negative { at += 1 }
        let first = at
        var value = 0
        while at < bytes.count, (0x30...0x39).contains(bytes[at]), at - first < 18 {
            value = value * 10 + Int(bytes[at] - 0x30)
            at += 1
        }
        guard at > first, at == bytes.count || !(0x30...0x39).contains(bytes[at]) else { return nil }
        // `0` alone, else no leading zero; `-0` is not how an Int is written.
        guard bytes[first] != 0x30 || (at - first == 1 && !negative) else { return nil }
        index = at
        return negative ? -value : value
    }
}
