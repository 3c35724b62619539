import Foundation

/// What the title index says of a worklist's titles: the IDs it knows, the titles to resolve.
///
/// Written once above the drivers: a backend reads the index's row for each of ``titles(of:)`` (in
/// whatever way suits it) and hands the rows to ``init(_:rows:worklist:at:)``, which judges each by
/// `TitleIndexRow.standing`, the one rule.
package struct TitlePlan: Sendable {
    /// One distinct title of a worklist: its key, the first entry naming it, and how many files name it.
    package struct Title: Sendable {
        package var key: TitleKey
        package var entry: TitleEntry
        package var files: Int
    }

    /// The film each known title names.
    package var resolved: [TitleKey: String] = [:]
    /// Titles to ask OMDb for: the first entry naming each, the files naming it, its place in the worklists.
    package var due: [(entry: TitleEntry, demand: Int, position: Int)] = []
    /// The titles by what the index says of them.
    package var counts = Plan.TitleCounts()

    /// A plan of no titles.
    package init() {}

    /// The distinct titles of `worklist`, in the order the worklists first name them.
    package static func titles(of worklist: Worklist) -> [Title] {
        var index: [TitleKey: Int] = [:]
        var files: [Set<Int>] = []
        var titles: [Title] = []
        worklist.forEachFile { file, _, entries in
            for entry in entries {
                let key = entry.query.key
                if let at = index[key] {
                    files[at].insert(file)
                } else {
                    index[key] = titles.count
                    titles.append(Title(key: key, entry: entry, files: 0))
                    files.append([file])
                }
            }
        }
        for at in titles.indices { titles[at].files = files[at].count }
        return titles
    }

    /// Plans `titles` (``titles(of:)`` of `worklist`) from the index's row for each, `rows[i]` for
    /// `titles[i]` (`nil` where it holds none), at `now`. A title to resolve takes its place after
    /// the worklist's IDs, in the order the worklists first name it.
    package init(_ titles: [Title], rows: [TitleIndexRow?], worklist: Worklist, at now: Date) {
        counts.distinct = titles.count
        for (ordinal, title) in titles.enumerated() {
            switch TitleIndexRow.standing(of: title.entry.query, row: rows[ordinal], at: now) {
            case .resolved(let id):
                resolved[title.key] = id
                counts.known += 1
            case .notFound:
                counts.notFound += 1
            case .due:
                counts.toResolve += 1
                due.append((title.entry, title.files, worklist.entryCount + ordinal))
            }
        }
    }
}
