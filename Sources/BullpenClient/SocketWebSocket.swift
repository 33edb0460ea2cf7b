#if os(Linux)
import Foundation
import Glibc

/// A minimal RFC 6455 WebSocket client over a TCP socket, for Linux systems whose libcurl has no
/// WebSockets (FoundationNetworking's `URLSessionWebSocketTask` answers "WebSockets not supported by
/// libcurl" there). Plain `ws://` only; text messages; answers pings; reads run on their own thread so
/// that a waiting read never holds a thread of Swift's cooperative pool.
final class SocketWebSocket: @unchecked Sendable {
    // `fd` never changes; `closed` is touched under `stateLock`, writes under `writeLock`, the buffer on `reader` only.
    private let fd: Int32
    private let reader = DispatchQueue(label: "bullpen.websocket.reader")
    private let stateLock = NSLock()
    private let writeLock = NSLock()
    private var closed = false
    private var buffer: [UInt8] = []
    static let maximumMessage = 1 << 20

    private init(fd: Int32) { self.fd = fd }

    deinit { Glibc.close(fd) }

    static func connect(url: URL) async throws -> SocketWebSocket {
        guard let host = url.host else { throw BullpenError.cannotConnect("no host in \(url)") }
        let port = url.port ?? 80
        var target = url.path.isEmpty ? "/" : url.path
        if let query = url.query { target += "?" + query }
        let path = target
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                do {
                    let fd = try open(host: host, port: port)
                    let socket = SocketWebSocket(fd: fd)
                    do {
                        try socket.handshake(host: host, port: port, target: path)
                        continuation.resume(returning: socket)
                    } catch {
                        socket.close()
                        continuation.resume(throwing: error)
                    }
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    private static func open(host: String, port: Int) throws -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw BullpenError.cannotConnect("cannot find \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var lastError = ECONNREFUSED
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            if fd >= 0 {
                if Glibc.connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 { return fd }
                lastError = errno
                Glibc.close(fd)
            }
            entry = info.pointee.ai_next
        }
        throw BullpenError.cannotConnect("\(host):\(port): \(String(cString: strerror(lastError)))")
    }

    private func handshake(host: String, port: Int, target: String) throws {
        var nonce = [UInt8](repeating: 0, count: 16)
        for index in nonce.indices { nonce[index] = UInt8.random(in: 0...255) }
        let key = Data(nonce).base64EncodedString()
        setTimeout(seconds: 10)
        defer { setTimeout(seconds: 0) }
        let authority = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        let request = "GET \(target) HTTP/1.1\r\nHost: \(authority)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\nUser-Agent: BullpenClient\r\n\r\n"
        try write(Array(request.utf8))
        // The answer's head, then (for a refusal) its body.
        var head = [UInt8]()
        while !head.ends(with: [13, 10, 13, 10]) {
            guard head.count < 16_384 else { throw BullpenError.invalidResponse("an endless WebSocket handshake") }
            head.append(try readByte())
        }
        let lines = String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n")
        let status = lines.first.flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Int($0) } ?? 0
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        guard status == 101 else {
            let length = headers["content-length"].flatMap { Int($0) } ?? 0
            var body = [UInt8]()
            while body.count < min(length, 1 << 16), let byte = try? readByte() { body.append(byte) }
            throw ErrorMiddleware.error(status: status, body: Data(body), retryAfter: headers["retry-after"].flatMap { Int($0) })
        }
        let expected = Data(SHA1.hash(Array((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8))).base64EncodedString()
        guard headers["sec-websocket-accept"] == expected else {
            throw BullpenError.invalidResponse("the WebSocket handshake's accept key is wrong")
        }
    }

    /// Sends a text message (masked, as a client must).
    func send(_ text: String) throws {
        try sendFrame(opcode: 0x1, payload: Array(text.utf8))
    }

    private func sendFrame(opcode: UInt8, payload: [UInt8]) throws {
        var frame: [UInt8] = [0x80 | opcode]
        switch payload.count {
        case ..<126: frame.append(0x80 | UInt8(payload.count))
        case ..<65_536: frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default:
            frame.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) { frame.append(UInt8((UInt64(payload.count) >> UInt64(shift)) & 0xFF)) }
        }
        let mask = (0..<4).map { _ in UInt8.random(in: 0...255) }
        frame += mask
        for (index, byte) in payload.enumerated() { frame.append(byte ^ mask[index % 4]) }
        writeLock.lock()
        defer { writeLock.unlock() }
        try write(frame)
    }

    /// The next text message; nil when the server closed the connection (or ``close()`` was called).
    func receive() async throws -> String? {
        try await withCheckedThrowingContinuation { continuation in
            reader.async {
                do { continuation.resume(returning: try self.readMessage()) } catch { continuation.resume(throwing: error) }
            }
        }
    }

