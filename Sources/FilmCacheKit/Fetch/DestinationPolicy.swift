/// Which addresses a request may connect to: any (OMDb calls, whose base URL the operator
/// chose), or only public ones, except for host names the operator allowed (posters, whose URLs
/// come from upstream).
///
/// The check is made on the address each connection is about to be made to, after name
/// resolution, for the first request and for every redirect; a name that resolves to loopback
/// (`localhost`, or a public-looking name pointed at `127.0.0.1`) is refused like the address itself.
/// An allowance is for the host name as the URL being fetched spells it, not for the addresses it
/// resolves to: allowing `images.lan` lets `http://images.lan/…` reach `192.168.1.20`, but not a
/// redirect from there to `http://192.168.1.20/…` or to `http://localhost/…`.
public struct DestinationPolicy: Sendable, Hashable {
    /// Whether internal addresses are refused (unless the host is allowed).
    package let refusesInternal: Bool
    /// Host names, normalized (``normalizedHost(_:)``), that may reach internal addresses.
    package let allowedHosts: Set<String>

    /// Any address: the policy of OMDb calls.
    public static let any = DestinationPolicy(refusesInternal: false, allowedHosts: [])

    /// Public addresses only, and any address for the hosts named in `allowedHosts`.
    package static func publicOnly(allowing allowedHosts: some Sequence<String>) -> DestinationPolicy {
        DestinationPolicy(refusesInternal: true, allowedHosts: Set(allowedHosts.map(normalizedHost)))
    }

    private init(refusesInternal: Bool, allowedHosts: Set<String>) {
        self.refusesInternal = refusesInternal
        self.allowedHosts = allowedHosts
    }

    /// Why a connection for a URL whose host is `host` to `address` is refused, or `nil` when it
    /// may be made (`host` is asked for only when the address is internal).
    package func refusal(host: @autoclosure () -> String, address: IPAddress) -> DestinationRefusal? {
        guard refusesInternal, let range = address.internalRange else { return nil }
        let host = Self.normalizedHost(host())
        guard !allowedHosts.contains(host) else { return nil }
        return DestinationRefusal(host: host, address: address.description, range: range)
    }

    /// A host as allowances compare it: lowercase, without IPv6 brackets or a final dot, an
    /// address in its usual form (`[0:0::1]` is `::1`).
    public static func normalizedHost(_ text: String) -> String {
        var host = Substring(text.lowercased())
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        if host.hasSuffix("."), host.count > 1 { host = host.dropLast() }
        return IPAddress(String(host))?.description ?? String(host)
    }

    /// `text` as an allowed host, normalized, or why it is not one: a DNS name (letters, digits,
    /// `-`, `_`, dots between labels) or an IP address, without a scheme, port, path or user.
    public static func allowedHost(_ text: String) -> Result<String, DestinationHostError> {
        let host = normalizedHost(text.trimmingCharacters(in: .whitespaces))
        if IPAddress(host) != nil { return .success(host) }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        let valid =
            !host.isEmpty && host.utf8.count <= 253
            && labels.allSatisfy { label in
                !label.isEmpty && label.utf8.count <= 63
                    && label.utf8.allSatisfy { byte in
                        (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D || byte == 0x5F
                    }
            }
        return valid ? .success(host) : .failure(DestinationHostError(text: text))
    }
}

/// A connection refused by a ``DestinationPolicy``: the URL's host and the internal address it led to.
public struct DestinationRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    /// The host of the URL being fetched (after any redirect), normalized.
    public let host: String
    /// The address the connection would have been made to.
    public let address: String
    /// Which internal range that address is in.
    public let range: InternalRange

    /// "refused to connect to localhost at 127.0.0.1, a loopback address".
    public var description: String {
        let at = host == address ? "" : " at \(address)"
        return "refused to connect to \(LogText.escaped(host))\(at), \(range)"
    }
}

/// A value given as an allowed host that is not a host name or an address.
public struct DestinationHostError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The value as given.
    public let text: String

    public var description: String {
        "'\(LogText.escaped(text))' is not a host name or an IP address"
            + " (write a name such as images.lan or an address such as 192.168.1.20, without scheme, port or path)"
    }
}
