import Foundation
import SplitMix
import Testing

@testable import FilmCacheKit
@testable import FilmCacheSQLite

/// The contract of a backend, part five: what `filmcache serve` keeps beside the films (OMDb's
/// answers to other queries, byte for byte, and the apps' demand), and how the plan reads demand.
@Suite(.timeLimit(.minutes(3))) struct AnswerCacheContractTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let day: TimeInterval = 86_400

    /// OMDb-shaped bodies: plain, non-ASCII (composed and decomposed, CJK, emoji, the EN DASH of
    /// series years, a line separator), escapes left as sent, odd whitespace, a large one, and
    /// random JSON strings of arbitrary code points but NUL.
    static func bodies() -> [[UInt8]] {
        var texts = [
            #"{"Search":[{"Title":"Heat","Year":"1995","imdbID":"tt0113277","Type":"movie"}],"totalResults":"1","Response":"True"}"#,
            #"{"Title":"Amélie","Year":"2001","Plot":"Ame\u0301lie – 千と千尋の神隠し 🎬🍿 ﻿ \u00e9","Response":"True"}"#,
            "{\"Title\":\"Ame\u{301}lie\",\"Year\":\"2011\u{2013}\",\"Plot\":\"line\u{2028}sep\",\"Response\":\"True\"}",
            "{ \"Response\" : \"False\" ,\r\n\t\"Error\" : \"Movie not found!\" }  \n",
            #"{"Response":"False","Error":"Series or episode not found!"}"#,
            #"{"Title":"\"Quoted\" \\ back\/slash","Response":"True"}"#,
            "{\"Plot\":\"" + String(repeating: "Ω≈ç√∫˜µ≤≥÷ ", count: 12_000) + "\",\"Response\":\"True\"}",
        ]
        var random = SplitMix64(seed: 42)
        let ranges: [ClosedRange<UInt32>] = [
            0x01...0x7F, 0x80...0x7FF, 0x800...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF,
        ]
        for _ in 0..<20 {
            var value = ""
            for _ in 0..<Int.random(in: 0...300, using: &random) {
                let range = ranges.randomElement(using: &random)!
                value.unicodeScalars.append(Unicode.Scalar(UInt32.random(in: range, using: &random))!)
            }
            let encoded = String(decoding: try! JSONEncoder().encode(["Title": value]), as: UTF8.self)
            texts.append(encoded)
        }
        return texts.map { Array($0.utf8) }
    }

    @Test(arguments: BackendKind.allCases)
    func anAnswerReadsBackByteForByte(_ kind: BackendKind) async throws {
        try await kind.withBackend { db, _ in
            let bodies = Self.bodies()
            let answers = bodies.enumerated().map { index, body in
                CachedAnswer(query: "s=query \(index)&page=1", body: body, found: index % 4 != 3, answeredAt: now)
            }
            try await db.storeAnswers(answers)
            for answer in answers {
                let stored = try #require(try await db.answer(for: answer.query))
                #expect(stored.body == answer.body, "\(kind) \(answer.query)")
                #expect(stored == answer, "\(kind) \(answer.query)")
            }
            // Bytes that are not UTF-8 at all, and an empty body, are kept too.
            let odd = [
                CachedAnswer(
                    query: "t=odd", body: [0xFF, 0xFE, 0x7B, 0xC3, 0x28, 0x7D], found: false, answeredAt: now),
                CachedAnswer(query: "t=empty", body: [], found: false, answeredAt: now + 0.75),
            ]
            try await db.storeAnswers(odd)
            #expect(try await db.answer(for: "t=odd") == odd[0])
            var empty = odd[1]
            empty.answeredAt = now  // kept to the second, truncated, as every instant
            #expect(try await db.answer(for: "t=empty") == empty)
        }
    }

    @Test(arguments: BackendKind.allCases)
    func aLaterAnswerReplacesAnEarlierOneAndAMissingQueryHasNone(_ kind: BackendKind) async throws {
        try await kind.withBackend { db, _ in
            let query = "t=heat&y=1995&plot=full"
            let found = CachedAnswer(
                query: query, body: Array(#"{"Title":"Heat","Response":"True"}"#.utf8), found: true, answeredAt: now)
            try await db.storeAnswers([found])
            #expect(try await db.answer(for: query) == found)
            #expect(try await db.answer(for: "t=heat&y=1996&plot=full") == nil)
            #expect(try await db.answer(for: query.uppercased()) == nil)

            let miss = CachedAnswer(
                query: query, body: Array(#"{"Response":"False","Error":"Movie not found!"}"#.utf8), found: false,
                answeredAt: now + day)
            try await db.storeAnswers([miss])
            #expect(try await db.answer(for: query) == miss)

            // Two answers to one query in one batch: the later stays.
            var again = found
            again.answeredAt = now + 2 * day
            try await db.storeAnswers([miss, again])
            #expect(try await db.answer(for: query) == again)
            try await db.storeAnswers([])
            #expect(try await db.answer(for: query) == again)
        }
    }

    @Test(arguments: BackendKind.allCases)
    func demandAddsUpKeepsTheLatestRequestAndListsOnlyIDsWithAny(_ kind: BackendKind) async throws {
        try await kind.withBackend { db, _ in
            #expect(try await db.demand(of: ["tt0000001"]).isEmpty)
            try await db.recordDemand(["tt0000001": 2, "tt0000002": 1], at: now)
            try await db.recordDemand(["tt0000001": 3], at: now - day)
            try await db.recordDemand(["tt0000002": 4, "tt0000003": 0, "tt0000004": -2], at: now + day)
            try await db.recordDemand([:], at: now)
            let demand = try await db.demand(of: ["tt0000001", "tt0000002", "tt0000003", "tt0000004", "tt0000009"])
            #expect(demand == ["tt0000001": 5, "tt0000002": 5])
            #expect(try await db.demand(of: []) == [:])
            #expect(try await db.demand(of: ["tt0000002"]) == ["tt0000002": 5])
            let entries = try await db.mostRequested(limit: 10)
            #expect(entries.map(\.imdbID) == ["tt0000001", "tt0000002"])
            #expect(entries.map(\.lastRequestedAt) == [now, now + day], "the latest request, not the last recorded")
        }
    }

    @Test(arguments: BackendKind.allCases)
    func twoWritersAtOnceLoseNoRequest(_ kind: BackendKind) async throws {
        let rounds = 40
        try await kind.withSharedDatabase { database in
            let first = try await database.open(false)
            let second = try await database.open(false)
            try await withThrowingTaskGroup(of: Void.self) { group in
                // Two tasks on each backend: on PostgreSQL, two pools and two connections in each.
                for (writer, db) in [first, second, first, second].enumerated() {
                    group.addTask {
                        for round in 0..<rounds {
                            try await db.recordDemand(
                                [
                                    "tt0000001": 1, "tt0000002": 2,
                                    String(format: "tt10%05d", writer * rounds + round): 1,
                                ],
                                at: now + Double(round))
                        }
                    }
                }
                try await group.waitForAll()
            }
            await first.close()
            await second.close()
            try await database.withBackend(readOnly: true) { db in
                #expect(try await db.demand(of: ["tt0000001", "tt0000002"]) == ["tt0000001": 160, "tt0000002": 320])
                let others = (0..<4 * rounds).map { String(format: "tt10%05d", $0) }
                let demand = try await db.demand(of: others)
                #expect(demand.count == 4 * rounds && demand.values.allSatisfy { $0 == 1 })
                let top = try await db.mostRequested(limit: 1).first
                #expect(top?.requests == 320 && top?.lastRequestedAt == now + Double(rounds - 1))
            }
        }
    }

    @Test(arguments: BackendKind.allCases)
    func theMostRequestedComeMostFirstTiesByIDWithTheirTitles(_ kind: BackendKind) async throws {
        try await kind.withBackend { db, _ in
            try await db.write(
                WriteBatch(
                    films: [
                        SampleFilms.film("tt0000001", title: "Heat"), SampleFilms.film("tt0000002", title: "Alien"),
                    ],
                    aliases: [FilmAlias(askedID: "tt0000009", imdbID: "tt0000002", recordedAt: now)]))
            try await db.recordDemand(
                ["tt0000003": 3, "tt0000001": 3, "tt0000002": 5, "tt0000009": 3, "tt0000004": 1], at: now)
            let all = try await db.mostRequested(limit: 10)
            #expect(all.map(\.imdbID) == ["tt0000002", "tt0000001", "tt0000003", "tt0000009", "tt0000004"])
            #expect(all.map(\.requests) == [5, 3, 3, 3, 1])
            #expect(all.map(\.title) == ["Alien", "Heat", nil, "Alien", nil])
            #expect(all.allSatisfy { $0.lastRequestedAt == now })
            #expect(try await db.mostRequested(limit: 2) == Array(all.prefix(2)))
            #expect(try await db.mostRequested(limit: 0).isEmpty)
        }
    }

    /// Takes a database of the current schema back to version 7, as the filmcache before `answers`
    /// and `demand` left it.
    static func downgradeToVersion7(_ kind: BackendKind, _ database: SharedDatabase) throws {
        try downgradeToVersion8(kind, database)
        switch kind {
        case .memory: break
        case .sqlite: try database.sql("DROP TABLE answers; DROP TABLE demand; PRAGMA user_version = 7")
        case .postgres:
            try database.sql("DROP TABLE answers; DROP TABLE demand; DELETE FROM schema_migrations WHERE version > 7")
        }
    }

    /// Takes a database of the current schema back to version 8, as the filmcache before TMDb left it.
    static func downgradeToVersion8(_ kind: BackendKind, _ database: SharedDatabase) throws {
        let drop =
            "DROP VIEW film_sources; DROP TABLE tmdb_find; DROP TABLE tmdb_films; DROP TABLE tmdb_sync;"
            + " DROP TABLE tmdb_calls;"
        switch kind {
        case .memory: Issue.record("memory has no schema to take back")
        case .sqlite: try database.sql(drop + " PRAGMA user_version = 8")
        case .postgres: try database.sql(drop + " DELETE FROM schema_migrations WHERE version > 8")
        }
    }

    @Test(arguments: BackendKind.databases)
    func aReadOnlyOpenOfTheVersionBeforeReadsNoDemandPlansAndMigratesNothing(_ kind: BackendKind) async throws {
        try await kind.withSharedDatabase { database in
            try await database.withBackend { db in
                try await db.write(WriteBatch(films: [SampleFilms.film("tt0000001", fetchedAt: now)]))
            }
            try Self.downgradeToVersion7(kind, database)
            try await database.withBackend(readOnly: true) { db in
                #expect(try await db.schemaVersion() == 7)
                #expect(try await db.answer(for: "t=heat") == nil)
                #expect(try await db.demand(of: ["tt0000001", "tt0000002"]).isEmpty)
                #expect(try await db.mostRequested(limit: 5).isEmpty)
                let plan = try await db.plan(
                    Worklist(ids: ["tt0000001", "tt0000002", "tt0000003"]), planner: Planner(), now: now, budget: nil)
                #expect(plan.toFetch == ["tt0000002", "tt0000003"] && plan.fresh == 1 && plan.requested.isEmpty)
                await #expect(throws: StoreError.self) { try await db.recordDemand(["tt0000001": 1], at: now) }
            }
            #expect(try await database.withBackend(readOnly: true) { try await $0.schemaVersion() } == 7)
            // The next writable open migrates, and serve's tables work.
            try await database.withBackend { db in
                #expect(try await db.schemaVersion() == Schema.currentVersion)
                try await db.recordDemand(["tt0000002": 2], at: now)
                #expect(try await db.demand(of: ["tt0000002"]) == ["tt0000002": 2])
                #expect(try await db.film("tt0000001")?.imdbID == "tt0000001")
            }
        }
    }
}
