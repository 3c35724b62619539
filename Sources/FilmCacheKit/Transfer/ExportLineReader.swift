import Foundation

/// Reads an export line written by filmcache (``IMDBFilm/appendExportLine(to:)``) straight from its
/// bytes, in one pass and without a JSON tree.
///
/// Only the exact form the writer produces is read: every key in documented order, no white
/// space, strings with only the writer's escapes, numbers as Swift writes them. Anything else
/// (a line edited by hand, another writer's JSON, a value that does not read) gives `nil`, and the
/// caller reads the line with `JSONDecoder`, which accepts any valid JSON and names what is wrong;
/// so a line this reads gives the film that reader would give.
enum ExportLineReader {
    /// The film on `line`, or `nil` when it is not in the written form.
    static func film(_ line: UnsafeBufferPointer<UInt8>) -> IMDBFilm? {
        var reader = Reader(cursor: WrittenFormCursor(bytes: line))
        return reader.film()
    }

    /// The list of `type` (`String`, `Credit` or `Rating`) that `bytes` hold in the form ``JSONText``
    /// writes, or `nil` when they are in another.
    static func list<T>(_ bytes: UnsafeBufferPointer<UInt8>, of type: T.Type) -> [T]? {
        var reader = Reader(cursor: WrittenFormCursor(bytes: bytes))
        let list: [T]?
        switch type {
        case is String.Type: list = reader.strings() as? [T]
        case is Credit.Type: list = reader.credits() as? [T]
        case is Rating.Type: list = reader.ratings() as? [T]
        default: return nil
        }
        return reader.cursor.atEnd ? list : nil
    }

    private struct Reader {
        var cursor: WrittenFormCursor
        /// Reused for strings with escapes.
        var scratch: [UInt8] = []