    private func readMessage() throws -> String? {
        var message = [UInt8]()
        while true {
            let first: UInt8
            do { first = try readByte() } catch {
                if closedHere { return nil }
                throw error
            }
            let second = try readByte()
            var length = UInt64(second & 0x7F)
            if length == 126 { length = UInt64(try readByte()) << 8 | UInt64(try readByte()) }
            if length == 127 { length = 0; for _ in 0..<8 { length = length << 8 | UInt64(try readByte()) } }
            guard length <= UInt64(Self.maximumMessage) else { throw BullpenError.invalidResponse("a WebSocket frame over 1 MiB") }
            let mask = second & 0x80 != 0 ? try (0..<4).map { _ in try readByte() } : nil
            var payload = try readBytes(Int(length))
            if let mask { for index in payload.indices { payload[index] ^= mask[index % 4] } }
            let opcode = first & 0x0F
            switch opcode {
            case 0x8:
                try? sendFrame(opcode: 0x8, payload: Array(payload.prefix(2)))
                let code = payload.count >= 2 ? Int(payload[0]) << 8 | Int(payload[1]) : 1005
                if code == 1000 || closedHere { return nil }
                let reason = String(decoding: payload.dropFirst(2), as: UTF8.self)
                throw WebSocketConnection.closedError(code: code, reason: reason)
            case 0x9:
                try sendFrame(opcode: 0xA, payload: payload)
            case 0xA:
                break
            default:
                message += payload
                guard message.count <= Self.maximumMessage else { throw BullpenError.invalidResponse("a WebSocket message over 1 MiB") }
                if first & 0x80 != 0 { return String(decoding: message, as: UTF8.self) }
            }
        }
    }

    private func readByte() throws -> UInt8 { try readBytes(1)[0] }

    private func readBytes(_ count: Int) throws -> [UInt8] {
        while buffer.count < count {
            var chunk = [UInt8](repeating: 0, count: 16_384)
            let read = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if read < 0 && errno == EINTR { continue }
            guard read > 0 else { throw BullpenError.cannotConnect("the stream's connection closed") }
            buffer += chunk[0..<read]
        }
        let bytes = Array(buffer[0..<count])
        buffer.removeFirst(count)
        return bytes
    }

    private func write(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let written = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw BullpenError.cannotConnect("the stream's connection closed") }
            sent += written
        }
    }

    /// Ends the connection: a waiting read returns nil.
    func close() {
        stateLock.lock()
        let first = !closed
        closed = true
        stateLock.unlock()
        if first { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    private var closedHere: Bool {
        stateLock.lock()
        defer { stateLock.unlock() }
        return closed
    }

    /// Reads and writes of the handshake give up after `seconds` (0: never, for the stream itself).
    private func setTimeout(seconds: Int) {
        var time = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
    }
}

private extension Array where Element == UInt8 {
    func ends(with suffix: [UInt8]) -> Bool { count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix }
}

/// SHA-1, for the WebSocket handshake's accept key only (RFC 6455 §4.2.2). Not for security.
enum SHA1 {
    static func hash(_ message: [UInt8]) -> [UInt8] {
        var h: [UInt32] = [0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0]
        var data = message
        let bitLength = UInt64(message.count) * 8
        data.append(0x80)
        while data.count % 64 != 56 { data.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) { data.append(UInt8((bitLength >> UInt64(shift)) & 0xFF)) }
        for chunk in stride(from: 0, to: data.count, by: 64) {
            var w = [UInt32](repeating: 0, count: 80)
            for i in 0..<16 {
                let b = chunk + i * 4
                w[i] = UInt32(data[b]) << 24 | UInt32(data[b + 1]) << 16 | UInt32(data[b + 2]) << 8 | UInt32(data[b + 3])
            }
            for i in 16..<80 { w[i] = (w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]).rotatedLeft(1) }
            var (a, b, c, d, e) = (h[0], h[1], h[2], h[3], h[4])
            for i in 0..<80 {
                let (f, k): (UInt32, UInt32) = switch i {
                case 0..<20: ((b & c) | (~b & d), 0x5A827999)
                case 20..<40: (b ^ c ^ d, 0x6ED9EBA1)
                case 40..<60: ((b & c) | (b & d) | (c & d), 0x8F1BBCDC)
                default: (b ^ c ^ d, 0xCA62C1D6)
                }
                let temp = a.rotatedLeft(5) &+ f &+ e &+ k &+ w[i]
                (e, d, c, b, a) = (d, c, b.rotatedLeft(30), a, temp)
            }
            h[0] &+= a; h[1] &+= b; h[2] &+= c; h[3] &+= d; h[4] &+= e
        }
        return h.flatMap { value in [24, 16, 8, 0].map { UInt8((value >> UInt32($0)) & 0xFF) } }
    }
}

private extension UInt32 {
    func rotatedLeft(_ count: UInt32) -> UInt32 { (self << count) | (self >> (32 - count)) }
}
#endif
