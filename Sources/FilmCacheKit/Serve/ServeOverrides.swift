/// `serve`'s settings as a job file or flags give them; each value given replaces the matching
/// default, each nil keeps it. The job's are applied first, then the flags'.
public struct ServeOverrides: Sendable, Equatable {
    /// Hours a stored answer that found something is served.
    public var answerTTLHours: Double?
    /// Hours a stored negative answer is served.
    public var negativeTTLHours: Double?
    /// How long a request waits for OMDb.
    public var requestTimeout: Duration?
    /// How long a client has to send a request's line and headers.
    public var requestHeadTimeout: Duration?

    public init() {}

    /// `self` with the values `other` gives in place of these.
    public func merging(_ other: ServeOverrides) -> ServeOverrides {
        var merged = self
        if let value = other.answerTTLHours { merged.answerTTLHours = value }
        if let value = other.negativeTTLHours { merged.negativeTTLHours = value }
        if let value = other.requestTimeout { merged.requestTimeout = value }
        if let value = other.requestHeadTimeout { merged.requestHeadTimeout = value }
        return merged
    }

    /// Replaces the values of `settings` that this gives (all but the request head's deadline,
    /// which is the listener's).
    public func apply(to settings: inout ServeSettings) {
        if let answerTTLHours { settings.answerTTL = answerTTLHours * 3_600 }
        if let negativeTTLHours { settings.negativeAnswerTTL = negativeTTLHours * 3_600 }
        if let requestTimeout { settings.requestDeadline = requestTimeout }
    }

    /// The values given, by the key that names them, for the range check.
    public var values: [JobKey: Double?] {
        [
            .answerTTLHours: answerTTLHours, .negativeTTLHours: negativeTTLHours,
            .requestTimeout: requestTimeout?.inSeconds, .requestHeadTimeout: requestHeadTimeout?.inSeconds,
        ]
    }
}
