import Foundation

/// One `psql` session as the superuser, kept open between statements: a transaction begun in it
/// holds its locks until it ends or the session closes. Tests use it to hold a lock that a command
/// under test then waits on, mid-statement.
///
/// ```swift
/// let session = try server.session(database: db)
/// try session.run("BEGIN; LOCK TABLE films IN ACCESS EXCLUSIVE MODE")
/// // … a command reading films now waits …
/// session.close()   // the transaction ends, the lock goes
/// ```
package final class ScratchSession: @unchecked Sendable {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let lock = NSLock()
    private var closed = false

    /// Starts `command` (psql, reading statements from its standard input).
    init(_ command: [String]) throws(ScratchError) {
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.currentDirectoryURL = URL(fileURLWithPath: "/")
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        do {
            try process.run()
        } catch {
            throw .command(command.joined(separator: " "), status: -1, output: "\(error)")
        }
    }

    deinit { close() }

    /// Runs `statements` and waits until they have run; returns what psql printed for them (errors
    /// included: the session goes on after one).
    @discardableResult
    public func run(_ statements: String) throws(ScratchError) -> String {
        let marker = "scratch-session-done-\(UInt64.random(in: .min ... .max))"
        do {
            try input.fileHandleForWriting.write(contentsOf: Data((statements + ";\n\\echo \(marker)\n").utf8))
        } catch {
            throw .failed("the psql session is gone: \(error)")
        }
        var printed = Data()
        while !String(decoding: printed, as: UTF8.self).contains(marker + "\n") {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else {
                throw .failed("the psql session ended: \(String(decoding: printed, as: UTF8.self))")
            }
            printed.append(chunk)
        }
        return String(decoding: printed, as: UTF8.self).replacingOccurrences(of: marker + "\n", with: "")
    }

    /// Ends the session (and any transaction open in it), waiting for psql to exit. Safe to call twice.
    public func close() {
        let first = lock.withLock {
            defer { closed = true }
            return !closed
        }
        guard first else { return }
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}

extension ScratchPostgres {
    /// A new ``ScratchSession`` on `database`, as the superuser over the socket.
    public func session(database: String) throws(ScratchError) -> ScratchSession {
        try ScratchSession(psql(database: database, "-X", "-q", "-A", "-t", "-f", "-"))
    }
}
