import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A response read off a raw socket, with the body exactly as received (possibly shorter than declared).
struct RawResponse {
    /// The status code.
    var status: Int
    /// Header values by lower-cased name.
    var headers: [String: String]
    /// The body bytes received.
    var body: [UInt8]

    /// The `Content-Length` the server announced.
    var declaredLength: Int? { headers["content-length"].flatMap { Int($0) } }
    /// The body as text.
    var text: String { String(decoding: body, as: UTF8.self) }
}

/// Why a raw exchange ended without a complete response head.
enum RawHTTPError: Error, Equatable {
    /// `connect` failed.
    case connectFailed(Int32)
    /// `send` failed.
    case sendFailed(Int32)
    /// The peer closed cleanly before sending a response head.
    case closedBeforeResponse
    /// The peer reset the connection (or another receive error happened).
    case receiveFailed(Int32)
}

/// A tiny blocking HTTP/1.1 client over one TCP connection, so tests see keep-alive, resets and
/// truncation exactly as they happen on the wire.
final class RawHTTPConnection {
    /// The client socket.
    let descriptor: Int32
    private var buffer: [UInt8] = []

    /// Connects to `host`:`port` (`host` an IPv4 address).
    init(host: String = "127.0.0.1", port: Int, timeoutSeconds: Int = 10) throws {
        #if os(Linux)
            descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        inet_pton(AF_INET, host, &address.sin_addr)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            Glibc.close(descriptor)
            throw RawHTTPError.connectFailed(code)
        }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit {
        Glibc.close(descriptor)
    }

    /// Sends raw bytes.
    func send(raw text: String) throws {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard sent > 0 else { throw RawHTTPError.sendFailed(errno) }
            offset += sent
        }
    }

    /// Sends a request for `target` and reads its response.
    func get(_ target: String, method: String = "GET", close: Bool = false) throws -> RawResponse {
        try sendRequest(target, method: method, close: close)
        return try readResponse()
    }

    /// Sends a request without reading its answer.
    func sendRequest(_ target: String, method: String = "GET", close: Bool = false) throws {
        let connection = close ? "Connection: close\r\n" : ""
        try send(raw: "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(connection)\r\n")
    }

    /// Reads one response's status line and headers, leaving any body unread.
    func readHead() throws -> RawResponse {
        var headEnd = Self.find(buffer)
        while headEnd == nil {
            switch receive() {
            case .data: headEnd = Self.find(buffer)
            case .closed: throw RawHTTPError.closedBeforeResponse
            case .failed(let code): throw RawHTTPError.receiveFailed(code)
            }
        }
        let head = String(decoding: buffer[..<headEnd!], as: UTF8.self).components(separatedBy: "\r\n")
        buffer.removeFirst(headEnd! + 4)
        let status = Int(head[0].split(separator: " ")[1]) ?? 0
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        return RawResponse(status: status, headers: headers, body: [])
    }

    /// Reads one response: its head, then as many body bytes as it declares (fewer when the peer closes first).
    func readResponse() throws -> RawResponse {
        var response = try readHead()
        let declared = response.declaredLength ?? 0
        reading: while buffer.count < declared {
            switch receive() {
            case .data: continue
            case .closed, .failed: break reading
            }
        }
        let body = Array(buffer.prefix(declared))
        buffer.removeFirst(body.count)
        response.body = body
        return response
    }

    /// True when the peer has closed the connection (a read returns end-of-file or an error).
    func peerClosed() -> Bool {
        guard buffer.isEmpty else { return false }
        switch receive() {
        case .data: return false
        case .closed, .failed: return true
        }
    }

    private enum ReceiveOutcome { case data, closed, failed(Int32) }

    private func receive() -> ReceiveOutcome {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        if count > 0 {
            buffer.append(contentsOf: chunk[0..<count])
            return .data
        }
        return count == 0 ? .closed : .failed(errno)
    }

    private static func find(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        return (0...(bytes.count - 4)).first {
            bytes[$0] == 13 && bytes[$0 + 1] == 10 && bytes[$0 + 2] == 13 && bytes[$0 + 3] == 10
        }
    }
}
