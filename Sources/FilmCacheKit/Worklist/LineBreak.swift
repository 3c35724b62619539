/// Where lines end in worklist bytes: at LF, CRLF or a lone CR, as editors count them.
///
/// Every format numbers lines this way, so a warning's `file:line` is the line an editor shows.
/// (`Character.isNewline` would also break at form feeds, NEL and U+2028.)
enum LineBreak {
    /// The length of the line break that starts at `index`: 2 for CRLF, 1 for LF or a lone CR, 0 for none.
    static func length(at index: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Int {
        // Literals, not named constants: this runs once a byte, and a debug build would call a
        // global's lazy initializer on every use.
        switch bytes[index] {
        case 0x0A: 1  // LF
        case 0x0D: index + 1 < bytes.count && bytes[index + 1] == 0x0A ? 2 : 1  // CR, CRLF
        default: 0
        }
    }

    /// Calls `body` with each line of `bytes[start...]`, numbered from 1, line breaks left out.
    ///
    /// Text after the last line break counts as a line, even when it is empty.
    static func forEachLine(in bytes: UnsafeBufferPointer<UInt8>, from start: Int, _ body: (Int, Range<Int>) -> Void) {
        var number = 1
        var lineStart = start
        var index = start
        while index < bytes.count {
            let breakLength = length(at: index, in: bytes)
            if breakLength == 0 {
                index += 1
                continue
            }
            body(number, lineStart..<index)
            number += 1
            index += breakLength
            lineStart = index
        }
        body(number, lineStart..<bytes.count)
    }

    /// The 1-based line that the byte at `offset` stands on, counting from `start`.
    static func line(of offset: Int, in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var line = 1
        forEachLine(in: UnsafeBufferPointer(rebasing: bytes[..<offset]), from: start) { number, _ in line = number }
        return line
    }

    /// The 1-based line and column (in characters) of the byte at `offset`, counting from `start`.
    static func place(of offset: Int, in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> (line: Int, column: Int)
    {
        var line = 1
        var lineStart = start
        forEachLine(in: UnsafeBufferPointer(rebasing: bytes[..<offset]), from: start) { number, range in
            line = number
            lineStart = range.lowerBound
        }
        let before = UnsafeBufferPointer(rebasing: bytes[lineStart..<offset])
        return (line, String(decoding: before, as: UTF8.self).count + 1)
    }
}
