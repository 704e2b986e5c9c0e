import AsyncHTTPClient
import CLupServer
import Foundation
import KioskCore
import KioskStation
import Logging
import NIOCore
import NIOSSL
import ServiceLifecycle
import ServiceSupport
import SyncWire

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// clup-server running in-process on a loopback port with its own database, and a client for its API.
final class ServerRig: Sendable {
    let app: ServerApp
    let group: ServiceGroup
    let task: Task<Void, any Error>
    let directory: String
    let port: Int
    /// The private PostgreSQL cluster of a rig on ``Backend/postgresql`` (stopped with the rig).
    let cluster: PostgresRig?
    /// With TLS: a client that trusts the test's CA (URLSession cannot be told to).
    let tlsClient: HTTPClient?
    /// Whether the server asks a proof of work for tickets and bookings (its limits say so); then ``call``
    /// solves one for each, as the shopper page does, unless told not to pay.
    let asksForWork: Bool
    static let adminToken = "test-admin-token-0123456789abcdef0123456789abcdef0123456789abcdef"

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Limits that let one loopback client act for a crowd: for tests about something else. The attack
    /// tests pass the production defaults (`PublicLimits()`).
    static var crowdLimits: PublicLimits {
        var limits = PublicLimits()
        let open = RateLimiter.Rule(burst: 1_000_000, interval: .milliseconds(1))
        limits.ticketsPerAddress = open
        limits.newHoldersPerAddress = open
        limits.ticketsPerStore = open
        limits.bookingsPerAddress = open
        limits.bookingsPerStore = open
        limits.work = nil
        limits.openTicketsPerPlace = 100_000
        limits.maxBookingsPerHolder = 1_000_000
        return limits
    }

    /// Connection limits with an open request pace: the tests' one loopback address acts for many clients.
    /// The tests of the pace pass the production defaults.
    static var crowdConnections: ConnectionLimits {
        var limits = ConnectionLimits()
        limits.requestsPerAddress = RateLimiter.Rule(burst: 1_000_000, interval: .milliseconds(1))
        return limits
    }

    /// The crowd's limits, and kiosks that may write at machine speed (a day's tear-offs in minutes: a soak,
    /// not a printer).
    static var machineSpeedKiosks: ConnectionLimits {
        var limits = crowdConnections
        limits.eventsPerKiosk = RateLimiter.Rule(burst: 1_000_000, interval: .milliseconds(1))
        limits.ticketsPerKiosk = RateLimiter.Rule(burst: 1_000_000, interval: .milliseconds(1))
        return limits
    }

