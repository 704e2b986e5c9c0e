import Hummingbird
import NIOCore
import NIOHTTPTypes
import ServiceSupport

/// The request rate of each client address (``ConnectionLimits/requestsPerAddress``), shared by all
/// connections; a request carrying a kiosk credential the server confirmed counts towards that kiosk instead
/// (``ConnectionLimits/requestsPerKiosk``, ``KnownKiosks``).
final class RequestPace: Sendable {
    let addresses: RateLimiter
    let kiosks: RateLimiter
    let known: KnownKiosks
    let maxDelay: Duration
    let clients: ClientAddress
    let clock: WallClock

    init(limits: ConnectionLimits, clients: ClientAddress, known: KnownKiosks, clock: WallClock) {
        addresses = RateLimiter(limits.requestsPerAddress)
        kiosks = RateLimiter(limits.requestsPerKiosk)
        maxDelay = limits.maxPaceDelay
        self.known = known
        self.clients = clients
        self.clock = clock
    }

    /// How long a request from `peer` with `headers` waits for its turn; nil: disconnect the client.
    func delay(headers: HTTPFields, peer: SocketAddress?) -> Duration? {
        let now = clock.now()
        if let kiosk = known.kiosk(of: headers, at: now) {
            return kiosks.reserve(kiosk, at: now, waitingAtMost: maxDelay)
        }
        return addresses.reserve(clients.of(headers: headers, peer: peer), at: now, waitingAtMost: maxDelay)
    }
}

/// One connection's pacer, after the HTTP decoder: a request whose client is over its rate is held (with
/// whatever follows it) until its turn, and the socket is not read meanwhile — the flooding client waits on
/// its own connections, and everyone else is served as if it were not there. Requests within the rate pass
/// through untouched.
final class RequestPacer: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = NIOAny
    typealias OutboundOut = NIOAny

    private let pace: RequestPace
    /// Parts held back, in order; the first is a request head waiting for its turn.
    private var held: [HTTPRequestPart] = []
    private var resume: Scheduled<Void>?
    /// The next handler asked for more input while a request was held.
    private var readWanted = false

    init(pace: RequestPace) {
        self.pace = pace
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        if resume != nil {
            held.append(part)
            return
        }
        deliver(part, context: context)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if resume == nil { context.fireChannelReadComplete() }
    }

    func read(context: ChannelHandlerContext) {
        if resume != nil {
            readWanted = true
        } else {
            context.read()
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        resume?.cancel()
        resume = nil
        held.removeAll()
    }

    /// Passes `part` on, or holds it (and starts the wait) when it is a request over its client's rate.
    private func deliver(_ part: HTTPRequestPart, context: ChannelHandlerContext) {
        if case .head(let request) = part {
            guard let delay = pace.delay(headers: request.headerFields, peer: context.channel.remoteAddress) else {
                context.close(promise: nil)
                return
            }
            if delay > .zero {
                held.insert(part, at: 0)
                let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
                resume = context.eventLoop.scheduleTask(in: TimeAmount(delay)) {
                    let (pacer, context) = loopBound.value
                    pacer.release(context: context)
                }
                return
            }
        }
        context.fireChannelRead(wrapInboundOut(part))
    }

    /// The held request's turn (booked when it was held): it goes on, then what followed it, where a
    /// pipelined request over the rate waits again.
    private func release(context: ChannelHandlerContext) {
        resume = nil
        var parts = held[...]
        held = []
        if let first = parts.popFirst() { context.fireChannelRead(wrapInboundOut(first)) }
        while let part = parts.popFirst() {
            if resume != nil {
                held.append(part)
            } else {
                deliver(part, context: context)
            }
        }
        context.fireChannelReadComplete()
        if resume == nil, readWanted {
            readWanted = false
            context.read()
        }
    }
}
