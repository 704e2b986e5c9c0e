import DeviceEmulators
import Foundation
import KioskStation

#if canImport(Glibc)
import Glibc
#endif

/// The entrance without staff (issue 35): a scan fully received on a pty → the light's pattern starting (the
/// door's status, pushed over the live event stream), and → the voice's first sample handed to its output
/// (espeak-ng making "Please come in" into a WAV folder: the synthesis, not a sound card's buffer, timed from
/// before the scan's write). One
/// decision at a time, as at a door, each after the last one's light and words are over.
enum EntranceBenchmarks {
    static func scanToLightAndVoice(count: Int) async throws {
        print(
            "\n== Scan fully received on a pty → the light shows it, → the voice's first sample (\(count) scans each)"
        )
        print("until                         p50 ms   p99 ms   max ms   target p99")
        let light = try await DoorBenchmarks.run(count: count, measure: lightOn)
        row("light on (GET /events)", light, target: "≤ 20")
        let folder = NSTemporaryDirectory() + "clup-bench-voice-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let voice = try await DoorBenchmarks.run(count: count) { config in
            config.voice.enabled = true
            config.voice.output = .folder(folder)
        } measure: { port, scanner, payloads in
            try firstSample(port: port, scanner: scanner, payloads: payloads)
        }
        row("first audio sample", voice, target: "≤ 300")
    }

    private static func row(_ name: String, _ samples: Samples, target: String) {
        print(
            "\(name.padding(toLength: 28, withPad: " ", startingAt: 0))  \(fmt(samples.p50, 2).leftPad(7))  "
                + "\(fmt(samples.p99, 2).leftPad(7))  \(fmt(samples.percentile(100), 2).leftPad(7))   \(target)"
        )
    }

    /// From each scan to the door's status saying the light went green (the gate's pulse with it), over the
    /// event stream; the next scan once the gate's pulse is over (the light back to green alone).
    static func lightOn(port: Int, scanner: SerialScannerEmulator, payloads: [String]) throws -> Samples {
        let client = try LoopbackHTTP(port: port)
        let decoder = JSONDecoder()
        func light() throws -> String {
            try decoder.decode(StationStatus.self, from: Data(client.nextEvent())).door?.light ?? "?"
        }
        try client.openEvents("/events")
        var samples = Samples()
        for payload in payloads {
            try scanner.scan(payload)
            let received = ContinuousClock.now
            while try light() != "green+gate" {}
            samples.add((ContinuousClock.now - received).microseconds / 1000)
            while try light() == "green+gate" {}
        }
        return samples
    }

    /// From each scan to the voice's first sample of "Please come in" (its status stamps it); the next scan
    /// once the phrase is written.
    static func firstSample(port: Int, scanner: SerialScannerEmulator, payloads: [String]) throws -> Samples {
        let client = try LoopbackHTTP(port: port)
        let decoder = JSONDecoder()
        func voice() throws -> VoiceStatus? {
            try decoder.decode(StationStatus.self, from: Data(client.nextEvent())).voice
        }
        try client.openEvents("/events")
        var samples = Samples()
        for (i, payload) in payloads.enumerated() {
            // Timed from before the write (the voice's thread may say its first sample before this thread
            // runs again after it): an upper bound that includes writing the scan to the pty.
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            let scanned = Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
            try scanner.scan(payload)
            var status = try voice()
            while (status?.spoken ?? 0) < i + 1 { status = try voice() }
            guard let at = status?.firstSampleAt else { throw BenchError("the voice stamped no first sample") }
            samples.add(Double(at - scanned) / 1000)
        }
        return samples
    }
}