    init(
        directory: String? = nil,
        port: Int = 0,
        clock: WallClock = .system,
        limits: PublicLimits = crowdLimits,
        trustedProxies: [CIDR] = [],
        expiryInterval: Duration = .seconds(5),
        connections: ConnectionLimits = crowdConnections,
        tls: (files: ServerCertificate.Files, ca: String)? = nil,
        statusURL: String? = nil,
        database: String? = nil,
        backend: Backend = .sqlite,
        oldestKioskProtocol: Int? = nil,
        callWindowMinutes: Int? = nil,
        push: PushOptions? = nil
    ) async throws {
        self.directory = directory ?? HIL.temporaryDirectory("server")
        let cluster = database == nil && backend == .postgresql ? try PostgresRig() : nil
        self.cluster = cluster
        var options = ServerApp.Options(adminToken: Self.adminToken)
        options.port = port
        options.clock = clock
        options.limits = limits
        asksForWork = limits.work != nil
        options.trustedProxies = trustedProxies
        options.expiryInterval = expiryInterval
        options.connections = connections
        // A SQLite file of its own, or a shared `postgres://` database (one replica of several).
        options.database = try database ?? cluster?.createDatabase() ?? "\(self.directory)/clup.sqlite"
        options.tls = tls?.files
        if let statusURL { options.statusURL = statusURL }
        if let oldestKioskProtocol { options.oldestKioskProtocol = oldestKioskProtocol }
        if let push {
            options.push = push
            options.pushInterval = .milliseconds(200)
        }
        if let callWindowMinutes { options.callWindowMinutes = callWindowMinutes }
        tlsClient = try tls.map { tls in
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(tls.ca))
            return HTTPClient(
                eventLoopGroup: HTTPClient.defaultEventLoopGroup,
                configuration: .init(tlsConfiguration: configuration)
            )
        }
        var logger = Logger(label: "server")
        logger.logLevel =
            ProcessInfo.processInfo.environment["CLUP_SERVER_LOG"].flatMap { Logger.Level(rawValue: $0) } ?? .warning
        do { app = try await ServerApp.build(options, logger: logger) } catch {
            cluster?.stop()
            throw error
        }
        let group = app.serviceGroup(logger: logger, handleSignals: false)
        self.group = group
        task = Task { try await group.run() }
        var listening: Int?
        for _ in 0..<1000 where listening == nil {
            listening = app.port.current
            if listening == nil { try await Task.sleep(for: .milliseconds(10)) }
        }
        guard let listening else { throw Failure(description: "clup-server did not start") }
        self.port = listening
    }

    /// The server's base URL: with TLS by the name its certificate is for.
    var url: String { tlsClient == nil ? "http://127.0.0.1:\(port)" : "https://localhost:\(port)" }

    func stop(removingData: Bool = true) async {
        await group.triggerGracefulShutdown()
        _ = try? await task.value
        try? await tlsClient?.shutdown()
        cluster?.stop()
        if removingData { try? FileManager.default.removeItem(atPath: directory) }
    }

    /// One API call; the status and the JSON answer.
    @discardableResult
    func call(
        _ method: String,
        _ path: String,
        token: String? = adminToken,
        json: Any? = nil,
        raw: Data? = nil,
        headers: [String: String] = [:],
        paying: Bool = true
    ) async throws -> (status: Int, body: [String: Any]) {
        let (status, data) = try await exchange(
            method,
            path,
            token: token,
            json: json,
            raw: raw,
            headers: headers,
            paying: paying
        )
        return (status, (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:])
    }

    /// One call of the sync API with its typed messages (SyncWire): the answer decoded, or a failure naming the
    /// status and what the server said.
    func send<Answer: Decodable>(
        _ method: String,
        _ path: String,
        _ body: some Encodable,
        token: String? = adminToken,
        expecting: Int = 200
    ) async throws -> Answer {
        let (status, data) = try await exchange(method, path, token: token, raw: try JSONEncoder().encode(body))
        guard status == expecting else {
            throw Failure(description: "\(method) \(path): \(status) \(String(decoding: data, as: UTF8.self))")
        }
        return try JSONDecoder().decode(Answer.self, from: data)
    }

    func exchange(
        _ method: String,
        _ path: String,
        token: String?,
        json: Any? = nil,
        raw: Data? = nil,
        headers: [String: String] = [:],
        paying: Bool = true
    ) async throws -> (status: Int, body: Data) {
        var headers = headers
        if paying, asksForWork, method == "POST", headers["Clup-Work"] == nil,
            path.hasSuffix("/tickets") || path.hasSuffix("/bookings"), path.hasPrefix("/v1/stores/")
        {
            headers["Clup-Work"] = try await work(for: path, headers: headers)
        }
        if let tlsClient {
            var request = HTTPClientRequest(url: url + path)
            request.method = .init(rawValue: method)
            if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
            for (name, value) in headers { request.headers.add(name: name, value: value) }
            request.headers.add(name: "Content-Type", value: "application/json")
            if let body = try raw ?? json.map({ try JSONSerialization.data(withJSONObject: $0) }) {
                request.body = .bytes(ByteBuffer(bytes: body))
            }
            let response = try await tlsClient.execute(request, timeout: .seconds(30))
            return (
                Int(response.status.code), Data((try await response.body.collect(upTo: 16 << 20)).readableBytesView)
            )
        }
        var request = URLRequest(url: URL(string: url + path)!)
        request.httpMethod = method
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let json { request.httpBody = try JSONSerialization.data(withJSONObject: json) }
        if let raw { request.httpBody = raw }
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    /// What a shopper's page does before it asks for a ticket or a booking: a challenge of the store (asked
    /// from the same client address), solved.
    func work(for path: String, headers: [String: String] = [:]) async throws -> String? {
        let store = path.split(separator: "/").dropLast().joined(separator: "/")
        let (status, body) = try await call("GET", "/\(store)/work", token: nil, headers: headers, paying: false)
        guard status == 200, let challenge = body["challenge"] as? String, let bits = body["bits"] as? Int else {
            return nil
        }
        return WorkProof.solve(challenge: challenge, bits: bits)
    }

    /// A week open from `open` to `close` every day, as the API takes it.
    static func hours(_ open: String, _ close: String) -> [[String: String]] {
        Array(repeating: ["open": open, "close": close], count: 7)
    }

    /// A store open round the clock (so tests call tickets whatever the time of day); tests of the day's edges
    /// give it hours (``hours(_:_:)``).
    static var storeProfile: [String: Any] {
        [
            "name": "Test Market", "address": "1 Main Street, Milano",
            "location": ["latitude": 45.4642, "longitude": 9.19],
            "capacity": 2,
            "openingHours": hours("00:00", "24:00"),
            "utcOffsetMinutes": 60, "averageVisitMinutes": 20, "slotMinutes": 15, "slotSize": 1,
        ]
    }

    /// Registers a store (with `changes` applied to the standard profile) and returns its id.
    func registerStore(_ changes: [String: Any] = [:], manager: String = "manager") async throws -> StoreID {
        let profile = Self.storeProfile.merging(changes) { $1 }
        let (status, body) = try await call(
            "POST",
            "/v1/stores",
            json: ["store": profile, "manager": ["username": manager, "password": "correct horse battery"]]
        )
        guard status == 201, let id = (body["id"] as? String).flatMap(UUID.init(uuidString:)) else {
            throw Failure(description: "register store: \(status) \(body)")
        }
        return id
    }

    /// A shopper's app ticket from the `n`-th of many addresses (forwarded, so the per-address rule lets each
    /// take one): the status and the ticket's code when one was issued.
    func takeAppTicket(store: StoreID, from n: Int, network: Int = 8) async throws -> (status: Int, code: String?) {
        let answer = try await call(
            "POST",
            "/v1/stores/\(store.uuidString)/tickets",
            token: nil,
            headers: ["X-Forwarded-For": "10.\(network).\(n / 256).\(n % 256)"]
        )
        return (answer.status, (answer.body["ticket"] as? [String: Any])?["code"] as? String)
    }

    /// Enrolls a kiosk (in `role`: both when not given) and returns its credential.
    func enroll(_ device: String, store: StoreID, role: KioskRole? = nil) async throws -> String {
        let enrolled: Enrolled = try await send(
            "POST",
            "/v1/stores/\(store.uuidString)/devices",
            Enrollment(device: device, role: role),
            expecting: 201
        )
        return enrolled.credential
    }

    func queue(_ store: StoreID) -> QueueState? { app.logs.store(store)?.state }
}

