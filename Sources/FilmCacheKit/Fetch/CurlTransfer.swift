import CCurl
import Foundation
import Synchronization

/// One request's state while libcurl owns it; reached from C callbacks through an unmanaged pointer.
///
/// Handed from the submitting task to the loop thread once, under the lock; after
/// that only the loop thread reads or writes it, hence the unchecked conformance.
final class CurlTransfer: @unchecked Sendable {
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
        guard let parsed = fc_curl_url() else { return nil }
        defer { fc_curl_url_cleanup(parsed) }
        guard fc_curl_url_set(parsed, CURLUPART_URL, pointer.assumingMemoryBound(to: CChar.self), 0) == CURLUE_OK
        else { return nil }
        var host: UnsafeMutablePointer<CChar>?
        guard fc_curl_url_get(parsed, CURLUPART_HOST, &host, 0) == CURLUE_OK, let host else { return nil }
        defer { fc_curl_free(host) }
        return String(cString: host)
    }

    /// Whether libcurl may send the request again on a new connection (never for an OMDb call).
    var mayResend: Bool { maxRedirects > 0 || !headers.isEmpty }
}
