import DeviceEmulators
import Drivers
import Foundation
import KioskCore
import Logging

/// kioskd as a store runs it (issue "kioskd's inner shape"): the release binary the package ships, started as
/// its own process with a printer emulator on TCP and clup-server on loopback. Its size on disk, its resident
/// memory once idle, and a soak of tear-offs with sync on: tear-off → next cut at the start and at the end of
/// the soak, and resident memory after the warm-up and at the end.
enum DaemonBenchmarks {
    static func footprintAndSoak(binary: String?, tearOffs: Int) async throws {
        let binary =
            binary ?? Bundle.main.executableURL!.deletingLastPathComponent().appendingPathComponent("kioskd").path
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw BenchError("no kioskd at \(binary) (Scripts/build-deb.sh -b kioskd builds the one the package ships)")
        }
        let size = (try FileManager.default.attributesOfItem(atPath: binary)[.size] as? Int) ?? 0

        var logger = Logger(label: "bench")
        logger.logLevel = .error
        let server = try await BenchServer(machineSpeedKiosks: true)
        let store = try server.registerStore(capacity: 100_000)
        let credential = try server.enroll("bench-entrance", store: store)
        let profile = try PrinterProfile.load(named: "custom-vkp80iii")  // presenter, asked by status polling
        let emulator = try PrinterEmulator(profile: profile, logger: logger)
        let tcp = try TCPEndpoint(emulator: emulator, port: 0, logger: logger)
        defer { tcp.stop() }
        let state = NSTemporaryDirectory() + "clup-bench-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: state) }
        let config = try writeConfig(
            state: state,
            store: store,
            printer: "tcp://127.0.0.1:\(tcp.port)",
            server: server.url,
            credential: credential
        )
        let process = try launch(binary, config: config)
        defer { stop(process) }
        guard emulator.waitForTickets(count: 1, timeout: .seconds(20)) != nil else {
            throw BenchError("kioskd printed no ticket")
        }
        try await Task.sleep(for: .seconds(10))
        let idle = residentBytes(of: process.processIdentifier) / 1024

        print("\n== kioskd, \(binary) as its own process (\(profile.name) over TCP, sync on)")
        let stripped = try strippedSize(of: binary)
        print(
            "binary: \(fmt(Double(size) / 1_048_576, 1)) MiB as built, \(fmt(Double(stripped) / 1_048_576, 1)) MiB "
                + "stripped as the package installs it"
        )
        print("idle RSS (one ticket waiting, 10 s after start): \(fmt(Double(idle) / 1024, 1)) MiB")
        let spoken = try await idleWithVoice(binary: binary, server: server, logger: logger)
        print(
            "idle RSS with [voice] on (espeak-ng loaded, one ticket taken and its number and call said into WAV "
                + "files, 10 s later): \(fmt(Double(spoken) / 1024, 1)) MiB"
        )
        try await pairing(binary: binary, server: server, runs: 5)
        guard tearOffs > 0 else { return }

