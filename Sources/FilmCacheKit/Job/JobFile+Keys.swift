extension JobFile {
    /// Sets the value of the key `name` from `reader`'s entry.
    mutating func set(_ name: String, from reader: JobValueReader) throws(JobFileError.Issue) {
        guard let key = JobKey(rawValue: name) else {
            if JobKey.secretKeys.contains(name.lowercased()) {
                throw reader.issue(
                    "the API key itself never goes in a job file; name a file holding it with api_key_file"
                        + " or an environment variable with api_key_env")
            }
            let hint = JobKey.suggestion(for: name).map { "; did you mean '\($0.rawValue)'?" } ?? " (see docs/JOBS.md)"
            throw JobFileError.Issue(line: reader.entry.line, message: "unknown key '\(name)'\(hint)")
        }
        lines[key] = reader.entry.line
        switch key {
        case .worklists: worklists = try reader.paths()
        case .db:
            if case .string(let text) = reader.entry.value, DatabaseName.isURL(text) {
                databasePath = try reader.string()
                break
            }
            guard case .string(let text) = reader.entry.value, !text.isEmpty, DatabaseName.namesNoFile(text) else {
                databasePath = try reader.path()
                break
            }
            throw reader.issue(DatabaseNameError.notAFile(text).description)
        case .dbPasswordFile: databasePasswordFile = try reader.path()
        case .apiKeyFile: apiKeyFile = try reader.path()
        case .apiKeyEnv: apiKeyVariable = try reader.variableName()
        case .baseURL: fetch.baseURL = try reader.string()
        case .rate: fetch.rate = try reader.number(in: key)
        case .burst: fetch.burst = try reader.integer(in: key)
        case .maxInFlight: fetch.maxInFlight = try reader.integer(in: key)
        case .dailyLimit: plan.dailyLimit = try reader.integer(in: key)
        case .reserve: plan.reservePercent = try reader.number(in: key, expected: "a percentage")
        case .quotaTimezone: plan.quotaTimeZone = try reader.timeZone()
        case .ttlDays: plan.ttlDays = try reader.number(in: key)
        case .recentTTLDays: plan.recentTTLDays = try reader.number(in: key)
        case .recentWindowDays: plan.recentWindowDays = try reader.number(in: key)
        case .oldTTLDays: plan.oldTTLDays = try reader.number(in: key)
        case .oldAfterYears: plan.oldAfterYears = try reader.number(in: key)
        case .notFoundTTLDays: plan.notFoundTTLDays = try reader.number(in: key)
        case .titleNotFoundTTLDays: plan.titleNotFoundTTLDays = try reader.number(in: key)
        case .maxRuntime: maxRuntime = try reader.duration(in: key)
        case .claimLease: claimLease = try reader.duration(in: key)
        case .worklistFormat: worklistFormat = try reader.choice(JobKey.worklistFormats)
        case .metricsFile: metricsFile = try reader.path()
        case .logFormat:
            let format = try reader.string()
            guard !format.isEmpty else { throw reader.issue("must not be empty") }
            logFormat = format
        case .timeout: fetch.timeout = try reader.duration(in: key)
        case .connectTimeout: fetch.connectTimeout = try reader.duration(in: key)
        case .maxAttempts: fetch.maxAttempts = try reader.integer(in: key)
        case .retryBase: fetch.retryBase = try reader.duration(in: key)
        case .retryCap: fetch.retryCap = try reader.duration(in: key)
        case .breakerPauseAfter: fetch.breakerPauseAfter = try reader.integer(in: key)
        case .breakerStopAfter: fetch.breakerStopAfter = try reader.integer(in: key)
        case .breakerCoolDown: fetch.breakerCoolDown = try reader.duration(in: key)
        case .posterStore: posters.store = try reader.path()
        case .posterRate: posters.rate = try reader.number(in: key)
        case .posterMaxInFlight: posters.maxInFlight = try reader.integer(in: key)
        case .posterMaxBytes: posters.maxBytes = try reader.integer(in: key)
        case .posterRevalidateDays: posters.revalidateDays = try reader.number(in: key)
        case .posterGoneRetryDays: posters.goneRetryDays = try reader.number(in: key)
        case .answerTTLHours: serve.answerTTLHours = try reader.number(in: key)
        case .negativeTTLHours: serve.negativeTTLHours = try reader.number(in: key)
        case .requestTimeout: serve.requestTimeout = try reader.duration(in: key)
        case .requestHeadTimeout: serve.requestHeadTimeout = try reader.duration(in: key)
        case .progressInterval: progressInterval = try reader.duration(in: key)
        case .posterAllowHosts: posters.allowHosts = try reader.hosts()
        }
    }

    /// Keys that are fine alone but contradict each other, reported on the later one's line.
    func conflicts() -> [JobFileError.Issue] {
        var issues: [JobFileError.Issue] = []
        func later(_ a: JobKey, _ b: JobKey) -> Int? { max(lines[a] ?? 0, lines[b] ?? 0) }
        if apiKeyFile != nil, apiKeyVariable != nil {
            issues.append(
                .init(line: later(.apiKeyFile, .apiKeyEnv), message: "give api_key_file or api_key_env, not both"))
        }
        let values: [JobKey: Double?] = [
            .retryBase: fetch.retryBase?.inSeconds, .retryCap: fetch.retryCap?.inSeconds,
            .breakerPauseAfter: fetch.breakerPauseAfter.map(Double.init),
            .breakerStopAfter: fetch.breakerStopAfter.map(Double.init),
        ]
        for (key, message) in JobKey.problems(values.compactMapValues { $0 }, name: \.rawValue) {
            let pair = JobKey.ordered.first { $0.larger == key }
            issues.append(.init(line: pair.flatMap { later($0.smaller, $0.larger) } ?? lines[key], message: message))
        }
        return issues
    }
}
