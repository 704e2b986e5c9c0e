import AsyncHTTPClient
import Foundation
import KioskCore
import Logging
import NIOCore
import NIOHTTP1
import NIOSSL
import ServiceLifecycle
import ServiceSupport

/// Sends Web Push messages (RFC 8030) as a service of its own, so that no request ever waits for a push
/// service: ``send(_:)`` only queues — at most ``capacity`` messages, the oldest dropped first when a push
/// service is slow — and up to ``parallel`` deliveries run at once. Each message is encrypted for its
/// subscription (``PushPayload``), signed for the service's origin (``VAPID``), posted to the address checked
/// by ``PushEndpoints`` (pinned: no second DNS answer is used), without following redirects, and retried on
/// 429 and 5xx (its Retry-After, at most a minute, else 1, 2 and 4 s); a 404 or 410 says the subscription is
/// gone, and it is forgotten (`gone`).
final class PushSender: Service, Sendable {
    struct Message: Sendable {
        var subscription: PushSubscription
        var target: PushEndpoints.Target
        var text: Data
        /// RFC 8030 §5.3: `high` for a call, `normal` otherwise.
        var urgency: String
        /// RFC 8030 §5.2: how long the push service keeps it for a phone that is off (a late call is useless).
        var ttlSeconds: Int
    }

    static let capacity = 1_000
    static let parallel = 8
    static let tries = 4

    private let stream: AsyncStream<Message>
    private let queue: AsyncStream<Message>.Continuation
    private let vapid: VAPID
    private let endpoints: PushEndpoints
    private let tls: TLSConfiguration
    private let clock: WallClock
    private let gone: @Sendable (TicketID) async -> Void
    private let logger: Logger

    init(
        vapid: VAPID,
        endpoints: PushEndpoints,
        trustRoots: [NIOSSLCertificate]? = nil,
        clock: WallClock,
        logger: Logger,
        gone: @escaping @Sendable (TicketID) async -> Void
    ) {
        (stream, queue) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(Self.capacity))
        self.vapid = vapid
        self.endpoints = endpoints
        var tls = TLSConfiguration.makeClientConfiguration()
        if let trustRoots { tls.trustRoots = .certificates(trustRoots) }
        self.tls = tls
        self.clock = clock
        self.logger = logger
        self.gone = gone
    }

    /// Queues `message`; false when the queue was full and the oldest message made room.
    @discardableResult
    func send(_ message: Message) -> Bool {
        if case .dropped = queue.yield(message) {
            logger.warning("push queue full: the oldest notice was dropped — a push service is slow or down")
            return false
        }
        return true
    }

    func run() async throws {
        await withDiscardingTaskGroup { group in
            // One token per delivery that may run: a message waits for a token, its delivery gives it back.
            let slots = AsyncStream<Void>.makeStream()
            for _ in 0..<Self.parallel { slots.continuation.yield() }
            var free = slots.stream.makeAsyncIterator()
            for await message in stream.cancelOnGracefulShutdown() {
                guard await free.next() != nil else { break }
                group.addTask {
                    await self.deliver(message)
                    slots.continuation.yield()
                }
            }
        }
    }

    /// One message, with its retries.
    func deliver(_ message: Message) async {
        let ticket = message.subscription.ticket
        for attempt in 0..<Self.tries {
            let wait: Duration
            switch await post(message) {
            case .delivered: return
            case .gone:
                await gone(ticket)
                return
            case .refused(let why):
                logger.warning("push notice not sent", metadata: ["ticket": "\(ticket)", "why": "\(why)"])
                return
            case .later(let after):
                wait = after ?? .seconds(1 << attempt)
            }
            if attempt + 1 < Self.tries { try? await Task.sleep(for: min(wait, .seconds(60))) }
        }
        logger.warning(
            "push service did not take a notice after \(Self.tries) tries",
            metadata: ["ticket": "\(ticket)"]
        )
    }

    enum Outcome: Equatable {
        case delivered
        case gone
        case refused(String)
        case later(Duration?)
    }

    private func post(_ message: Message) async -> Outcome {
        let subscription = message.subscription
        let address: String
        do { address = try await endpoints.address(of: message.target) } catch {
            return error.code == .unavailable ? .later(nil) : .refused(error.message)
        }
        guard let receiver = PushPayload.Receiver(publicKey: subscription.p256dh, authSecret: subscription.auth),
            let body = try? PushPayload.encrypt(message.text, for: receiver),
            let authorization = try? vapid.authorization(origin: message.target.origin, at: clock.now())
        else { return .refused("the subscription's keys cannot encrypt") }
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls, redirectConfiguration: .disallow)
        configuration.timeout = .init(connect: .seconds(5), read: .seconds(10))
        configuration.dnsOverride = [message.target.host: address]
        configuration.httpVersion = .http1Only
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        var request = HTTPClientRequest(url: message.target.url)
        request.method = .POST
        request.headers.add(name: "Authorization", value: authorization)
        request.headers.add(name: "TTL", value: "\(message.ttlSeconds)")
        request.headers.add(name: "Urgency", value: message.urgency)
        request.headers.add(name: "Content-Encoding", value: "aes128gcm")
        request.headers.add(name: "Content-Type", value: "application/octet-stream")
        request.body = .bytes(ByteBuffer(data: body))
        let outcome = await exchange(request, client)
        try? await client.shutdown()
        return outcome
    }

    private func exchange(_ request: HTTPClientRequest, _ client: HTTPClient) async -> Outcome {
        do {
            let response = try await client.execute(request, timeout: .seconds(15))
            _ = try? await response.body.collect(upTo: 16 * 1024)
            switch response.status.code {
            case 200..<300: return .delivered
            case 404, 410: return .gone
            case 429, 500..<600:
                let after = response.headers.first(name: "Retry-After").flatMap { Int($0) }
                return .later(after.map { .seconds(max(0, min($0, 60))) })
            default: return .refused("push service answered \(response.status.code)")
            }
        } catch {
            return .later(nil)
        }
    }
}
