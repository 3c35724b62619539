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
        public var userAgent: String = "filmcache/\(FilmCacheVersion.current) (libcurl)"

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
                Transfer(
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

/// libcurl's process-wide initialization, done once.
enum CurlGlobal {
    private static let once: Void = { curl_global_init(Int(CURL_GLOBAL_ALL)) }()

    static func initialize() { _ = once }
}

/// One request's state while libcurl owns it; reached from C callbacks through an unmanaged pointer.
///
/// Handed from the submitting task to the loop thread once, under the lock; after
/// that only the loop thread reads or writes it, hence the unchecked conformance.
final class Transfer: @unchecked Sendable {
    let url: String
    let maxBodyBytes: Int
    let continuation: CheckedContinuation<CurlResult, Never>
    /// Request header lines; a request with none is an OMDb call, sent at most once.
    let headers: [String]
    let maxRedirects: Int
    /// The addresses the request and its redirects may connect to.
    let destinations: DestinationPolicy
    /// The easy handle running the transfer, set when it starts; the callbacks read the URL being fetched from it.
    var easy: UnsafeMutableRawPointer?
    /// The first connection ``destinations`` refused.
    var refusal: DestinationRefusal?
    /// The header list libcurl reads while the transfer runs; freed when it completes.
    var headerList: UnsafeMutablePointer<curl_slist>?
    var body: [UInt8] = []
    var retryAfter: String?
    var contentType: String?
    var etag: String?
    var lastModified: String?
    var tooLarge = false
    /// How many times libcurl was about to send this request.
    var sends = 0

    init(
        url: String, maxBodyBytes: Int, continuation: CheckedContinuation<CurlResult, Never>, headers: [String],
        maxRedirects: Int, destinations: DestinationPolicy = .any
    ) {
        self.url = url
        self.maxBodyBytes = maxBodyBytes
        self.continuation = continuation
        self.headers = headers
        self.maxRedirects = maxRedirects
        self.destinations = destinations
    }

    /// Whether a connection to `address` for the URL being fetched now (the first one, or a
    /// redirect's) is refused; the first refusal is kept for the transfer's failure.
    func refuses(_ address: IPAddress) -> Bool {
        guard let refusal = destinations.refusal(host: currentHost() ?? "(unknown host)", address: address) else {
            return false
        }
        if self.refusal == nil { self.refusal = refusal }
        return true
    }

    /// The host of the URL libcurl is fetching now (after a redirect, the redirect's), as libcurl parses it.
    private func currentHost() -> String? {
        guard let easy else { return nil }
        var pointer: UnsafeMutableRawPointer?
        guard fc_curl_easy_getinfo_pointer(easy, CURLINFO_EFFECTIVE_URL, &pointer) == CURLE_OK, let pointer else {
            return nil
        }
        guard let parsed = curl_url() else { return nil }
        defer { curl_url_cleanup(parsed) }
        guard curl_url_set(parsed, CURLUPART_URL, pointer.assumingMemoryBound(to: CChar.self), 0) == CURLUE_OK
        else { return nil }
        var host: UnsafeMutablePointer<CChar>?
        guard curl_url_get(parsed, CURLUPART_HOST, &host, 0) == CURLUE_OK, let host else { return nil }
        defer { curl_free(host) }
        return String(cString: host)
    }

    /// Whether libcurl may send the request again on a new connection (never for an OMDb call).
    var mayResend: Bool { maxRedirects > 0 || !headers.isEmpty }
}

/// The multi handle and its thread. Only the loop thread touches `multi` and the easy handles;
/// other threads only append to `pending` under the lock.
final class CurlLoop: @unchecked Sendable {
    let options: CurlMultiTransport.Options
    private let multi: UnsafeMutableRawPointer
    private let shared = Mutex(Shared())
    private var idleHandles: [UnsafeMutableRawPointer] = []
    private var active = 0

    private struct Shared {
        var pending: [Transfer] = []
        /// True while the loop waits in `curl_multi_poll` with nothing that would wake it soon.
        var sleeping = false
        var stopping = false
    }

    init(options: CurlMultiTransport.Options) {
        self.options = options
        guard let multi = curl_multi_init() else { fatalError("curl_multi_init failed: out of memory") }
        self.multi = multi
        let cap = max(1, options.maxInFlight)
        fc_curl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, cap)
        fc_curl_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, cap)
        fc_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, cap)
    }

    /// Queues a transfer; wakes the loop only if it is asleep.
    func submit(_ transfer: Transfer) {
        let (wake, refused) = shared.withLock { s -> (Bool, Bool) in
            if s.stopping { return (false, true) }
            s.pending.append(transfer)
            let wake = s.sleeping
            s.sleeping = false
            return (wake, false)
        }
        if refused {
            transfer.continuation.resume(returning: .failure(.other("transport is shut down")))
        } else if wake {
            curl_multi_wakeup(multi)
        }
    }

    /// Asks the loop to finish its transfers and exit.
    func shutdown() {
        shared.withLock { $0.stopping = true }
        curl_multi_wakeup(multi)
    }

    /// The loop: add queued transfers, drive sockets, complete finished transfers, sleep.
    func run() {
        let cap = max(1, options.maxInFlight)
        var queue: [Transfer] = []
        var queueHead = 0
        while true {
            let (incoming, stopping) = shared.withLock { s -> ([Transfer], Bool) in
                let taken = s.pending
                s.pending.removeAll(keepingCapacity: true)
                return (taken, s.stopping)
            }
            queue.append(contentsOf: incoming)
            while active < cap, queueHead < queue.count {
                start(queue[queueHead])
                queueHead += 1
            }
            if queueHead > 1024, queueHead * 2 > queue.count {
                queue.removeFirst(queueHead)
                queueHead = 0
            }
            if stopping && active == 0 && queueHead == queue.count { break }

            var running: Int32 = 0
            curl_multi_perform(multi, &running)
            drainCompletions()
            if active < cap && queueHead < queue.count { continue }

            // Sleep. With many transfers in flight their sockets wake the loop soon, so new
            // requests need no wakeup; with few, a submit must wake it.
            let wakeable = active < max(1, cap / 4)
            let proceed = shared.withLock { s -> Bool in
                if !s.pending.isEmpty { return false }
                s.sleeping = wakeable
                return true
            }
            if proceed {
                curl_multi_poll(multi, nil, 0, wakeable ? 1000 : 5, nil)
                shared.withLock { $0.sleeping = false }
            }
        }
        for handle in idleHandles { curl_easy_cleanup(handle) }
        curl_multi_cleanup(multi)
    }

    private func start(_ transfer: Transfer) {
        let easy = idleHandles.popLast() ?? makeHandle()
        let context = Unmanaged.passRetained(transfer).toOpaque()
        transfer.easy = easy
        fc_curl_easy_setopt_string(easy, CURLOPT_URL, transfer.url)
        fc_curl_easy_setopt_pointer(easy, CURLOPT_PRIVATE, context)
        fc_curl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, context)
        fc_curl_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, context)
        fc_curl_easy_setopt_pointer(easy, CURLOPT_PREREQDATA, context)
        fc_curl_easy_setopt_pointer(easy, CURLOPT_OPENSOCKETDATA, context)
        // Through a proxy the addresses connected to are the proxy's, never checked: a transfer
        // that refuses internal addresses ignores the environment's proxy (an empty string), the
        // others take it (the default, NULL).
        if transfer.destinations.refusesInternal {
            fc_curl_easy_setopt_string(easy, CURLOPT_PROXY, "")
        } else {
            fc_curl_easy_setopt_pointer(easy, CURLOPT_PROXY, nil)
        }
        for line in transfer.headers { transfer.headerList = curl_slist_append(transfer.headerList, line) }
        fc_curl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, transfer.headerList)
        fc_curl_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, transfer.maxRedirects > 0 ? 1 : 0)
        fc_curl_easy_setopt_long(easy, CURLOPT_MAXREDIRS, transfer.maxRedirects)
        curl_multi_add_handle(multi, easy)
        active += 1
    }

    private func makeHandle() -> UnsafeMutableRawPointer {
        guard let easy = curl_easy_init() else { fatalError("curl_easy_init failed: out of memory") }
        fc_curl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        fc_curl_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(options.connectTimeout))
        fc_curl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, Self.milliseconds(options.totalTimeout))
        fc_curl_easy_setopt_long(easy, CURLOPT_MAXFILESIZE, options.maxBodyBytes)
        fc_curl_easy_setopt_string(easy, CURLOPT_ACCEPT_ENCODING, "")
        fc_curl_easy_setopt_string(easy, CURLOPT_USERAGENT, options.userAgent)
        fc_curl_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        fc_curl_easy_setopt_long(easy, CURLOPT_PIPEWAIT, 1)
        fc_curl_easy_setopt_long(easy, CURLOPT_TCP_KEEPALIVE, 1)
        // Only HTTP(S), for the request and any redirect: never a local file or another protocol.
        fc_curl_easy_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https")
        fc_curl_easy_setopt_string(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        fc_curl_easy_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, 1)
        fc_curl_easy_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, 2)
        fc_curl_easy_setopt_write_function(easy, curlWrite)
        fc_curl_easy_setopt_header_function(easy, curlHeader)
        fc_curl_easy_setopt_prereq_function(easy, curlPrerequest)
        fc_curl_easy_setopt_opensocket_function(easy, curlOpenSocket)
        return easy
    }

    private func drainCompletions() {
        var left: Int32 = 0
        while let message = curl_multi_info_read(multi, &left) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            let code = message.pointee.data.result
            var context: UnsafeMutableRawPointer?
            fc_curl_easy_getinfo_pointer(easy, CURLINFO_PRIVATE, &context)
            var status = 0
            fc_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
            curl_multi_remove_handle(multi, easy)
            active -= 1
            idleHandles.append(easy)
            guard let context else { continue }
            let transfer = Unmanaged<Transfer>.fromOpaque(context).takeRetainedValue()
            if let list = transfer.headerList {
                fc_curl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, nil)
                curl_slist_free_all(list)
                transfer.headerList = nil
            }
            transfer.easy = nil
            let result: CurlResult
            if code != CURLE_OK, let refusal = transfer.refusal {
                result = .failure(.refused(refusal))
            } else if code == CURLE_OK {
                result = .success(
                    HTTPResponse(
                        status: status, body: transfer.body, retryAfter: transfer.retryAfter,
                        contentType: transfer.contentType, etag: transfer.etag, lastModified: transfer.lastModified))
            } else {
                result = .failure(
                    Self.failure(code, sends: transfer.sends, tooLarge: transfer.tooLarge, limit: transfer.maxBodyBytes)
                )
            }
            transfer.continuation.resume(returning: result)
        }
    }

    /// Maps a failed transfer onto the transport's error vocabulary, by whether its request was sent.
    ///
    /// `sends` counts libcurl's pre-request callbacks: 0 means the request never left (no
    /// connection was ever opened), the one case whose call is given back to the ledger.
    static func failure(_ code: CURLcode, sends: Int, tooLarge: Bool, limit: Int) -> TransportFailure {
        if sends > 1 { return .connectionReset }
        let failure = error(code, tooLarge: tooLarge, limit: limit)
        switch (failure, sends) {
        case (.connectFailed, 0): return failure
        case (.timeout, 0): return .connectFailed("timed out before a connection was made")
        case (.connectFailed(let why), _): return .other(why)
        default: return failure
        }
    }

    /// Maps a libcurl result code onto the transport's error vocabulary.
    static func error(_ code: CURLcode, tooLarge: Bool, limit: Int) -> TransportFailure {
        if tooLarge || code == CURLE_FILESIZE_EXCEEDED { return .bodyTooLarge(limit: limit) }
        let text = String(cString: curl_easy_strerror(code))
        switch code {
        case CURLE_OPERATION_TIMEDOUT: return .timeout
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY: return .connectFailed(text)
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING: return .connectionReset
        case CURLE_PARTIAL_FILE: return .truncated
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE:
            return .connectFailed(text)
        default: return .other(text)
        }
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}

