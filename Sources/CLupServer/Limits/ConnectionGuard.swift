import NIOCore
import NIOHTTPTypes
import Synchronization

/// How many connections clup-server holds, and for how long one may take to say what it wants: a client
/// that opens a thousand connections and sends its headers a byte at a time (slow loris) gets
/// `perAddress` of them, each closed after `headDeadline` unless a whole request head arrived, and every
/// other client is still served. The same holds for every later request on a kept-alive connection (from its
/// first byte), and a request's body must arrive within `headDeadline` plus its size at `minimumBodyRate`,
/// and within `requestDeadline` in all: a body dribbled a byte at a time is cut off, whatever its chunks.
/// Connections from a trusted proxy (the load balancer, which carries every client) count only towards the
/// total.
public struct ConnectionLimits: Sendable {
    public var total = 10_000
    public var perAddress = 64
    public var headDeadline: Duration = .seconds(10)
    /// A body's pace: each byte buys this much more time beyond `headDeadline` (8 KB/s: a 4 MiB event batch
    /// from a kiosk on a slow uplink gets its 60 s; one byte every 5 s gets nothing).
    public var minimumBodyRate = 8 << 10
    /// The most a whole request, head to end, may take.
    public var requestDeadline: Duration = .seconds(60)
    /// A connection with no request in flight is closed after this long.
    public var idleTimeout: Duration = .seconds(60)
    /// Requests one client address may send: 200 at once, then 20 a second. Beyond, its requests wait for
    /// their turn (the connection is not read meanwhile), so a flood from one address costs the server 20
    /// requests a second whatever it sends; a client whose turn is more than `maxPaceDelay` away is
    /// disconnected. A trusted proxy's requests count for the client it names.
    public var requestsPerAddress = RateLimiter.Rule(burst: 200, interval: .milliseconds(50))
    /// Requests one kiosk may send once its credential is confirmed (``KnownKiosks``), whatever address it
    /// shares: 1,000 at once, then 50 a second — about ten tear-offs a second, beyond any printer.
    public var requestsPerKiosk = RateLimiter.Rule(burst: 1_000, interval: .milliseconds(20))
    /// Events one kiosk may append (``KioskPace``): 1,000 at once, then 2 a second, a pace no entrance reaches.
    public var eventsPerKiosk = RateLimiter.Rule(burst: 1_000, interval: .milliseconds(500))
    /// Paper tickets one kiosk may issue (``KioskPace``): 120 at once, then one every 2 s, a printer's pace.
    public var ticketsPerKiosk = RateLimiter.Rule(burst: 120, interval: .seconds(2))
    public var maxPaceDelay: Duration = .seconds(10)

    public init() {}
}

/// One connection's guard, in its pipeline after the HTTP decoder: counted while open, refused over the
/// limits, and closed when a request is too slow — its head not whole within ``ConnectionLimits/headDeadline``
/// of the connection's opening or of the request's first byte (a ``ByteWatch`` at the pipeline's front tells
/// when bytes arrive; the decoder passes a head on only once all of it is there), or its body not in by the
/// time its size at ``ConnectionLimits/minimumBodyRate`` allows. It tells ``ConnectionCounts`` when the
/// connection is idle (no request coming in, no answer going out: what may be shed) and when it works.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let counts: ConnectionCounts
    private var id: Int?
    private var deadline: Scheduled<Void>?
    /// Requests whose answer has not ended yet (a long-poll or a stream is working, not idle).
    private var answering = 0
    /// Whether ``ConnectionCounts`` was told the connection works.
    private var working = false
    /// Where the connection stands: waiting for a request to begin, reading a head, or reading a body
    /// (since when, and how many bytes so far).
    private enum Phase {
        case idle
        case head
        case body(began: NIODeadline, bytes: Int)
    }
    private var phase = Phase.head

    init(counts: ConnectionCounts) {
        self.counts = counts
    }

    func handlerAdded(context: ChannelHandlerContext) {
        guard let id = counts.admit(context.channel) else {
            context.close(promise: nil)
            return
        }
        self.id = id
        let watch = ByteWatch { [weak self] context in self?.bytesArrived(context) }
        try? context.pipeline.syncOperations.addHandler(watch, position: .first)
        closeUnlessDone(by: .now() + TimeAmount(counts.limits.headDeadline), context: context)
    }

    /// Bytes came in: between requests, the next request has begun, and its head has its deadline.
    func bytesArrived(_ context: ChannelHandlerContext) {
        if !working, let id {
            working = true
            counts.busy(id)
        }
        guard case .idle = phase else { return }
        phase = .head
        closeUnlessDone(by: .now() + TimeAmount(counts.limits.headDeadline), context: context)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let limits = counts.limits
        switch unwrapInboundIn(data) {
        case .head:
            answering += 1
            let now = NIODeadline.now()
            phase = .body(began: now, bytes: 0)
            closeUnlessDone(by: now + TimeAmount(limits.headDeadline), context: context)
        case .body(let chunk):
            if case .body(let began, let bytes) = phase {
                let total = bytes + chunk.readableBytes
                phase = .body(began: began, bytes: total)
                let allowed =
                    TimeAmount(limits.headDeadline)
                    + .nanoseconds(
                        Int64(Double(total) / Double(max(limits.minimumBodyRate, 1)) * 1e9)
                    )
                closeUnlessDone(by: began + min(allowed, TimeAmount(limits.requestDeadline)), context: context)
            }
        case .end:
            phase = .idle
            deadline?.cancel()
            deadline = nil
            idleIfDone()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            answering = max(answering - 1, 0)
            idleIfDone()
        }
        context.write(data, promise: promise)
    }

    /// Nothing coming in, nothing going out: the connection may be shed from now.
    private func idleIfDone() {
        guard working, answering == 0, case .idle = phase, let id else { return }
        working = false
        counts.idle(id)
    }

    /// Closes the connection at `time` unless the phase moves on first (the previous deadline is replaced).
    private func closeUnlessDone(by time: NIODeadline, context: ChannelHandlerContext) {
        deadline?.cancel()
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(deadline: time) { channel.close(promise: nil) }
    }
    /// A client that closes its sending side (TCP FIN, TLS close_notify) has gone: HTTP/1.1 clients do not
    /// half-close while they wait for an answer. The connection closes at once, rather than when a long-poll
    /// for nobody ends (which also kept a TLS client's close waiting for our close_notify).
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed {
            context.close(promise: nil)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        if let id {
            counts.release(id)
            self.id = nil
        }
    }
}

/// At the front of a connection's pipeline: tells its ``ConnectionGuard`` when bytes arrive, and passes them on.
final class ByteWatch: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    private let arrived: (ChannelHandlerContext) -> Void

    init(_ arrived: @escaping (ChannelHandlerContext) -> Void) {
        self.arrived = arrived
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        arrived(context)
        context.fireChannelRead(data)
    }
}
