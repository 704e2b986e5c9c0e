import DeviceEmulators
import Foundation
import Glibc
import KioskCore
import KioskStation
import SyncWire
import Testing

@testable import Rigs

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A chain's deployment on one machine: two clup-server processes on one PostgreSQL database (a private cluster
/// of Debian's server) behind Debian's nginx, which ends TLS (a certificate from the test's CA, trusted by the
/// kiosks' `[sync] ca_file`) and forwards the client's address. Two real kioskd processes print and push through
/// it while a shopper follows an app ticket's live status; one replica is killed with SIGKILL, the other is sent
/// SIGTERM (it must be gone within 2 s), PostgreSQL is restarted. Every torn-off ticket is in the store's log
/// exactly once, the log is gap-free, both replicas tell the same queue, the kiosks kept printing meanwhile,
/// and the shopper's stream resumes through the load balancer.
@Suite(
    .serialized,
    .enabled(
        if: PostgresRig.available && LoadBalancerRig.available
            && FileManager.default.isExecutableFile(atPath: HIL.kioskd),
        "needs Debian's postgresql and nginx-light, and kioskd and clup-server built next to the tests (make test)"
    )
)
struct FleetTests {
    /// One call of the API through `base`; the status and the JSON answer.
    @discardableResult
    func call(
        _ method: String,
        _ url: String,
        token: String? = ServerRig.adminToken,
        json: Any? = nil,
        headers: [String: String] = [:]
    ) async throws -> (status: Int, body: [String: Any], data: Data) {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let json {
            request.httpBody = try JSONSerialization.data(withJSONObject: json)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let body = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, body, data)
    }

    /// Polls `condition` every 50 ms for up to `timeout`.
    func eventually(_ timeout: Duration = .seconds(20), _ condition: () async -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return await condition()
    }

    /// The series a replica exports from its start, before it served anything (as after a restart): events
    /// appended, open long-polls and streams, log reads, the database pool's use, writes per transaction and the
    /// wake-up lag of other replicas' appends.
    static let seriesFromStart = [
        "clup_events_appended_total", "clup_open_long_polls", "clup_open_event_streams", "clup_log_reads_total",
        "clup_db_connections_in_use", "clup_db_connections_max", "clup_db_requests_waiting",
        "clup_db_connection_wait_seconds_bucket", "clup_db_writes_per_transaction_bucket",
        "clup_notify_lag_seconds_bucket",
    ]
    /// The series a replica adds at its first request: requests by route and status, and their latency.
    static let seriesFromFirstRequest = ["hb_requests", "http_server_request_duration"]

    /// A replica's `/metrics`, scraped directly (not through the balancer).
    func metrics(of replica: ServerProcess) async throws -> String {
        String(decoding: try await call("GET", "http://127.0.0.1:\(replica.port)/metrics").data, as: UTF8.self)
    }