/// libcurl write callback: appends body bytes, refusing past the size cap.
private func curlWrite(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    guard let data, let context else { return 0 }
    let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    if transfer.body.count + length > transfer.maxBodyBytes {
        transfer.tooLarge = true
        return fc_curl_abort_write()
    }
    data.withMemoryRebound(to: UInt8.self, capacity: length) {
        transfer.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: length))
    }
    return length
}

/// libcurl pre-request callback: lets each transfer be sent once.
///
/// When a reused keep-alive connection dies before answering, libcurl quietly sends the
/// request again on a new one. OMDb counts both, so a silent second send would be a call the
/// ledger never saw. Aborting it hands the failure to the retry policy, which reserves the
/// next call in the ledger before sending it.
private func curlPrerequest(
    _ context: UnsafeMutableRawPointer?, _ primaryIP: UnsafeMutablePointer<CChar>?,
    _ localIP: UnsafeMutablePointer<CChar>?, _ primaryPort: Int32, _ localPort: Int32
) -> Int32 {
    guard let context else { return fc_curl_prereq_ok() }
    let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
    // A reused keep-alive connection was never opened for this request: its address is checked here.
    if transfer.destinations.refusesInternal, let primaryIP, let address = IPAddress(String(cString: primaryIP)),
        transfer.refuses(address)
    {
        return fc_curl_prereq_abort()
    }
    transfer.sends += 1
    return transfer.sends > 1 && !transfer.mayResend ? fc_curl_prereq_abort() : fc_curl_prereq_ok()
}

