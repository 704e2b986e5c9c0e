import CLupServer
import Foundation
import KioskCore

/// The web app's benchmarks (issue "the CLup web app"): the ticket page's time to first byte and first-load
/// bytes; 200 shoppers following their tickets' live pages (server-sent events) — the server's memory per
/// viewer and how long an update takes to reach them all; and, in headless Chromium, an admission at the
/// door to the ticket page's text changing.
enum PageBenchmarks {
    static func ticketPage(count: Int) async throws {
        let server = try await BenchServer()
        let port = server.port
        let store = try server.registerStore(capacity: 100).uuidString
        let taker = try LoopbackHTTP(port: port)
        let work = try taker.solvedWork(store: store).proof
        let code = try code(of: try taker.request("POST", "/v1/stores/\(store)/tickets", headers: ["Clup-Work": work]))
        print("\n== Ticket page: GET /T/<code> \(count) times on a loopback keep-alive connection")
        let (samples, bytes) = try await FloodBenchmarks.onThread {
            let client = try LoopbackHTTP(port: port)
            var samples = Samples()
            var bytes = 0
            for n in 0..<count {
                // A phone each: one address's request pace is the flood benchmark's subject.
                let (firstByte, size) = try client.timedGet("/T/\(code)", forwardedFor: "10.6.\(n / 256).\(n % 256)")
                samples.add(firstByte.microseconds / 1000)
                bytes = size
            }
            return (samples, bytes)
        }
        print(
            "time to first byte: p50 \(fmt(samples.p50, 2)) ms, p99 \(fmt(samples.p99, 2)) ms; first load "
                + "\(bytes) bytes, everything inline (target ≤ 60 KB)"
        )
        await server.stop()
    }

    /// `viewers` shoppers (one address each) follow their own ticket's live page; then, `rounds` times, the
    /// first ticket in line is cancelled and every viewer behind it gets its new place.
    static func liveViewers(viewers: Int, rounds: Int) async throws {
        var limits = PublicLimits()
        limits.openTicketsPerPlace = 1000
        limits.ticketsPerStore = RateLimiter.Rule(burst: 1_000_000, interval: .milliseconds(1))
        limits.newHoldersPerAddress = limits.ticketsPerAddress  // the bench's clients send no holder token
        limits.work = nil  // the server's own cost: the work is the client's (measured by the flood bench)
        let server = try await BenchServer(limits: limits)
        let port = server.port
        let store = try server.registerStore(capacity: 5).uuidString
        let setup = try LoopbackHTTP(port: port)
        var tickets: [(id: String, holder: String)] = []
        for n in 0..<(viewers + rounds) {
            let answer = try setup.request(
                "POST",
                "/v1/stores/\(store)/tickets",
                forwardedFor: "10.9.\(n / 256).\(n % 256)"
            )
            let object = try JSONSerialization.jsonObject(with: Data(answer)) as? [String: Any]
            guard let id = (object?["ticket"] as? [String: Any])?["id"] as? String,
                let holder = object?["holderToken"] as? String
            else { throw BenchError("cannot take a ticket: \(String(decoding: answer, as: UTF8.self))") }
            tickets.append((id, holder))
        }
        print("\n== Live pages: \(viewers) shoppers follow their tickets' event streams; \(rounds) cancellations")
        let before = residentBytes()
        // The viewers hold the last tickets; the first `rounds` are cancelled one by one.
        var streams: [LoopbackHTTP] = []
        for (n, ticket) in tickets.suffix(viewers).enumerated() {
            let stream = try LoopbackHTTP(port: port)
            try stream.openEvents("/v1/tickets/\(ticket.id)/events", forwardedFor: "10.8.\(n / 256).\(n % 256)")
            _ = try stream.nextEvent()  // the status now
            streams.append(stream)
        }
        try await Task.sleep(for: .milliseconds(500))
        let perViewer = Double(residentBytes() - before) / Double(viewers)
        var samples = Samples()
        for round in 0..<rounds {
            let cancelled = tickets[round]
            let started = ContinuousClock.now
            let arrivals = try await withThrowingTaskGroup(of: Double.self) { group in
                for stream in streams {
                    group.addTask {
                        try await FloodBenchmarks.onThread {
                            _ = try stream.nextEvent()
                            return (ContinuousClock.now - started).microseconds / 1000
                        }
                    }
                }
                _ = try setup.request(
                    "DELETE",
                    "/v1/tickets/\(cancelled.id)",
                    headers: ["Clup-Holder": cancelled.holder]
                )
                var all: [Double] = []
                for try await arrival in group { all.append(arrival) }
                return all
            }
            for arrival in arrivals { samples.add(arrival) }
        }
        print(
            "memory: +\(fmt(perViewer / 1024, 1)) KB resident per viewer (server and client in this process); "
                + "a change reaches all \(viewers): p50 \(fmt(samples.p50, 1)) ms, p99 \(fmt(samples.p99, 1)) ms "
                + "(\(samples.count) updates)"
        )
        streams.removeAll()
        await server.stop()
    }

