import CLupServer
import Foundation
import Logging

/// clup-server benchmark (issue "clup-server and sync"): virtual tickets per second the server sustains on
/// this machine, with the latency of each request, from concurrent clients on loopback keep-alive connections.
enum ServerBenchmarks {
    static func virtualTickets(clients: Int, perClient: Int) async throws {
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        let directory = NSTemporaryDirectory() + "clup-bench-server-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let token = "bench-admin-token-0123456789"
        var options = ServerApp.Options(adminToken: token)
        options.port = 0
        options.databasePath = "\(directory)/clup.sqlite"
        let server = try ServerApp.build(options, logger: logger)
        let group = server.serviceGroup(logger: logger, handleSignals: false)
        let task = Task { try await group.run() }
        defer { task.cancel() }
        var port: Int?
        for _ in 0..<1000 where port == nil {
            port = server.port.current
            if port == nil { try await Task.sleep(for: .milliseconds(10)) }
        }
        guard let port else { throw BenchError("clup-server did not start") }

        // Register a big store: every ticket waits in its line.
        let registration = """
            {"store":{"name":"Bench Market","address":"1 Bench Road","location":{"latitude":45.46,"longitude":9.19},
            "capacity":100000,"openingHours":[{"open":"00:00","close":"23:59"},{"open":"00:00","close":"23:59"},
            {"open":"00:00","close":"23:59"},{"open":"00:00","close":"23:59"},{"open":"00:00","close":"23:59"},
            {"open":"00:00","close":"23:59"},{"open":"00:00","close":"23:59"}],"utcOffsetMinutes":0,
            "averageVisitMinutes":20,"slotMinutes":15,"slotSize":5},
            "manager":{"username":"bench","password":"correct horse battery"}}
            """
        let admin = try LoopbackHTTP(port: port)
        let answer = try admin.request("POST", "/v1/stores", json: registration, bearer: token)
        guard let object = try JSONSerialization.jsonObject(with: Data(answer)) as? [String: Any],
            let store = object["id"] as? String
        else { throw BenchError("cannot register the store: \(String(decoding: answer, as: UTF8.self))") }

        print("\n== Virtual tickets: \(clients) concurrent clients × \(perClient) tickets on loopback keep-alive")
        let started = ContinuousClock.now
        let all = try await withThrowingTaskGroup(of: Samples.self) { group in
            for _ in 0..<clients {
                group.addTask {
                    try await withCheckedThrowingContinuation { continuation in
                        Thread {
                            continuation.resume(
                                with: Result {
                                    let client = try LoopbackHTTP(port: port)
                                    var samples = Samples()
                                    for _ in 0..<perClient {
                                        let sent = ContinuousClock.now
                                        let body = try client.request("POST", "/v1/stores/\(store)/tickets")
                                        guard String(decoding: body, as: UTF8.self).contains(#""code":"V"#) else {
                                            throw BenchError(
                                                "unexpected answer: \(String(decoding: body, as: UTF8.self))"
                                            )
                                        }
                                        samples.add((ContinuousClock.now - sent).microseconds / 1000)
                                    }
                                    return samples
                                }
                            )
                        }.start()
                    }
                }
            }
            var all = Samples()
            for try await samples in group { all.merge(samples) }
            return all
        }
        let elapsed = ContinuousClock.now - started
        let rate = Double(all.count) / (elapsed.microseconds / 1e6)
        print(
            "tickets: \(all.count) in \(fmt(elapsed.microseconds / 1e6, 2)) s → \(Int(rate)) tickets/s (target ≥ 2,000/s)"
        )
        print(
            "latency per request: p50 \(fmt(all.p50, 2)) ms, p99 \(fmt(all.p99, 2)) ms, max \(fmt(all.percentile(100), 2)) ms"
        )
        await group.triggerGracefulShutdown()
        _ = try? await task.value
    }
}
