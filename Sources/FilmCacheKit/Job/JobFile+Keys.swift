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
        case .db: databasePath = try reader.path()
        case .apiKeyFile: apiKeyFile = try reader.path()
        case .apiKeyEnv: apiKeyVariable = try reader.variableName()
        case .baseURL: fetch.baseURL = try reader.string()
        case .rate: fetch.rate = try reader.number()
        case .burst: fetch.burst = try reader.integer(minimum: 1)
        case .maxInFlight: fetch.maxInFlight = try reader.integer(minimum: 1)
        case .dailyLimit: plan.dailyLimit = try reader.integer(minimum: 0)
        case .reserve:
            let percent = try reader.number(expected: "a percentage")
            guard percent < 100 else { throw reader.issue("must be from 0 to 99 (percent)") }
            plan.reservePercent = percent
        case .quotaTimezone: plan.quotaTimeZone = try reader.timeZone()
        case .ttlDays: plan.ttlDays = try reader.number()
        case .recentTTLDays: plan.recentTTLDays = try reader.number()
        case .recentWindowDays: plan.recentWindowDays = try reader.number()
        case .oldTTLDays: plan.oldTTLDays = try reader.number()
        case .oldAfterYears: plan.oldAfterYears = try reader.number()
        case .notFoundTTLDays: plan.notFoundTTLDays = try reader.number()
        case .maxRuntime: maxRuntime = try reader.duration()
        case .worklistFormat: worklistFormat = try reader.choice(JobKey.worklistFormats)
        case .metricsFile: metricsFile = try reader.path()
        case .logFormat:
            let format = try reader.string()
            guard !format.isEmpty else { throw reader.issue("must not be empty") }
            logFormat = format
        case .timeout: fetch.timeout = try reader.duration()
        case .connectTimeout: fetch.connectTimeout = try reader.duration()
        case .maxAttempts: fetch.maxAttempts = try reader.integer(minimum: 1)
        case .retryBase: fetch.retryBase = try reader.duration(allowZero: true)
        case .retryCap: fetch.retryCap = try reader.duration(allowZero: true)
        case .breakerPauseAfter: fetch.breakerPauseAfter = try reader.integer(minimum: 1)
        case .breakerStopAfter: fetch.breakerStopAfter = try reader.integer(minimum: 1)
        case .breakerCoolDown: fetch.breakerCoolDown = try reader.duration(allowZero: true)
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
        if let base = fetch.retryBase, let cap = fetch.retryCap, base > cap {
            issues.append(.init(line: later(.retryBase, .retryCap), message: "retry_base is more than retry_cap"))
        }
        if let pause = fetch.breakerPauseAfter, let stop = fetch.breakerStopAfter, stop < pause {
            issues.append(
                .init(
                    line: later(.breakerPauseAfter, .breakerStopAfter),
                    message: "breaker_stop_after is less than breaker_pause_after"))
        }
        return issues
    }
}
