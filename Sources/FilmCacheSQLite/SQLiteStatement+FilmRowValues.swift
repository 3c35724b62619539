import FilmCacheKit
import Foundation

/// A row SQLite returns, read as a film by `FilmRow.film(from:)`; never fails.
extension SQLiteStatement: FilmRowValues {
    /// A date column; a value that is not a date reads as absent, as the row was written by filmcache.
    func date(_ index: Int32) -> CalendarDate? {
        text(index).flatMap { CalendarDate(iso: $0) }
    }

    /// An instant column; a value in another form reads as absent.
    func instant(_ index: Int32) -> Date? {
        text(index).flatMap(Timestamp.parse)
    }

    /// A list column; a value that is not such a list reads as empty.
    func list<T: Decodable>(_ index: Int32, _ type: T.Type, _ decoder: JSONDecoder) -> [T] {
        guard let text = text(index) else { return [] }
        return JSONText.decodeList(text, type, decoder) ?? []
    }
}
