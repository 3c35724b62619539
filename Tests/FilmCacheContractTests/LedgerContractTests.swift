import Foundation
import SplitMix
import Testing

@testable import FilmCacheKit
@testable import FilmCacheSQLite

/// The contract of a backend, part three: the quota ledger and the run history.
@Suite(.timeLimit(.minutes(3))) struct LedgerContractTests {
    @Test(arguments: BackendKind.allCases)
    func reservationsStopAtTheUsableBudgetAndReleasesGiveBack(_ kind: BackendKind) async throws {
        try await kind.withBackend { db, _ in
            let today = day("2026-11-21")
            for expected in [8, 8, 3, 0] {
                #expect(try await db.reserveCalls(8, key: "ab12", day: today, dailyLimit: 20, usable: 19) == expected)
            }
            try await db.releaseCalls(2, key: "ab12", day: today, minute: nil, runID: nil)
            #expect(try await db.ledger(key: "ab12", day: today)?.used == 17)
            #expect(try await db.ledger(key: "ab12", day: today)?.dailyLimit == 20)
            // Another day and another key have budgets of their own.
            #expect(try await db.reserveCalls(5, key: "ab12", day: day("2026-11-22"), dailyLimit: 20, usable: 19) == 5)
            #expect(try await db.reserveCalls(5, key: "cd34", day: today, dailyLimit: 20, usable: 19) == 5)
            #expect(try await db.reserveCalls(0, key: "ef56", day: today, dailyLimit: 20, usable: 19) == 0)
            #expect(try await db.ledger(key: "ef56", day: today) == nil)
            // A day with no room left still gets its row, with the limit.
            #expect(try await db.reserveCalls(1, key: "gh78", day: today, dailyLimit: 5, usable: 0) == 0)
            #expect(try await db.ledger(key: "gh78", day: today)?.dailyLimit == 5)
            #expect(try await db.latestDailyLimit(key: "ab12") == 20)
            #expect(try await db.latestDailyLimit(key: "zz99") == nil)
        }
    }

    @Test(arguments: BackendKind.allCases)
    func daysReadTogetherAreEachDayReadAlone(_ kind: BackendKind) async throws {
        let days = ["2026-11-18", "2026-11-19", "2026-11-20", "2026-11-21"].map(day)
        try await kind.withSharedDatabase { database in
            try await database.withBackend { db in
                _ = try await db.reserveCalls(3, key: "ab12", day: days[0], dailyLimit: 20, usable: 19)
                _ = try await db.reserveCalls(1, key: "ab12", day: days[2], dailyLimit: 7, usable: 6)
                try await db.markExhausted(
                    key: "ab12", day: "2026-11-21", dailyLimit: 9, at: utc(2026, 11, 21, 8, 0, 0))
                try await db.recordResetObserved(key: "ab12", before: "2026-11-22", at: utc(2026, 11, 22, 0, 1, 0))
                _ = try await db.reserveCalls(5, key: "cd34", day: days[1], dailyLimit: 20, usable: 19)
            }
            // Read as `quota` reads: a connection that only reads.
            try await database.withBackend(readOnly: true) { db in
                var alone: [String: LedgerEntry] = [:]
                for day in days {
                    if let entry = try await db.ledger(key: "ab12", day: day) { alone[day.key] = entry }
                }
                let together = try await db.ledger(key: "ab12", days: days)
                #expect(together == alone)
                // The other key's day is not this key's; each day holds its own use, limit and times.
                #expect(Set(together.keys) == ["2026-11-18", "2026-11-20", "2026-11-21"])
                #expect(together["2026-11-18"]?.used == 3 && together["2026-11-18"]?.dailyLimit == 20)
                #expect(together["2026-11-20"]?.used == 1 && together["2026-11-20"]?.dailyLimit == 7)
                #expect(together["2026-11-21"]?.exhaustedAt == utc(2026, 11, 21, 8, 0, 0))
                #expect(together["2026-11-21"]?.dailyLimit == 9)
                #expect(together["2026-11-21"]?.resetObservedAt == utc(2026, 11, 22, 0, 1, 0))
                #expect(try await db.ledger(key: "zz99", days: days).isEmpty)
                #expect(try await db.ledger(key: "ab12", days: []).isEmpty)
            }
        }
    }

    /// Calls charged and limits seen in three quota time zones over eight days, read back for
    /// twelve days of each zone: each day's use is the calls of its own minutes, its limit instant its own
    /// row's or else the earliest seen within it, whoever's zone charged or saw them. The expected
    /// values are worked out here from what was written.
    @Test(arguments: BackendKind.allCases)
    func aMonthReadTogetherCountsEachDayByItsOwnMinutes(_ kind: BackendKind) async throws {
        let zones = ["UTC", "America/Los_Angeles", "Asia/Kolkata"].compactMap(QuotaZone.init(identifier:))
        #expect(zones.count == 3)
        let origin = utc(2026, 11, 10).timeIntervalSince1970
        var random = SplitMix64(seed: 7)
        // Whole seconds over eight days (the written form of an instant keeps no fraction), half of
        // them within a minute of a midnight in one of the zones: the minutes either side of a day's ends.
        func instant() -> Date {
            let offset = Double(random.next() % (8 * 86_400))
            guard random.next() % 2 == 0 else { return Date(timeIntervalSince1970: origin + offset) }
            let near = QuotaDay(
                containing: Date(timeIntervalSince1970: origin + offset), in: zones[Int(random.next() % 3)])
            return near.nextReset + [-61, -60, -1, 0, 59, 60][Int(random.next() % 6)]
        }
        var charged: [(minute: Int, calls: Int)] = []
        var rows: Set<String> = []
        var firstLimit: [String: Date] = [:]
        try await kind.withBackend { db, _ in
            for _ in 0..<80 {
                let at = instant()
                let quotaDay = QuotaDay(containing: at, in: zones[Int(random.next() % 3)])
                let calls = 1 + Int(random.next() % 9)
                let minute = QuotaDay.minute(of: at)
                let granted = try await db.reserveCalls(
                    calls, key: "ab12", day: quotaDay, minute: minute, dailyLimit: 500, usable: 1_000_000)
                #expect(granted == calls)
                charged.append((minute, calls))
                rows.insert(quotaDay.key)
            }
            // Another key's calls count for nobody else.
            _ = try await db.reserveCalls(
                50, key: "cd34", day: QuotaDay(containing: instant()), dailyLimit: 500, usable: 1_000_000)
            // Two limits seen within UTC's 2026-11-21, past the random ones, by runs whose days are
            // the 20th (Los Angeles) and the 22nd (Kolkata): UTC's day has the earlier.
            let seen = [(utc(2026, 11, 21, 2), zones[1]), (utc(2026, 11, 21, 20), zones[2])]
            for index in 0..<12 {
                let (at, zone) = index < seen.count ? seen[index] : (instant(), zones[Int(random.next() % 3)])
                let dayKey = QuotaDay(containing: at, in: zone).key
                try await db.markExhausted(key: "ab12", day: dayKey, dailyLimit: 500, at: at)
                rows.insert(dayKey)
                firstLimit[dayKey] = firstLimit[dayKey] ?? at
            }
            // Each day's use and limit instant, worked out from what was written; nil for a day with nothing.
            func expected(_ day: QuotaDay) -> (used: Int, exhaustedAt: Date?)? {
                let used = charged.filter { day.minutes.contains($0.minute) }.map(\.calls).reduce(0, +)
                let within = firstLimit.values.filter { $0 >= day.start && $0 < day.nextReset }.min()
                let exhaustedAt = firstLimit[day.key] ?? within
                return rows.contains(day.key) || used > 0 || exhaustedAt != nil ? (used, exhaustedAt) : nil
            }
            func check(_ days: [QuotaDay], _ label: String) async throws {
                let read = try await db.ledger(key: "ab12", days: days.shuffled(using: &random))
                #expect(Set(read.keys) == Set(days.filter { expected($0) != nil }.map(\.key)), "\(label)")
                for day in days {
                    guard let entry = read[day.key] else { continue }
                    #expect(entry.used == expected(day)?.used, "\(label) \(day.key)")
                    #expect(entry.exhaustedAt == expected(day)?.exhaustedAt, "\(label) \(day.key)")
                    #expect(entry.dailyLimit == (rows.contains(day.key) ? 500 : 0), "\(label) \(day.key)")
                    #expect(try await db.ledger(key: "ab12", day: day) == entry, "\(label) \(day.key)")
                }
            }
            var twelve: [[QuotaDay]] = []
            for zone in zones {
                var days = [QuotaDay(containing: Date(timeIntervalSince1970: origin), in: zone)]
                while days.count < 12 { days.append(days[days.count - 1].next) }
                twelve.append(days)
                try await check(days, zone.identifier)
            }
            // One read of days of two zones with gaps between them (their keys differ: UTC's even
            // dates, Kolkata's odd ones, two of every four).
            let mixed = twelve[0].filter { $0.date.day % 4 == 0 } + twelve[2].filter { $0.date.day % 4 == 1 }
            #expect(mixed.count >= 5)
            try await check(mixed, "UTC and Kolkata")
            #expect(charged.map(\.calls).reduce(0, +) > 0)
        }
    }

    @Test(arguments: BackendKind.allCases)
    func anExhaustedDayGrantsNothingEvenWithoutARowOfItsOwn(_ kind: BackendKind) async throws {
        try await kind.withBackend { db, _ in
            _ = try await db.reserveCalls(1, key: "ab12", day: day("2026-11-21"), dailyLimit: 1000, usable: 950)
            let at = utc(2026, 11, 21, 13, 0, 0)
            try await db.markExhausted(key: "ab12", day: "2026-11-21", dailyLimit: 1000, at: at + 0.9)
            try await db.markExhausted(key: "ab12", day: "2026-11-21", dailyLimit: 1000, at: at + 60)
            #expect(
                try await db.reserveCalls(1, key: "ab12", day: day("2026-11-21"), dailyLimit: 1000, usable: 950) == 0)
            #expect(
                try await db.ledger(key: "ab12", day: day("2026-11-21"))?.exhaustedAt == at, "the first, to the second")
            try await db.markExhausted(key: "ab12", day: "2026-11-22", dailyLimit: 100, at: utc(2026, 11, 22, 0, 0, 5))
            #expect(try await db.ledger(key: "ab12", day: day("2026-11-22"))?.exhaustedAt != nil)
            #expect(try await db.reserveCalls(1, key: "ab12", day: day("2026-11-22"), dailyLimit: 100, usable: 95) == 0)
        }
    }

    @Test(arguments: BackendKind.allCases)
    func theFirstSuccessAfterAnExhaustedDayIsRecordedOnceAsTheObservedReset(_ kind: BackendKind) async throws {
        try await kind.withBackend { db, _ in
            let exhausted = Date(timeIntervalSince1970: 1_700_000_000)
            _ = try await db.reserveCalls(1, key: "ab12", day: day("2026-11-20"), dailyLimit: 1000, usable: 950)
            try await db.markExhausted(key: "ab12", day: "2026-11-20", dailyLimit: 0, at: exhausted)
            _ = try await db.reserveCalls(1, key: "ab12", day: day("2026-11-19"), dailyLimit: 1000, usable: 950)
            let reset = exhausted + 3 * 3600
            try await db.recordResetObserved(key: "ab12", before: "2026-11-21", at: reset)
            try await db.recordResetObserved(key: "ab12", before: "2026-11-21", at: reset + 60)
            #expect(try await db.ledger(key: "ab12", day: day("2026-11-20"))?.resetObservedAt == reset)
            #expect(try await db.ledger(key: "ab12", day: day("2026-11-19"))?.resetObservedAt == nil)
            #expect(try await db.observedResets(key: "ab12") == [reset])
            // A success on the exhausted day itself is not a reset.
            try await db.recordResetObserved(key: "cd34", before: "2026-11-20", at: reset)
            #expect(try await db.ledger(key: "cd34", day: day("2026-11-20")) == nil)
        }
    }

    @Test(arguments: BackendKind.allCases)
    func runsNamingDifferentQuotaTimeZonesShareOneBudgetByTheMinute(_ kind: BackendKind) async throws {
        try await kind.withBackend { db, _ in
            let losAngeles = try #require(QuotaZone(identifier: "America/Los_Angeles"))
            let evening = utc(2026, 11, 21, 20, 0)
            let utcDay = QuotaDay(containing: evening)
            let laDay = QuotaDay(containing: evening, in: losAngeles)
            let minute = QuotaDay.minute(of: evening)
            #expect(
                try await db.reserveCalls(60, key: "ab12", day: utcDay, minute: minute, dailyLimit: 100, usable: 95)
                    == 60)
            // The same instant in Los Angeles: the 60 calls were sent within its day too.
            #expect(
                try await db.reserveCalls(60, key: "ab12", day: laDay, minute: minute, dailyLimit: 100, usable: 95)
                    == 35)
            #expect(try await db.ledger(key: "ab12", day: laDay)?.used == 95)
            #expect(try await db.ledger(key: "ab12", day: utcDay)?.used == 95)
            #expect(try await db.callsByMinute(key: "ab12") == [minute: 95])
            try await db.releaseCalls(5, key: "ab12", day: laDay, minute: minute, runID: nil)
            #expect(try await db.callsByMinute(key: "ab12") == [minute: 90])
            let night = utc(2026, 11, 22, 1, 0)
            let nextUTC = QuotaDay(containing: night)
            #expect(try await db.ledger(key: "ab12", day: nextUTC) == nil)
            // A limit seen by the Los Angeles run at 07:00Z (still its 21st) stops the UTC run's 22nd too.
            try await db.markExhausted(key: "ab12", day: laDay.key, dailyLimit: 100, at: utc(2026, 11, 22, 7, 0))
            #expect(
                try await db.reserveCalls(
                    1, key: "ab12", day: nextUTC, minute: QuotaDay.minute(of: night), dailyLimit: 100, usable: 95) == 0)
            #expect(try await db.ledger(key: "ab12", day: nextUTC)?.exhaustedAt == utc(2026, 11, 22, 7, 0))
        }
    }

    @Test(arguments: BackendKind.allCases)
    func thePlanningEntryIsTheBusiestKeysAndKeysListBusiestFirst(_ kind: BackendKind) async throws {
        try await kind.withBackend { db, _ in
            let today = day("2026-11-21")
            _ = try await db.reserveCalls(10, key: "aaaa", day: today, dailyLimit: 100, usable: 95)
            _ = try await db.reserveCalls(30, key: "bbbb", day: today, dailyLimit: 100, usable: 95)
            _ = try await db.reserveCalls(50, key: "cccc", day: day("2026-11-20"), dailyLimit: 100, usable: 95)
            #expect(try await db.ledgerForPlanning(key: nil, day: today)?.keyFingerprint == "bbbb")
            #expect(try await db.ledgerForPlanning(key: "aaaa", day: today)?.used == 10)
            #expect(try await db.ledgerKeys(today: "2026-11-21", since: "2026-11-01") == ["bbbb", "aaaa", "cccc"])
            // An exhausted key has nothing left, so it is the busiest whatever its count.
            try await db.markExhausted(key: "aaaa", day: "2026-11-21", dailyLimit: 100, at: utc(2026, 11, 21, 9, 0))
            #expect(try await db.ledgerForPlanning(key: nil, day: today)?.keyFingerprint == "aaaa")
            #expect(try await db.ledgerForPlanning(key: nil, day: day("2026-11-23")) == nil)
        }
    }

    @Test(arguments: BackendKind.allCases)
    func aLegacyFingerprintIsAdoptedWithItsCountsAndRuns(_ kind: BackendKind) async throws {
        try await kind.withBackend { db, _ in
            let today = day("2026-11-21")
            _ = try await db.reserveCalls(7, key: "ab12", day: today, dailyLimit: 100, usable: 95)
            _ = try await db.reserveCalls(3, key: "full", day: today, dailyLimit: 100, usable: 95)
            let run = try await db.beginRun(startedAt: utc(2026, 11, 21, 3, 0), key: "ab12")
            #expect(try await db.adoptLegacyFingerprint("ab12", as: "full"))
            #expect(try await db.ledger(key: "full", day: today)?.used == 10)
            #expect(try await db.ledger(key: "ab12", day: today) == nil)
            #expect(try await db.runs(key: "full", since: .distantPast).map(\.id) == [run])
            #expect(try await !db.adoptLegacyFingerprint("ab12", as: "full"))
            #expect(try await !db.adoptLegacyFingerprint("full", as: "full"))
        }
    }

    @Test(arguments: BackendKind.allCases)
    func aRunLeftUnfinishedIsClosedAsKilledWithTheCallsItReserved(_ kind: BackendKind) async throws {
        try await kind.withBackend { db, hooks in
            let today = day("2026-11-21")
            let first = try await db.beginRun(startedAt: utc(2026, 11, 21, 3, 0), key: "ab12")
            #expect(
                try await db.reserveCalls(
                    8, key: "ab12", day: today, minute: nil, dailyLimit: 100, usable: 95, runID: first) == 8)
            try await db.releaseCalls(2, key: "ab12", day: today, minute: nil, runID: first)
            try hooks.expireRunLeases()
            let second = try await db.beginRun(startedAt: utc(2026, 11, 21, 4, 0), key: "ab12")
            #expect(second > first)
            let runs = try await db.runs(key: nil, since: .distantPast)
            #expect(runs.map(\.id) == [first, second])
            #expect(runs[0].outcome == "killed" && runs[0].calls == 6 && runs[0].finishedAt == utc(2026, 11, 21, 4, 0))
            #expect(runs[1].finishedAt == nil && runs[1].outcome == nil)
            #expect(try await db.lastCompletedRunFinish() == nil, "killed is not completed")
        }
    }

    @Test(arguments: BackendKind.allCases)
    func finishedRunsReadBackAndTheLatestCompletedOneIsKnown(_ kind: BackendKind) async throws {
        try await kind.withBackend { db, _ in
            var summary = WarmSummary()
            summary.considered = 10
            summary.fresh = 2
            summary.fetched = 5
            summary.notFound = 1
            summary.failed = 2
            summary.calls = 8
            let a = try await db.beginRun(startedAt: utc(2026, 11, 20, 3, 0), key: "ab12")
            try await db.finishRun(id: a, summary: summary, finishedAt: utc(2026, 11, 20, 3, 5), outcome: "done")
            let b = try await db.beginRun(startedAt: utc(2026, 11, 21, 3, 0), key: "cd34")
            try await db.finishRun(id: b, summary: summary, finishedAt: utc(2026, 11, 21, 3, 9), outcome: "error: x")
            let runs = try await db.runs(key: nil, since: .distantPast)
            #expect(
                runs.first
                    == RunRecord(
                        id: a, startedAt: utc(2026, 11, 20, 3, 0), finishedAt: utc(2026, 11, 20, 3, 5),
                        keyFingerprint: "ab12", considered: 10, fresh: 2, fetched: 5, notFound: 1, failed: 2, calls: 8,
                        outcome: "done"))
            #expect(try await db.runs(key: "cd34", since: .distantPast).map(\.id) == [b])
            #expect(try await db.runs(key: nil, since: utc(2026, 11, 21)).map(\.id) == [b])
            #expect(try await db.lastCompletedRunFinish() == utc(2026, 11, 20, 3, 5))
        }
    }

    @Test(arguments: BackendKind.allCases)
    func claimsOfOneRunAreGrantedInTheOrderAsked(_ kind: BackendKind) async throws {
        try await kind.withBackend { db, _ in
            let run = try await db.beginRun(startedAt: Date(), key: "ab12")
            let ids = ["tt0000003", "tt0000001", "tt0000002"]
            #expect(try await db.claim(ids, runID: run, plannedAt: Date(), lease: .seconds(60)).granted == ids)
            #expect(
                try await db.claim(ids, runID: run, plannedAt: Date(), lease: .seconds(60)).granted == ids,
                "its own again")
            try await db.releaseClaims(runID: run)
            #expect(try await db.claim([], runID: run, plannedAt: Date(), lease: .seconds(60)).granted == [])
        }
    }

    @Test(arguments: BackendKind.allCases)
    func aFlightLetGoIsTakenByTheNextHolder(_ kind: BackendKind) async throws {
        try await kind.withBackend { db, _ in
            #expect(try await db.claimFlight("serve:i:tt0000001", holder: -1, lease: .seconds(60)))
            try await db.releaseFlight("serve:i:tt0000001", holder: -1)
            #expect(try await db.claimFlight("serve:i:tt0000001", holder: -2, lease: .seconds(60)))
            // One writer at a time (memory, SQLite): every flight is taken; on PostgreSQL a live lease holds.
            #expect(
                try await db.claimFlight("serve:i:tt0000001", holder: -3, lease: .seconds(60)) == kind.hasOneWriter)
        }
    }

    @Test func everyBackendIsAtTheSameSchemaVersion() async throws {
        var versions: [Int] = []
        for kind in BackendKind.databases {
            versions.append(try await kind.withBackend { db, _ in try await db.schemaVersion() })
        }
        #expect(versions == [Schema.currentVersion, Schema.currentVersion])
    }
}
