import Foundation
import Testing

extension EdgesEndToEndTests {
    /// Standard output that goes away: a reader that never reads (`| true`) or stops (`| head -c 10`).
    @Suite struct ClosedOutput {
        let scratch: ReliabilityScratch

        init() throws {
            scratch = try ReliabilityScratch("edges-pipe")
        }

        /// How a process ended.
        struct Ending {
            var reason: Process.TerminationReason
            var status: Int32
            var stderr: String

            /// Whether it exited (not ended by a signal) with `status`.
            func exited(_ status: Int32) -> Bool { reason == .exit && self.status == status }
        }

        /// A pipe whose ends close on exec, so no other process started later holds either.
        static func pipe() throws -> (read: Int32, write: Int32) {
            var fds: [Int32] = [-1, -1]
            guard Glibc.pipe(&fds) == 0 else { throw POSIXError(.EIO) }
            for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            return (fds[0], fds[1])
        }

        /// Runs `filmcache` with standard output a pipe: its read end closed before the process starts
        /// when `reader` is `nil`, else handed to `reader` (which closes it) once the process runs.
        static func run(
            _ arguments: [String], environment: [String: String] = [:], reader: ((Int32) -> Void)? = nil
        ) throws -> Ending {
            let (readEnd, writeEnd) = try pipe()
            if reader == nil { close(readEnd) }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: BuiltBinaries.directory + "/filmcache")
            process.arguments = arguments
            process.environment = ["PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory()].merging(environment) { $1 }
            let err = Pipe()
            process.standardOutput = FileHandle(fileDescriptor: writeEnd, closeOnDealloc: false)
            process.standardError = err
            process.standardInput = FileHandle.nullDevice
            try process.run()
            close(writeEnd)
            let stderr = ReadAll(err.fileHandleForReading)
            reader?(readEnd)
            let pid = process.processIdentifier
            let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
            DispatchQueue.global().asyncAfter(deadline: .now() + 120, execute: watchdog)
            process.waitUntilExit()
            watchdog.cancel()
            return Ending(
                reason: process.terminationReason, status: process.terminationStatus,
                stderr: String(decoding: stderr.wait(), as: UTF8.self))
        }

        @Test func everyCommandWritingToAClosedPipeEndsWith74AndSaysSo() async throws {
            try await offThePool {
                let worklist = try EdgesEndToEndTests.warm(scratch, count: 5)
                let db = scratch.db
                let id = EdgesEndToEndTests.ids[0]
                let films = try scratch.write(
                    "films.jsonl", Array(try EdgesEndToEndTests.filmcache(["export", "--db", db]).stdout.utf8))
                let commands = [
                    ["export", "--db", db], ["export", "--db", db, "--format", "csv"],
                    ["show", id, "--db", db, "--json"],
                    ["show", id, "--db", db], ["quota", "--db", db], ["quota", "--db", db, "--json"],
                    ["stats", "--db", db], ["stats", "--db", db, "--json", worklist], ["plan", "--db", db, worklist],
                    ["plan", "--db", db, "--json", "--ids", worklist],
                    ["import", "--db", scratch.dir + "/i.sqlite", films],
                    ["db", "copy", db, scratch.dir + "/copy.sqlite"], ["--help"], ["quota", "--help"],
                ]
                for command in commands {
                    let ending = try Self.run(command, environment: ["OMDB_API_KEY": "test-key-e2e"])
                    let name = command.joined(separator: " ")
                    #expect(ending.exited(74), "\(name): \(ending.reason) \(ending.status) \(ending.stderr)")
                    #expect(ending.stderr.contains("standard output"), "\(name): \(ending.stderr)")
                }
                // A full disk is the same failure.
                for command in commands.prefix(6) {
                    let out = try BuiltBinaries.run(
                        "/bin/sh",
                        ["-c", "\"$0\" \"$@\" > /dev/full", BuiltBinaries.directory + "/filmcache"] + command)
                    #expect(out.status == 74, "\(command.joined(separator: " ")) > /dev/full: \(out.stderr)")
                }
                // The work was done all the same.
                #expect(try scratch.filmsChecksum(database: scratch.dir + "/i.sqlite") == (try scratch.filmsChecksum()))
            }
        }

        @Test func aWarmWhoseSummaryCannotBeWrittenKeepsItsFilmsAndItsStatus() async throws {
            try await offThePool {
                let standIn = try StandInProcess()
                let worklist = try scratch.worklist("w.txt", EdgesEndToEndTests.ids.prefix(6))
                let ending = try Self.run(
                    [
                        "warm", "--db", scratch.db, "--rate", "0", "--no-progress", "--base-url", standIn.baseURL,
                        worklist,
                    ],
                    environment: ["OMDB_API_KEY": "test-key-e2e"])
                // The summary is a courtesy: the work is committed and the status says how it went.
                #expect(ending.exited(0), "\(ending.reason) \(ending.status) \(ending.stderr)")
                #expect(try scratch.sqlite("SELECT count(*) FROM films") == "6")
            }
        }

        @Test func anExportWhoseReaderStopsAfterTenBytesEndsWith74() async throws {
            try await offThePool {
                // The whole corpus: far more than a pipe holds.
                try EdgesEndToEndTests.warm(scratch, count: EdgesEndToEndTests.ids.count)
                for format in ["jsonl", "csv"] {
                    var first: [UInt8] = []
                    let ending = try Self.run(["export", "--db", scratch.db, "--format", format]) { readEnd in
                        var buffer = [UInt8](repeating: 0, count: 10)
                        while first.count < 10 {
                            let count = buffer.withUnsafeMutableBytes {
                                read(readEnd, $0.baseAddress, 10 - first.count)
                            }
                            guard count > 0 else { break }
                            first += buffer.prefix(count)
                        }
                        close(readEnd)
                    }
                    #expect(first.count == 10)
                    #expect(ending.exited(74), "\(format): \(ending.reason) \(ending.status) \(ending.stderr)")
                    #expect(ending.stderr.contains("standard output was closed"), "\(format): \(ending.stderr)")
                }
            }
        }
    }
}
