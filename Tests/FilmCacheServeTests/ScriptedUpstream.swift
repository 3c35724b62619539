import FilmCacheKit
import Foundation
import Synchronization

/// An OMDb stand-in behind the transport seam: answers each `i=` request from a script and records
/// the IDs asked for; a call may be held until the test lets it go.
final class ScriptedUpstream: HTTPTransport {
    typealias Script = @Sendable (_ imdbID: String, _ attempt: Int) -> Result<HTTPResponse, TransportFailure>

    private let script: Mutex<Script>
    private let log = Mutex<[String]>([])
    private let hold: Latch?
    private let holding: Set<String>?

    /// Answers from `script`; with `hold`, each call (each for an ID in `holding`, when given)
    /// waits until it is opened.
    init(hold: Latch? = nil, holding: Set<String>? = nil, _ script: @escaping Script) {
        self.script = Mutex(script)
        self.hold = hold
        self.holding = holding
    }

    func get(_ url: String) async throws(TransportFailure) -> HTTPResponse {
        let id = URLComponents(string: url)?.queryItems?.first { $0.name == "i" }?.value ?? ""
        let attempt = log.withLock {
            $0.append(id)
            return $0.filter { $0 == id }.count
        }
        if holding?.contains(id) ?? true { await hold?.wait() }
        return try script.withLock { $0 }(id, attempt).get()
    }

    /// Replaces the script for the calls after this one.
    func answer(with script: @escaping Script) {
        self.script.withLock { $0 = script }
    }

    /// IDs requested, in order, repeats included.
    var requested: [String] { log.withLock { $0 } }

    /// OMDb's body for a film found.
    static func film(_ id: String, title: String = "Film") -> Result<HTTPResponse, TransportFailure> {
        .success(
            HTTPResponse(
                status: 200,
                body: Array(
                    #"{"Title":"\#(title)","Year":"2001","Type":"movie","imdbID":"\#(id)","Response":"True"}"#.utf8)))
    }

    /// OMDb's error body `message` with `status`.
    static func error(_ status: Int, _ message: String) -> Result<HTTPResponse, TransportFailure> {
        .success(HTTPResponse(status: status, body: Array(#"{"Response":"False","Error":"\#(message)"}"#.utf8)))
    }
}

/// A gate tasks wait at until it is opened once, for good.
final class Latch: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    /// Waits until ``open()`` (at once when it was).
    func wait() async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Lets every waiter, and every later one, through.
    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// A wall clock a test moves by hand.
final class SettableWall: Sendable {
    private let instant: Mutex<Date>

    /// A wall clock reading `start` until moved.
    init(_ start: Date) {
        instant = Mutex(start)
    }

    /// Moves the clock on by `interval`.
    func advance(by interval: TimeInterval) {
        instant.withLock { $0 = $0.addingTimeInterval(interval) }
    }

    /// The clock as a ``WallClock``.
    var wall: WallClock { WallClock { [self] in instant.withLock { $0 } } }
}
