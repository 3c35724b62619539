import Foundation

/// Reads a file (or standard input) in 64 KiB chunks and hands out one line, or one CSV record, at a time.
///
/// Memory stays flat however long the input: only the chunk and the record being read are held.
/// Lines end at LF, CRLF or a lone CR, numbered as ``LineBreak`` numbers them. In CSV mode a line
/// break inside a quoted field belongs to the field, read by the same rules as ``CSVReader``: a
/// quote opens a quoted field only at the start of a field, `""` inside one is a quote, and text
/// after the closing quote joins the field. A record longer than ``maximumLength`` is cut short
/// (its bytes dropped, ``Record/tooLong`` set).
///
/// A quote that is never closed must cost one record, not the rest of the file. With
/// ``resyncsAtIMDbIDs`` (a filmcache export, whose records start with their `imdb_id`), a record
/// already cut short ends at a line break inside a quoted field that is followed by what starts a
/// record (`tt` and 7 to 10 digits, then a comma); a record within the cap keeps every quoted line
/// break (a plot may hold a line like that), and one that then does not read is split at such
/// lines by ``split(_:)``. Without it, a record cut short ends at the next line break, quoted or not.
final class RecordReader {
    /// How records end.
    enum Mode {
        /// Every line break ends a record.
        case lines
        /// Line breaks inside quoted fields do not.
        case csv
    }

    /// One line or record, without its line break.
    struct Record {
        /// The bytes, empty when `tooLong`.
        var bytes: [UInt8]
        /// The 1-based line it starts on.
        var line: Int
        /// Whether it was longer than ``RecordReader/maximumLength`` and dropped.
        var tooLong = false
    }

    /// The longest record kept: OMDb bodies are capped at 1 MiB, and an export line holds one twice at most.
    static let maximumLength = 4 << 20

    /// The name the reader was opened with (`-` for standard input).
    let name: String
    private let descriptor: Int32
    private let closes: Bool
    private var buffer: [UInt8]
    private var start = 0
    private var end = 0
    private var atEnd = false
    private var line = 1
    /// A record ended at a CR: an LF right after it is part of the same line break.
    private var afterCR = false
    private var beganReading = false
    private let limit: Int
    /// Whether a quoted line break followed by the start of an export record ends the record.
    var resyncsAtIMDbIDs = false

    /// Opens `path` for reading; `-` is standard input.
    static func open(_ path: String, maximumLength: Int = RecordReader.maximumLength) throws(TransferError)
        -> RecordReader
    {
        if path == "-" { return RecordReader(name: path, descriptor: 0, closes: false, maximumLength: maximumLength) }
        let descriptor = Foundation.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        return RecordReader(name: path, descriptor: descriptor, closes: true, maximumLength: maximumLength)
    }

    private init(name: String, descriptor: Int32, closes: Bool, maximumLength: Int) {
        self.name = name
        self.descriptor = descriptor
        self.closes = closes
        self.limit = maximumLength
        buffer = [UInt8](repeating: 0, count: 64 << 10)
    }

    deinit {
        if closes { close(descriptor) }
    }

    /// The first byte that is not white space (after a UTF-8 byte order mark), without consuming
    /// it; `nil` when the input holds nothing else.
    func firstSignificantByte() throws(TransferError) -> UInt8? {
        try skipByteOrderMark()
        var offset = 0
        while true {
            // `fill` moves the unread bytes to the front, so an offset from `start` stays valid.
            if start + offset == end {
                guard try fill() else { return nil }
                continue
            }
            let byte = buffer[start + offset]
            if !Self.isWhiteSpace(byte) { return byte }
            offset += 1
        }
    }

