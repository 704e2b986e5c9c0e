import DeviceEmulators
import Drivers
import Foundation
import KioskCore
import KioskStation
import Logging

/// Printer driver benchmarks (issue "printer driver layer"): bytes and encode time of the standard ticket,
/// native vs raster QR; then ours vs python-escpos sending the same ticket to the same emulator over TCP.
enum PrinterBenchmarks {
    static func encode(profileID: String, iterations: Int) throws {
        let profile = try PrinterProfile.load(named: profileID)
        print("== Standard ticket encode (\(profile.name), \(iterations) runs each; 100-char QR payload)")
        print("mode     bytes   p50 µs   p99 µs   bytes@9600baud(s)")
        for mode in [EscPosEncoder.QRMode.native, .raster] {
            let encoder = EscPosEncoder(profile: profile, qrMode: mode)
            var samples = Samples()
            var size = 0
            let clock = ContinuousClock()
            for i in 0..<iterations {
                let document = TestTicket.document(payload: payload(i))
                let start = clock.now
                size = try encoder.encode(document).count
                samples.add((clock.now - start).microseconds)
            }
            // 9600 baud, 8N1: 10 bits per byte on the wire.
            print(
                "\(mode.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)) \(String(size).leftPad(5))   "
                    + "\(fmt(samples.p50).leftPad(6))   \(fmt(samples.p99).leftPad(6))   \(fmt(Double(size) * 10 / 9600, 2).leftPad(8))"
            )
        }
    }

    /// A distinct payload per ticket, as in production (each ticket has its own signed code).
    static func payload(_ i: Int) -> String {
        let base = TestTicket.payload
        let suffix = String(i)
        return String(base.prefix(base.count - suffix.count)) + suffix
    }

    static func compareWithPython(profileID: String, count: Int, python: String?) throws {
        let profile = try PrinterProfile.load(named: profileID)
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        let emulator = try PrinterEmulator(profile: profile, logger: logger)
        let endpoint = try TCPEndpoint(emulator: emulator, port: 0, logger: logger)
        defer { endpoint.stop() }
        print("\n== Build + send the standard ticket \(count)× to the emulator over TCP (\(profile.name), native QR)")

        let encoder = EscPosEncoder(profile: profile, qrMode: .native)
        let transport = TCPTransport(host: "127.0.0.1", port: endpoint.port)
        try transport.open()
        var samples = Samples()
        var bytes = 0
        let clock = ContinuousClock()
        let start = clock.now
        for i in 0..<count {
            let t0 = clock.now
            let ticket = try encoder.encode(TestTicket.document(payload: payload(i)))
            try transport.write(ticket, timeout: .seconds(10))
            samples.add((clock.now - t0).microseconds)
            bytes += ticket.count
        }
        let ours = (clock.now - start).microseconds / 1e6
        transport.close()
        guard emulator.waitForTickets(count: count, timeout: .seconds(120)) != nil else {
            throw BenchError("the emulator cut only \(emulator.ticketCount) of \(count) tickets")
        }
        let oursRate = Double(count) / ours
        print("client         bytes/ticket   tickets/s   p50 µs   p99 µs")
        print(
            "clup (Swift)   \(String(bytes / count).leftPad(12))   \(fmt(oursRate, 0).leftPad(9))   \(fmt(samples.p50).leftPad(6))   \(fmt(samples.p99).leftPad(6))"
        )

        guard let python else {
            print("python-escpos  not measured: pass --python with a Python that has python-escpos (make bench does)")
            return
        }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Scripts/escpos_client.py").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script, "bench", "127.0.0.1", String(endpoint.port), String(count), TestTicket.payload]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0,
            let result = try JSONSerialization.jsonObject(with: output) as? [String: Any],
            let seconds = result["seconds"] as? Double, let size = result["bytes_per_ticket"] as? Int
        else { throw BenchError("python-escpos run failed: \(String(decoding: output, as: UTF8.self))") }
        guard emulator.waitForTickets(count: 2 * count, timeout: .seconds(120)) != nil else {
            throw BenchError("the emulator cut only \(emulator.ticketCount - count) of python's \(count) tickets")
        }
        let pythonRate = Double(count) / seconds
        print("python-escpos  \(String(size).leftPad(12))   \(fmt(pythonRate, 0).leftPad(9))        -        -")
        print("ratio clup/python (tickets/s): \(fmt(oursRate / pythonRate, 2))×   (target ≥ 3×)")
        print("all \(2 * count) tickets were cut by the emulator")
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension String {
    func leftPad(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
