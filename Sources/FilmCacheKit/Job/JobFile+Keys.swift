extension JobFile {
    /// Sets the value of the key `name` from `reader`'s entry.
    mutating func set(_ name: String, from reader: JobValueReader) throws(JobFileError.Issue) {
        guard let key = JobKey(rawValue: name) else {
            if JobKey.secretKeys.contains(name.lowercased()) {
                guard !name.lowercased().hasPrefix("tmdb") else {
                    throw reader.issue(
                        "TMDb's token itself never goes in a job file; name a file holding it with tmdb_token_file"
                            + " or set TMDB_API_TOKEN")
                }
                throw reader.issue(
                    "the API key itself never goes in a job file; name a file holding it with api_key_file"
                        + " or an environment variable with api_key_env")
            }
            let hint = JobKey.suggestion(for: name).map { "; did you mean '\($0.rawValue)'?" } ?? " (see docs/JOBS.md)"
            throw JobFileError.Issue(line: reader.entry.line, message: "unknown key '\(name)'\(hint)")
        }
        lines[key] = reader.entry.line
        settings.set(key, to: try key.setting.read(reader, key))
    }

    /// Keys that are fine alone but contradict each other, reported on the later one's line.
    func conflicts() -> [JobFileError.Issue] {
        var issues: [JobFileError.Issue] = []
        func later(_ a: JobKey, _ b: JobKey) -> Int? { max(lines[a] ?? 0, lines[b] ?? 0) }
        if apiKeyFile != nil, apiKeyVariable != nil {
            issues.append(
                .init(line: later(.apiKeyFile, .apiKeyEnv), message: "give api_key_file or api_key_env, not both"))
        }
        for (key, message) in settings.problems(name: \.rawValue) {
            let pair = SettingOrder.all.first { $0.larger == key }
            issues.append(.init(line: pair.flatMap { later($0.smaller, $0.larger) } ?? lines[key], message: message))
        }
        return issues
    }
}
