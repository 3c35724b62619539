import Foundation

/// The rule an OMDb base URL must meet before any call is made.
///
/// The run appends `?apikey=…&i=ID` to the base URL, so a URL that is not plain HTTP(S) to a
/// host and port would either never reach a server (a port out of range: every call fails
/// and is charged) or reach something that is not one (`file:///etc/passwd#` read a local
/// file, the query swallowed by the fragment). libcurl is also held to `http,https` for
/// requests and redirects, so this check is not the only guard.
///
/// A plain host is read as written (`encodedHost`): decoding it (`host`) loads ICU's IDNA tables
/// (2.3 MB of a dynamically linked warm was ICU's, 1.1 MB without this), and a plain host reads
/// the same either way. A host with %-escapes, an IDNA label (`xn--`) or more bytes than a DNS name
/// is decoded, as before: one that does not decode names no host.
public enum BaseURL {
    /// Why `text` cannot be an OMDb base URL, or `nil` when it can.
    public static func problem(_ text: String) -> String? {
        guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased() else {
            return "\"\(text)\" is not a URL (expected http://HOST[:PORT]/ or https://HOST[:PORT]/)"
        }
        guard scheme == "http" || scheme == "https" else {
            return "\"\(text)\" uses \(scheme):, but only http and https are allowed"
        }
        guard let written = url.encodedHost, let host = needsDecoding(written) ? url.host : written, !host.isEmpty
        else { return "\"\(text)\" names no host" }
        if let port = url.port, !(1...65_535).contains(port) {
            return "\"\(text)\" names port \(port), outside 1...65535"
        }
        if url.fragment != nil { return "\"\(text)\" has a #fragment, which would swallow the query" }
        if url.user != nil || url.password != nil { return "\"\(text)\" carries a user name or password" }
        return nil
    }

    /// Whether `host` may read otherwise decoded: it has %-escapes or an IDNA label (`xn--`, any case),
    /// or it is longer than a DNS name can be (the decoder refuses a host past 2,048 bytes).
    private static func needsDecoding(_ host: String) -> Bool {
        let bytes = Array(host.utf8)
        if bytes.count > 253 || bytes.contains(UInt8(ascii: "%")) { return true }
        let label = Array("xn--".utf8)
        return bytes.indices.dropLast(label.count - 1).contains { start in
            zip(bytes[start...], label).allSatisfy { $0 | 0x20 == $1 }
        }
    }
}
