import Testing

@testable import FilmCacheKit

/// The address classifier that decides which poster connections are refused.
struct IPAddressTests {
    /// Addresses that are not public unicast, with the range each is in.
    static let internalAddresses: [(String, InternalRange)] = [
        ("0.0.0.0", .unspecified), ("0.1.2.3", .unspecified), ("::", .unspecified),
        ("127.0.0.1", .loopback), ("127.255.255.254", .loopback), ("127.1.2.3", .loopback), ("::1", .loopback),
        ("10.0.0.1", .privateUse), ("10.255.255.255", .privateUse),
        ("172.16.0.1", .privateUse), ("172.31.255.255", .privateUse),
        ("192.168.0.1", .privateUse), ("192.168.255.255", .privateUse),
        ("100.64.0.1", .sharedAddressSpace), ("100.127.255.255", .sharedAddressSpace),
        ("169.254.169.254", .linkLocal), ("169.254.0.1", .linkLocal),
        ("224.0.0.1", .multicast), ("239.255.255.250", .multicast),
        ("255.255.255.255", .broadcast), ("240.0.0.1", .reserved), ("255.255.255.254", .reserved),
        ("192.0.0.8", .reserved), ("198.18.0.1", .reserved), ("198.19.255.255", .reserved),
        ("192.0.2.1", .documentation), ("198.51.100.7", .documentation), ("203.0.113.9", .documentation),
        // IPv4-mapped and IPv4-compatible IPv6: judged by the IPv4 address they carry.
        ("::ffff:127.0.0.1", .loopback), ("::ffff:7f00:1", .loopback), ("::ffff:0.0.0.0", .unspecified),
        ("::ffff:10.1.2.3", .privateUse), ("::ffff:169.254.169.254", .linkLocal),
        ("::ffff:192.168.1.1", .privateUse), ("::127.0.0.1", .loopback), ("::8.8.8.8", .reserved),
        // NAT64 and 6to4 carrying an internal IPv4 address.
        ("64:ff9b::127.0.0.1", .loopback), ("64:ff9b::a00:1", .privateUse), ("64:ff9b:1::1", .privateUse),
        ("2002:7f00:1::", .loopback), ("2002:c0a8:101::1", .privateUse),
        ("fe80::1", .linkLocal), ("febf::1", .linkLocal), ("fec0::1", .privateUse),
        ("fc00::1", .uniqueLocal), ("fd12:3456:789a::1", .uniqueLocal),
        ("ff02::1", .multicast), ("ff05::2", .multicast),
        ("2001:db8::1", .documentation), ("100::1", .reserved), ("4000::1", .reserved), ("::1:0:0:0", .reserved),
    ]

    /// Public unicast addresses, next to the edges of the internal ranges.
    static let publicAddresses = [
        "1.1.1.1", "8.8.8.8", "9.255.255.255", "11.0.0.0", "100.63.255.255", "100.128.0.0", "126.255.255.255",
        "128.0.0.0", "169.253.255.255", "169.255.0.0", "172.15.255.255", "172.32.0.0", "192.167.255.255",
        "192.169.0.0", "198.17.255.255", "198.20.0.0", "223.255.255.255", "52.94.236.248",
        "2606:4700:4700::1111", "2a00:1450:4001:82b::200e", "::ffff:8.8.8.8", "64:ff9b::808:808",
        "2002:808:808::1", "2001:4860::8888", "3fff:ffff::1",
    ]

    @Test(arguments: internalAddresses)
    func internalAddressesAreNamedByTheirRange(_ text: String, _ range: InternalRange) throws {
        let address = try #require(IPAddress(text))
        #expect(address.internalRange == range, "\(text)")
    }

    @Test(arguments: publicAddresses)
    func publicAddressesAreInNoRange(_ text: String) throws {
        let address = try #require(IPAddress(text))
        #expect(address.internalRange == nil, "\(text)")
    }

