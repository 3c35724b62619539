import Foundation

/// An IPv4 or IPv6 address, as its bytes in network order (4 or 16 of them).
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// The address's bytes: 4 for IPv4, 16 for IPv6.
    public let bytes: [UInt8]

    /// The address with these bytes; `nil` unless there are 4 or 16.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// The address written as text (`192.0.2.1`, `::1`, `::ffff:127.0.0.1`), or `nil` when the
    /// text is not one (a host name, brackets, a zone, a port).
    public init?(_ text: String) {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        bytes = withUnsafeBytes(of: &v6) { Array($0) }
    }

    /// The address in its usual text form (`inet_ntop`).
    public var description: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        let written = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &text, socklen_t(text.count)) }
        guard written != nil else { return bytes.map { String($0) }.joined(separator: ".") }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The range this address is in when it is not a public unicast address (loopback, private,
    /// link-local, unique-local, multicast and the like), or `nil` for a public one.
    ///
    /// IPv6 forms that carry an IPv4 address (IPv4-mapped `::ffff:a.b.c.d`, IPv4-compatible
    /// `::a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`, 6to4 `2002:AABB:CCDD::`) are judged by the IPv4
    /// address they carry: `::ffff:127.0.0.1` reaches this machine's loopback as surely as `127.0.0.1`.
    package var internalRange: InternalRange? {
        bytes.count == 4 ? Self.range(ipv4: bytes) : Self.range(ipv6: bytes)
    }

    /// IPv4 ranges that are not public unicast, first match wins (broadcast before the reserved 240/4).
    private static let ipv4Ranges: [(prefix: UInt32, length: Int, range: InternalRange)] = [
        (0x0000_0000, 8, .unspecified),  // 0.0.0.0/8 "this network": 0.0.0.0 reaches this host
        (0x0A00_0000, 8, .privateUse),  // 10/8
        (0x6440_0000, 10, .sharedAddressSpace),  // 100.64/10, carrier-grade NAT
        (0x7F00_0000, 8, .loopback),  // 127/8
        (0xA9FE_0000, 16, .linkLocal),  // 169.254/16, cloud metadata services among them
        (0xAC10_0000, 12, .privateUse),  // 172.16/12
        (0xC000_0000, 24, .reserved),  // 192.0.0/24, IETF protocol assignments
        (0xC000_0200, 24, .documentation),  // 192.0.2/24 TEST-NET-1
        (0xC0A8_0000, 16, .privateUse),  // 192.168/16
        (0xC612_0000, 15, .reserved),  // 198.18/15, benchmarking
        (0xC633_6400, 24, .documentation),  // 198.51.100/24 TEST-NET-2
        (0xCB00_7100, 24, .documentation),  // 203.0.113/24 TEST-NET-3
        (0xE000_0000, 4, .multicast),  // 224/4
        (0xFFFF_FFFF, 32, .broadcast),  // 255.255.255.255
        (0xF000_0000, 4, .reserved),  // 240/4
    ]

    private static func range(ipv4 bytes: some Collection<UInt8>) -> InternalRange? {
        let value = bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return ipv4Ranges.first { entry in
            let mask = entry.length == 0 ? 0 : UInt32.max << (32 - entry.length)
            return value & mask == entry.prefix
        }?.range
    }

    private static func range(ipv6 bytes: [UInt8]) -> InternalRange? {
        let head = bytes.prefix(12)
        if head.allSatisfy({ $0 == 0 }) {
            if bytes[12..<15].allSatisfy({ $0 == 0 }) && bytes[15] <= 1 {
                return bytes[15] == 1 ? .loopback : .unspecified
            }
            return range(ipv4: bytes[12...]) ?? .reserved  // IPv4-compatible, deprecated: never a real host
        }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
            return range(ipv4: bytes[12...])  // IPv4-mapped
        }
        if bytes.starts(with: [0x00, 0x64, 0xFF, 0x9B]) {
            if bytes[4..<12].allSatisfy({ $0 == 0 }) { return range(ipv4: bytes[12...]) }  // NAT64 64:ff9b::/96
            if bytes[4] == 0x00 && bytes[5] == 0x01 { return .privateUse }  // local-use NAT64 64:ff9b:1::/48
        }
        if bytes.starts(with: [0x20, 0x02]) { return range(ipv4: bytes[2..<6]) }  // 6to4 2002::/16
        if bytes.starts(with: [0x20, 0x01, 0x0D, 0xB8]) { return .documentation }  // 2001:db8::/32
        if bytes[0] & 0xFE == 0xFC { return .uniqueLocal }  // fc00::/7
        if bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80 { return .linkLocal }  // fe80::/10
        if bytes[0] == 0xFE && bytes[1] & 0xC0 == 0xC0 { return .privateUse }  // fec0::/10, site-local (deprecated)
        if bytes[0] == 0xFF { return .multicast }  // ff00::/8
        if bytes[0] & 0xE0 != 0x20 { return .reserved }  // outside 2000::/3, global unicast; 100::/64 among them
        return nil
    }
}

/// A range of addresses that are not public unicast, as ``IPAddress/internalRange`` names it.
public enum InternalRange: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `0.0.0.0/8`, `::`: connecting to one reaches this host.
    case unspecified
    /// `127.0.0.0/8`, `::1`.
    case loopback
    /// `10/8`, `172.16/12`, `192.168/16`, IPv6 site-local `fec0::/10`, local-use NAT64.
    case privateUse = "private"
    /// `100.64/10`, carrier-grade NAT.
    case sharedAddressSpace = "shared"
    /// `169.254/16`, `fe80::/10`.
    case linkLocal = "link-local"
    /// `fc00::/7`.
    case uniqueLocal = "unique-local"
    /// `224/4`, `ff00::/8`.
    case multicast
    /// `255.255.255.255`.
    case broadcast
    /// The documentation ranges (`192.0.2/24`, `198.51.100/24`, `203.0.113/24`, `2001:db8::/32`).
    case documentation
    /// Everything else set aside (`240/4`, `198.18/15`, `192.0.0/24`, IPv6 outside `2000::/3`).
    case reserved

    /// "a loopback address".
    public var description: String {
        switch self {
        case .unspecified: "an unspecified address (this host)"
        case .loopback: "a loopback address"
        case .privateUse: "a private address"
        case .sharedAddressSpace: "a shared (carrier-grade NAT) address"
        case .linkLocal: "a link-local address"
        case .uniqueLocal: "a unique-local address"
        case .multicast: "a multicast address"
        case .broadcast: "the broadcast address"
        case .documentation: "a documentation address"
        case .reserved: "a reserved address"
        }
    }
}
