import CCurl
import Foundation
import Synchronization

/// HTTP GETs through one libcurl multi handle, driven by one dedicated thread.
///
/// Callers `await get(_:)` from any task; requests queue, the loop adds them to the
/// multi handle (at most `maxInFlight` at once, connections kept alive and reused),
/// and each completion resumes its caller. The loop is woken only when it sleeps.
public final class CurlMultiTransport: HTTPRequestTransport {
    /// How transfers are made.
    public struct Options: Sendable {
        /// Concurrent transfers, and the connection cache size (so connections are reused, not multiplied).
        public var maxInFlight = Setting.maxInFlight.default
        public var connectTimeout = Setting.connectTimeout.default
        public var totalTimeout = Setting.timeout.default
        /// Larger bodies fail with `TransportFailure.bodyTooLarge` instead of growing memory.
        public var maxBodyBytes: Int = 1 << 20
        package var userAgent: String = "filmcache/\(FilmCacheVersion.current) (libcurl)"

        public init() {}
    }

    private let loop: CurlLoop

    /// Starts the loop thread.
    public init(options: Options = Options()) {
        CurlGlobal.initialize()
        loop = CurlLoop(options: options)
        let thread = Thread { [loop] in loop.run() }
        thread.name = "filmcache-curl"
        thread.start()
    }

    deinit {
        loop.shutdown()
    }

    public func get(_ url: String) async throws(TransportFailure) -> HTTPResponse {
        try await send(HTTPRequest(url: url))
    }

    public func send(_ request: HTTPRequest) async throws(TransportFailure) -> HTTPResponse {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<CurlResult, Never>) in
            loop.submit(
                CurlTransfer(
                    url: request.url, maxBodyBytes: loop.options.maxBodyBytes, continuation: continuation,
                    headers: request.headers, maxRedirects: request.maxRedirects, destinations: request.destinations))
        }
        return try result.get()
    }

    /// Stops the loop after in-flight transfers finish. Later `get` calls fail.
    public func shutdown() {
        loop.shutdown()
    }
}

typealias CurlResult = Result<HTTPResponse, TransportFailure>

/// libcurl, loaded and initialized once, when the first transport is made (CCurl.h says why it is not linked).
enum CurlGlobal {
    /// Exits with 72 (EX_OSFILE) when libcurl cannot be loaded: nothing can be fetched without it,
    /// and the first transport is made before a command has fetched or written anything.
    private static let once: Void = {
        guard let failure = fc_curl_load() else { return }
        let message =
            "filmcache: libcurl could not be loaded (\(String(cString: failure))); install libcurl4 (7.85 or later)\n"
        FileHandle.standardError.write(Data(message.utf8))
        exit(ExitStatus.osFile)
    }()

    static func initialize() { _ = once }
}
