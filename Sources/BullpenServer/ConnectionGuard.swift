import BullpenAPI
import Foundation
import Logging
import Metrics
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization
import Vapor

/// Bullpen's front door: what a reverse proxy does about slow and greedy clients, inside the
/// process, so that a server reached directly cannot be held open by a few hundred sockets
/// trickling bytes (a slowloris). Vapor 4 has no hook on the connections it accepts, so the guard
/// accepts them itself, on the configured address, and passes each request on to Vapor over a
/// private Unix socket:
/// - a request's head must arrive whole within ``Limits/headerTimeout`` of its first byte (or of
///   the connection's opening): else 408 `request_timeout`, and the connection closes;
/// - a body must keep coming: at most ``Limits/bodyTimeout`` between two reads, else 408;
/// - a connection with nothing read or written for ``Limits/idleTimeout`` is closed;
/// - one address holds at most ``Limits/connectionsPerAddress`` connections; the next is answered
///   429 `too_many_connections` at once. Trusted proxies carry many clients and are not capped.
///
/// The guard names the client to Vapor in `X-Forwarded-For` (keeping a trusted proxy's
/// `X-Forwarded-Proto`, dropping anyone else's), and Vapor believes those headers only from the
/// private socket. An upgrade (the quote stream's WebSocket) is passed on as it is; once Vapor
/// answers 101 the bytes flow both ways untouched. Nothing waits on Vapor until a whole request
/// head has arrived: a client that never finishes one never opens a connection behind the guard.
final class ConnectionGuard: Sendable {
    struct Limits: Sendable {
        var headerTimeout: TimeAmount = .seconds(10)
        var bodyTimeout: TimeAmount = .seconds(10)
        var idleTimeout: TimeAmount = .seconds(75)
        /// 0: no cap.
        var connectionsPerAddress = 500
        var trustedProxies: Set<String> = []
    }

    let limits: Limits
    /// Vapor's private socket.
    let backendPath: String
    private let group: any EventLoopGroup

    private struct State {
        var perAddress: [String: Int] = [:]
        var open: [ObjectIdentifier: any Channel] = [:]
        var listener: (any Channel)?
        var stopping = false
    }
    private let state = Mutex(State())

    init(limits: Limits, backendPath: String, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        self.limits = limits
        self.backendPath = backendPath
        self.group = group
    }

    /// Whether the server is going away (connections Vapor closes are then not reopened).
    var isStopping: Bool { state.withLock { $0.stopping } }

