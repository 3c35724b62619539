#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One accepted socket: reads request heads (skipping any bodies) and writes responses.
///
/// Every failure — a peer that closes mid-request, a reset, a timeout — simply ends the exchange;
/// writes use `MSG_NOSIGNAL` so a vanished peer never raises SIGPIPE.
struct ConnectionChannel {
    /// The largest request head accepted (431 beyond it).
    static let maximumHeadSize = 16 * 1024
    /// The largest request body skipped (413 beyond it).
    static let maximumBodySize = 1024 * 1024

    /// The connected socket.
    let descriptor: Int32
    private var buffer: [UInt8] = []
    private var chunk = [UInt8](repeating: 0, count: 64 * 1024)

    /// Wraps an accepted socket.
    init(descriptor: Int32) {
        self.descriptor = descriptor
        buffer.reserveCapacity(8 * 1024)
    }

    /// Returns the next complete request, or nil when the connection should end.
    ///
    /// Malformed or oversized requests get a 4xx/5xx answer with `Connection: close` first.
    mutating func nextRequest() -> HTTPRequest? {
        var headEnd = Self.headTerminator(in: buffer)
        while headEnd == nil {
            guard buffer.count <= Self.maximumHeadSize else {
                _ = send(HTTPResponse.text("Request Header Fields Too Large", status: 431).head(keepAlive: false))
                return nil
            }
            guard receive() else { return nil }
            headEnd = Self.headTerminator(in: buffer)
        }
        guard let headEnd, let request = HTTPRequest(head: buffer[..<headEnd]) else {
            refuse(.text("Bad Request", status: 400))
            return nil
        }
        if request.header("transfer-encoding") != nil {
            refuse(.text("Not Implemented", status: 501))
            return nil
        }
        let bodyLength = request.contentLength
        guard bodyLength >= 0, bodyLength <= Self.maximumBodySize else {
            refuse(.text("Content Too Large", status: 413))
            return nil
        }
        let consumed = headEnd + 4 + bodyLength
        while buffer.count < consumed {
            guard receive() else { return nil }
        }
        buffer.removeFirst(consumed)
        return request
    }

    /// Sends all of `bytes`; false when the peer is gone.
    func send(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                #if os(Linux)
                    let flags = Int32(MSG_NOSIGNAL)
                #else
                    let flags: Int32 = 0
                #endif
                let sent = posixSend(descriptor, raw.baseAddress! + offset, raw.count - offset, flags)
                if sent < 0 && errno == EINTR { continue }
                guard sent > 0 else { return false }
                offset += sent
            }
            return true
        }
    }

    /// Closes the socket: gracefully (half-close first so the last answer is delivered) or with a reset.
    func close(reset: Bool) {
        if reset {
            var lingering = linger(l_onoff: 1, l_linger: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &lingering, socklen_t(MemoryLayout<linger>.size))
        } else {
            shutdown(descriptor, Int32(SHUT_WR))
        }
        posixClose(descriptor)
    }

    private func refuse(_ response: HTTPResponse) {
        _ = send(response.head(keepAlive: false) + response.body)
    }

    private mutating func receive() -> Bool {
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            buffer.append(contentsOf: chunk[0..<count])
            return true
        }
    }

    /// The offset of `\r\n\r\n`, where the head ends.
    private static func headTerminator(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }
}

// The channel's own `send` and `close` hide the C functions; these reach them.
private func posixSend(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int, _ flags: Int32) -> Int {
    send(descriptor, bytes, count, flags)
}

private func posixClose(_ descriptor: Int32) {
    _ = close(descriptor)
}
