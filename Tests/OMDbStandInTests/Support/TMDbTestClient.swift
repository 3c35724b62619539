import Foundation
import OMDbStandIn

/// How a TMDb request carries its token.
enum TMDbAuth {
    /// No token at all.
    case none
    /// `Authorization: Bearer TOKEN`.
    case bearer(String)
    /// `api_key=TOKEN` in the query.
    case apiKey(String)

    /// The token the stand-in accepts by default, as a bearer token.
    static let demo = TMDbAuth.bearer(StandInConfiguration.defaultTMDbToken)
}

extension RawHTTPConnection {
    /// Sends `GET target` (or `method`) with `auth` and `Host: host`, and reads the response.
    func tmdb(_ target: String, auth: TMDbAuth = .demo, host: String = "127.0.0.1", method: String = "GET") throws
        -> RawResponse
    {
        var target = target
        var head = ""
        switch auth {
        case .none: break
        case .bearer(let token): head += "Authorization: Bearer \(token)\r\n"
        case .apiKey(let token): target += (target.contains("?") ? "&" : "?") + "api_key=\(token)"
        }
        try send(raw: "\(method) \(target) HTTP/1.1\r\nHost: \(host)\r\n\(head)\r\n")
        return try readResponse()
    }

    /// The stand-in's stats, decoded.
    func standInStats() throws -> StandInStats {
        try JSONDecoder().decode(StandInStats.self, from: Data(get("/__standin/stats").body))
    }
}

/// What the tests expect of the TMDb view of a corpus, worked out apart from the stand-in's code.
enum TMDbReference {
    /// The body decoded as a JSON object (empty when it is not one).
    static func object(_ body: [UInt8]) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:]
    }

    /// The TMDb ID a film of a small corpus gets: its IMDb number modulo 1,999,993, plus one.
    static func tmdbID(_ imdbID: String) -> Int {
        Int(imdbID.dropFirst(2))! % 1_999_993 + 1
    }

    /// The `results` array of a body.
    static func results(_ body: [UInt8], _ key: String = "results") -> [[String: Any]] {
        object(body)[key] as? [[String: Any]] ?? []
    }

    /// The IDs of a changes page.
    static func changedIDs(_ body: [UInt8]) -> [Int] {
        results(body).compactMap { $0["id"] as? Int }
    }

    /// Today in UTC as `YYYY-MM-DD`.
    static func today(offsetDays: Int = 0) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: Date().addingTimeInterval(Double(offsetDays) * 86_400))
    }

    /// Waits until `condition` holds, checking every 50 ms, for at most `seconds`; returns whether it held.
    static func wait(seconds: Double = 10, until condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            usleep(50_000)
        }
        return try condition()
    }
}