    /// Listens on `host:port` (0: any free port); returns the port.
    func start(host: String, port: Int) async throws -> Int {
        let listener = try await ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 256)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture { try self.accept(channel) }
            }
            .bind(host: host, port: port).get()
        state.withLock { $0.listener = listener }
        return listener.localAddress?.port ?? port
    }

    /// Stops accepting connections; those open go on.
    func stopAccepting() async {
        let listener = state.withLock { state in
            state.stopping = true
            defer { state.listener = nil }
            return state.listener
        }
        try? await listener?.close()
    }

    /// Closes every connection still open once Vapor has closed its side: each after its last
    /// answer has been written; any still open after `grace` (a client that does not read) is cut.
    func closeAll(grace: Duration = .seconds(5)) async {
        let open = state.withLock { Array($0.open.values) }
        for channel in open { channel.pipeline.fireUserInboundEventTriggered(GuardStopping()) }
        let deadline = ContinuousClock.now + grace
        while ContinuousClock.now < deadline, state.withLock({ !$0.open.isEmpty }) {
            try? await Task.sleep(for: .milliseconds(50))
        }
        for channel in state.withLock({ Array($0.open.values) }) { try? await channel.close() }
    }

    /// The most a request's headers may hold (names and values), in 200 fields at most.
    static let maxHeadBytes = 32 * 1024

    /// The private socket's directory is `bullpen-guard-<pid>-<random>` in the temporary directory.
    static let directoryPrefix = "bullpen-guard-"

    /// Removes the socket directories of processes that are gone (killed, so never cleaned up).
    static func removeLeftovers() {
        let temporary = FileManager.default.temporaryDirectory
        for name in (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? [] where name.hasPrefix(directoryPrefix) {
            guard let pid = name.dropFirst(directoryPrefix.count).split(separator: "-").first.flatMap({ pid_t($0) }),
                  kill(pid, 0) == -1 && errno == ESRCH else { continue }
            try? FileManager.default.removeItem(at: temporary.appendingPathComponent(name))
        }
    }

    /// The peer's address as Bullpen names it: an IPv4 address mapped into IPv6 (`::ffff:a.b.c.d`)
    /// is the IPv4 address; and the key it is capped under: an IPv6 address's /64 (one subscriber
    /// holds a whole /64 and could otherwise rotate through it).
    static func identify(_ address: SocketAddress?) -> (peer: String, capKey: String) {
        guard case .v6(let v6)? = address else {
            let peer = address?.ipAddress ?? "unknown"
            return (peer, peer)
        }
        let bytes = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff {
            let peer = bytes[12..<16].map(String.init).joined(separator: ".")
            return (peer, peer)
        }
        let prefix = stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
        return (address?.ipAddress ?? "unknown", prefix.joined(separator: ":") + "::/64")
    }

    private func accept(_ channel: any Channel) throws {
        let (peer, capKey) = Self.identify(channel.remoteAddress)
        let capped = limits.connectionsPerAddress > 0 && !limits.trustedProxies.contains(peer)
        let admitted = state.withLock { state -> Bool in
            state.open[ObjectIdentifier(channel)] = channel
            guard capped else { return true }
            let count = state.perAddress[capKey, default: 0]
            guard count < limits.connectionsPerAddress else { return false }
            state.perAddress[capKey] = count + 1
            return true
        }
        channel.closeFuture.whenComplete { [self] _ in
            state.withLock { state in
                state.open[ObjectIdentifier(channel)] = nil
                guard capped && admitted else { return }
                let left = state.perAddress[capKey, default: 1] - 1
                state.perAddress[capKey] = left > 0 ? left : nil
            }
        }
        let pipeline = channel.pipeline.syncOperations
        guard admitted else {
            Counter(label: "bullpen_connections_refused_total").increment()
            let answer = GuardAnswer(.tooManyConnections,
                                     "This address has \(limits.connectionsPerAddress) connections open to Bullpen, the most it may; close some and retry.",
                                     headers: [("Retry-After", "10")])
            try pipeline.addHandler(GuardRefusal(answer: answer))
            return
        }
        let front = GuardFrontHandler(guard: self, peer: peer)
        try pipeline.addHandler(IdleStateHandler(allTimeout: limits.idleTimeout))
        try pipeline.addHandler(GuardRequestStart(front: front), name: GuardFrontHandler.Names.start)
        var headLimits = NIOHTTPDecoderLimitConfiguration()
        headLimits.maxHeaderListSize = Self.maxHeadBytes
        headLimits.maxHeaderFieldSize = Self.maxHeadBytes
        headLimits.maxHeaderFieldCount = 200
        try pipeline.addHandler(ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .forwardBytes, informationalResponseStrategy: .drop,
                                                                        limitConfiguration: headLimits)),
                                name: GuardFrontHandler.Names.decoder)
        try pipeline.addHandler(HTTPResponseEncoder(), name: GuardFrontHandler.Names.encoder)
        try pipeline.addHandler(front, name: GuardFrontHandler.Names.front)
    }
}

/// The server is stopping: a connection closes once its last answer is written.
struct GuardStopping: Sendable {}

/// An answer the guard gives itself, in the API's error envelope.
struct GuardAnswer {
    var status: HTTPResponseStatus
    var headers: HTTPHeaders
    var body: ByteBuffer

    init(_ code: ErrorCode, _ message: String, headers extra: [(String, String)] = []) {
        let json = (try? JSONEncoder().encode(ErrorEnvelope(code: code.rawValue, message: message))) ?? Data()
        body = ByteBuffer(bytes: json)
        status = HTTPResponseStatus(statusCode: code.httpStatus)
        headers = HTTPHeaders([("Content-Type", "application/json; charset=utf-8"), ("Content-Length", String(body.readableBytes)),
                               ("Connection", "close"), ("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff")] + extra)
    }