        print("\n== Soak: \(tearOffs) tear-offs through kioskd (poll 20 ms, debounce 30 ms, sync on)")
        let window = max(min(1000, tearOffs / 10), 1)
        var first = Samples()
        var last = Samples()
        var warmRSS = 0
        var rng = SystemRandomNumberGenerator()
        for n in 1...tearOffs {
            // Taken at no fixed phase of the poll, once the presenter has pushed it out (a hand needs that long).
            try await Task.sleep(for: .milliseconds(Int.random(in: 20...60, using: &rng)))
            let taken = ContinuousClock.now
            emulator.simulate(.take)
            guard let tickets = emulator.waitForTickets(count: n + 1, timeout: .seconds(10)) else {
                throw BenchError("no ticket after tear-off \(n)")
            }
            let ms = (tickets[tickets.count - 1].cutAt - taken).microseconds / 1000
            if n <= window { first.add(ms) }
            if n > tearOffs - window { last.add(ms) }
            if n == window { warmRSS = residentBytes(of: process.processIdentifier) / 1024 }
        }
        let endRSS = residentBytes(of: process.processIdentifier) / 1024
        print("tear-off → next cut   first \(window): p50 \(fmt(first.p50)) / p99 \(fmt(first.p99)) ms")
        print("                      last \(window):  p50 \(fmt(last.p50)) / p99 \(fmt(last.p99)) ms")
        print(
            "p99 end/start \(fmt(last.p99 / first.p99, 2))× (goal ≤ 1.10×); target p99 ≤ poll + debounce + 20 = 70 ms"
        )
        print(
            "RSS after \(window): \(fmt(Double(warmRSS) / 1024, 1)) MiB, after \(tearOffs): "
                + "\(fmt(Double(endRSS) / 1024, 1)) MiB, growth \(fmt(Double(endRSS - warmRSS) / 1024, 2)) MiB "
                + "(goal ≤ 5 MiB)"
        )
        process.terminate()
        process.waitUntilExit()
        await server.stop()
    }

    /// kioskd running `config` as its own process.
    static func launch(_ binary: String, config: String) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["run", "--config", config]
        try process.run()
        return process
    }

    static func stop(_ process: Process) {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    /// kioskd's resident set (KiB) with the voice configured, once it has said a ticket's number and its call.
    private static func idleWithVoice(binary: String, server: BenchServer, logger: Logger) async throws -> Int {
        let store = try server.registerStore(capacity: 100_000, name: "Bench Voice Market")
        let credential = try server.enroll("bench-voice", store: store)
        let emulator = try PrinterEmulator(profile: try PrinterProfile.load(named: "custom-vkp80iii"), logger: logger)
        let tcp = try TCPEndpoint(emulator: emulator, port: 0, logger: logger)
        defer { tcp.stop() }
        let state = NSTemporaryDirectory() + "clup-bench-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: state) }
        let config = try writeConfig(
            state: state,
            store: store,
            printer: "tcp://127.0.0.1:\(tcp.port)",
            server: server.url,
            credential: credential,
            device: "bench-voice",
            voice: "\(state)/voice"
        )
        let process = try launch(binary, config: config)
        defer { stop(process) }
        guard emulator.waitForTickets(count: 1, timeout: .seconds(20)) != nil else {
            throw BenchError("kioskd with voice printed no ticket")
        }
        emulator.simulate(.take)
        for _ in 0..<200 {
            let said = (try? FileManager.default.contentsOfDirectory(atPath: "\(state)/voice")) ?? []
            if said.filter({ $0.hasSuffix(".wav") && !$0.hasPrefix(".") }).count >= 2 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        try await Task.sleep(for: .seconds(10))
        return residentBytes(of: process.processIdentifier) / 1024
    }

    /// The size of `binary` after `strip --strip-unneeded` (what `make deb` installs).
    private static func strippedSize(of binary: String) throws -> Int {
        let copy = NSTemporaryDirectory() + "clup-bench-stripped-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let strip = Process()
        strip.executableURL = URL(fileURLWithPath: "/usr/bin/strip")
        strip.arguments = ["--strip-unneeded", "-o", copy, binary]
        try strip.run()
        strip.waitUntilExit()
        guard strip.terminationStatus == 0 else { throw BenchError("strip failed on \(binary)") }
        return (try FileManager.default.attributesOfItem(atPath: copy)[.size] as? Int) ?? 0
    }

    private static func writeConfig(
        state: String,
        store: UUID,
        printer: String,
        server: String,
        credential: String,
        device: String = "bench-entrance",
        voice: String? = nil
    ) throws -> String {
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let credentialPath = "\(state)/credential"
        let configPath = "\(state)/kioskd.toml"
        let config = """
            [store]
            id = "\(store.uuidString)"
            name = "Bench Market"
            capacity = 100000
            [device]
            id = "\(device)"
            state_directory = "\(state)"
            [printer]
            address = "\(printer)"
            profile = "custom-vkp80iii"
            poll_interval_ms = 20
            debounce_ms = 30
            [http]
            port = 0
            [log]
            level = "error"
            [sync]
            server = "\(server)"
            credential_file = "\(credentialPath)"
            """ + (voice.map { "\n[voice]\nenabled = true\noutput = \"file:\($0)\"\n" } ?? "")
        for (path, text) in [(credentialPath, credential + "\n"), (configPath, config)] {
            guard
                FileManager.default.createFile(
                    atPath: path,
                    contents: Data(text.utf8),
                    attributes: [.posixPermissions: 0o600]
                )
            else { throw BenchError("cannot write \(path)") }
        }
        return configPath
    }
}
