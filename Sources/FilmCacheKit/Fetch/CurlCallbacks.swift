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
///
/// Called for every header line of every response on the loop thread, which every transfer
/// shares: a line is told by its first byte and compared byte by byte, and a `String` is made
/// only for a header kept.
func curlHeader(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    let length = size * count
    guard let data, let context, length > 0 else { return length }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    let line = UnsafeRawBufferPointer(start: data, count: length)
    switch line[0] | 0x20 {
    case UInt8(ascii: "h"):
        guard HeaderLine.starts(line, with: "HTTP/", anyCase: false) else { break }
        transfer.retryAfter = nil
        transfer.contentType = nil
        transfer.etag = nil
        transfer.lastModified = nil
    case UInt8(ascii: "c"):
        if let text = HeaderLine.value(line, of: "content-type:") { transfer.contentType = text }
    case UInt8(ascii: "r"):
        if let text = HeaderLine.value(line, of: "retry-after:") { transfer.retryAfter = text }
    case UInt8(ascii: "e"):
        if let text = HeaderLine.value(line, of: "etag:") { transfer.etag = text }
    case UInt8(ascii: "l"):
        if let text = HeaderLine.value(line, of: "last-modified:") { transfer.lastModified = text }
    default:
        break
    }
    return length
}

/// One header line as libcurl hands it over: its bytes, CR LF included.
enum HeaderLine {
    /// Whether `line` begins with `prefix`, letters in any case when `anyCase`.
    static func starts(_ line: UnsafeRawBufferPointer, with prefix: StaticString, anyCase: Bool) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard line.count >= count else { return false }
        let fold: UInt8 = anyCase ? 0x20 : 0
        let bytes = prefix.utf8Start
        for index in 0..<count where line[index] | fold != bytes[index] | fold { return false }
        return true
    }

    /// The value of the header `name` (with its colon) in `line`, without the blanks around it
    /// (HTTP's spaces and tabs, and the line's CR LF); `nil` when `line` is another header.
    static func value(_ line: UnsafeRawBufferPointer, of name: StaticString) -> String? {
        guard line.count > name.utf8CodeUnitCount, starts(line, with: name, anyCase: true) else { return nil }
        var start = name.utf8CodeUnitCount
        var end = line.count
        while start < end, isBlank(line[start]) { start += 1 }
        while end > start, isBlank(line[end - 1]) { end -= 1 }
        return String(decoding: UnsafeRawBufferPointer(rebasing: line[start..<end]), as: UTF8.self)
    }

    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A
    }
}
