import CLupServer
import ClusterRigs
import Foundation
import Glibc
import KioskCore
import Logging
import ServiceSupport

/// clup-server starts from today (issue "clup-server starts from today"): a store's log with 1, 30 and 365
/// days of history (a door's day: the day's start, then tickets issued, taken, admitted, and exits), written
/// through the storage layer, on SQLite and PostgreSQL; clup-server as a process of its own started on it
/// twice. The first start folds the whole log (as every start did before snapshots; it keeps a snapshot when
/// it stops), the next ones start from the snapshot (the median of five). Then 20 stores × 365 days, and the resident memory of a
/// replica serving 1,000 stores' current day.
enum HistoryBenchmarks {
    static func run(ticketsPerDay: Int) async throws {
        let directory = Programs.temporaryDirectory("bench-history")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cluster = PostgresRig.available ? try PostgresRig() : nil
        defer { cluster?.stop() }
        print("\n== Start-up and memory by history: one store, \(ticketsPerDay) tickets a day (4 events each)")
        print(
            "| backend | days | events | first start (whole log) | start from the snapshot | peak RSS first → snapshot "
                + "| kept state |"
        )
        print("|---|---|---|---|---|---|---|")
        for backend in ["SQLite"] + (cluster == nil ? [] : ["PostgreSQL"]) {
            for days in [1, 30, 365] {
                let database =
                    backend == "PostgreSQL" ? try cluster!.createDatabase() : "\(directory)/\(days).sqlite"
                let events = try await write(database, stores: 1, days: days, ticketsPerDay: ticketsPerDay)
                let first = try start(database, directory: directory)
                let second = try median(of: 5) { try start(database, directory: directory) }
                let kept = try await keptBytes(database)
                print(
                    "| \(backend) | \(days) | \(events) | \(fmt(first.seconds, 2)) s | \(fmt(second.seconds, 2)) s | "
                        + "\(fmt(first.peakMB, 0)) → \(fmt(second.peakMB, 0)) MB | \(fmt(Double(kept) / 1024, 0)) KB |"
                )
            }
        }
        let many = "\(directory)/twenty.sqlite"
        let manyEvents = try await write(many, stores: 20, days: 365, ticketsPerDay: ticketsPerDay / 10)
        _ = try start(many, directory: directory)
        let twenty = try median(of: 3) { try start(many, directory: directory) }
        print(
            "20 stores × 365 days (\(manyEvents) events, SQLite), from their snapshots: \(fmt(twenty.seconds, 2)) s "
                + "(target ≤ 5 s), peak RSS \(fmt(twenty.peakMB, 0)) MB"
        )
        let fleet = "\(directory)/thousand.sqlite"
        let fleetEvents = try await write(fleet, stores: 1000, days: 1, ticketsPerDay: ticketsPerDay / 4)
        _ = try start(fleet, directory: directory)
        let thousand = try start(fleet, directory: directory)
        print(
            "1,000 stores' current day (\(fleetEvents) events, SQLite): start \(fmt(thousand.seconds, 2)) s, steady RSS "
                + "\(fmt(thousand.steadyMB, 0)) MB (peak \(fmt(thousand.peakMB, 0)) MB)"
        )
    }

    /// Writes `stores` stores' logs of `days` days ending yesterday through the storage layer; the events written.
    static func write(_ database: String, stores: Int, days: Int, ticketsPerDay: Int) async throws -> Int {
        let (storage, close) = try await open(database)
        defer { close() }
        let hash = try PasswordHash(password: "correct horse battery")
        let today = BusinessDay(localDateOf: WallClock.system.now(), zone: StoreTimeZone(fixedOffsetSeconds: 0))
        var written = 0
        for s in 0..<stores {
            let store = try await storage.register(
                profile(s),
                manager: "history-\(s)",
                passwordHash: hash,
                at: WallClock.system.now()
            ).id
            var batch: [StoreEvent] = []
            func add(_ body: StoreEvent.Body, at time: Timestamp) async throws {
                batch.append(StoreEvent(id: .v7(at: time), store: store, device: "door", time: time, body: body))
                if batch.count >= 2_000 { try await flush() }
            }
            func flush() async throws {
                _ = try await storage.append(batch, store: store) { _ in }
                written += batch.count
                batch.removeAll(keepingCapacity: true)
            }
            for d in (1...Int64(days)).reversed() {
                for (body, time) in doorDay(BusinessDay(number: today.number - d), store: store, tickets: ticketsPerDay)
                {
                    try await add(body, at: time)
                }
            }
            if !batch.isEmpty { try await flush() }
        }
        return written
    }

