import Foundation

/// OMDb's answer bodies as `filmcache serve` reads and writes them.
public enum OMDbAnswer {
    /// OMDb's words for a request without a key.
    package static let noKey = "No API key provided."
    /// OMDb's words for a key it does not know (here: a token the tokens file does not list).
    public static let invalidKey = "Invalid API key!"
    /// OMDb's words once a key's daily limit is spent.
    public static let limitReached = "Request limit reached!"
    /// OMDb's words for an `i=` that is no IMDb ID.
    package static let incorrectID = "Incorrect IMDb ID."
    /// OMDb's words for a request it cannot make sense of.
    package static let somethingWentWrong = "Something went wrong."
    /// OMDb's words for trouble on its side: what a miss gets while OMDb cannot be reached.
    public static let errorGettingData = "Error getting data."

    /// What an answer to a query is: `"Response":"True"` in the shape the query is answered with,
    /// OMDb's error text, or neither (not OMDb's: `{"Response":"True"}` alone, a page, a cut body).
    static func classify(_ body: [UInt8], as shape: AnswerShape) -> FetchOutcome.Body {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any],
            let response = object["Response"] as? String
        else { return .malformed }
        if response == "True" {
            switch shape {
            case .film:
                guard let id = object["imdbID"] as? String, PlainTextWorklist.isIMDbID(id) else { return .malformed }
            case .search: guard object["Search"] is [Any] else { return .malformed }
            case .season: guard object["Episodes"] is [Any] else { return .malformed }
            }
            return .film
        }
        if response == "False", let error = object["Error"] as? String { return .error(error) }
        return .malformed
    }

    /// `{"Response":"False","Error":"…"}`, as OMDb writes its errors.
    public static func error(_ message: String) -> [UInt8] {
        var out = Array(#"{"Response":"False","Error":"#.utf8)
        JSONString.append(message, to: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// OMDb's XML error form: `<root response="False"><error>…</error></root>`.
    package static func xmlError(_ message: String) -> [UInt8] {
        let text = MarkupText.escaped(message)
        return Array(
            #"<?xml version="1.0" encoding="UTF-8"?><root response="False"><error>\#(text)</error></root>"#.utf8)
    }

    /// The `imdbID` value of a film body, found without parsing the whole body (for counting
    /// demand on answers served from the cache).
    static func imdbID(in body: [UInt8]) -> String? {
        let marker = Array(#""imdbID":""#.utf8)
        guard let range = body.firstRange(of: marker) else { return nil }
        let rest = body[range.upperBound...].prefix(12)
        guard let end = rest.firstIndex(of: UInt8(ascii: "\"")) else { return nil }
        let id = String(decoding: rest[..<end], as: UTF8.self)
        return PlainTextWorklist.isIMDbID(id) ? id : nil
    }
}

/// What OMDb's positive answer to a query holds.
public enum AnswerShape: Sendable, Equatable {
    /// One film's body, naming its IMDb ID (`t=`, `plot=full`, `Season=` with `Episode=`).
    case film
    /// A search page: a `Search` list.
    case search
    /// A season: an `Episodes` list.
    case season
}