    /// The whole answer as HTTP/1.1 bytes.
    var bytes: ByteBuffer {
        var buffer = ByteBuffer(string: "HTTP/1.1 \(status.code) \(status.reasonPhrase)\r\n")
        for (name, value) in headers { buffer.writeString("\(name): \(value)\r\n") }
        buffer.writeString("\r\n")
        var body = body
        buffer.writeBuffer(&body)
        return buffer
    }
}

/// Closes a connection after its last answer without losing that answer to a reset: stops
/// writing, drops what the client is still sending, and closes when it does or after two seconds.
extension ChannelHandlerContext {
    fileprivate func lingerAndClose() {
        let channel = self.channel
        try? channel.syncOptions?.setOption(ChannelOptions.autoRead, value: true)
        channel.close(mode: .output, promise: nil)
        eventLoop.assumeIsolated().scheduleTask(in: .seconds(2)) { channel.close(promise: nil) }
    }
}

/// Answers a connection over the cap as soon as it opens, then closes it.
private final class GuardRefusal: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    let answer: GuardAnswer

    init(answer: GuardAnswer) { self.answer = answer }

    func channelActive(context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(answer.bytes)).assumeIsolated().whenComplete { _ in context.lingerAndClose() }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}   // what it sends is dropped
    func errorCaught(context: ChannelHandlerContext, error: any Error) { context.close(promise: nil) }
}

/// Tells the front handler that bytes arrived, before the HTTP decoder holds them: the first
/// byte of a request starts its header timeout.
private final class GuardRequestStart: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    let front: GuardFrontHandler

    init(front: GuardFrontHandler) { self.front = front }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        front.bytesArrived()
        context.fireChannelRead(data)
    }
}

