import CLupServer
import DeviceEmulators
import Drivers
import Foundation
import KioskCore
import KioskStation
import Logging
import ServiceLifecycle
import ServiceSupport
import SyncWire

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Everything `kiosk-demo` runs: an embedded clup-server with a registered store, an emulated presenter
/// printer on TCP, an emulated serial scanner on a pty, and the kiosk in both roles syncing with the server,
/// set up the way an installer would (the store registered and the kiosk enrolled through the server's API).
final class DemoRig: Sendable {
    let printer: PrinterEmulator
    let printerEndpoint: TCPEndpoint
    let scanner: SerialScannerEmulator
    let server: ServerApp
    let serverGroup: ServiceGroup
    let serverURL: String
    /// The system manager's token of the embedded server (random each run), for the console.
    let adminToken: String
    let store: StoreID
    let kiosk: Kiosk
    let profileName: String

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The demo store: small, so "store full" and "not your turn" come quickly; open all day.
    static let capacity = 3

    init(
        out: String,
        profile: String,
        httpPort: Int,
        serverPort: Int,
        voice: KioskConfig.Voice,
        logger: Logger
    ) async throws {
        let printerProfile = try PrinterProfile.load(named: profile)
        profileName = printerProfile.name
        var quiet = logger
        quiet.logLevel = .warning
        printer = try PrinterEmulator(profile: printerProfile, outputDirectory: "\(out)/tickets", logger: quiet)
        printerEndpoint = try TCPEndpoint(emulator: printer, port: 0, logger: quiet)
        scanner = try SerialScannerEmulator(suffix: .cr, aimPrefix: "]Q1")

        // 32 random bytes in hex, as the server requires of an admin token.
        let token = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        adminToken = token
        var options = ServerApp.Options(adminToken: token)
        options.port = serverPort
        // On a known port, every ticket's QR opens its page on this server (a phone on the same network can
        // follow it too, by the machine's address).
        if serverPort > 0 { options.statusURL = "HTTP://127.0.0.1:\(serverPort)/T/" }
        options.database = "\(out)/server/clup.sqlite"
        // The stores' signing keys sealed, as a deployment keeps them (docs/security.md): a key of the demo's own.
        try FileManager.default.createDirectory(atPath: "\(out)/server", withIntermediateDirectories: true)
        let sealing = "\(out)/server/storage.key"
        let key = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        guard
            FileManager.default.createFile(
                atPath: sealing,
                contents: Data(key.utf8),
                attributes: [.posixPermissions: 0o600]
            )
        else { throw Failure(description: "cannot write the demo's storage key at \(sealing)") }
        options.storageKeyFile = sealing
        // One keyboard stands for a crowd of phones: the per-address and per-store rates are opened.
        let crowd = RateLimiter.Rule(burst: 10_000, interval: .milliseconds(10))
        options.limits.ticketsPerAddress = crowd
        options.limits.newHoldersPerAddress = crowd
        options.limits.ticketsPerStore = crowd
        options.limits.bookingsPerAddress = crowd
        let server = try await ServerApp.build(options, logger: quiet)
        self.server = server
        let serverGroup = server.serviceGroup(logger: quiet, handleSignals: false)
        self.serverGroup = serverGroup
        Task { try await serverGroup.run() }
        guard let port = await Self.waitFor({ server.port.current }) else {
            throw Failure(description: "the embedded clup-server did not start listening")
        }
        serverURL = "http://127.0.0.1:\(port)"

        // What an installer does: the system manager registers the store, its manager enrolls the kiosk.
        let api = DemoAPI(base: serverURL)
        store = try await api.registerStore(adminToken: token, capacity: Self.capacity)
        let session = try await api.login()
        let credential = try await api.enroll("demo-entrance", store: store, token: session)

        var config = KioskConfig(store: .init(id: store))
        config.store.name = DemoAPI.storeName
        config.store.capacity = Self.capacity
        // Open round the clock, as the server's profile below (the kiosk follows the server's hours once synced).
        config.store.hours = try StoreHours.daily(
            open: TimeOfDay(hour: 0, minute: 0),
            close: TimeOfDay(hour: 24, minute: 0)
        )
        config.store.averageVisit = .seconds(15 * 60)
        // The store's zone, as an installer writes [store] time_zone: the kiosk counts its days and prints its
        // times in it from the first ticket, before its first sync.
        config.store.timeZone = try TimeZoneDirectory.system.zone(named: DemoAPI.localZoneName)
        config.device.id = "demo-entrance"
        config.device.stateDirectory = "\(out)/kiosk"
        config.printer.address = "tcp://127.0.0.1:\(printerEndpoint.port)"
        config.printer.profile = profile
        config.store.statusURL = options.statusURL
        config.door.enabled = true
        config.door.scanner = "serial://\(scanner.path)"
        config.sync.server = serverURL
        config.sync.credential = credential
        config.sync.pullWaitSeconds = 5
        config.http.port = httpPort
        config.voice = voice
        kiosk = try Kiosk.build(config: config, logger: logger)
    }

