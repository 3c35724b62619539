import Foundation

/// Reads JSON worklists: a top-level array of ID strings or of objects that carry an ID.
///
/// An object gives its ID as `imdbID`, `imdb_id` or `ids.imdb`; Trakt's exports wrap the film in
/// `movie`, `show` or `episode` (`{"type": "movie", "movie": {"ids": {"imdb": "tt…"}}}`), so when
/// the object has none of those keys itself, the one named by its `type` (else `movie`, `episode`,
/// `show`, in that order) is searched the same way. A `null` value counts as absent.
///
/// An element that gives no IMDb title ID is skipped with one warning whose line is the line the
/// element starts on in the file and whose reason says `element N` (1-based array index).
public enum JSONWorklist {
    /// Parses `data` as JSON; `file` names it in warnings and errors.
    ///
    /// Throws `malformed` for text that is not JSON, a top level that is not an array, NUL bytes,
    /// or nesting deeper than `JSONArrayLayout.maxDepth`.
    public static func parse(_ data: Data, file: String) throws(WorklistError) -> ParsedWorklist {
        let bytes = Array(data)
        let start = WorklistFormat.startAfterBOM(bytes)
        // JSONSerialization takes NULs for a sign of UTF-16 or UTF-32; JSON worklists are UTF-8 and have none.
        let nulLine = bytes.withUnsafeBufferPointer { buffer in
            buffer.firstIndex(of: 0).map { LineBreak.line(of: $0, in: buffer, from: start) }
        }
        if let nulLine { throw .malformed(path: file, line: nulLine, reason: "NUL byte: not JSON text") }
        let layout: JSONArrayLayout
        do throws(JSONArrayLayout.TooDeep) {
            layout = try bytes.withUnsafeBufferPointer { buffer throws(JSONArrayLayout.TooDeep) in
                try JSONArrayLayout(scanning: buffer, from: start)
            }
        } catch {
            throw .malformed(
                path: file, line: error.line, reason: "JSON nests deeper than \(JSONArrayLayout.maxDepth) levels")
        }
        let document: Any
        do {
            document = try JSONSerialization.jsonObject(with: Data(bytes[start...]))
        } catch {
            throw invalid(error, in: bytes, from: start, file: file)
        }
        guard let array = document as? [Any] else {
            throw .malformed(path: file, line: nil, reason: "expected a JSON array of IDs or objects at the top level")
        }
        var parsed = ParsedWorklist(file: file)
        parsed.reserveCapacity(array.count)
        for (index, element) in array.enumerated() {
            let place = layout.elements.indices.contains(index) ? layout.elements[index] : nil
            let line = place?.line ?? 1
            let text = place.map { String(decoding: bytes[$0.range], as: UTF8.self) } ?? "\(element)"
            let found = candidate(in: element)
            let subject = "element \(index + 1)" + (found?.key.map { ": " + $0 } ?? "")
            if let id = found?.value as? String {
                parsed.take(id, line: line, reason: "\(subject) is not an IMDb title ID")
            } else if found == nil, let query = titleQuery(in: element) {
                parsed.append(query, line: line)
            } else {
                let reason =
                    found == nil
                    ? "\(subject) has no imdbID, imdb_id, ids.imdb or title" : "\(subject) is not a string"
                parsed.warnings.append(
                    WorklistWarning(file: file, line: line, text: text, reason: reason, verbatim: true))
            }
        }
        return parsed
    }

    /// The error for text JSONSerialization refused, at the line and column it names.
    ///
    /// Foundation says where as "around character N", a byte offset; people and editors count
    /// lines and columns, so the offset becomes those and leaves the message.
    private static func invalid(_ error: any Error, in bytes: [UInt8], from start: Int, file: String) -> WorklistError {
        var detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? ""
        var offset: Int?
        if let range = detail.range(of: " around character ") {
            let digits = detail[range.upperBound...].prefix { $0.isASCII && $0.isNumber }
            offset = Int(digits).map { start + $0 }
            detail = String(detail[..<range.lowerBound])
        } else if detail.localizedCaseInsensitiveContains("end of file") {
            offset = bytes.count
        }
        while detail.hasSuffix(".") { detail.removeLast() }
        let reason =
            "not valid JSON" + (detail.isEmpty ? "" : ": " + detail.prefix(1).lowercased() + detail.dropFirst())
        guard let offset, offset >= start, offset <= bytes.count else {
            return .malformed(path: file, line: nil, reason: reason)
        }
        let place = bytes.withUnsafeBufferPointer { LineBreak.place(of: offset, in: $0, from: start) }
        return .malformed(path: file, line: place.line, column: place.column, reason: reason)
    }

    /// The film an object names by title (`title` or `name`, with `year` and `type` if given), itself
    /// or in the wrapper its `type` names (else `movie`, `episode`, `show`); `nil` when it names none.
    private static func titleQuery(in element: Any) -> TitleQuery? {
        guard let object = element as? [String: Any] else { return nil }
        if let query = titleQuery(inObject: object, type: nil) { return query }
        let wrappers = (object["type"] as? String).map { [$0] } ?? ["movie", "episode", "show"]
        for wrapper in wrappers {
            if let inner = object[wrapper] as? [String: Any], let query = titleQuery(inObject: inner, type: wrapper) {
                return query
            }
        }
        return nil
    }

    /// The title query of one object's own `title`/`name`, `year` and `type` (else `type`).
    private static func titleQuery(inObject object: [String: Any], type: String?) -> TitleQuery? {
        func value(_ keys: [String]) -> Any? { keys.lazy.compactMap { object[$0] }.first { !($0 is NSNull) } }
        guard let title = value(["title", "Title", "name", "Name"]) as? String else { return nil }
        var year: Int?
        switch value(["year", "Year"]) {
        case let number as NSNumber: year = number.intValue
        case let text as String: year = Int(text.prefix(4))
        default: year = nil
        }
        return TitleQuery(title: title, year: year, type: value(["type", "Type"]) as? String ?? type)
    }

    /// The value an element offers as its ID and the key path it sits at (`nil` for a bare string).
    private static func candidate(in element: Any) -> (value: Any, key: String?)? {
        if element is String { return (element, nil) }
        guard let object = element as? [String: Any] else { return nil }
        if let found = candidate(inObject: object) { return (found.value, found.key) }
        let wrappers = (object["type"] as? String).map { [$0] } ?? ["movie", "episode", "show"]
        for wrapper in wrappers {
            if let inner = object[wrapper] as? [String: Any], let found = candidate(inObject: inner) {
                return (found.value, wrapper + "." + found.key)
            }
        }
        return nil
    }

    /// The first of `imdbID`, `imdb_id` and `ids.imdb` that `object` holds and is not `null`.
    private static func candidate(inObject object: [String: Any]) -> (value: Any, key: String)? {
        for key in ["imdbID", "imdb_id"] {
            if let value = object[key], !(value is NSNull) { return (value, key) }
        }
        if let ids = object["ids"] as? [String: Any], let value = ids["imdb"], !(value is NSNull) {
            return (value, "ids.imdb")
        }
        return nil
    }
}