    @Test func replicasDieAndTheDatabaseRestartsWhileKiosksPushAndShoppersWatch() async throws {
        let directory = HIL.temporaryDirectory("fleet")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cluster = try PostgresRig()
        defer { cluster.stop() }
        let database = try cluster.createDatabase()
        let ca = try TestCA("fleet", in: directory)
        let certificate = try ca.issue("balancer", serial: "F1EE7")
        let replicas = [
            try ServerProcess(database: database, directory: directory, name: "one", adminToken: ServerRig.adminToken),
            try ServerProcess(database: database, directory: directory, name: "two", adminToken: ServerRig.adminToken),
        ]
        defer { for replica in replicas { replica.stop() } }
        // Every series is there from a replica's start, before it served anything (as after a restart).
        for replica in replicas {
            let text = try await metrics(of: replica)
            for name in Self.seriesFromStart {
                #expect(text.contains(name), "\(name) missing from a fresh replica's metrics: \(text)")
            }
        }
        let balancer = try LoadBalancerRig(
            upstreams: replicas.map(\.port),
            certificate: certificate,
            directory: "\(directory)/nginx"
        )
        defer { balancer.stop() }
        let api = balancer.plainURL

        // The store and its two printer kiosks, registered and enrolled through the load balancer.
        var profile = ServerRig.storeProfile
        profile["capacity"] = 1
        profile["timeZone"] = "Europe/Rome"
        let registered = try await call(
            "POST",
            "\(api)/v1/stores",
            json: ["store": profile, "manager": ["username": "fleet", "password": "correct horse battery"]]
        )
        let store = try #require((registered.body["id"] as? String).flatMap(UUID.init(uuidString:)), "\(registered)")
        // Enrolled at once through the balancer: a replica that has not heard of the store yet (its notification
        // is a few ms on the way) looks it up instead of answering 404.
        var credentials: [String] = []
        for device in ["printer-a", "printer-b"] {
            let enrolled = try await call("POST", "\(api)/v1/stores/\(store)/devices", json: ["device": device])
            credentials.append(try #require(enrolled.body["credential"] as? String, "\(enrolled)"))
        }

        // A shopper's app ticket first in line, followed live.
        let taken = try await call("POST", "\(api)/v1/stores/\(store)/tickets", token: nil)
        let ticket = try #require((taken.body["ticket"] as? [String: Any])?["id"] as? String, "\(taken)")
        let holder = try #require(taken.body["holderToken"] as? String)

        // The kiosks: real kioskd processes, each with its emulated presenter printer over TCP, syncing through
        // the load balancer's TLS port.
        var kiosks: [(rig: EmulatorRig, process: Process, port: Int)] = []
        defer {
            for kiosk in kiosks {
                kill(kiosk.process.processIdentifier, SIGTERM)
                kiosk.process.waitUntilExit()
                kiosk.rig.stop()
            }
        }
        for (n, device) in ["printer-a", "printer-b"].enumerated() {
            let rig = try EmulatorRig(profile: "custom-vkp80iii")
            let state = "\(directory)/\(device)"
            let port = try HIL.freePort()
            let config = try KioskdConfig.write(
                state: state,
                printer: rig.tcpAddress,
                store: store,
                device: device,
                zone: "Europe/Rome",
                httpPort: port,
                store: "capacity = 1",
                printer: "code_prefix = \"\(n == 0 ? "A" : "B")\"",
                extra: """
                    [sync]
                    server = "\(balancer.tlsURL)"
                    ca_file = "\(ca.certificate)"
                    credential_file = "\(try KioskdConfig.credentialFile(credentials[n], in: state))"
                    pull_wait_seconds = 5
                    """
            )
            let process = Process()
            process.executableURL = URL(fileURLWithPath: HIL.kioskd)
            process.arguments = ["run", "--config", config]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle(forWritingAtPath: "/dev/null")
            try process.run()
            kiosks.append((rig, process, port))
        }
        for kiosk in kiosks {
            #expect(await eventually { (try? await HIL.status(port: kiosk.port))?.sync?.state == "online" })
        }

        var stream = try EventStreamClient(port: balancer.plainPort, path: "/v1/tickets/\(ticket)/events")
        #expect(await stream.next(timeout: .seconds(5)) != nil, "the shopper's stream opened")

        /// Customers tear tickets off both printers, one every ~60 ms each, `count` each. A ticket the presenter
        /// is pulling back as outdated (a tear-off at the other printer put one more ahead of it) is not taken:
        /// the emulator counts what was.
        func tearOff(_ count: Int) async throws {
            for _ in 0..<count {
                for (n, kiosk) in kiosks.enumerated() {
                    let emulator = kiosk.rig.emulator
                    let printed = emulator.ticketCount
                    // Nothing presented yet.
                    guard printed > emulator.takenTickets.count + emulator.retractedTickets.count else { continue }
                    emulator.simulate(.take)
                    let deadline = ContinuousClock.now + .seconds(5)
                    while kiosk.rig.emulator.ticketCount <= printed && ContinuousClock.now < deadline {
                        try await Task.sleep(for: .milliseconds(5))
                    }
                    try #require(kiosk.rig.emulator.ticketCount > printed, "kiosk \(n) stopped printing")
                }
                try await Task.sleep(for: .milliseconds(Int.random(in: 20...80)))
            }
        }
        #expect(await eventually { kiosks.allSatisfy { $0.rig.emulator.ticketCount >= 1 } })
        try await tearOff(40)

        // kill -9 of replica one while the kiosks push; they go on through replica two.
        replicas[0].kill9()
        try await tearOff(40)
        // The shopper's stream: if its replica went, it ended (a replica that stops ends its streams; nginx keeps
        // the shopper's connection); reopened through the balancer (as a browser's
        // EventSource does) it resumes with the ticket's status.
        var reopened = 0
        func resume() async throws {
            guard await stream.ended(within: .milliseconds(300)) else { return }
            stream = try EventStreamClient(port: balancer.plainPort, path: "/v1/tickets/\(ticket)/events")
            #expect(await stream.next(timeout: .seconds(5)) != nil, "the stream did not resume")
            reopened += 1
        }
        try await resume()
        try replicas[0].start()

        // PostgreSQL restarts under load: the kiosks keep printing (their outboxes hold the events).
        try cluster.restart()
        try await tearOff(30)

        // SIGTERM to replica two: it ends its long-polls and streams and is gone within 2 s; clients come back
        // through the balancer.
        async let gone = replicas[1].terminate()
        try await tearOff(20)
        let stopped = await gone
        #expect(stopped != nil && stopped! <= .seconds(2), "replica two took \(String(describing: stopped)) to stop")
        try await resume()
        #expect(reopened >= 1, "no stream was on a replica that went")
        try replicas[1].start()
        try await tearOff(20)

        // Everything arrives, once.
        for (n, kiosk) in kiosks.enumerated() {
            let drained = await eventually(.seconds(30)) {
                (try? await HIL.status(port: kiosk.port))?.queue.pendingEvents == 0
            }
            let status = try? await HIL.status(port: kiosk.port)
            #expect(drained, "kiosk \(n) still holds events: \(String(describing: status?.sync))")
        }
        // Read through the balancer: a replica answers from what it applied, and the last events a kiosk pushed
        // through the other replica reach it a moment later (its log follower) — read until both kiosks' takes
        // are there, or 10 s.
        func read() async throws -> EventPage {
            let page = try await call(
                "GET",
                "\(api)/v1/stores/\(store)/events?after=0&limit=5000",
                token: credentials[0]
            )
            return try JSONDecoder().decode(EventPage.self, from: page.data)
        }
        func takes(_ log: EventPage, _ device: String) -> Int {
            log.events.count { event in
                if case .ticketTaken = event.body { return event.device == device }
                return false
            }
        }
        // A ticket torn off at the instant the kiosk pulls it back (an outdated promise) cannot be told from one
        // that went back in (no shipped profile reports "retracted"): the kiosk sets it aside, kept valid, with no
        // take in the log. So each torn ticket is a take in the log or one of those: the retracts the kiosk
        // counted beyond those the printer really made.
        var setAside: [Int] = []
        for (n, kiosk) in kiosks.enumerated() {
            let counted = (try? await HIL.status(port: kiosk.port))?.printer?.ticketsRetracted ?? 0
            setAside.append(counted - kiosks[n].rig.emulator.retractedTickets.count)
        }
        var log = try await read()
        let torn = kiosks.map { $0.rig.emulator.takenTickets.count }
        _ = await eventually(.seconds(10)) {
            guard let again = try? await read() else { return false }
            log = again
            return takes(log, "printer-a") + setAside[0] >= torn[0] && takes(log, "printer-b") + setAside[1] >= torn[1]
        }
        // The replica's clock, which kiosks check theirs against.
        let skew = abs((log.serverTime ?? 0) - Int64(Date().timeIntervalSince1970 * 1000))
        #expect(skew < 10_000, "the page's serverTime is \(skew) ms from this machine's clock")
        #expect(log.events.map(\.sequence) == log.events.indices.map { Int64($0 + 1) }, "the log has gaps")
        #expect(Set(log.events.map(\.id)).count == log.events.count, "an event twice")
        for (n, device) in ["printer-a", "printer-b"].enumerated() {
            #expect(
                takes(log, device) + setAside[n] == torn[n] && setAside[n] <= 2,
                "\(device): \(takes(log, device)) takes in the log, \(setAside[n]) set aside, \(torn[n]) torn off"
            )
        }
        var codes: [String] = []
        for event in log.events { if case .ticketIssued(let t, _) = event.body { codes.append(t.code.description) } }
        #expect(Set(codes).count == codes.count, "a code issued twice")

        // Both replicas tell the same queue, and the shopper's stream hears a change made through either.
        var seen: [String] = []
        for replica in replicas {
            let status = try await call("GET", "http://127.0.0.1:\(replica.port)/v1/tickets/\(ticket)", token: nil)
            seen.append("\(status.body["stage"] ?? "-") \(status.body["peopleAhead"] ?? "-")")
        }
        #expect(Set(seen).count == 1, "the replicas disagree: \(seen)")

        // Each replica's metrics: requests by route and status with their latency, events appended, the
        // database pool's use, writes per transaction, the wake-up lag of other replicas' appends, and the
        // duties' lease held by exactly one of them.
        var leases = 0.0
        for replica in replicas {
            let text = try await metrics(of: replica)
            for name in Self.seriesFromFirstRequest + Self.seriesFromStart {
                #expect(text.contains(name), "\(name) missing from the replica's metrics")
            }
            let held = text.split(separator: "\n").first { $0.hasPrefix("clup_replica_duty_lease_held ") }
            leases += held.flatMap { Double($0.split(separator: " ").last ?? "") } ?? -1
        }
        #expect(leases == 1, "lease holders: \(leases)")
        let cancelled = try await call(
            "DELETE",
            "\(api)/v1/tickets/\(ticket)",
            token: nil,
            headers: ["Clup-Holder": holder]
        )
        #expect(cancelled.status == 200, "\(cancelled.body)")
        var heard = false
        for _ in 0..<5 where !heard {
            heard = (await stream.next(timeout: .seconds(2)))?.contains("cancelled") ?? false
        }
        #expect(heard, "the shopper's stream did not hear the cancel")
        print(
            "fleet: \(kiosks.map(\.rig.emulator.takenTickets.count).reduce(0, +)) tear-offs, \(log.events.count) events, SIGTERM to exit \(String(describing: stopped))"
        )
    }
}
