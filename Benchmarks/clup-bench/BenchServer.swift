import CLupServer
import Foundation
import Logging
import ServiceLifecycle

/// clup-server in-process on a loopback port with a database of its own, for the benchmarks.
final class BenchServer: Sendable {
    let app: ServerApp
    let group: ServiceGroup
    let task: Task<Void, any Error>
    let directory: String
    let port: Int
    static let token = "bench-admin-token-0123456789abcdef0123456789abcdef0123456789abcdef"

    /// A new server, or (with `directory` and `port`) the same one started again.
    /// `trustProxy`: the loopback client stands for a load balancer of many phones (X-Forwarded-For);
    /// without it, each loopback source address is a client of its own. `machineSpeedKiosks`: a kiosk's
    /// events are not held to a printer's or a door's pace (the benchmarks tear tickets off back to back).
    init(
        directory: String? = nil,
        port: Int = 0,
        limits: PublicLimits = PublicLimits(),
        trustProxy: Bool = true,
        machineSpeedKiosks: Bool = false
    ) async throws {
        var logger = Logger(label: "bench-server")
        logger.logLevel = .error
        let directory = directory ?? NSTemporaryDirectory() + "clup-bench-server-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var options = ServerApp.Options(adminToken: Self.token)
        options.port = port
        options.database = "\(directory)/clup.sqlite"
        options.limits = limits
        if trustProxy { options.trustedProxies = [CIDR("127.0.0.1")!] }
        if machineSpeedKiosks {
            options.connections.eventsPerKiosk = RateLimiter.Rule(burst: 1_000_000, interval: .milliseconds(1))
            options.connections.ticketsPerKiosk = RateLimiter.Rule(burst: 1_000_000, interval: .milliseconds(1))
        }
        app = try await ServerApp.build(options, logger: logger)
        let group = app.serviceGroup(logger: logger, handleSignals: false)
        self.group = group
        self.directory = directory
        task = Task { try await group.run() }
        var listening: Int?
        for _ in 0..<1000 where listening == nil {
            listening = app.port.current
            if listening == nil { try await Task.sleep(for: .milliseconds(10)) }
        }
        guard let listening else { throw BenchError("clup-server did not start") }
        self.port = listening
    }

    var url: String { "http://127.0.0.1:\(port)" }

    /// Registers a store open all week, every ticket waiting in its line; returns its id.
    func registerStore(capacity: Int, name: String = "Bench Market") throws -> UUID {
        let registered = try Self.registerStore(port: port, token: Self.token, capacity: capacity, name: name)
        guard let id = UUID(uuidString: registered)
        else { throw BenchError("the store's id is not a UUID") }
        return id
    }

    /// Enrolls a kiosk; returns its credential.
    func enroll(_ device: String, store: UUID) throws -> String {
        try Self.enroll(device, store: store.uuidString, port: port, token: Self.token)
    }

    /// Registers a store open all week (and its manager) on the server at `port`, on `client`'s connection
    /// when given; returns its id.
    static func registerStore(
        port: Int,
        token: String,
        capacity: Int,
        name: String = "Bench Market",
        client: LoopbackHTTP? = nil
    ) throws -> String {
        let hours = Array(repeating: #"{"open":"00:00","close":"24:00"}"#, count: 7).joined(separator: ",")
        let registration = """
            {"store":{"name":"\(name)","address":"1 Bench Road","location":{"latitude":45.46,"longitude":9.19},
            "capacity":\(capacity),"openingHours":[\(hours)],"timeZone":"Europe/Rome",
            "averageVisitMinutes":20,"slotMinutes":15,"slotSize":5},
            "manager":{"username":"m\(UUID().uuidString.prefix(8))","password":"correct horse battery"}}
            """
        let answer = try (client ?? LoopbackHTTP(port: port)).request(
            "POST",
            "/v1/stores",
            json: registration,
            bearer: token
        )
        guard let object = try? JSONSerialization.jsonObject(with: Data(answer)) as? [String: Any],
            let store = object["id"] as? String
        else { throw BenchError("cannot register the store: \(String(decoding: answer, as: UTF8.self))") }
        return store
    }

    /// Enrolls a kiosk of `store` on the server at `port`; returns its credential.
    static func enroll(
        _ device: String,
        store: String,
        port: Int,
        token: String,
        client: LoopbackHTTP? = nil
    ) throws -> String {
        let answer = try (client ?? LoopbackHTTP(port: port)).request(
            "POST",
            "/v1/stores/\(store)/devices",
            json: #"{"device":"\#(device)"}"#,
            bearer: token
        )
        guard let object = try? JSONSerialization.jsonObject(with: Data(answer)) as? [String: Any],
            let credential = object["credential"] as? String
        else { throw BenchError("cannot enroll \(device): \(String(decoding: answer, as: UTF8.self))") }
        return credential
    }

    func stop(removingData: Bool = true) async {
        await group.triggerGracefulShutdown()
        _ = try? await task.value
        if removingData { try? FileManager.default.removeItem(atPath: directory) }
    }
}
