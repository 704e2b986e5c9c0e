import AsyncHTTPClient
import Foundation
import KioskCore
import NIOCore
import NIOHTTP1
import NIOSSL
import SyncWire

/// The part of clup-server's `/v1` API a kiosk uses, over HTTP/JSON with the device's credential.
///
/// On async-http-client (swift-server's NIO client): a pool of connections, and every request with its own
/// deadline, so an answer lost on the way (a flaky uplink, a NAT timeout, a proxy restarting) costs one deadline
/// and a retry, never a silent stall. A push must be short (the tear-off waits for nobody, but the 10 s it has
/// to reach the server does); a pull may wait as long as it asked the server to hold it, plus a margin.
struct SyncAPI: Sendable {
    let base: String
    let store: StoreID
    let credential: String
    let client: HTTPClient
    /// Said in every request's ``SyncProtocol/header``.
    let syncProtocol: Int

    /// How long a push, a key upload or a key ring fetch may take in all (connect, send, answer). A push is a
    /// few kilobytes that the server commits in milliseconds: 4 s is ample on a slow uplink and leaves room for
    /// a retry inside the 10 s in which a printed ticket must reach the server.
    static let shortDeadline: TimeAmount = .seconds(4)
    /// What a long-poll may take beyond the wait it asked for (the server answers at the end of the wait).
    static let pullMargin: TimeAmount = .seconds(5)

    struct Failure: Error, CustomStringConvertible {
        let description: String
        /// Retrying cannot help (wrong credential, refused events): the operator must act.
        var permanent = false
        /// The part of the request the server refused (`events[3].body.ticketId`), if it named one.
        var field: String?
        /// The server serves only newer kioskd (426): nothing of the request was refused, this box must be updated.
        var upgradeRequired = false
        /// The server's short key for the case (`reason`), e.g. a pairing's `authorization_pending`.
        var reason: String?

        /// The event of a pushed batch that the server refused for good, if the refusal named one.
        var refusedEvent: Int? {
            guard permanent, let field, let match = field.firstMatch(of: /^events\[(\d+)\]/) else { return nil }
            return Int(match.1)
        }
    }

    /// `base` ends with `/`.
    init(
        base: String,
        store: StoreID,
        credential: String,
        client: HTTPClient,
        syncProtocol: Int
    ) {
        self.syncProtocol = syncProtocol
        self.base = base
        self.store = store
        self.credential = credential
        self.client = client
    }

    /// The client kioskd syncs with: a small pool (push, pull, keys run side by side), connections that
    /// time out when a connect hangs and are not retried behind the caller's back, no redirects (a kiosk talks
    /// to one server). HTTPS is verified as `tls` says.
    static func makeClient(tls: TLSConfiguration) -> HTTPClient {
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls, redirectConfiguration: .disallow)
        configuration.timeout = .init(connect: .seconds(3))
        configuration.connectionPool = .init(idleTimeout: .seconds(30), concurrentHTTP1ConnectionsPerHostSoftLimit: 4)
        // A failed connect fails its request at once: the sync loops retry on their own backoff (at most 5 s).
        // The pool's own retries back off to a minute, so a kiosk would wait that long after an outage.
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.httpVersion = .http1Only
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    func push(_ events: [StoreEvent]) async throws -> AppendedEvents {
        try await call(
            .POST,
            "v1/stores/\(store.uuidString)/events",
            body: EventBatch(events: events),
            timeout: Self.shortDeadline
        )
    }

    func pull(after sequence: Int64, wait: Int, limit: Int = 1000) async throws -> EventPage {
        try await call(
            .GET,
            "v1/stores/\(store.uuidString)/events?after=\(sequence)&wait=\(wait)&limit=\(limit)",
            body: Optional<EventBatch>.none,
            timeout: .seconds(Int64(wait)) + Self.pullMargin
        )
    }

    func keys() async throws -> KeyRingPage {
        try await call(
            .GET,
            "v1/stores/\(store.uuidString)/keys",
            body: Optional<EventBatch>.none,
            timeout: Self.shortDeadline
        )
    }

    func registerKey(_ key: DeviceKey) async throws {
        let _: Empty = try await call(.PUT, "v1/devices/self/key", body: key, timeout: Self.shortDeadline)
    }

