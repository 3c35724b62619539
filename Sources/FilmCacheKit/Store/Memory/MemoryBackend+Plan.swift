import Foundation

/// Planning a night and counting the cache in memory.
extension MemoryBackend {
    /// The plan the SQLite backend makes: each distinct ID of the worklist (titles the index knows
    /// standing as their IDs) placed by `planner` at its first entry's position, named by as many
    /// files as name it, with its demand; titles to resolve ranked as missing IDs named as often.
    package func plan(_ worklist: Worklist, planner: Planner, now: Date, budget: Int?) async throws(StoreError) -> Plan
    {
        let index = titlePlan(worklist, at: now)
        var plan = Plan()
        plan.titles = index.counts
        var entries: [String: (position: Int, demand: Int, file: Int)] = [:]
        var order: [String] = []
        var position = 0
        func enter(_ id: String, file: Int) {
            if let held = entries[id] {
                entries[id] = (held.position, held.demand + (held.file == file ? 0 : 1), file)
            } else {
                entries[id] = (position, 1, file)
                order.append(id)
            }
            position += 1
        }
        worklist.forEachFile { (file, ids, titleEntries) in
            for id in ids { enter(id, file: file) }
            for entry in titleEntries {
                if let id = index.resolved[entry.query.key] { enter(id, file: file) }
            }
        }
        var due: [(rank: DueRank, target: FetchTarget)] = []
        for id in order {
            guard let entry = entries[id] else { continue }
            let placement = planner.place(
                state(id), demand: entry.demand, requests: demandRows[id]?.requests ?? 0, position: entry.position,
                now: now)
            plan.count(placement)
            if case .due(let rank) = placement { due.append((rank: rank, target: .id(id))) }
        }
        for title in index.due {
            let rank = DueRank(
                kind: .missing, score: Planner.weight(named: title.demand, requests: 0), position: title.position)
            due.append((rank: rank, target: .title(title.entry)))
        }
        due.sort { $0.rank.comesBefore($1.rank) }
        for (rank, target) in due {
            plan.schedule(target, failedBefore: rank.failedBefore, requests: rank.requests, budget: budget)
        }
        return plan
    }

    /// What the title index says of a worklist's titles: the IDs it knows, the titles to resolve.
    struct TitlePlan {
        /// The film each known title names.
        var resolved: [TitleKey: String] = [:]
        /// Titles to ask OMDb for: the first entry naming each, the files naming it, its place.
        var due: [(entry: TitleEntry, demand: Int, position: Int)] = []
        var counts = Plan.TitleCounts()
    }

    /// Looks each distinct title of `worklist` up in the title index at `now`, by
    /// ``TitleIndexRow/standing(of:row:at:)``; a title to resolve takes its place after every entry.
    func titlePlan(_ worklist: Worklist, at now: Date) -> TitlePlan {
        var result = TitlePlan()
        guard !worklist.titles.isEmpty else { return result }
        var files: [TitleKey: Set<Int>] = [:]
        var firsts: [(key: TitleKey, entry: TitleEntry)] = []
        worklist.forEachFile { (file, _, entries) in
            for entry in entries {
                let key = entry.query.key
                if files[key] == nil { firsts.append((key, entry)) }
                files[key, default: []].insert(file)
            }
        }
        result.counts.distinct = firsts.count
        for (ordinal, first) in firsts.enumerated() {
            let row = titles[first.key].map {
                TitleIndexRow(imdbID: $0.imdbID, nextAttemptAt: $0.nextAttemptAt, askedTitle: $0.askedTitle)
            }
            switch TitleIndexRow.standing(of: first.entry.query, row: row, at: now) {
            case .resolved(let id):
                result.resolved[first.key] = id
                result.counts.known += 1
            case .notFound:
                result.counts.notFound += 1
            case .due:
                result.counts.toResolve += 1
                result.due.append((first.entry, files[first.key]?.count ?? 1, worklist.entryCount + ordinal))
            }
        }
        return result
    }

    package func census(freshness: FreshnessPolicy, now: Date, currentDataVersion: Int) async throws(StoreError)
        -> CacheCensus
    {
        var census = CacheCensus()
        for film in films.values {
            census.add(
                fetchedAt: film.lastFetched, age: Self.age(film), type: film.type?.description,
                dataVersion: film.dataVersion, now: now, freshness: freshness, currentDataVersion: currentDataVersion)
        }
        for row in lookups.values {
            switch row.status {
            case .notFound: census.notFound += 1
            case .failed: census.failed += 1
            }
        }
        return census
    }
}