/// The client's side: times the request's head and body, passes the request on to Vapor over a
/// connection of its own, and writes Vapor's answers back.
final class GuardFrontHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    enum Names {
        static let start = "guard.start", decoder = "guard.decoder", encoder = "guard.encoder", front = "guard.front"
        static let backendEncoder = "guard.backend.encoder", backendDecoder = "guard.backend.decoder", backend = "guard.backend"
    }

    private enum Phase {
        /// No byte of the next request yet (the header timeout runs only on a fresh connection).
        case betweenRequests
        /// A request's first bytes came: its head must be whole by the header timeout.
        case readingHead
        /// The head came; the body must keep coming.
        case readingBody
        /// An upgrade was asked: the decoder reads no further until Vapor answers.
        case upgrading
        /// Upgraded: the bytes flow untouched (this handler is gone from the pipeline).
        case switched
        /// Answered for the last time; closing.
        case closing
    }

    private let connectionGuard: ConnectionGuard
    private let peer: String
    private var context: ChannelHandlerContext?
    private var phase = Phase.readingHead
    private var timer: Scheduled<Void>?
    /// The timeout that applies now ("head" or "body"), if any.
    private var timing: String?
    /// Reading is paused because Vapor's side cannot take more: the client is not late meanwhile.
    private var paused = false
    /// The request's body is read and dropped (TRACE).
    private var dropBody = false
    /// A byte of the next request has come (a connection that sends none is closed without a word).
    private var bytesSeen = false
    private var backend: (any Channel)?
    private var connecting = false
    private var queued: [HTTPClientRequestPart] = []
    /// Requests passed on whose answers have not ended.
    private var owed = 0
    /// Vapor's answer has begun (its head passed on) and not ended.
    private var answering = false
    private var switchingProtocols = false
    private var closeAfterAnswer = false
    /// The end of the last answer, written: a connection closes only after it.
    private var lastAnswer: EventLoopFuture<Void>?

    init(guard connectionGuard: ConnectionGuard, peer: String) {
        self.connectionGuard = connectionGuard
        self.peer = peer
    }

    private var limits: ConnectionGuard.Limits { connectionGuard.limits }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        arm("head")   // a connection that sends nothing is a head that never comes
        context.fireChannelActive()
    }

    func bytesArrived() {
        bytesSeen = true
        guard phase == .betweenRequests else { return }
        phase = .readingHead
        arm("head")
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(var head):
            guard phase == .readingHead || phase == .betweenRequests else { return }
            disarm()
            bytesSeen = false
            let upgrade = head.method == .CONNECT
                || (head.headers.contains(name: "upgrade") && head.headers[canonicalForm: "connection"].contains { $0.lowercased() == "upgrade" })
            // The framing Vapor reads must be the framing the guard read: stated afresh, one way.
            let codings = head.headers[canonicalForm: "transfer-encoding"].map { $0.lowercased() }
            guard codings.isEmpty || (codings == ["chunked"] && head.version == .http1_1) else {
                return refuse(GuardAnswer(.badRequest, "Transfer-Encoding may only be chunked, and only in HTTP/1.1."))
            }
            let chunked = !codings.isEmpty
            let length = chunked ? nil : head.headers.first(name: "content-length").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            head.headers.remove(name: "transfer-encoding")
            head.headers.remove(name: "content-length")
            if chunked { head.headers.add(name: "Transfer-Encoding", value: "chunked") }
            if let length { head.headers.add(name: "Content-Length", value: String(length)) }
            let hasBody = chunked || (length ?? 0) > 0
            if upgrade && hasBody { return refuse(GuardAnswer(.badRequest, "A request to switch protocols has no body.")) }
            phase = upgrade ? .upgrading : .readingBody
            // TRACE may not carry a body: NIO's encoder would drop its framing and pass the bytes
            // on raw. It is read under the body timeout and dropped; Vapor answers the TRACE.
            dropBody = head.method == .TRACE
            if hasBody { arm("body") }
            nameTheClient(&head.headers)
            owed += 1
            pass(.head(head))
        case .body(let buffer):
            guard phase == .readingBody else { return }
            if timing == "body" { arm("body") }
            if !dropBody { pass(.body(.byteBuffer(buffer))) }
        case .end(let trailers):
            guard phase == .readingBody || phase == .upgrading else { return }
            disarm()
            if phase == .readingBody {
                phase = .betweenRequests
            } else {
                // Nothing more is read until Vapor has answered the upgrade (the decoder would
                // only hold it): the relay reads again after 101; a refusal closes the connection.
                context.channel.syncOptionsIfOnLoop(autoRead: false)
                arm("upgrade")
            }
            pass(.end(trailers))
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        backend?.flush()
        context.fireChannelReadComplete()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        backend?.syncOptionsIfOnLoop(autoRead: context.channel.isWritable)
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        phase = .closing
        backend?.close(promise: nil)
        backend = nil
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is GuardStopping {
            // Vapor has stopped (and closed its side): close once the last answer is out.
            guard phase != .closing else { return }
            phase = .closing
            disarm()
            (lastAnswer ?? context.eventLoop.makeSucceededVoidFuture()).assumeIsolated().whenComplete { _ in context.lingerAndClose() }
            return
        }
        guard event is IdleStateHandler.IdleStateEvent else { return context.fireUserInboundEventTriggered(event) }
        // A request whose answer has not begun (Vapor still working on it) is not idleness; an answer
        // the client stopped reading is.
        guard owed == 0 || answering else { return }
        phase = .closing
        context.close(promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard phase != .closing else { return }
        if error is HTTPParserError, owed == 0 {
            answer(GuardAnswer(.badRequest, "The request is not valid HTTP/1.1 (or its headers are over 32 KiB, or over 200)."))
        } else {
            phase = .closing
            context.close(promise: nil)
        }
    }

    // MARK: Passing the request on

    /// The client as Vapor should see it: the peer, or what a trusted proxy says it saw.
    private func nameTheClient(_ headers: inout HTTPHeaders) {
        let trusted = limits.trustedProxies.contains(peer)
        let forwarded = trusted ? headers[canonicalForm: "x-forwarded-for"].last.map(String.init).flatMap { $0.isEmpty ? nil : $0 } : nil
        let proto = trusted ? headers[canonicalForm: "x-forwarded-proto"].last.map(String.init) : nil
        headers.remove(name: "x-forwarded-for")
        headers.remove(name: "x-forwarded-proto")
        headers.add(name: "X-Forwarded-For", value: forwarded ?? peer)
        if let proto, !proto.isEmpty { headers.add(name: "X-Forwarded-Proto", value: proto) }
    }

    private func pass(_ part: HTTPClientRequestPart) {
        if let backend {
            backend.write(part, promise: nil)
            return
        }
        queued.append(part)
        if !connecting { connect() }
    }

    private func connect() {
        guard let context else { return }
        connecting = true
        let front = NIOLoopBound(self, eventLoop: context.eventLoop)
        ClientBootstrap(group: context.eventLoop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    try pipeline.addHandler(HTTPRequestEncoder(), name: Names.backendEncoder)
                    try pipeline.addHandler(ByteToMessageHandler(HTTPResponseDecoder(leftOverBytesStrategy: .forwardBytes, informationalResponseStrategy: .forward)),
                                            name: Names.backendDecoder)
                    try pipeline.addHandler(GuardBackendHandler(front: front.value), name: Names.backend)
                }
            }
            .connect(unixDomainSocketPath: connectionGuard.backendPath)
            .assumeIsolated()
            .whenComplete { result in self.connected(result) }
    }

    private func connected(_ result: Result<any Channel, any Error>) {
        connecting = false
        switch result {
        case .success(let channel):
            guard phase != .closing, context != nil else {
                channel.close(promise: nil)
                return
            }
            backend = channel
            for part in queued { channel.write(part, promise: nil) }
            queued = []
            channel.flush()
            channel.syncOptionsIfOnLoop(autoRead: context?.channel.isWritable ?? true)
        case .failure:
            queued = []
            answer(GuardAnswer(.shuttingDown, "This server is shutting down; another one will answer (retry shortly).",
                               headers: [("Retry-After", "1")]))
        }
    }

    // MARK: Vapor's answers

    func backendHead(_ head: HTTPResponseHead) {
        guard let context, phase != .closing else { return }
        guard owed > 0 else {
            // An answer to no request: the two sides are out of step; nothing more is trusted.
            phase = .closing
            backend?.close(promise: nil)
            context.close(promise: nil)
            return
        }
        var head = head
        if (100..<200).contains(head.status.code) && head.status != .switchingProtocols {
            // `100 Continue` and the like: passed on at once; the answer itself follows.
            context.writeAndFlush(wrapOutboundOut(.head(head)), promise: nil)
            return
        }
        answering = true
        if head.status == .switchingProtocols {
            switchingProtocols = true
        } else if phase == .upgrading || !head.isKeepAlive {
            // A refused upgrade ends the connection (the decoder reads nothing after an upgrade
            // request), as does an answer that is not kept alive (`Connection: close`, HTTP/1.0).
            head.headers.replaceOrAdd(name: "Connection", value: "close")
            closeAfterAnswer = true
        }
        context.write(wrapOutboundOut(.head(head)), promise: nil)
    }

    func backendBody(_ buffer: ByteBuffer) {
        guard let context, phase != .closing else { return }
        context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
    }

    func backendEnd(_ trailers: HTTPHeaders?) {
        guard let context, phase != .closing else { return }
        answering = false
        owed -= 1
        if switchingProtocols {
            context.writeAndFlush(wrapOutboundOut(.end(trailers)), promise: nil)
            switchToBytes(context)
        } else if closeAfterAnswer {
            phase = .closing
            timer?.cancel()
            context.writeAndFlush(wrapOutboundOut(.end(trailers))).assumeIsolated().whenComplete { _ in context.lingerAndClose() }
            backend?.close(promise: nil)
        } else {
            lastAnswer = context.writeAndFlush(wrapOutboundOut(.end(trailers)))
        }
    }

    func backendFlush() { context?.flush() }

    func backendWritabilityChanged(_ writable: Bool) {
        context?.channel.syncOptionsIfOnLoop(autoRead: writable)
        paused = !writable
        if paused {
            timer?.cancel()
            timer = nil
        } else if let timing {
            arm(timing)
        }
    }

    /// Vapor closed its side: after `Connection: close`, when it stops, or when the connection
    /// sat idle. A request it had not answered is lost with it (as it would be without the
    /// guard); otherwise the client's connection stays, and its next request opens another.
    func backendClosed() {
        backend = nil
        guard let context, phase != .closing, phase != .switched else { return }
        if answering {
            phase = .closing
            context.close(promise: nil)   // the answer was cut short
        } else if owed > 0 || phase == .readingBody || phase == .upgrading || connectionGuard.isStopping {
            // A request Vapor will not answer, or one whose rest would reach a new connection as
            // if it were a request of its own: the connection ends after the answers already out.
            phase = .closing
            disarm()
            (lastAnswer ?? context.eventLoop.makeSucceededVoidFuture()).assumeIsolated().whenComplete { _ in context.lingerAndClose() }
        } else {
            // Between requests: the next one opens another connection to Vapor.
            paused = false
            context.channel.syncOptionsIfOnLoop(autoRead: true)
            if let timing { arm(timing) }
        }
    }

    /// After 101: the HTTP handlers leave both pipelines, and the bytes each decoder still held
    /// go on to the other side.
    private func switchToBytes(_ context: ChannelHandlerContext) {
        guard let backend else { return }
        phase = .switched
        timer?.cancel()
        let client = context.channel
        // The backend's HTTP handlers go first: the client decoder's leftover bytes, written to
        // the backend, must not pass its write-observing response decoder.
        do {
            try client.pipeline.syncOperations.addHandler(GuardByteRelay(partner: backend))
            try backend.pipeline.syncOperations.addHandler(GuardByteRelay(partner: client))
            for name in [Names.backend, Names.backendEncoder] { backend.pipeline.removeHandler(name: name, promise: nil) }
            for name in [Names.front, Names.encoder, Names.start] { client.pipeline.removeHandler(name: name, promise: nil) }
            // A decoder hands on the bytes it still holds (frames sent right behind the upgrade)
            // on a later tick, outside a read: they are sent once it has.
            backend.pipeline.removeHandler(name: Names.backendDecoder).assumeIsolated().whenComplete { _ in client.flush() }
            client.pipeline.removeHandler(name: Names.decoder).assumeIsolated().whenComplete { _ in backend.flush() }
        } catch {
            client.close(promise: nil)
            backend.close(promise: nil)
        }
    }

    // MARK: Timeouts and the guard's own answers

    /// Starts (or restarts) the head's or the body's timeout; it runs only while reading.
    private func arm(_ name: String) {
        timer?.cancel()
        timer = nil
        timing = name
        guard let context, !paused else { return }
        let amount = name == "body" ? limits.bodyTimeout : limits.headerTimeout
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: amount) { [self] in self.timedOut(name) }
    }

    private func disarm() {
        timer?.cancel()
        timer = nil
        timing = nil
    }

    private func timedOut(_ name: String) {
        timer = nil
        timing = nil
        if name == "upgrade" {
            // Vapor did not answer the upgrade in time.
            guard phase == .upgrading else { return }
            phase = .closing
            backend?.close(promise: nil)
            context?.close(promise: nil)
            return
        }
        guard phase == .readingHead || phase == .readingBody else { return }
        if name == "head" && !bytesSeen && owed == 0 {
            // A connection opened and never used (a browser's spare): closed without a word.
            phase = .closing
            context?.close(promise: nil)
            return
        }
        Counter(label: "bullpen_requests_timed_out_total", dimensions: [("phase", name)]).increment()
        let unanswered = owed - (phase == .readingBody ? 1 : 0)
        if unanswered == 0 && !answering {
            let seconds = (name == "head" ? limits.headerTimeout : limits.bodyTimeout).nanoseconds / 1_000_000_000
            answer(GuardAnswer(.requestTimeout, name == "head"
                ? "The request's head did not arrive within \(seconds) seconds."
                : "The request's body stopped coming for \(seconds) seconds."))
        } else {
            phase = .closing
            context?.close(promise: nil)
        }
    }

    /// Answers for itself when no answer of Vapor's is due before it; else just closes.
    private func refuse(_ answer: GuardAnswer) {
        if owed == 0 && !answering { return self.answer(answer) }
        phase = .closing
        disarm()
        backend?.close(promise: nil)
        context?.close(promise: nil)
    }

    /// Answers for itself, then closes (the client may still be sending: it lingers).
    private func answer(_ answer: GuardAnswer) {
        guard let context else { return }
        phase = .closing
        timer?.cancel()
        backend?.close(promise: nil)
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: answer.status, headers: answer.headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(answer.body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in context.lingerAndClose() }
    }
}

