import DeviceEmulators
import Drivers
import Foundation
import Logging

extension DaemonBenchmarks {
    /// Pairing a box by the code it prints (issue 46), from power-on to the store's first ticket: the release
    /// kioskd started with only the server's address; the time to its pairing ticket, and from the manager's
    /// approval in the console (over HTTP, as a browser posts it) to the store's first ticket — at most one poll
    /// interval (5 s) and a start. The manager's own time to read and type the code is theirs, not measured.
    static func pairing(binary: String, server: BenchServer, runs: Int) async throws {
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        let store = try server.registerStore(capacity: 1000, name: "Bench Pairing Market")
        let console = try LoopbackHTTP(port: server.port)
        let cookie = try console.consoleSession(token: BenchServer.token)
        var toCode = Samples()
        var toTicket = Samples()
        for run in 1...runs {
            let emulator = try PrinterEmulator(
                profile: try PrinterProfile.load(named: "custom-vkp80iii"),
                logger: logger
            )
            let tcp = try TCPEndpoint(emulator: emulator, port: 0, logger: logger)
            defer { tcp.stop() }
            let state = NSTemporaryDirectory() + "clup-bench-pairing-\(UUID().uuidString.prefix(8))"
            defer { try? FileManager.default.removeItem(atPath: state) }
            try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
            let config = "\(state)/kioskd.toml"
            try """
            [store]
            [device]
            id = "bench-pair-\(run)"
            state_directory = "\(state)"
            [printer]
            address = "tcp://127.0.0.1:\(tcp.port)"
            profile = "custom-vkp80iii"
            poll_interval_ms = 20
            debounce_ms = 30
            [http]
            port = 0
            [log]
            level = "error"
            [sync]
            server = "\(server.url)"
            """.write(toFile: config, atomically: true, encoding: .utf8)
            let started = ContinuousClock.now
            let process = try launch(binary, config: config)
            defer { stop(process) }
            guard let printed = emulator.waitForTickets(count: 1, timeout: .seconds(20))?.first,
                let code = printed.text.lazy.compactMap({ $0.firstMatch(of: /[B-Z]{4}-[B-Z]{4}/) }).first.map({
                    String($0.0)
                })
            else { throw BenchError("kioskd printed no pairing ticket") }
            toCode.add((printed.cutAt - started).microseconds / 1000)
            emulator.simulate(.take)
            let page = String(
                decoding: try console.request("GET", "/console/pair?code=\(code)", headers: ["Cookie": cookie]),
                as: UTF8.self
            )
            guard let csrf = page.firstMatch(of: /name="csrf" value="([^"]+)"/)?.1 else {
                throw BenchError("no pairing form for \(code): \(console.head)")
            }
            let approved = ContinuousClock.now
            _ = try console.request(
                "POST",
                "/console/pair",
                json: "csrf=\(csrf)&code=\(code)&store=\(store.uuidString.lowercased())&role=printer&decision=approve",
                headers: ["Cookie": cookie],
                contentType: "application/x-www-form-urlencoded"
            )
            guard console.head.hasPrefix("HTTP/1.1 200") else { throw BenchError("approval: \(console.head)") }
            guard let tickets = emulator.waitForTickets(count: 2, timeout: .seconds(30)) else {
                throw BenchError("the paired kioskd printed no ticket")
            }
            toTicket.add((tickets[1].cutAt - approved).microseconds / 1000)
        }
        print("\n== Pairing by the printed code: \(runs) boxes, release kioskd from start (\(binary))")
        print("start → pairing ticket cut:          p50 \(fmt(toCode.p50)) / max \(fmt(toCode.percentile(100))) ms")
        print(
            "approval → the store's first ticket: p50 \(fmt(toTicket.p50)) / max \(fmt(toTicket.percentile(100))) ms "
                + "(one poll interval of 5 s at most, then the kiosk's start)"
        )
    }
}
