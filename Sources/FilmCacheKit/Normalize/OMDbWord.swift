/// One of OMDb's words from a set it documents, with a case for any other, carried as its text: a
/// film's `Type`, a rating's `Source`. The canonical JSON form is the text itself.
package protocol OMDbWord: Codable, CustomStringConvertible {
    /// Maps OMDb's text onto the known words, or the case for any other.
    init(omdb text: String)
}

extension OMDbWord {
    /// Decodes from the canonical JSON form.
    public init(from decoder: any Decoder) throws {
        self.init(omdb: try decoder.singleValueContainer().decode(String.self))
    }

    /// Encodes into the canonical JSON form.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }
}