/// Vapor's side of one client connection: hands its answers to the front handler.
private final class GuardBackendHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart
    private var front: GuardFrontHandler?

    init(front: GuardFrontHandler) { self.front = front }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): front?.backendHead(head)
        case .body(let buffer): front?.backendBody(buffer)
        case .end(let trailers): front?.backendEnd(trailers)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        front?.backendFlush()
        context.fireChannelReadComplete()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        front?.backendWritabilityChanged(context.channel.isWritable)
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        front?.backendClosed()
        front = nil
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) { front = nil }

    func errorCaught(context: ChannelHandlerContext, error: any Error) { context.close(promise: nil) }
}

/// Once upgraded: bytes from one side are written to the other.
private final class GuardByteRelay: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    private let partner: any Channel

    init(partner: any Channel) { self.partner = partner }

    func handlerAdded(context: ChannelHandlerContext) { partner.syncOptionsIfOnLoop(autoRead: context.channel.isWritable) }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) { partner.write(unwrapInboundIn(data), promise: nil) }
    func channelReadComplete(context: ChannelHandlerContext) { partner.flush() }
    func channelWritabilityChanged(context: ChannelHandlerContext) { partner.syncOptionsIfOnLoop(autoRead: context.channel.isWritable) }
    /// The other side closed: what is still queued for this one goes out first (a 1001 close
    /// frame to a slow reader), then this side closes too.
    func channelInactive(context: ChannelHandlerContext) {
        let partner = self.partner
        try? partner.syncOptions?.setOption(ChannelOptions.autoRead, value: true)
        partner.close(mode: .output, promise: nil)
        partner.eventLoop.assumeIsolated().scheduleTask(in: .seconds(2)) { partner.close(promise: nil) }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) { context.close(promise: nil) }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent { context.close(promise: nil) } else { context.fireUserInboundEventTriggered(event) }
    }
}

