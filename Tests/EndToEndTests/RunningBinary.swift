import Foundation

/// A built executable started in the background, so a test can signal it while it runs.
final class RunningBinary: @unchecked Sendable {
    private let process = Process()
    private let stdoutData: ReadAll
    private let stderrData: ReadAll

    /// Starts `name` with `arguments` and `environment` (added to a minimal one).
    init(_ name: String, _ arguments: [String], environment: [String: String] = [:], cwd: String? = nil) throws {
        // A built executable by name, or any program by its absolute path.
        process.executableURL = URL(fileURLWithPath: name.hasPrefix("/") ? name : BuiltBinaries.directory + "/" + name)
        process.arguments = arguments
        var env = ["PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory()]
        env.merge(environment) { $1 }
        process.environment = env
        if let cwd { process.currentDirectoryURL = URL(fileURLWithPath: cwd) }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read both pipes concurrently with the process so neither fills up and blocks it.
        stdoutData = ReadAll(out.fileHandleForReading)
        stderrData = ReadAll(err.fileHandleForReading)
    }

    /// Whether the process has not ended yet.
    var isRunning: Bool { process.isRunning }

    /// What the process has written to standard error so far.
    var stderrSoFar: String { String(decoding: stderrData.soFar, as: UTF8.self) }

    /// The process's ID, for a client that signals it itself.
    var pid: Int32 { process.processIdentifier }

    /// Sends `signal` (SIGTERM, SIGINT, …) to the process.
    func send(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Waits for the process to end and returns what it left; kills it after `timeout` so a hang fails the test.
    func wait(timeout: TimeInterval = 300) -> BuiltBinaries.Output {
        let pid = process.processIdentifier
        let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        process.waitUntilExit()
        watchdog.cancel()
        return BuiltBinaries.Output(
            status: process.terminationStatus, stdout: String(decoding: stdoutData.wait(), as: UTF8.self),
            stderr: String(decoding: stderrData.wait(), as: UTF8.self))
    }
}