/// libcurl open-socket callback: refuses a connection to an address the transfer's
/// ``DestinationPolicy`` does not allow, before it is made.
///
/// Called for every address of every connection, the first request's and each redirect's,
/// after name resolution; libcurl tries the name's next address after a refusal.
private func curlOpenSocket(
    _ context: UnsafeMutableRawPointer?, _ purpose: curlsocktype, _ address: UnsafeMutablePointer<curl_sockaddr>?
) -> curl_socket_t {
    guard let address else { return fc_curl_socket_bad() }
    if let context {
        let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
        if transfer.destinations.refusesInternal {
            var bytes = [UInt8](repeating: 0, count: 16)
            let count = Int(fc_curl_sockaddr_bytes(address, &bytes))
            // An address of another family cannot be judged, so it is not connected to.
            guard let judged = IPAddress(bytes: Array(bytes.prefix(count))), !transfer.refuses(judged) else {
                return fc_curl_socket_bad()
            }
        }
    }
    return fc_curl_open_socket(address)
}

/// libcurl header callback: keeps `Retry-After`, `Content-Type`, `ETag` and `Last-Modified`; a new
/// status line starts a new response.
private func curlHeader(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    let length = size * count
    guard let data, let context else { return length }
    let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
    // Called for every header line of every response: look at bytes, make a String only for those kept.
    let line = UnsafeRawBufferPointer(start: data, count: length)
    func value(of name: String) -> String? {
        let count = name.utf8.count
        guard length > count, zip(line.prefix(count), name.utf8).allSatisfy({ $0 | 0x20 == $1 | 0x20 }) else {
            return nil
        }
        // The value without the blanks around it (HTTP's spaces and tabs, and the line's CR LF).
        var value = line.dropFirst(count)
        while let first = value.first, isBlank(first) { value = value.dropFirst() }
        while let last = value.last, isBlank(last) { value = value.dropLast() }
        return String(decoding: value, as: UTF8.self)
    }
    func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }
    if line.starts(with: "HTTP/".utf8) {
        transfer.retryAfter = nil
        transfer.contentType = nil
        transfer.etag = nil
        transfer.lastModified = nil
    } else if let text = value(of: "content-type:") {
        transfer.contentType = text
    } else if let text = value(of: "retry-after:") {
        transfer.retryAfter = text
    } else if let text = value(of: "etag:") {
        transfer.etag = text
    } else if let text = value(of: "last-modified:") {
        transfer.lastModified = text
    }
    return length
}
