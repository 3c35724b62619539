import Testing

@testable import FilmCacheKit

/// Runs a `FieldText` reader over the whole of `text`.
private func read<R>(_ text: String, _ reader: (UnsafeBufferPointer<UInt8>, Range<Int>) -> R) -> R {
    FieldText.withBytes(text) { b in reader(b, 0..<b.count) }
}

@Suite("OMDb field grammars")
struct NormalizeFieldTextTests {
    @Test(
        "Year and year ranges",
        arguments: [
            ("2000", 2000, nil), ("2011–2019", 2011, 2019), ("1999–", 1999, nil), ("2011-2019", 2011, 2019),
            ("1999-", 1999, nil), ("2011 – 2019", 2011, 2019), ("2005—2007", 2005, 2007),
        ] as [(String, Int, Int?)])
    func years(_ text: String, _ start: Int, _ end: Int?) {
        guard case .years(let s, let e) = read(text, FieldText.year) else {
            Issue.record("unreadable: \(text)")
            return
        }
        #expect(s == start)
        #expect(e == end)
    }

    @Test("Unreadable years", arguments: ["200", "20001", "2000s", "c. 2000", "2000–19", "–2000", "2000/2001"])
    func badYears(_ text: String) {
        guard case .unreadable = read(text, FieldText.year) else {
            Issue.record("read \(text)")
            return
        }
    }

    @Test(
        "Dates",
        arguments: [
            ("12 Jan 2001", CalendarDate(year: 2001, month: 1, day: 12)),
            ("05 May 2000", CalendarDate(year: 2000, month: 5, day: 5)),
            ("5 may 2000", CalendarDate(year: 2000, month: 5, day: 5)),
            ("29 Feb 2000", CalendarDate(year: 2000, month: 2, day: 29)),
            ("1 September 1939", CalendarDate(year: 1939, month: 9, day: 1)),
            ("2001-09-09", CalendarDate(year: 2001, month: 9, day: 9)),
            ("31 Dec 1899", CalendarDate(year: 1899, month: 12, day: 31)),
        ])
    func dates(_ text: String, _ date: CalendarDate) {
        #expect(read(text, FieldText.date) == .date(date))
    }

    @Test("Impossible dates", arguments: ["31 Feb 2001", "29 Feb 1900", "00 Jan 2001", "2001-13-01", "2001-02-30"])
    func impossibleDates(_ text: String) {
        #expect(read(text, FieldText.date) == .impossible)
    }

    @Test("Unreadable dates", arguments: ["Jan 2001", "12 Foo 2001", "12 Jan 01", "2001", "12/01/2001", "12Jan2001"])
    func unreadableDates(_ text: String) {
        #expect(read(text, FieldText.date) == .unreadable)
    }

    @Test(
        "Runtimes",
        arguments: [
            ("120 min", 120), ("1 h 50 min", 110), ("2 h", 120), ("90min", 90), ("1h30m", 90), ("1 hr 5 mins", 65),
            ("3 hours", 180), ("1,200 min", 1200),
        ])
    func runtimes(_ text: String, _ minutes: Int) {
        #expect(read(text, FieldText.runtime) == minutes)
    }

    @Test("Unreadable runtimes", arguments: ["min", "120", "120 sec", "about 2 h", "1 h 50"])
    func badRuntimes(_ text: String) {
        #expect(read(text, FieldText.runtime) == nil)
    }

    @Test(
        "Whole numbers with separators",
        arguments: [("285,100", 285_100), ("9471", 9471), ("1,603,120", 1_603_120), ("0", 0)])
    func integers(_ text: String, _ value: Int) {
        #expect(read(text) { FieldText.integer($0, $1) } == value)
    }

    @Test(
        "Not whole numbers",
        arguments: ["", "1.5", "-3", ",100", "100,", "1,,000", "$100", "12 345", "99999999999999999999"])
    func badIntegers(_ text: String) {
        #expect(read(text) { FieldText.integer($0, $1) } == nil)
    }

    @Test("Dollar amounts", arguments: [("$128,530,421", 128_530_421), ("$0", 0), ("1,000", 1000)])
    func dollars(_ text: String, _ value: Int) {
        #expect(read(text) { FieldText.integer($0, $1, dollar: true) } == value)
    }

    @Test(
        "Rating scores",
        arguments: [
            ("7.9/10", 79), ("98%", 98), ("94/100", 94), ("8.5/10", 85), ("10/10", 100), ("0%", 0), ("4/5", 80),
            ("3.5/5", 70), ("8.45/10", 85), ("8.44/10", 84), ("100%", 100),
        ])
    func ratingScores(_ text: String, _ score: Int) {
        #expect(read(text, FieldText.ratingScore) == score)
    }

    @Test("Unreadable rating values", arguments: ["Fresh", "7.9", "11/10", "101%", "5/0", "/10", "7.9/", "%"])
    func badRatingScores(_ text: String) {
        #expect(read(text, FieldText.ratingScore) == nil)
    }

    @Test(
        "Comma lists split outside parentheses",
        arguments: [
            ("a, b,c", ["a", "b", "c"]), (" a ,, N/A, b ", ["a", "b"]),
            ("Jane (story, screenplay), Joe", ["Jane (story, screenplay)", "Joe"]),
            ("", []), ("N/A", []),
        ])
    func lists(_ text: String, _ items: [String]) {
        var found: [String] = []
        FieldText.withBytes(text) { b in FieldText.forEachItem(b, 0..<b.count) { found.append(FieldText.string(b, $0)) }
        }
        #expect(found == items)
    }

    @Test("Genres keep IMDb's spelling")
    func genres() {
        #expect(Genre.canonical("Sci-Fi") == "Sci-Fi")
        #expect(Genre.canonical("sci-fi") == "Sci-Fi")
        #expect(Genre.canonical("Science Fiction") == "Sci-Fi")
        #expect(Genre.canonical("Mumblecore") == "Mumblecore")
    }
}