    /// A door's business day (UTC, open 08:00–20:00): its start at 07:00, then `tickets` paper tickets spread
    /// over the hours, each issued, taken, admitted and its customer gone 10 minutes later.
    static func doorDay(_ day: BusinessDay, store: StoreID, tickets: Int) -> [(StoreEvent.Body, Timestamp)] {
        let opens = Timestamp(seconds: day.number * 86_400 + 8 * 3_600)
        var events: [(StoreEvent.Body, Timestamp)] = [
            (
                .dayStarted(day, hours: DayHours(opens: opens, closes: opens + .seconds(12 * 3_600))),
                opens - .seconds(3_600)
            )
        ]
        let step = Int64(12 * 3_600_000 / max(tickets, 1))
        for n in 0..<tickets {
            let time = opens + .milliseconds(Int64(n) * step)
            let ticket = Ticket(
                id: .v7(at: time),
                store: store,
                kind: .paper,
                code: TicketCode(prefix: "A", number: n + 1),
                issuedAt: time,
                issuer: "door"
            )
            events += [
                (.ticketIssued(ticket), time), (.ticketTaken(ticket.id), time + .seconds(2)),
                (.ticketAdmitted(ticket.id, door: "door"), time + .seconds(30)),
                (.customerExited, time + .seconds(600)),
            ]
        }
        return events
    }

    /// The storage layer on `database`, and what closes it.
    static func open(_ database: String) async throws -> (any ServerStorage, () -> Void) {
        if case .postgres(let address) = try DatabaseLocation(database) {
            var logger = Logger(label: "bench")
            logger.logLevel = .error
            let postgres = try await PostgresStorage(address, logger: logger)
            let running = Task { await postgres.run() }
            return (postgres, { running.cancel() })
        }
        return (try SQLiteStorage(path: database), {})
    }

    /// The size of the first store's kept state in `database` (as clup-server stores it: deflated JSON).
    static func keptBytes(_ database: String) async throws -> Int {
        let (storage, close) = try await open(database)
        defer { close() }
        guard let store = try await storage.stores().first else { return 0 }
        return try await storage.snapshot(store: store.id)?.data.count ?? 0
    }

    /// Starts clup-server on `database` and stops it (SIGTERM) once `/healthz` answers: how long it took to
    /// answer, its peak resident memory until then, and its resident memory a second later.
    static func start(
        _ database: String,
        directory: String
    ) throws -> (seconds: Double, peakMB: Double, steadyMB: Double) {
        let port = try Programs.freePort()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Programs.besideThisProgram("clup-server"))
        process.arguments = ["--port", "\(port)", "--database", database, "--log-level", "error"]
        process.environment = ProcessInfo.processInfo.environment.merging(["CLUP_ADMIN_TOKEN": BenchServer.token]) {
            $1
        }
        let started = ContinuousClock.now
        try process.run()
        var answered = false
        while !answered {
            guard process.isRunning else { throw BenchError("clup-server exited on \(database)") }
            if let client = try? LoopbackHTTP(port: port), let body = try? client.get("/healthz"), !body.isEmpty {
                answered = true
            } else {
                usleep(2_000)
            }
        }
        let seconds = (ContinuousClock.now - started).microseconds / 1e6
        let peak = Double(memory(of: process.processIdentifier, "VmHWM:")) / 1_048_576
        usleep(1_000_000)
        let steady = Double(residentBytes(of: process.processIdentifier)) / 1_048_576
        process.terminate()
        process.waitUntilExit()
        return (seconds, peak, steady)
    }

    /// The start of median time among `count` (with its memory figures).
    static func median(
        of count: Int,
        _ start: () throws -> (seconds: Double, peakMB: Double, steadyMB: Double)
    ) rethrows -> (seconds: Double, peakMB: Double, steadyMB: Double) {
        var starts: [(seconds: Double, peakMB: Double, steadyMB: Double)] = []
        for _ in 0..<count { starts.append(try start()) }
        return starts.sorted { $0.seconds < $1.seconds }[count / 2]
    }

    /// A line of /proc/`pid`/status, in bytes.
    static func memory(of pid: Int32, _ field: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) }),
            let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { return 0 }
        return kilobytes * 1024
    }

    static func profile(_ n: Int) -> StoreProfile {
        StoreProfile(
            name: "History Market \(n)",
            address: "\(n) Archive Street",
            location: .init(latitude: 45.46, longitude: 9.19),
            capacity: 50,
            openingHours: Array(repeating: StoreProfile.Hours(open: "08:00", close: "20:00"), count: 7),
            timeZone: "UTC",
            averageVisitMinutes: 20,
            slotMinutes: 15,
            slotSize: 4
        )
    }
}
