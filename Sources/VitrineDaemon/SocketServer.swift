import FoundationEssentials
import Glibc
import Logging
import NIOCore
import NIOPosix
import VitrineProtocol

/// The JSON-lines socket: one request per line in, one reply per request and events out.
///
/// Every connection is an ordinary client of the compositor and runs on the compositor's
/// event loop, so requests are applied in arrival order between frames. A connection's
/// errors stay its own: a bad line gets an error reply; only a line over the size limit
/// closes the connection (after an error line); a client that stops reading is cut off
/// when its unsent output passes the limit, so it can never stall frames.
final class SocketServer: @unchecked Sendable {  // confined to the compositor's event loop
    let compositor: Compositor
    let settings: DaemonSettings
    let loop: EventLoop
    let logger: Logger
    private var channel: Channel?
    private var nextClientID = 0
    private(set) var connected = 0

    init(compositor: Compositor, settings: DaemonSettings, loop: EventLoop, logger: Logger) {
        self.compositor = compositor
        self.settings = settings
        self.loop = loop
        self.logger = logger
    }

    /// Listens on the configured path, or on the socket systemd passed in.
    func start(inheritedSocket: CInt? = nil) throws {
        let bootstrap = ServerBootstrap(group: loop)
            .serverChannelOption(.backlog, value: 64)
            .childChannelOption(.writeBufferWaterMark, value: .init(low: settings.limits.outboundBytes / 2, high: settings.limits.outboundBytes))
            .childChannelInitializer { [unowned self] channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineDecoder(maximum: settings.limits.lineBytes)))
                    try channel.pipeline.syncOperations.addHandler(ConnectionHandler(server: self))
                }
            }
        if let fd = inheritedSocket {
            channel = try bootstrap.withBoundSocket(fd).wait()
            logger.info("listening on the socket passed by systemd")
            return
        }
        try SocketFile.prepare(settings.socketPath)
        channel = try bootstrap.bind(unixDomainSocketPath: settings.socketPath).wait()
        try SocketFile.setPermissions(settings.socketPath, mode: settings.socketMode, group: settings.socketGroup)
        logger.info("listening on \(settings.socketPath)")
    }

    /// Stops listening and removes the socket file.
    func stop() {
        try? channel?.close().wait()
        if channel?.localAddress?.pathname == settings.socketPath { unlink(settings.socketPath) }
    }

    fileprivate func admit() -> Int? {
        guard connected < settings.limits.clients else { return nil }
        connected += 1
        nextClientID += 1
        return nextClientID
    }

    fileprivate func release() { connected -= 1 }
}

/// Splits input into lines (without "\n" or a trailing "\r"), refusing lines longer than
/// `maximum` bytes.
final class LineDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer
    let maximum: Int

    init(maximum: Int) { self.maximum = maximum }

    struct LineTooLong: Error {}

    func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else {
            if buffer.readableBytes > maximum { throw LineTooLong() }
            return .needMoreData
        }
        let length = newline - buffer.readerIndex
        guard length <= maximum else { throw LineTooLong() }
        var line = buffer.readSlice(length: length)!
        buffer.moveReaderIndex(forwardBy: 1)
        if line.readableBytesView.last == UInt8(ascii: "\r") { line = line.getSlice(at: line.readerIndex, length: length - 1)! }
        context.fireChannelRead(wrapInboundOut(line))
        return .continue
    }

    func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        if buffer.readableBytes > 0, seenEOF {
            // A last request without its newline still counts.
            let line = buffer.readSlice(length: buffer.readableBytes)!
            context.fireChannelRead(wrapInboundOut(line))
        }
        return .needMoreData
    }
}

/// One client connection: requests to the compositor, replies and events back.
private final class ConnectionHandler: ChannelInboundHandler, ClientConnection {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let server: SocketServer
    private(set) var clientID = 0
    private var channel: Channel?
    private var admitted = false

    init(server: SocketServer) { self.server = server }

    func channelActive(context: ChannelHandlerContext) {
        channel = context.channel
        guard let id = server.admit() else {
            server.logger.warning("refused a client: \(server.settings.limits.clients) clients are connected (limits.clients)")
            send(Wire.failure(id: nil, ProtocolError(.limitExceeded, "the daemon serves \(server.settings.limits.clients) clients at most; try again later")))
            context.close(promise: nil)
            return
        }
        admitted = true
        clientID = id
        server.compositor.connect(self)
        server.logger.debug("client \(id) connected")
    }

    func channelInactive(context: ChannelHandlerContext) {
        guard admitted else { return }
        admitted = false
        server.compositor.disconnect(self)
        server.release()
        server.logger.debug("client \(clientID) disconnected")
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard admitted else { return }
        let line = unwrapInboundIn(data)
        guard line.readableBytes > 0 else { return }
        let reply = server.compositor.handle(line: line.readableBytesView, from: self)
        send(reply)
        // The change's frame (and the events it causes) follows its reply, before the
        // next request is applied.
        server.compositor.flush()
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        server.compositor.flush()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        guard !context.channel.isWritable else { return }
        server.logger.warning("client \(clientID) is not reading its replies and events (over \(server.settings.limits.outboundBytes) bytes queued): disconnected")
        context.close(promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        if error is LineDecoder.LineTooLong {
            send(Wire.failure(id: nil, ProtocolError(.lineTooLong, "a request line is limited to \(server.settings.limits.lineBytes) bytes (limits.line_bytes); the connection is closed")))
            server.logger.warning("client \(clientID) sent a line over \(server.settings.limits.lineBytes) bytes: disconnected")
        } else if let io = error as? IOError, io.errnoCode == ECONNRESET || io.errnoCode == EPIPE {
            server.logger.debug("client \(clientID) went away: \(io)")
        } else {
            server.logger.warning("client \(clientID): \(error)")
        }
        context.close(promise: nil)
    }

    func send(_ line: String) {
        guard let channel, channel.isActive else { return }
        var buffer = channel.allocator.buffer(capacity: line.utf8.count + 1)
        buffer.writeString(line)
        buffer.writeInteger(UInt8(ascii: "\n"))
        channel.writeAndFlush(buffer, promise: nil)
    }
}
