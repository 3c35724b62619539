/// Text made safe inside HTML or XML, in an element or a quoted attribute.
public enum MarkupText {
    /// `text` with `&`, `<`, `>`, `"` and `'` written as character references.
    public static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}
