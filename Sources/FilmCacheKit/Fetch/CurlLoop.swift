import CCurl
import Foundation
import Synchronization

/// The multi handle and its thread. Only the loop thread touches `multi` and the easy handles;
/// other threads only append to `pending` under the lock.
final class CurlLoop: @unchecked Sendable {
    let options: CurlMultiTransport.Options
    private let multi: UnsafeMutableRawPointer
    private let shared = Mutex(Shared())
    private var idleHandles: [UnsafeMutableRawPointer] = []
    private var active = 0

    private struct Shared {
        var pending: [CurlTransfer] = []
        /// True while the loop waits in `curl_multi_poll` with nothing that would wake it soon.
        var sleeping = false
        var stopping = false
    }

    init(options: CurlMultiTransport.Options) {
        self.options = options
        guard let multi = fc_curl_multi_init() else { fatalError("curl_multi_init failed: out of memory") }
        self.multi = multi
        let cap = max(1, options.maxInFlight)
        fc_curl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, cap)
        fc_curl_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, cap)
        fc_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, cap)
    }

    /// Queues a transfer; wakes the loop only if it is asleep.
    func submit(_ transfer: CurlTransfer) {
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
            fc_curl_multi_wakeup(multi)
        }
    }

    /// Asks the loop to finish its transfers and exit.
    func shutdown() {
        shared.withLock { $0.stopping = true }
        fc_curl_multi_wakeup(multi)
    }

    /// The loop: add queued transfers, drive sockets, complete finished transfers, sleep.
    func run() {
        let cap = max(1, options.maxInFlight)
        var queue: [CurlTransfer] = []
        var queueHead = 0
        while true {
            let (incoming, stopping) = shared.withLock { s -> ([CurlTransfer], Bool) in
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
            fc_curl_multi_perform(multi, &running)
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
                fc_curl_multi_poll(multi, nil, 0, wakeable ? 1000 : 5, nil)
                shared.withLock { $0.sleeping = false }
            }
        }
        for handle in idleHandles { fc_curl_easy_cleanup(handle) }
        fc_curl_multi_cleanup(multi)
    }

    private func start(_ transfer: CurlTransfer) {
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
        for line in transfer.headers { transfer.headerList = fc_curl_slist_append(transfer.headerList, line) }
        fc_curl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, transfer.headerList)
        fc_curl_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, transfer.maxRedirects > 0 ? 1 : 0)
        fc_curl_easy_setopt_long(easy, CURLOPT_MAXREDIRS, transfer.maxRedirects)
        fc_curl_multi_add_handle(multi, easy)
        active += 1
    }

    private func makeHandle() -> UnsafeMutableRawPointer {
        guard let easy = fc_curl_easy_init() else { fatalError("curl_easy_init failed: out of memory") }
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
        while let message = fc_curl_multi_info_read(multi, &left) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            let code = message.pointee.data.result
            var context: UnsafeMutableRawPointer?
            fc_curl_easy_getinfo_pointer(easy, CURLINFO_PRIVATE, &context)
            var status = 0
            fc_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
            fc_curl_multi_remove_handle(multi, easy)
            active -= 1
            idleHandles.append(easy)
            guard let context else { continue }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeRetainedValue()
            if let list = transfer.headerList {
                fc_curl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, nil)
                fc_curl_slist_free_all(list)
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
        let text = String(cString: fc_curl_easy_strerror(code))
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