    @Test func everyIPv4AddressAroundEachRangeEdgeIsJudgedAsItsPrefixSays() throws {
        // Each IPv4 range, its first and last address inside and the neighbours just outside.
        let ranges: [(first: UInt32, length: Int)] = [
            (0x0A00_0000, 8), (0x6440_0000, 10), (0x7F00_0000, 8), (0xA9FE_0000, 16), (0xAC10_0000, 12),
            (0xC0A8_0000, 16), (0xE000_0000, 4),
        ]
        func address(_ value: UInt32) -> IPAddress {
            IPAddress(bytes: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) })!
        }
        for (first, length) in ranges {
            let last = first | (UInt32.max >> length)
            #expect(address(first).internalRange != nil, "\(address(first))")
            #expect(address(last).internalRange != nil, "\(address(last))")
            #expect(address(first &- 1).internalRange == nil || first &- 1 < 0x0100_0000, "\(address(first &- 1))")
            #expect(address(last &+ 1).internalRange == nil || last &+ 1 >= 0xE000_0000, "\(address(last &+ 1))")
        }
    }

    @Test func textRoundTripsAndHostNamesAreNotAddresses() throws {
        #expect(IPAddress("::ffff:127.0.0.1")?.description == "::ffff:127.0.0.1")
        #expect(IPAddress("0:0:0:0:0:0:0:1")?.description == "::1")
        #expect(IPAddress("192.168.001.001") == nil, "inet_pton takes no leading zeros")
        for text in ["localhost", "[::1]", "fe80::1%eth0", "127.0.0.1:80", "", "1.2.3", "::ffff:1.2.3.4.5"] {
            #expect(IPAddress(text) == nil, "\(text)")
        }
        #expect(IPAddress(bytes: [1, 2, 3]) == nil)
    }
}

/// Which connections a poster request may make, and how allowed hosts are written.
struct DestinationPolicyTests {
    let loopback = IPAddress("127.0.0.1")!
    let lan = IPAddress("192.168.1.20")!
    let outside = IPAddress("93.184.216.34")!

    @Test func anyAllowsEveryAddress() {
        #expect(DestinationPolicy.any.refusal(host: "localhost", address: loopback) == nil)
    }

    @Test func publicOnlyRefusesInternalAddressesOfHostsNotAllowed() throws {
        let policy = DestinationPolicy.publicOnly(allowing: ["images.lan", "127.0.0.1"])
        #expect(policy.refusal(host: "example.org", address: outside) == nil)
        #expect(policy.refusal(host: "images.lan", address: lan) == nil)
        #expect(policy.refusal(host: "IMAGES.LAN.", address: lan) == nil, "case and a final dot do not matter")
        #expect(policy.refusal(host: "127.0.0.1", address: loopback) == nil)
        // The allowance is for the name as written: another name for the same address is refused.
        let refusal = try #require(policy.refusal(host: "localhost", address: loopback))
        #expect(refusal == DestinationRefusal(host: "localhost", address: "127.0.0.1", range: .loopback))
        #expect(refusal.description == "refused to connect to localhost at 127.0.0.1, a loopback address")
        #expect(
            policy.refusal(host: "192.168.1.20", address: lan)?.description
                == "refused to connect to 192.168.1.20, a private address")
        #expect(policy.refusal(host: "[::ffff:127.0.0.1]", address: IPAddress("::ffff:127.0.0.1")!) != nil)
        #expect(policy.refusal(host: "images.lan.evil.example", address: lan) != nil)
    }

    @Test func allowedHostsAreNormalizedOrRefusedWithTheWayToWriteThem() throws {
        let accepted: [(String, String)] = [
            ("images.lan", "images.lan"), ("Images.LAN.", "images.lan"), ("127.0.0.1", "127.0.0.1"),
            ("[::1]", "::1"), ("0:0::1", "::1"), ("[::FFFF:127.0.0.1]", "::ffff:127.0.0.1"), ("nas_01", "nas_01"),
            (" localhost ", "localhost"),
        ]
        for (text, host) in accepted {
            #expect((try? DestinationPolicy.allowedHost(text).get()) == host, "\(text)")
        }
        for text in [
            "", "http://images.lan", "images.lan:8080", "images.lan/posters", "user@images.lan", "a..b", ".", "*",
        ] {
            guard case .failure(let error) = DestinationPolicy.allowedHost(text) else {
                Issue.record("\(text) was taken as a host")
                continue
            }
            #expect(error.description.contains("is not a host name or an IP address"))
        }
    }
}