    /// A customer takes a virtual ticket in the app: its code and the QR the phone shows.
    func takeAppTicket() async throws -> (code: String, qr: String) {
        try await DemoAPI(base: serverURL).takeTicket(store: store)
    }

    func stop() async {
        await serverGroup.triggerGracefulShutdown()
        printerEndpoint.stop()
        scanner.close()
    }

    /// Polls `value` every 10 ms for up to 10 s.
    static func waitFor<T>(_ value: () -> T?) async -> T? {
        for _ in 0..<1000 {
            if let value = value() { return value }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }
}

/// The few clup-server calls the demo makes, as an installer and a customer's app would.
struct DemoAPI {
    let base: String
    static let storeName = "CLup Demo Market"
    static let manager = "demo-manager"
    static let password = "demo-password-123"

    func registerStore(adminToken: String, capacity: Int) async throws -> StoreID {
        let body = try await call(
            "POST",
            "/v1/stores",
            token: adminToken,
            json: [
                "store": [
                    "name": Self.storeName, "address": "1 Demo Street",
                    "location": ["latitude": 45.4642, "longitude": 9.19],
                    "capacity": capacity,
                    "openingHours": Array(repeating: ["open": "00:00", "close": "24:00"], count: 7),
                    // The demo's store is where its laptop is.
                    "timeZone": Self.localZoneName, "averageVisitMinutes": 15,
                    "slotMinutes": 15, "slotSize": 1,
                ],
                "manager": ["username": Self.manager, "password": Self.password],
            ]
        )
        guard let id = (body["id"] as? String).flatMap(UUID.init(uuidString:)) else {
            throw DemoRig.Failure(description: "registering the demo store: no id in \(body)")
        }
        return id
    }

    /// This machine's zone by its IANA name when tzdata has it, else its offset now.
    static var localZoneName: String {
        let name = TimeZone.current.identifier
        if (try? TimeZoneDirectory.system.zone(named: name)) != nil { return name }
        return StoreTimeZone.fixedName(TimeZone.current.secondsFromGMT())
    }

    func login() async throws -> String {
        let body = try await call("POST", "/v1/login", json: ["username": Self.manager, "password": Self.password])
        guard let token = body["token"] as? String else {
            throw DemoRig.Failure(description: "manager login: no token in \(body)")
        }
        return token
    }

    func enroll(_ device: String, store: StoreID, token: String) async throws -> String {
        let answer = try await exchange(
            "POST",
            "/v1/stores/\(store.uuidString)/devices",
            token: token,
            body: try JSONEncoder().encode(Enrollment(device: device))
        )
        return try JSONDecoder().decode(Enrolled.self, from: answer).credential
    }

    /// A virtual ticket, as the shopper page takes one: the store's proof of work solved, then the POST.
    func takeTicket(store: StoreID) async throws -> (code: String, qr: String) {
        let asked = try await call("GET", "/v1/stores/\(store.uuidString)/work")
        guard let challenge = asked["challenge"] as? String, let bits = asked["bits"] as? Int else {
            throw DemoRig.Failure(description: "proof of work: unexpected answer \(asked)")
        }
        let body = try await call(
            "POST",
            "/v1/stores/\(store.uuidString)/tickets",
            headers: ["Clup-Work": WorkProof.solve(challenge: challenge, bits: bits)]
        )
        guard let ticket = body["ticket"] as? [String: Any], let code = ticket["code"] as? String,
            let qr = body["qr"] as? String
        else { throw DemoRig.Failure(description: "app ticket: unexpected answer \(body)") }
        return (code, qr)
    }

    private func call(
        _ method: String,
        _ path: String,
        token: String? = nil,
        json: [String: Any]? = nil,
        headers: [String: String] = [:]
    ) async throws -> [String: Any] {
        let body = try json.map { try JSONSerialization.data(withJSONObject: $0) }
        let answer = try await exchange(method, path, token: token, body: body, headers: headers)
        return (try? JSONSerialization.jsonObject(with: answer)) as? [String: Any] ?? [:]
    }

    /// One request with a JSON body; the answer's body, or a failure naming the status and the server's error.
    private func exchange(
        _ method: String,
        _ path: String,
        token: String?,
        body: Data?,
        headers: [String: String] = [:]
    ) async throws -> Data {
        var request = URLRequest(url: URL(string: base + path)!)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            let error = ((try? JSONSerialization.jsonObject(with: data)) as? [String: Any])?["error"] ?? ""
            throw DemoRig.Failure(description: "\(method) \(path): HTTP \(status) \(error)")
        }
        return data
    }
}
