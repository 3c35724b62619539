/// Words for an answer that is not OMDb's, for the log and the message the run ends with.
enum ForeignAnswer {
    /// How many bytes of the body are shown.
    static let shownBytes = 64

    /// `HTTP 403, text/html, body "<!DOCTYPE html>…"`: status, content type and the body's first
    /// bytes, control characters escaped and any `apikey=` value redacted.
    static func describe(_ response: HTTPResponse) -> String {
        var out = "HTTP \(response.status)"
        out += ", " + (response.contentType.map { LogText.escaped($0) } ?? "no content type")
        if response.body.isEmpty { return out + ", empty body" }
        let shown = String(decoding: response.body.prefix(shownBytes), as: UTF8.self)
        let more = response.body.count > shownBytes ? "…" : ""
        return out + ", body \"" + LogRecord.redacted(LogText.escaped(shown)) + more + "\""
    }
}