extension StoreTimeZone {
    /// The zone of ``ServerRig/storeProfile`` (`utcOffsetMinutes` 60), as a kiosk of it is installed with.
    static let standardStore = StoreTimeZone(fixedOffsetSeconds: 3600)
}

extension StoreHours {
    /// The hours of ``ServerRig/storeProfile`` (open round the clock: the day turns at midnight), as a kiosk of it
    /// is installed with: the configuration's default turns the day at 07:00, and between midnight and 07:00 a
    /// kiosk's tickets before its first sync would be of another day than the server's.
    static let standardStore = try! StoreHours.daily(open: TimeOfDay(hour: 0, minute: 0))
}

extension KioskConfig {
    /// This kiosk as `device` of `store` (of `capacity`), syncing with `server` in long-polls of `pullWait` s,
    /// in the store's time zone as installed (`[store] time_zone`): the standard test store's UTC+01:00 unless
    /// told otherwise. Nil leaves the kiosk to learn it from the server — until its first sync it counts days in
    /// UTC, and between the two zones' opening times (06:00–07:00 UTC for the standard store) the first day it
    /// guessed ends at that sync (its first ticket retracted): tests about something else install the zone.
    mutating func syncing(
        with server: ServerRig,
        store: StoreID,
        device: String,
        credential: String,
        capacity: Int,
        pullWait: Int = 5,
        zone: StoreTimeZone? = .standardStore
    ) {
        self.store.id = store
        self.store.capacity = capacity
        self.store.timeZone = zone
        if zone == .standardStore { self.store.hours = .standardStore }
        self.device.id = device
        sync.server = server.url
        sync.credential = credential
        sync.pullWaitSeconds = pullWait
    }
}