        mutating func film() -> IMDBFilm? {
            guard cursor.take(#"{"imdbID":"#), let imdbID = string() else { return nil }
            var film = IMDBFilm(imdbID: imdbID, lastFetched: .distantPast, dataVersion: 0, rawJSON: "")
            guard cursor.take(#","title":"#), let title = optionalString() else { return nil }
            film.title = title
            guard cursor.take(#","type":"#), let type = optionalString() else { return nil }
            film.type = type.map(FilmType.init(omdb:))
            guard cursor.take(#","yearStart":"#), let yearStart = optionalInt() else { return nil }
            film.yearStart = yearStart
            guard cursor.take(#","yearEnd":"#), let yearEnd = optionalInt() else { return nil }
            film.yearEnd = yearEnd
            guard cursor.take(#","rated":"#), let rated = optionalString() else { return nil }
            film.rated = rated
            guard cursor.take(#","released":"#), let released = dateOrNull() else { return nil }
            film.released = released
            guard cursor.take(#","runtimeMinutes":"#), let runtime = optionalInt() else { return nil }
            film.runtimeMinutes = runtime
            guard cursor.take(#","genres":"#), let genres = strings() else { return nil }
            film.genres = genres
            guard cursor.take(#","directors":"#), let directors = strings() else { return nil }
            film.directors = directors
            guard cursor.take(#","writers":"#), let writers = credits() else { return nil }
            film.writers = writers
            guard cursor.take(#","actors":"#), let actors = strings() else { return nil }
            film.actors = actors
            guard cursor.take(#","languages":"#), let languages = strings() else { return nil }
            film.languages = languages
            guard cursor.take(#","countries":"#), let countries = strings() else { return nil }
            film.countries = countries
            guard cursor.take(#","plot":"#), let plot = optionalString() else { return nil }
            film.plot = plot
            guard cursor.take(#","awards":"#), let awards = optionalString() else { return nil }
            film.awards = awards
            guard cursor.take(#","posterURL":"#), let posterURL = optionalString() else { return nil }
            film.posterURL = posterURL
            guard cursor.take(#","imdbRating":"#), let rating = optionalDouble() else { return nil }
            film.imdbRating = rating
            guard cursor.take(#","imdbVotes":"#), let votes = optionalInt() else { return nil }
            film.imdbVotes = votes
            guard cursor.take(#","metascore":"#), let metascore = optionalInt() else { return nil }
            film.metascore = metascore
            guard cursor.take(#","ratings":"#), let ratings = ratings() else { return nil }
            film.ratings = ratings
            guard cursor.take(#","boxOfficeUSD":"#), let boxOffice = optionalInt() else { return nil }
            film.boxOfficeUSD = boxOffice
            guard cursor.take(#","totalSeasons":"#), let seasons = optionalInt() else { return nil }
            film.totalSeasons = seasons
            guard cursor.take(#","season":"#), let season = optionalInt() else { return nil }
            film.season = season
            guard cursor.take(#","episode":"#), let episode = optionalInt() else { return nil }
            film.episode = episode
            guard cursor.take(#","seriesID":"#), let seriesID = optionalString() else { return nil }
            film.seriesID = seriesID
            guard cursor.take(#","dvd":"#), let dvd = dateOrNull() else { return nil }
            film.dvd = dvd
            guard cursor.take(#","production":"#), let production = optionalString() else { return nil }
            film.production = production
            guard cursor.take(#","website":"#), let website = optionalString() else { return nil }
            film.website = website
            guard cursor.take(#","lastFetched":"#), let fetched = cursor.stringBody(),
                Timestamp.isWrittenForm(fetched), let lastFetched = Timestamp.parse(text(fetched))
            else { return nil }
            film.lastFetched = lastFetched
            guard cursor.take(#","dataVersion":"#), let dataVersion = cursor.integerValue() else { return nil }
            film.dataVersion = dataVersion
            guard cursor.take(#","rawJSON":"#), let rawJSON = string(), cursor.take("}"), cursor.atEnd else {
                return nil
            }
            film.rawJSON = rawJSON
            return film
        }

        /// A string literal's text.
        mutating func string() -> String? {
            cursor.stringBody().map { text($0) }
        }

        /// `null` (`.some(nil)`), a string (`.some(text)`), or `nil` when neither.
        mutating func optionalString() -> String?? {
            if cursor.take("null") { return .some(nil) }
            return string().map { .some($0) }
        }

        mutating func optionalInt() -> Int?? {
            if cursor.take("null") { return .some(nil) }
            return cursor.integerValue().map { .some($0) }
        }

        /// A day as `CalendarDate` writes it; one that does not read is left to the decoder's message.
        mutating func dateOrNull() -> CalendarDate?? {
            if cursor.take("null") { return .some(nil) }
            guard let body = cursor.stringBody(), Timestamp.isDayForm(body),
                let date = CalendarDate(iso: text(body))
            else { return nil }
            return .some(date)
        }

        /// A number written as `Double.description` writes a rating: digits, a point, digits.
        mutating func optionalDouble() -> Double?? {
            if cursor.take("null") { return .some(nil) }
            let bytes = cursor.bytes
            var at = cursor.index
            if at < bytes.count, bytes[at] == UInt8(ascii: "-") { at += 1 }
            let start = at
            while at < bytes.count, (0x30...0x39).contains(bytes[at]) { at += 1 }
            guard at > start, at - start < 16, at < bytes.count, bytes[at] == UInt8(ascii: ".") else { return nil }
            at += 1
            let fraction = at
            while at < bytes.count, (0x30...0x39).contains(bytes[at]) { at += 1 }
            guard at > fraction, at - start < 18 else { return nil }
            guard let value = Double(text(UnsafeBufferPointer(rebasing: bytes[cursor.index..<at]))) else { return nil }
            cursor.index = at
            return .some(value)
        }

        /// A list written by ``JSONText``'s ways, each element read by `element`.
        mutating func list<T>(_ element: (inout Reader) -> T?) -> [T]? {
            guard cursor.take("[") else { return nil }
            if cursor.take("]") { return [] }
            var items: [T] = []
            repeat {
                guard let item = element(&self) else { return nil }
                items.append(item)
            } while cursor.take(",")
            return cursor.take("]") ? items : nil
        }

        mutating func strings() -> [String]? {
            list { $0.string() }
        }

        mutating func credits() -> [Credit]? {
            list { reader in
                guard reader.cursor.take(#"{"name":"#), let name = reader.string(), reader.cursor.take(#","role":"#),
                    let role = reader.optionalString(), reader.cursor.take("}")
                else { return nil }
                return Credit(name: name, role: role)
            }
        }

        mutating func ratings() -> [Rating]? {
            list { reader in
                guard reader.cursor.take(#"{"source":"#), let source = reader.string(),
                    reader.cursor.take(#","value":"#), let value = reader.string(), reader.cursor.take(#","score":"#),
                    let score = reader.optionalInt(), reader.cursor.take("}")
                else { return nil }
                return Rating(source: RatingSource(omdb: source), value: value, score: score)
            }
        }

        /// The text of a string literal's body in the written form: its escapes undone.
        mutating func text(_ body: UnsafeBufferPointer<UInt8>) -> String {
            guard body.contains(UInt8(ascii: "\\")) else { return String(decoding: body, as: UTF8.self) }
            scratch.removeAll(keepingCapacity: true)
            var index = 0
            while index < body.count {
                let byte = body[index]
                guard byte == UInt8(ascii: "\\") else {
                    scratch.append(byte)
                    index += 1
                    continue
                }
                switch body[index + 1] {
                case UInt8(ascii: "n"): scratch.append(0x0A)
                case UInt8(ascii: "r"): scratch.append(0x0D)
                case UInt8(ascii: "t"): scratch.append(0x09)
                case UInt8(ascii: "u"):
                    // `\u00XX`, the only form written: a control byte.
                    scratch.append(Self.hex(body[index + 4]) << 4 | Self.hex(body[index + 5]))
                    index += 6
                    continue
                default: scratch.append(body[index + 1])
                }
                index += 2
            }
            return String(decoding: scratch, as: UTF8.self)
        }

        private static func hex(_ digit: UInt8) -> UInt8 {
            digit <= 0x39 ? digit - 0x30 : digit - 0x61 + 10
        }
    }
}
