/// Where the values of a JSON text stand, found without decoding them: enough to take a document
/// embedded in an export line back byte for byte.
///
/// Structure only: strings (with their escapes), objects and arrays are followed; a number or a
/// literal is taken as it stands up to its delimiter and left for a real reader to judge.
package enum JSONSpan {
    /// One member of an object: its key (as written between its quotes) and the bytes of its value.
    package struct Member: Equatable {
        package var key: String
        package var value: Range<Int>
    }

    /// The members of the object that spans `range` of `bytes` (white space around it allowed), in
    /// the order written; `nil` when the range holds anything but one object.
    package static func members(_ bytes: [UInt8], in range: Range<Int>) -> [Member]? {
        var index = skipSpace(bytes, range.lowerBound, range.upperBound)
        guard index < range.upperBound, bytes[index] == UInt8(ascii: "{") else { return nil }
        index = skipSpace(bytes, index + 1, range.upperBound)
        var members: [Member] = []
        if index < range.upperBound, bytes[index] == UInt8(ascii: "}") {
            return skipSpace(bytes, index + 1, range.upperBound) == range.upperBound ? members : nil
        }
        while index < range.upperBound {
            guard bytes[index] == UInt8(ascii: "\""), let keyEnd = valueEnd(bytes, index, range.upperBound) else {
                return nil
            }
            let key = String(decoding: bytes[(index + 1)..<(keyEnd - 1)], as: UTF8.self)
            index = skipSpace(bytes, keyEnd, range.upperBound)
            guard index < range.upperBound, bytes[index] == UInt8(ascii: ":") else { return nil }
            index = skipSpace(bytes, index + 1, range.upperBound)
            guard let end = valueEnd(bytes, index, range.upperBound) else { return nil }
            members.append(Member(key: key, value: index..<end))
            index = skipSpace(bytes, end, range.upperBound)
            guard index < range.upperBound else { return nil }
            if bytes[index] == UInt8(ascii: "}") {
                return skipSpace(bytes, index + 1, range.upperBound) == range.upperBound ? members : nil
            }
            guard bytes[index] == UInt8(ascii: ",") else { return nil }
            index = skipSpace(bytes, index + 1, range.upperBound)
        }
        return nil
    }

    /// The members of the object `bytes` hold as a whole.
    package static func members(_ bytes: [UInt8]) -> [Member]? {
        members(bytes, in: bytes.startIndex..<bytes.endIndex)
    }

    /// The key of the first member of the object `bytes` start with, read no further than it;
    /// `nil` when they do not start with an object that has a member.
    package static func firstKey(_ bytes: [UInt8]) -> String? {
        var index = skipSpace(bytes, 0, bytes.count)
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { return nil }
        index = skipSpace(bytes, index + 1, bytes.count)
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let end = valueEnd(bytes, index, bytes.count)
        else { return nil }
        return String(decoding: bytes[(index + 1)..<(end - 1)], as: UTF8.self)
    }

    /// The end of the value that starts at `start`, not past `limit`; `nil` when it does not end there.
    private static func valueEnd(_ bytes: [UInt8], _ start: Int, _ limit: Int) -> Int? {
        guard start < limit else { return nil }
        var index = start
        switch bytes[index] {
        case UInt8(ascii: "\""):
            index += 1
            while index < limit {
                switch bytes[index] {
                case UInt8(ascii: "\\"): index += 2
                case UInt8(ascii: "\""): return index + 1
                default: index += 1
                }
            }
            return nil
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            while index < limit {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    guard let end = valueEnd(bytes, index, limit) else { return nil }
                    index = end
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return index + 1 }
                default:
                    break
                }
                index += 1
            }
            return nil
        default:
            while index < limit {
                let byte = bytes[index]
                if byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]")
                    || RecordReader.isWhiteSpace(byte)
                {
                    break
                }
                index += 1
            }
            return index > start ? index : nil
        }
    }

    private static func skipSpace(_ bytes: [UInt8], _ start: Int, _ limit: Int) -> Int {
        var index = start
        while index < limit, RecordReader.isWhiteSpace(bytes[index]) { index += 1 }
        return index
    }
}