    /// Tells the server how this kiosk is (``KioskHealth``).
    func reportHealth(_ health: KioskHealth) async throws {
        let _: Empty = try await call(.PUT, "v1/devices/self/health", body: health, timeout: Self.shortDeadline)
    }

    struct Empty: Decodable {}

    func call<Body: Encodable, Answer: Decodable>(
        _ method: HTTPMethod,
        _ path: String,
        body: Body?,
        timeout: TimeAmount
    ) async throws -> Answer {
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        if !credential.isEmpty { request.headers.add(name: "Authorization", value: "Bearer \(credential)") }
        request.headers.add(name: SyncProtocol.header, value: "\(syncProtocol)")
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(data: try JSONEncoder().encode(body)))
        }
        let status: UInt
        let data: Data
        do {
            let response = try await client.execute(request, timeout: timeout)
            status = response.status.code
            // Answers are small (a page of events is at most a few hundred kilobytes).
            data = Data((try await response.body.collect(upTo: 16 << 20)).readableBytesView)
        } catch let error as HTTPClientError where error == .deadlineExceeded {
            throw Failure(description: "\(method) \(path): no answer from \(base) within \(timeout.seconds) s")
        } catch {
            throw Failure(description: "\(method) \(path): no connection with \(base) — \(Self.describe(error))")
        }
        guard (200..<300).contains(status) else {
            let answer = try? JSONDecoder().decode([String: String].self, from: data)
            let message = answer.map { ($0["field"].map { "\($0): " } ?? "") + ($0["error"] ?? "") } ?? "HTTP \(status)"
            switch status {
            case 401:
                throw Failure(
                    description:
                        "the server refused the credential — enroll this kiosk again and set [sync] credential",
                    permanent: true
                )
            case 426:
                throw Failure(description: "clup-server refused this kioskd: \(message)", upgradeRequired: true)
            case 403, 400, 404, 409, 413, 422:
                throw Failure(
                    description: "the server refused: \(message)",
                    permanent: true,
                    field: answer?["field"],
                    reason: answer?["reason"]
                )
            default:
                throw Failure(description: "the server answered \(status): \(message)")
            }
        }
        if Answer.self == Empty.self { return Empty() as! Answer }
        do {
            return try JSONDecoder().decode(Answer.self, from: data)
        } catch {
            throw Failure(description: "unexpected answer from \(path): \(error)")
        }
    }

    /// A transport error as an operator reads it ("connection refused", "remote connection closed").
    static func describe(_ error: any Error) -> String {
        if let error = error as? HTTPClientError {
            switch error {
            case .remoteConnectionClosed: return "the connection was closed before the answer came"
            case .connectTimeout: return "connecting timed out"
            case .readTimeout, .deadlineExceeded: return "the answer did not come in time"
            default: return "\(error)"
            }
        }
        if let error = error as? NIOSSLExtraError, error == .failedToValidateHostname {
            return "the server's certificate is not for this host name — use in [sync] server the name the "
                + "certificate was issued for"
        }
        if let error = error as? NIOSSLError, case .handshakeFailed(let cause) = error {
            // BoringSSL's reason, e.g. CERTIFICATE_VERIFY_FAILED, without its source location.
            let text = "\(cause)"
            let reason = text.range(of: "OPENSSL_internal:").map { text[$0.upperBound...].prefix { $0 != " " } }
            if reason == "CERTIFICATE_VERIFY_FAILED" {
                return "the server's certificate is not signed by a CA this kiosk trusts — set [sync] ca_file to "
                    + "the CA that signed it, or install that CA in the system's store"
            }
            return "the TLS handshake failed (\(reason ?? "unknown reason")) — is the server serving HTTPS here?"
        }
        if let error = error as? IOError {
            switch error.errnoCode {
            case ECONNREFUSED: return "connection refused — is clup-server running at this address?"
            case ENETUNREACH, EHOSTUNREACH: return "no route to the server — check the store's network"
            case ETIMEDOUT: return "connecting timed out"
            case ECONNRESET: return "the connection was reset"
            default: break
            }
        }
        return "\(error)"
    }
}

extension TimeAmount {
    /// Whole seconds, for messages.
    fileprivate var seconds: Int64 { nanoseconds / 1_000_000_000 }
}
