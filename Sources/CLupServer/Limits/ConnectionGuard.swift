import NIOCore
import Synchronization

/// How many connections clup-server holds, and for how long one may take to say what it wants: a client
/// that opens a thousand connections and sends its headers a byte at a time (slow loris) gets
/// `perAddress` of them, each closed after `headDeadline` unless a whole request head arrived, and every
/// other client is still served. Connections from a trusted proxy (the load balancer, which carries every
/// client) count only towards the total.
public struct ConnectionLimits: Sendable {
    public var total = 10_000
    public var perAddress = 64
    public var headDeadline: Duration = .seconds(10)
    /// A connection with no request in flight is closed after this long.
    public var idleTimeout: Duration = .seconds(60)
    /// Requests one client address may send: 200 at once, then 20 a second. Beyond, its requests wait for
    /// their turn (the connection is not read meanwhile), so a flood from one address costs the server 20
    /// requests a second whatever it sends; a client whose turn is more than `maxPaceDelay` away is
    /// disconnected. A trusted proxy's requests count for the client it names.
    public var requestsPerAddress = RateLimiter.Rule(burst: 200, interval: .milliseconds(50))
    public var maxPaceDelay: Duration = .seconds(10)

    public init() {}
}

/// The open connections, by client address (IPv6 by /64).
final class ConnectionCounts: Sendable {
    let limits: ConnectionLimits
    let clients: ClientAddress
    private let counts = Mutex<(byAddress: [String: Int], total: Int)>(([:], 0))

    init(limits: ConnectionLimits, clients: ClientAddress) {
        self.limits = limits
        self.clients = clients
    }

    /// Counts a new connection from `peer`; nil (and nothing counted) when it must be refused, else the key
    /// to ``release(_:)`` it with.
    func admit(_ peer: SocketAddress?) -> String? {
        let address = peer?.ipAddress ?? "unknown"
        let key = clients.isTrustedProxy(address) ? "" : ClientAddress.key(address)
        return counts.withLock { counts in
            guard counts.total < limits.total else { return nil }
            if !key.isEmpty {
                guard counts.byAddress[key, default: 0] < limits.perAddress else { return nil }
                counts.byAddress[key, default: 0] += 1
            }
            counts.total += 1
            return key
        }
    }

    func release(_ key: String) {
        counts.withLock { counts in
            counts.total -= 1
            guard !key.isEmpty else { return }
            let left = counts.byAddress[key, default: 1] - 1
            counts.byAddress[key] = left > 0 ? left : nil
        }
    }

    var total: Int { counts.withLock { $0.total } }
}

/// One connection's guard, in its pipeline after the HTTP decoder: counted while open, refused over the
/// limits, closed if no request head arrived within the deadline (the decoder passes a head on only once
/// all of it is there, so the first read is a whole head).
final class ConnectionGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let counts: ConnectionCounts
    private var key: String?
    private var deadline: Scheduled<Void>?

    init(counts: ConnectionCounts) {
        self.counts = counts
    }

    func handlerAdded(context: ChannelHandlerContext) {
        guard let key = counts.admit(context.channel.remoteAddress) else {
            context.close(promise: nil)
            return
        }
        self.key = key
        let channel = context.channel
        let limit = counts.limits.headDeadline
        deadline = context.eventLoop.scheduleTask(in: TimeAmount(limit)) {
            channel.close(promise: nil)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if let deadline {
            deadline.cancel()
            self.deadline = nil
        }
        context.fireChannelRead(data)
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
        if let key {
            counts.release(key)
            self.key = nil
        }
    }
}
