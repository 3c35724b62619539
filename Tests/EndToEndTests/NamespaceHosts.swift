import Foundation

/// Hosts for a test, made of Linux network namespaces: each has its own network stack (its own
/// loopback, its own address) and reaches this namespace only over a veth pair whose other end is a
/// port of a bridge here. A process started in one (`ip netns exec`) is, as far as the network
/// goes, on another machine: it reaches servers at ``address`` and nowhere else.
///
/// Needs CAP_NET_ADMIN (root); ``unavailable`` says why not when that is missing. Names and the
/// /24 network are drawn at random, so tests run at once (here or in another checkout) do not meet.
/// Everything is removed by ``remove()`` (also on release), and by a watcher process once the
/// test process is gone, however it ended.
///
/// ```swift
/// let hosts = try NamespaceHosts(count: 3)   // 10.a.b.11, .12, .13 behind a bridge at 10.a.b.1
/// let run = try RunningBinary(hosts.ip, hosts.exec(0, BuiltBinaries.directory + "/filmcache") + ["quota"])
/// ```
final class NamespaceHosts: Sendable {
    /// The `ip` program (iproute2).
    let ip = "/usr/sbin/ip"
    /// The namespaces' names, one a host.
    let names: [String]
    /// The bridge's address: where the hosts reach servers in this namespace.
    let address: String
    /// The hosts' network in CIDR form (`10.a.b.0/24`), for a server's allow list.
    let network: String
    /// The hosts' own addresses, in the order of ``names``.
    let hostAddresses: [String]
    private let bridge: String

    /// Why network namespaces cannot be made here, or `nil` when they can: one is made and removed.
    static let unavailable: String? = {
        let name = "filmcache-probe-\(getpid())"
        guard let added = try? ReliabilityProcess.run("/usr/sbin/ip", ["netns", "add", name]) else {
            return "/usr/sbin/ip (iproute2) cannot be run"
        }
        guard added.status == 0 else {
            return "ip netns add failed (CAP_NET_ADMIN, as root, is needed): \(added.stderr)"
        }
        // Removed again, or the probe would outlive the tests (a namespace just made can be busy a moment).
        for _ in 0..<20 {
            if (try? ReliabilityProcess.run("/usr/sbin/ip", ["netns", "del", name]))?.status == 0 { break }
            usleep(100_000)
        }
        return nil
    }()

    /// Makes `count` namespaces on a new bridge, each with an address on a new /24 network.
    init(count: Int) throws {
        let tag = String(UInt32.random(in: 0x10_0000...0xFF_FFFF), radix: 16)
        // Interface names are at most 15 bytes: "fc" + 6 hex digits + a role.
        bridge = "fc\(tag)br"
        names = (0..<count).map { "filmcache-\(tag)-h\($0)" }
        let inUse = try ReliabilityProcess.run("/usr/sbin/ip", ["-4", "-o", "addr"]).stdout
        var prefix: String
        repeat {
            prefix = "10.\(Int.random(in: 100...250)).\(Int.random(in: 0...255))"
        } while inUse.contains(" \(prefix).")
        address = prefix + ".1"
        network = prefix + ".0/24"
        hostAddresses = (0..<count).map { "\(prefix).\(11 + $0)" }
        try watch()
        do {
            try run(["link", "add", bridge, "type", "bridge"])
            try run(["addr", "add", address + "/24", "dev", bridge])
            try run(["link", "set", bridge, "up"])
            for (index, name) in names.enumerated() {
                let (outside, inside) = ("fc\(tag)h\(index)", "fc\(tag)n\(index)")
                try run(["netns", "add", name])
                try run(["link", "add", outside, "type", "veth", "peer", "name", inside])
                try run(["link", "set", outside, "master", bridge, "up"])
                try run(["link", "set", inside, "netns", name])
                try run(["-n", name, "link", "set", inside, "name", "eth0"])
                try run(["-n", name, "addr", "add", hostAddresses[index] + "/24", "dev", "eth0"])
                try run(["-n", name, "link", "set", "eth0", "up"])
                try run(["-n", name, "link", "set", "lo", "up"])
            }
        } catch {
            remove()
            throw error
        }
    }

    deinit { remove() }

    /// The arguments that run `program` in host `index`'s namespace (`ip` itself is ``ip``): `ip netns
    /// exec` switches namespace and then execs `program` in its own place, so the process id a test
    /// starts is the program's, and a signal to it reaches the program.
    func exec(_ index: Int, _ program: String) -> [String] {
        ["netns", "exec", names[index], program]
    }

    /// Removes the namespaces (their veth ends go with them) and the bridge; safe to call more than once.
    func remove() {
        _ = try? ReliabilityProcess.run("/bin/sh", ["-c", Self.script(names, bridge)])
    }

    /// Runs `ip` with `arguments`; throws with its standard error when it fails.
    private func run(_ arguments: [String]) throws {
        let out = try ReliabilityProcess.run(ip, arguments)
        guard out.status == 0 else {
            throw NamespaceError(command: "ip " + arguments.joined(separator: " "), out.stderr)
        }
    }

    /// Starts a shell that removes everything once this process is gone, should it end before
    /// ``remove()`` (a failed `#require`, SIGKILL, a crash).
    private func watch() throws {
        let watcher = Process()
        watcher.executableURL = URL(fileURLWithPath: "/bin/sh")
        watcher.arguments = [
            "-c", "while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done; \(Self.script(names, bridge))",
        ]
        watcher.standardInput = FileHandle.nullDevice
        watcher.standardOutput = FileHandle.nullDevice
        watcher.standardError = FileHandle.nullDevice
        try watcher.run()
    }

    /// Shell commands that remove `names` and `bridge`, ignoring what is already gone.
    private static func script(_ names: [String], _ bridge: String) -> String {
        (names.map { "/usr/sbin/ip netns del \($0)" } + ["/usr/sbin/ip link del \(bridge)"])
            .map { "\($0) >/dev/null 2>&1" }.joined(separator: "; ")
    }
}

/// An `ip` command that failed while making the namespaces.
struct NamespaceError: Error, CustomStringConvertible {
    /// The command.
    let command: String
    /// Its standard error.
    let stderr: String

    init(command: String, _ stderr: String) {
        self.command = command
        self.stderr = stderr
    }

    /// The command and what it said.
    var description: String { "\(command) failed: \(stderr)" }
}