extension Channel {
    /// Stops or resumes reading (backpressure between the two sides, which share an event loop).
    fileprivate func syncOptionsIfOnLoop(autoRead: Bool) {
        try? syncOptions?.setOption(ChannelOptions.autoRead, value: autoRead)
    }
}

extension Application {
    private struct ConnectionGuardKey: StorageKey { typealias Value = ConnectionGuard }

    /// The guard in front of Vapor, while serving behind it.
    var connectionGuard: ConnectionGuard? {
        get { storage[ConnectionGuardKey.self] }
        set { storage[ConnectionGuardKey.self] = newValue }
    }

    /// Listens on `host:port` (0: any free port) and returns the port: through the
    /// ``ConnectionGuard``, Vapor listening on a private Unix socket behind it, unless the
    /// configuration turns the guard off (`BULLPEN_CONNECTION_GUARD=off`, for a reverse proxy
    /// that does the same), when Vapor listens on the address itself.
    public func startServing(host: String, port: Int) async throws -> Int {
        // The lifecycle handlers' boot: the background jobs (closing equity, league schedules,
        // price alerts) start here. Vapor boots only through its own commands, which are not used.
        try await asyncBoot()
        let configuration = bullpen.configuration
        guard configuration.connectionGuard else {
            try await server.start(address: .hostname(host, port: port))
            return http.server.shared.localAddress?.port ?? port
        }
        // A directory only this user may enter: whoever reaches the socket is believed about the client.
        ConnectionGuard.removeLeftovers()
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(ConnectionGuard.directoryPrefix)\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        let path = directory.appendingPathComponent("http.sock").path
        let front = ConnectionGuard(limits: .init(headerTimeout: .seconds(configuration.headerTimeout.components.seconds),
                                                  bodyTimeout: .seconds(configuration.bodyTimeout.components.seconds),
                                                  idleTimeout: .seconds(configuration.idleTimeout.components.seconds),
                                                  connectionsPerAddress: configuration.connectionsPerAddress,
                                                  trustedProxies: configuration.trustedProxies),
                                    backendPath: path)
        do {
            try await server.start(address: .unixDomainSocket(path: path))
            connectionGuard = front
            return try await front.start(host: host, port: port)
        } catch {
            await server.shutdown()
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    /// Stops accepting, lets Vapor close its connections (each after its answer in flight), then
    /// closes the guard's.
    public func stopServing() async {
        let front = connectionGuard
        await front?.stopAccepting()
        await server.shutdown()
        await front?.closeAll()
        if let front { try? FileManager.default.removeItem(atPath: (front.backendPath as NSString).deletingLastPathComponent) }
    }
}