    /// The next record, or `nil` at the end of the input.
    func next(_ mode: Mode) throws(TransferError) -> Record? {
        try skipByteOrderMark()
        var record = Record(bytes: [], line: line)
        var state = CSVState.fieldStart
        var previous: UInt8 = 0
        var began = false
        while true {
            if start == end {
                guard try fill() else { return began ? record : nil }
            }
            if afterCR {
                afterCR = false
                if buffer[start] == 0x0A {
                    start += 1
                    continue
                }
            }
            // Scan no further than one byte past the limit, so a record too long is known as soon as it is.
            let stop = record.tooLong ? end : min(end, start + limit - record.bytes.count + 1)
            // Only past the cap: within it, a quoted line break is the field's until the record is read.
            let lookahead = resyncsAtIMDbIDs && record.tooLong ? (atEnd ? end : -end) : nil
            let scanned = buffer.withUnsafeBufferPointer { bytes in
                Self.scan(
                    bytes, from: start, to: stop, lookahead: lookahead, mode: mode, state: &state,
                    previous: &previous, line: &line)
            }
            let taken = scanned.end - start
            began = true
            if !record.tooLong {
                if record.bytes.count + taken > limit {
                    record.tooLong = true
                    record.bytes = []
                    // Past the limit, and with no record start to look for, a quote no longer holds
                    // line breaks: the record ends at the next one.
                    if state == .quoted && !resyncsAtIMDbIDs { state = .unquoted }
                } else {
                    buffer.withUnsafeBufferPointer { bytes in
                        record.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<scanned.end]))
                    }
                }
            }
            start = scanned.end
            if scanned.needsMore {
                // A quoted line break whose next bytes are not read yet: read on, then look again.
                guard try fill() else { continue }
                continue
            }
            guard scanned.found else { continue }
            // `start` is on the line break.
            afterCR = buffer[start] == 0x0D
            start += 1
            line += 1
            return record
        }
    }

    /// Where a CSV scan stands between bytes.
    private enum CSVState {
        case fieldStart, unquoted, quoted, quoteInQuoted
    }

    /// Scans `bytes[from..<to]` for the line break that ends the record; returns its index (or `to`)
    /// and whether one was found, or that the bytes after a quoted line break must be read first
    /// (`needsMore`, the index on that break). Line breaks inside quoted fields are counted in `line`.
    ///
    /// `lookahead`, when not `nil`, is where the buffer's bytes end (negative while more may come):
    /// a quoted line break followed there by the start of an export record ends the record.
    private static func scan(
        _ bytes: UnsafeBufferPointer<UInt8>, from: Int, to: Int, lookahead: Int?, mode: Mode,
        state: inout CSVState, previous: inout UInt8, line: inout Int
    ) -> (end: Int, found: Bool, needsMore: Bool) {
        var index = from
        if mode == .lines {
            while index < to {
                let byte = bytes[index]
                if byte == 0x0A || byte == 0x0D { return (index, true, false) }
                index += 1
            }
            previous = to > from ? bytes[to - 1] : previous
            return (to, false, false)
        }
        while index < to {
            // Inside a quoted field only a quote or a line break, inside an unquoted one only a comma
            // or a line break, changes anything but `previous`: runs of other bytes are passed over.
            if state == .quoted || state == .unquoted {
                let run = index
                if state == .quoted {
                    while index < to, bytes[index] != 0x22, bytes[index] != 0x0A, bytes[index] != 0x0D { index += 1 }
                } else {
                    while index < to, bytes[index] != 0x2C, bytes[index] != 0x0A, bytes[index] != 0x0D { index += 1 }
                }
                if index > run { previous = bytes[index - 1] }
                if index == to { break }
            }
            let byte = bytes[index]
            let isBreak = byte == 0x0A || byte == 0x0D
            switch state {
            case .quoted:
                if byte == 0x22 {
                    state = .quoteInQuoted
                } else if isBreak && !(byte == 0x0A && previous == 0x0D) {
                    if let lookahead {
                        switch startsRecord(bytes, after: index, end: abs(lookahead), more: lookahead < 0) {
                        case true?:
                            previous = byte
                            return (index, true, false)
                        case nil: return (index, false, true)
                        case false?: break
                        }
                    }
                    line += 1
                }
            case .fieldStart, .unquoted, .quoteInQuoted:
                if isBreak {
                    previous = byte
                    return (index, true, false)
                }
                if byte == 0x22 && state != .unquoted {
                    state = .quoted
                } else {
                    state = byte == 0x2C ? .fieldStart : .unquoted
                }
            }
            previous = byte
            index += 1
        }
        return (to, false, false)
    }

    /// `record` cut at every line break followed by the start of an export record: the record as
    /// read when there is none, else its first part and the records that follow, each on its line.
    ///
    /// For a record that does not read (a quote never closed): what came after the broken field is
    /// read again instead of lost with it.
    static func split(_ record: Record) -> [Record] {
        var parts: [Record] = []
        var start = 0
        var line = record.line
        var startLine = line
        record.bytes.withUnsafeBufferPointer { bytes in
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                guard byte == 0x0A || byte == 0x0D else {
                    index += 1
                    continue
                }
                let crlf = byte == 0x0D && index + 1 < bytes.count && bytes[index + 1] == 0x0A
                line += 1
                if startsRecord(bytes, after: index, end: bytes.count, more: false) == true {
                    parts.append(Record(bytes: Array(bytes[start..<index]), line: startLine))
                    start = index + (crlf ? 2 : 1)
                    startLine = line
                }
                index += crlf ? 2 : 1
            }
        }
        guard !parts.isEmpty else { return [record] }
        // A quote never closed runs to the end of the input, its last line break included.
        var last = Array(record.bytes[start...])
        while let byte = last.last, byte == 0x0A || byte == 0x0D { last.removeLast() }
        parts.append(Record(bytes: last, line: startLine))
        return parts
    }

    /// The longest start of an export record looked for: an optional quote, `tt`, 10 digits, a quote, a comma.
    private static let recordStartLength = 15

    /// Whether the bytes after the line break at `index` (a CR's LF passed over) start an export
    /// record: `tt`, 7 to 10 digits, then a comma (the ID perhaps quoted). `nil` when the bytes
    /// read so far (to `end`) cannot tell and `more` may come.
    private static func startsRecord(_ bytes: UnsafeBufferPointer<UInt8>, after index: Int, end: Int, more: Bool)
        -> Bool?
    {
        var at = index + 1
        if bytes[index] == 0x0D {
            guard at < end else { return more ? nil : false }
            if bytes[at] == 0x0A { at += 1 }
        }
        guard end - at >= recordStartLength || !more else { return nil }
        func byte(_ offset: Int) -> UInt8? { at + offset < end ? bytes[at + offset] : nil }
        var offset = 0
        let quoted = byte(0) == 0x22
        if quoted { offset += 1 }
        guard byte(offset) == UInt8(ascii: "t"), byte(offset + 1) == UInt8(ascii: "t") else { return false }
        offset += 2
        var digits = 0
        while let digit = byte(offset), (0x30...0x39).contains(digit), digits < 10 {
            digits += 1
            offset += 1
        }
        guard (7...10).contains(digits) else { return false }
        if quoted {
            guard byte(offset) == 0x22 else { return false }
            offset += 1
        }
        return byte(offset) == 0x2C
    }

    /// Reads the next chunk; `false` at the end of the input.
    private func fill() throws(TransferError) -> Bool {
        guard !atEnd else { return false }
        if start > 0 {
            buffer.withUnsafeMutableBufferPointer { bytes in
                _ = memmove(bytes.baseAddress!, bytes.baseAddress! + start, end - start)
            }
            end -= start
            start = 0
        }
        if end == buffer.count { buffer.append(contentsOf: repeatElement(0, count: buffer.count)) }
        while true {
            let count = buffer.withUnsafeMutableBufferPointer { bytes in
                read(descriptor, bytes.baseAddress! + end, bytes.count - end)
            }
            if count > 0 {
                end += count
                return true
            }
            if count == 0 {
                atEnd = true
                return false
            }
            if errno == EINTR { continue }
            throw .cannotRead(path: name, reason: String(cString: strerror(errno)))
        }
    }

    /// Skips a UTF-8 byte order mark at the very start of the input.
    private func skipByteOrderMark() throws(TransferError) {
        guard !beganReading else { return }
        beganReading = true
        while end - start < 3, try fill() {}
        if end - start >= 3, buffer[start] == 0xEF, buffer[start + 1] == 0xBB, buffer[start + 2] == 0xBF {
            start += 3
        }
    }

    /// Space, tab, LF, CR.
    static func isWhiteSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
