import Foundation

/// The `/__standin/…` control endpoints; they never count as OMDb requests.
extension StandInEngine {
    /// Answers `GET /__standin/stats`, `POST /__standin/reset`, and `GET`/`POST /__standin/faults`.
    func control(_ request: HTTPRequest) -> HTTPResponse {
        if let response = tmdb.control(request) { return response }
        switch (request.path, request.method) {
        case ("/__standin/stats", "GET"):
            return HTTPResponse(status: 200, body: Array(stats().jsonData()))
        case ("/__standin/reset", "POST"):
            reset()
            return HTTPResponse(status: 200, body: Array(stats().jsonData()))
        case ("/__standin/faults", "GET"):
            return Self.json(behaviour)
        case ("/__standin/faults", "POST"):
            do {
                let updated = try Self.applying(request.query, to: behaviour)
                updateBehaviour(updated)
                return Self.json(updated)
            } catch {
                return .text("\(error)", status: 400)
            }
        case ("/__standin/stats", _), ("/__standin/reset", _), ("/__standin/faults", _):
            return .text("Method Not Allowed", status: 405)
        default:
            return .text("Not Found", status: 404)
        }
    }

    /// A control query parameter could not be read.
    struct ControlParameterError: Error, CustomStringConvertible {
        /// What was wrong with which parameter.
        var description: String
    }

    /// Returns `behaviour` with the parameters present in `query` applied; absent ones keep their value.
    static func applying(_ query: [String: String], to behaviour: StandInBehaviour) throws -> StandInBehaviour {
        var updated = behaviour
        if let text = query["fault-rate"] {
            guard let rate = Double(text), rate >= 0, rate <= 1 else {
                throw ControlParameterError(description: "fault-rate must be a number in 0...1, got '\(text)'")
            }
            updated.faultRate = rate
        }
        if let text = query["faults"] {
            updated.faults = try FaultKind.parseList(text)
        }
        if let text = query["seed"] {
            guard let seed = UInt64(text) else {
                throw ControlParameterError(description: "seed must be a non-negative integer, got '\(text)'")
            }
            updated.seed = seed
        }
        if let text = query["latency-ms"] {
            guard let latency = Int(text), latency >= 0 else {
                throw ControlParameterError(description: "latency-ms must be a non-negative integer, got '\(text)'")
            }
            updated.latencyMilliseconds = latency
        }
        if let text = query["posters"] {
            guard text == "on" || text == "off" else {
                throw ControlParameterError(description: "posters must be on or off, got '\(text)'")
            }
            updated.servePosters = text == "on"
        }
        if let text = query["poster-version"] {
            guard let version = Int(text), version >= 1 else {
                throw ControlParameterError(description: "poster-version must be a positive integer, got '\(text)'")
            }
            updated.posterVersion = version
        }
        if let text = query["poster-fault-rate"] {
            guard let rate = Double(text), rate >= 0, rate <= 1 else {
                throw ControlParameterError(description: "poster-fault-rate must be a number in 0...1, got '\(text)'")
            }
            updated.posterFaultRate = rate
        }
        if let text = query["poster-faults"] { updated.posterFaults = try PosterFault.parseList(text) }
        if let text = query["limit-after"] { updated.limitAfter = try optionalCount(text, name: "limit-after") }
        if let text = query["daily-limit"] { updated.dailyLimit = try optionalCount(text, name: "daily-limit") }
        if let text = query["tmdb-rate-limit"] {
            updated.tmdbRateLimit = try optionalCount(text, name: "tmdb-rate-limit")
            if updated.tmdbRateLimit == 0 {
                throw ControlParameterError(description: "tmdb-rate-limit must be at least 1 or 'none'")
            }
        }
        if let text = query["tmdb-retry-after"] {
            guard let seconds = Int(text), seconds >= 1 else {
                throw ControlParameterError(description: "tmdb-retry-after must be a positive integer, got '\(text)'")
            }
            updated.tmdbRetryAfterSeconds = seconds
        }
        if let text = query["tmdb-changes-page-size"] {
            guard let size = Int(text), size >= 1 else {
                throw ControlParameterError(
                    description: "tmdb-changes-page-size must be a positive integer, got '\(text)'")
            }
            updated.tmdbChangesPageSize = size
        }
        return updated
    }

    private static func optionalCount(_ text: String, name: String) throws -> Int? {
        if text == "none" || text.isEmpty { return nil }
        guard let count = Int(text), count >= 0 else {
            throw ControlParameterError(description: "\(name) must be a non-negative integer or 'none', got '\(text)'")
        }
        return count
    }

    private static func json(_ behaviour: StandInBehaviour) -> HTTPResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let body = (try? encoder.encode(behaviour)) ?? Data("{}".utf8)
        return HTTPResponse(status: 200, body: Array(body))
    }
}
