import Foundation
import OMDbStandIn
import Testing

extension Reliability {
    /// The cache as OPERATING.md sets it up: written by the warm under `UMask=0027` in a setgid
    /// directory of the `filmcache` group, read by another user of that group.
    @Suite struct OperatingTests {
        /// The test's directory.
        let scratch: ReliabilityScratch
        /// A key the stand-in accepts.
        let key = "test-key-e2e"
        /// The group and the reader made for the test.
        static let group = "fctestgrp"
        static let reader = "fctestreader"

        /// A fresh directory.
        init() throws {
            scratch = try ReliabilityScratch("operating")
        }

        /// Runs `command` through the shell; fails the test when it cannot run.
        @discardableResult
        func shell(_ command: String) throws -> BuiltBinaries.Output {
            try ReliabilityProcess.run("/bin/sh", ["-c", command])
        }

        /// Makes the group and a reader in it (as root, which CI is), and the cache directory: setgid, group-readable.
        func prepare() throws -> String {
            try prepareReader()
            let dir = scratch.dir + "/var-lib-filmcache"
            try shell("mkdir \(dir) && chgrp \(Self.group) \(dir) && chmod 2750 \(dir)")
            return dir
        }

        /// Makes the group and the reader (as root, which CI is), and lets the reader into the scratch directory.
        func prepareReader() throws {
            #expect(getuid() == 0, "this test makes a user and a group: it runs as root, as CI does")
            try shell("getent group \(Self.group) >/dev/null || groupadd \(Self.group)")
            try shell(
                "id \(Self.reader) >/dev/null 2>&1 || useradd -M -N -g \(Self.group) -s /usr/sbin/nologin \(Self.reader)"
            )
            // The reader runs a copy of the binary: the build directory may sit under a home or a
            // mktemp directory the reader cannot enter.
            try shell("chmod 755 \(scratch.dir) && install -m 0755 \(BuiltBinaries.directory)/filmcache \(binary)")
        }

        /// The copy of `filmcache` every user can run.
        var binary: String { scratch.dir + "/filmcache" }

        /// `filmcache show ID` and `sqlite3` as the reader; both must succeed.
        func expectReaderCanRead(_ db: String, _ id: String, _ context: String) throws {
            let show = try shell("runuser -u \(Self.reader) -- \(binary) show \(id) --db \(db)")
            #expect(show.status == 0 && show.stdout.contains(id), "\(context): show: \(show.stderr)")
            let count = try shell("runuser -u \(Self.reader) -- sqlite3 -bail \(db) 'SELECT count(*) FROM films'")
            #expect(
                count.status == 0 && (Int(count.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) > 0,
                "\(context): sqlite3: \(count.stderr)")
        }

        @Test func aReaderInTheGroupReadsTheCacheWhileAWarmRunsAndWhenNoneDoes() async throws {
            try await offThePool {
                let dir = try prepare()
                let db = dir + "/films.sqlite"
                let ids = GeneratedIDs.first(600)
                let list = try scratch.worklist("ids.txt", ids)
                let standIn = try StandInProcess(arguments: ["--generate", "600", "--latency-ms", "10"], corpus: nil)
                let warm =
                    "umask 0027; OMDB_API_KEY=\(key) exec \(binary) warm --db \(db) --base-url \(standIn.baseURL)"
                    + " --rate 0 --max-in-flight 2 \(list)"
                let first = try shell(
                    warm.replacingOccurrences(of: list, with: try scratch.worklist("one.txt", [ids[0]])))
                #expect(first.status == 0, "\(first.stderr)")
                try expectReaderCanRead(db, ids[0], "no warm running")

                let running = try RunningBinary("/bin/sh", ["-c", warm])
                Thread.sleep(forTimeInterval: 0.5)
                try expectReaderCanRead(db, ids[0], "a warm running")
                let out = running.wait()
                #expect(out.status == 0, "\(out.stderr)")
                // The warm's last close left the -wal there, and empty: no reader replays megabytes of it.
                let wal = try FileManager.default.attributesOfItem(atPath: db + "-wal")
                #expect((wal[.size] as? Int) == 0, "\(wal)")
                try expectReaderCanRead(db, ids[1], "after the warm")
                let modes = try shell("stat -c '%a %G %n' \(db)*").stdout
                #expect(!modes.contains("666") && modes.contains(Self.group), "\(modes)")
            }
        }
    }
}

extension Reliability.OperatingTests {
    @Test func aMetricsDirectoryTheRunCannotWriteIsRefusedBeforeAnyCall() throws {
        let dir = scratch.dir + "/textfile"
        try shell("mkdir \(dir) && chmod 0555 \(dir)")
        let list = try scratch.worklist("ids.txt", GeneratedIDs.first(5))
        let standIn = try StandInProcess(arguments: ["--generate", "5"], corpus: nil)
        // As a user that is not root: root writes anywhere.
        try prepareReader()
        let out = try shell(
            "cd \(scratch.dir) && runuser -u \(Self.reader) -- env OMDB_API_KEY=\(key) \(binary) warm"
                + " --db \(scratch.dir)/never.sqlite --base-url \(standIn.baseURL) --metrics-file \(dir)/filmcache.prom"
                + " \(list)")
        #expect(out.status == 78, "\(out.stderr)")
        #expect(out.stderr.contains("not writable"), "\(out.stderr)")
        #expect(try standIn.requestCount() == 0, "no call spent")
    }
}
