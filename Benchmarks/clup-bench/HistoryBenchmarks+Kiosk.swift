import ClusterRigs
import DeviceEmulators
import Foundation
import Glibc
import KioskCore
import KioskStation
@_spi(Seeding) import StationStore

extension HistoryBenchmarks {
    /// kioskd's own start after months of service: its database holds `days` of the store's log as pulled from
    /// the server (written through its storage layer), and kioskd (a door on a pty scanner, as its own process)
    /// is started until its `/status` answers — once folding the whole pulled log, once from the fold sync keeps.
    static func kiosk(binary: String?, ticketsPerDay: Int) async throws {
        let binary =
            binary ?? Bundle.main.executableURL!.deletingLastPathComponent().appendingPathComponent("kioskd").path
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            print("kioskd's start: skipped, no kioskd at \(binary)")
            return
        }
        print("\n== kioskd's start by the history it pulled (\(ticketsPerDay) tickets a day)")
        print("| days | events | whole pulled log | from the kept fold | peak RSS |")
        print("|---|---|---|---|---|")
        let scanner = try SerialScannerEmulator()
        for days in [1, 30, 365] {
            let state = Programs.temporaryDirectory("bench-kiosk-history")
            defer { try? FileManager.default.removeItem(atPath: state) }
            let store = UUID()
            let (events, fold) = try pulledLog(state: state, store: store, days: days, ticketsPerDay: ticketsPerDay)
            let whole = try startKiosk(binary, state: state, store: store, scanner: scanner.path)
            let local = try LocalStore(path: "\(state)/kioskd.sqlite")
            try local.keepConfirmedFold(fold, through: Int64(events), capacity: 50)
            let kept = try median(of: 5) { try startKiosk(binary, state: state, store: store, scanner: scanner.path) }
            print(
                "| \(days) | \(events) | \(fmt(whole.seconds, 2)) s | \(fmt(kept.seconds, 2)) s | "
                    + "\(fmt(whole.peakMB, 0)) → \(fmt(kept.peakMB, 0)) MB |"
            )
        }
    }

    /// A kiosk database that pulled `days` of a door's log; the events and the fold of them (as sync keeps it).
    static func pulledLog(state: String, store: UUID, days: Int, ticketsPerDay: Int) throws -> (Int, Data) {
        let local = try LocalStore(path: "\(state)/kioskd.sqlite")
        let today = BusinessDay(localDateOf: Timestamp(seconds: Int64(Date().timeIntervalSince1970)), zone: .utc)
        var page: [StoreEvent] = []
        var sequence: Int64 = 0
        var fold = QueueState(capacity: 50)
        func add(_ body: StoreEvent.Body, at time: Timestamp) throws {
            sequence += 1
            var event = StoreEvent(id: .v7(at: time), store: store, device: "door", time: time, body: body)
            event.sequence = sequence
            fold.apply(event)
            page.append(event)
            if page.count >= 5_000 { try flush() }
        }
        func flush() throws {
            _ = try local.storePulled(page, through: sequence)
            page.removeAll(keepingCapacity: true)
        }
        for d in (1...Int64(days)).reversed() {
            for (body, time) in doorDay(BusinessDay(number: today.number - d), store: store, tickets: ticketsPerDay) {
                try add(body, at: time)
            }
        }
        if !page.isEmpty { try flush() }
        return (Int(sequence), try JSONEncoder().encode(fold.snapshot))
    }

    /// kioskd as a door on `state`'s database, started until `/status` answers, then stopped.
    static func startKiosk(
        _ binary: String,
        state: String,
        store: UUID,
        scanner: String
    ) throws -> (seconds: Double, peakMB: Double, steadyMB: Double) {
        let port = try Programs.freePort()
        let config = """
            [store]
            id = "\(store.uuidString)"
            name = "History Market"
            capacity = 50
            time_zone = "UTC"
            [device]
            id = "door"
            state_directory = "\(state)"
            [printer]
            enabled = false
            [door]
            enabled = true
            scanner = "serial://\(scanner)"
            [http]
            port = \(port)
            [log]
            level = "error"
            """
        try config.write(toFile: "\(state)/kioskd.toml", atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["run", "--config", "\(state)/kioskd.toml"]
        let started = ContinuousClock.now
        try process.run()
        defer {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }
        while true {
            guard process.isRunning else { throw BenchError("kioskd exited on \(state)") }
            if let client = try? LoopbackHTTP(port: port), let body = try? client.get("/status"), !body.isEmpty {
                break
            }
            usleep(2_000)
        }
        let seconds = (ContinuousClock.now - started).microseconds / 1e6
        let peak = Double(memory(of: process.processIdentifier, "VmHWM:")) / 1_048_576
        return (seconds, peak, Double(residentBytes(of: process.processIdentifier)) / 1_048_576)
    }
}
