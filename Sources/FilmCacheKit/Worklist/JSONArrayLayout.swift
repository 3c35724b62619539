/// Where the elements of a JSON document's top-level array stand, found in one pass over its bytes.
///
/// JSONSerialization gives values but not positions; this pass gives each top-level element the
/// line it starts on and its source text, for warnings. It also refuses nesting deeper than
/// `maxDepth` before the parser, which recurses, ever sees it. It follows only strings, escapes
/// and brackets: whether the document is valid JSON is the parser's call.
struct JSONArrayLayout {
    /// One element of the top-level array.
    struct Element: Equatable {
        /// The 1-based line its first byte is on.
        var line: Int
        /// Its bytes, from the first to the last that is not white space.
        var range: Range<Int>
    }

    /// Nesting past this depth (arrays and objects together) is refused; worklists need four or five.
    static let maxDepth = 64

    /// Nesting deeper than `maxDepth`; `line` is where the limit was passed.
    struct TooDeep: Error, Equatable {
        /// The 1-based line of the bracket that went too deep.
        var line: Int
    }

    /// The top-level array's elements in order; empty when the top level is not an array.
    private(set) var elements: [Element] = []

    /// Scans `bytes` from `start` (just past any byte order mark).
    init(scanning bytes: UnsafeBufferPointer<UInt8>, from start: Int) throws(TooDeep) {
        // Local constants: this loop runs once a byte, and a debug build calls `UInt8(ascii:)` or a
        // global's lazy initializer on every use.
        let (quote, backslash, comma) = (UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: ","))
        let (openArray, closeArray) = (UInt8(ascii: "["), UInt8(ascii: "]"))
        let (openObject, closeObject) = (UInt8(ascii: "{"), UInt8(ascii: "}"))
        var line = 1
        var depth = 0
        var inString = false
        var escaped = false
        var topIsArray: Bool?
        var open: (line: Int, start: Int)?
        var end = start
        func close() {
            if let element = open { elements.append(Element(line: element.line, range: element.start..<end)) }
            open = nil
        }
        var index = start
        while index < bytes.count {
            let breakLength = LineBreak.length(at: index, in: bytes)
            if breakLength > 0 {
                // White space outside strings; inside one, invalid JSON that the parser will refuse.
                line += 1
                index += breakLength
                continue
            }
            let byte = bytes[index]
            index += 1
            if inString {
                if escaped {
                    escaped = false
                } else if byte == backslash {
                    escaped = true
                } else if byte == quote {
                    inString = false
                }
                end = index
                continue
            }
            if WorklistFormat.isWhiteSpace(byte) { continue }
            if topIsArray == nil { topIsArray = byte == openArray }
            let atTop = depth == 1 && topIsArray == true
            switch byte {
            case comma, closeArray, closeObject:
                if atTop {
                    close()
                } else {
                    end = index
                }
                if byte != comma && depth > 0 { depth -= 1 }
                continue
            case openArray, openObject:
                depth += 1
                guard depth <= Self.maxDepth else { throw TooDeep(line: line) }
            case quote:
                inString = true
            default:
                break
            }
            if atTop && open == nil { open = (line, index - 1) }
            end = index
        }
    }
}
