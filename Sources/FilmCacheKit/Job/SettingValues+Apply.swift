/// The configuration types take the settings given in place of their own values.
extension WarmConfiguration {
    /// Puts the values `settings` gives in place of these: endpoint, pace, retries, breaker,
    /// freshness and budget, time limit and claim lease; a setting not given keeps its value.
    ///
    /// A `Retry-After` is honoured up to 120 seconds, or up to the retry cap when that is longer.
    public mutating func apply(_ settings: SettingValues) {
        if let value = settings[.baseURL] { baseURL = value }
        if let value = settings[.rate] { rate = value }
        if let value = settings[.burst] { burst = value }
        if let value = settings[.maxInFlight] { maxInFlight = value }
        if let value = settings[.maxRuntime] { maxRuntime = value }
        if let value = settings[.claimLease] { claimLease = value }
        let cap = settings[.retryCap] ?? backoff.cap
        backoff = Backoff(
            base: settings[.retryBase] ?? backoff.base, cap: cap,
            maxAttempts: settings[.maxAttempts] ?? backoff.maxAttempts, maxWait: max(.seconds(120), cap))
        circuitBreaker = CircuitBreaker(
            pauseAfter: settings[.breakerPauseAfter] ?? circuitBreaker.pauseAfter,
            stopAfter: settings[.breakerStopAfter] ?? circuitBreaker.stopAfter,
            coolDown: settings[.breakerCoolDown] ?? circuitBreaker.coolDown)
        planSettings.apply(settings)
    }
}

extension CurlMultiTransport.Options {
    /// Puts the concurrency and timeouts `settings` gives in place of these.
    public mutating func apply(_ settings: SettingValues) {
        if let value = settings[.maxInFlight] { maxInFlight = value }
        if let value = settings[.timeout] { totalTimeout = value }
        if let value = settings[.connectTimeout] { connectTimeout = value }
    }
}

extension PlanSettings {
    /// Puts the freshness (days, years) and budget `settings` gives in place of these.
    public mutating func apply(_ settings: SettingValues) {
        let day = FreshnessPolicy.day
        if let value = settings[.ttlDays] { freshness.ttl = value * day }
        if let value = settings[.recentTTLDays] { freshness.recentTTL = value * day }
        if let value = settings[.recentWindowDays] { freshness.recentWindow = value * day }
        if let value = settings[.oldTTLDays] { freshness.oldTTL = value * day }
        if let value = settings[.oldAfterYears] { freshness.oldAfter = value * 365.25 * day }
        if let value = settings[.notFoundTTLDays] { freshness.notFoundTTL = value * day }
        if let value = settings[.titleNotFoundTTLDays] { freshness.titleNotFoundTTL = value * day }
        if let value = settings[.dailyLimit] { dailyLimit = value }
        if let value = settings[.reserve] { reservePercent = value }
        if let value = settings[.quotaTimezone] { quotaTimeZone = value }
    }
}

extension PosterSettings {
    /// Puts the poster settings `settings` gives in place of these.
    public mutating func apply(_ settings: SettingValues) {
        if let value = settings[.posterRate] { rate = value }
        if let value = settings[.posterMaxInFlight] { maxInFlight = value }
        if let value = settings[.posterMaxBytes] { maxBytes = value }
        if let value = settings[.posterRevalidateDays] { revalidateAfter = .seconds(value * 86_400) }
        if let value = settings[.posterGoneRetryDays] { goneRetryAfter = .seconds(value * 86_400) }
        if let value = settings[.posterAllowHosts] { allowedHosts = value }
    }
}

extension ServeSettings {
    /// Puts `serve`'s settings `settings` gives in place of these (all but the request head's
    /// deadline, which is the listener's).
    public mutating func apply(_ settings: SettingValues) {
        if let value = settings[.answerTTLHours] { answerTTL = value * 3_600 }
        if let value = settings[.negativeTTLHours] { negativeAnswerTTL = value * 3_600 }
        if let value = settings[.requestTimeout] { requestDeadline = value }
    }
}
