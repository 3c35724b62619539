import CCurl
import Foundation

// The C callbacks libcurl calls on the loop thread, each reaching its `CurlTransfer` through an unmanaged
// pointer. Internal, not private: `CurlLoop` hands them to libcurl from its own file.

/// libcurl write callback: appends body bytes, refusing past the size cap.
func curlWrite(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    guard let data, let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
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
func curlPrerequest(
    _ context: UnsafeMutableRawPointer?, _ primaryIP: UnsafeMutablePointer<CChar>?,
    _ localIP: UnsafeMutablePointer<CChar>?, _ primaryPort: Int32, _ localPort: Int32
) -> Int32 {
    guard let context else { return fc_curl_prereq_ok() }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
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
func curlOpenSocket(
    _ context: UnsafeMutableRawPointer?, _ purpose: curlsocktype, _ address: UnsafeMutablePointer<curl_sockaddr>?
) -> curl_socket_t {
    guard let address else { return fc_curl_socket_bad() }
    if let context {
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
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
func curlHeader(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    let length = size * count
    guard let data, let context else { return length }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
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