    /// The ticket's code as its page's path takes it.
    static func code(of answer: [UInt8]) throws -> String {
        let object = try JSONSerialization.jsonObject(with: Data(answer)) as? [String: Any]
        guard let qr = object?["qr"] as? String else {
            throw BenchError("no QR in \(String(decoding: answer, as: UTF8.self))")
        }
        return String(qr.dropFirst("HTTPS://CLUP.EXAMPLE/T/".count))
    }
}

extension PageBenchmarks {
    /// In headless Chromium (Scripts/browser_pages.py with `python`): a ticket's page is open; the door
    /// admits the ticket (its admission pushed as a door kiosk pushes it); the time until the page's text
    /// says so. Wall-clock milliseconds on both sides (one machine).
    static func admissionToPage(count: Int, python: String?) async throws {
        guard let python, FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver") else {
            print("\n== Admission → ticket page: skipped (needs --python with selenium and chromium-driver)")
            return
        }
        var limits = PublicLimits()
        limits.ticketsPerStore = RateLimiter.Rule(burst: 1_000_000, interval: .milliseconds(1))
        limits.newHoldersPerAddress = limits.ticketsPerAddress  // the bench's clients send no holder token
        limits.work = nil  // the server's own cost: the work is the client's (measured by the flood bench)
        let server = try await BenchServer(limits: limits)
        let port = server.port
        let storeID = try server.registerStore(capacity: 100_000)
        let store = storeID.uuidString
        let credential = try server.enroll("door", store: storeID)
        let browser = try BrowserDriver(python: python)
        defer { browser.quit() }
        guard try browser.next() == "ready" else { throw BenchError("the browser did not start") }
        print("\n== Admission → ticket page in Chromium: \(count) tickets, each admitted while its page is open")
        let client = try LoopbackHTTP(port: port)
        var samples = Samples()
        for n in 0..<count {
            let answer = try client.request("POST", "/v1/stores/\(store)/tickets", forwardedFor: "10.7.0.\(n % 250)")
            let code = try code(of: answer)
            let object = try JSONSerialization.jsonObject(with: Data(answer)) as? [String: Any]
            guard let id = ((object?["ticket"] as? [String: Any])?["id"] as? String).flatMap(UUID.init(uuidString:))
            else { throw BenchError("no ticket id") }
            try browser.require("open page http://127.0.0.1:\(port)/T/\(code)")
            try browser.require("expect page stage turn")
            try browser.require("watch page stage Admitted")
            // Let the page's event stream settle after its first status.
            try await Task.sleep(for: .milliseconds(200))
            let now = Timestamp(milliseconds: Int64(Date().timeIntervalSince1970 * 1000))
            let event = StoreEvent.new(.ticketAdmitted(id, door: "door"), store: storeID, device: "door", at: now)
            let batch = String(decoding: try JSONEncoder().encode(["events": [event]]), as: UTF8.self)
            _ = try client.request("POST", "/v1/stores/\(store)/events", json: batch, bearer: credential)
            var seen: Double?
            for _ in 0..<200 where seen == nil {
                let answer = try browser.ask("watched page")
                seen = Double(answer.dropFirst(3))
                if seen == nil { try await Task.sleep(for: .milliseconds(20)) }
            }
            guard let seen else { throw BenchError("the page never showed the admission") }
            samples.add(seen - Double(now.milliseconds))
        }
        print(
            "the page shows it: p50 \(fmt(samples.p50, 0)) ms, p99 \(fmt(samples.p99, 0)) ms after the admission "
                + "was sent (target p99 ≤ 1 s)"
        )
        await server.stop()
    }
}

/// Scripts/browser_pages.py as a child process: one command, one answer line.
final class BrowserDriver {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var pending = Data()

    init(python: String) throws {
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["Scripts/browser_pages.py"]
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    func next() throws -> String {
        while true {
            if let newline = pending.firstIndex(of: 10) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                return line
            }
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { throw BenchError("the browser script ended") }
            pending += chunk
        }
    }

    func ask(_ command: String) throws -> String {
        input.fileHandleForWriting.write(Data((command + "\n").utf8))
        return try next()
    }

    func require(_ command: String) throws {
        let answer = try ask(command)
        guard answer == "ok" else { throw BenchError("\(command): \(answer)") }
    }

    func quit() {
        _ = try? ask("quit")
        process.waitUntilExit()
    }
}
