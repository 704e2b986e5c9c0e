import ClusterRigs
import Foundation
import Glibc

/// clup-server for a chain (issue #18): virtual tickets per second from one SQLite process against PostgreSQL
/// with 1, 2 and 3 replicas (clup-server processes on a private cluster of Debian's server, the clients spread
/// over the replicas as a load balancer would) at two crowds of clients, with the CPU a ticket cost each party
/// and the writes a PostgreSQL transaction held; the wake-up of a long-poll on one replica by a push through
/// another, and what 1,000 stores × 2 kiosks long-polling cost one replica (memory, idle CPU). Everything shares
/// this machine's 2 cores: the clients, the replicas and PostgreSQL.
enum FleetBenchmarks {
    static let token = BenchServer.token

    static func run(clients: Int, perClient: Int, stores: Int) async throws {
        let directory = Programs.temporaryDirectory("bench-fleet")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        func replica(_ database: String, _ name: String) throws -> ServerProcess {
            try ServerProcess(database: database, directory: directory, name: name, adminToken: token)
        }
        let cluster = try PostgresRig()
        defer { cluster.stop() }
        // As many clients as the server benchmark, then four times as many (a national app's rush): PostgreSQL's
        // per-transaction costs are shared by the writes a transaction holds, and more clients wait together.
        for (level, crowd) in [clients, clients * 4].enumerated() {
            let each = perClient * clients / crowd
            print("\n== Fleet: virtual tickets, \(crowd) clients × \(each), spread over the replicas")
            let sqlite = try await tickets([try replica("\(directory)/one-\(crowd).sqlite", "sqlite")], crowd, each)
            print("SQLite, 1 process: \(sqlite)")
            var rates: [Int: Double] = [:]
            for count in 1...3 {
                let database = try cluster.createDatabase()
                let replicas = try (0..<count).map { try replica(database, "pg\(count)-\($0)") }
                let result = try await tickets(replicas, crowd, each)
                rates[count] = result.rate
                print("PostgreSQL, \(count) replica\(count == 1 ? "" : "s"): \(result)")
                if count == 1 && level == 0 { try databaseSize(cluster, database, events: result.samples.count) }
            }
            print(
                "PostgreSQL ÷ SQLite: 1 replica \(fmt((rates[1] ?? 0) / sqlite.rate, 2))×, 2 replicas "
                    + "\(fmt((rates[2] ?? 0) / sqlite.rate, 2))× (goal ≥ 1), 3 replicas \(fmt((rates[3] ?? 0) / sqlite.rate, 2))× "
                    + "— the clients, the replicas and the database share 2 cores"
            )
        }
        let database = try cluster.createDatabase()
        try await wakeUps(try replica(database, "wake-1"), try replica(database, "wake-2"), count: 200)
        try await longPolls(try replica(try cluster.createDatabase(), "polls"), stores: stores)
    }

    /// The database's size on disk per event after the run (one store, `events` app tickets — one event each —
    /// and its day's start), and what that makes a year of a busy store: 2,000 customers a day, 4 events each
    /// (issued, taken or called, admitted, exited).
    static func databaseSize(_ cluster: PostgresRig, _ url: String, events: Int) throws {
        let name = String(url.split(separator: "/").last ?? "")
        let size = try cluster.sql("SELECT pg_database_size(current_database())", database: name)
        let empty = try cluster.sql("SELECT pg_database_size('template1')")
        guard let bytes = Double(size.output.trimmingCharacters(in: .whitespacesAndNewlines)),
            let base = Double(empty.output.trimmingCharacters(in: .whitespacesAndNewlines))
        else { throw BenchError("pg_database_size: \(size.error)\(empty.error)") }
        let perEvent = (bytes - base) / Double(events)
        print(
            "database: \(fmt((bytes - base) / 1_048_576, 1)) MiB over an empty one for \(events) events → "
                + "\(Int(perEvent)) bytes an event (log, tickets, indexes) → a store of 2,000 customers a day "
                + "(4 events each) \(fmt(perEvent * 8000 * 365 / 1_073_741_824, 2)) GiB a year"
        )
    }

    struct Result: CustomStringConvertible {
        var rate: Double
        var samples: Samples
        /// CPU time a ticket cost, µs: the clup-server processes, PostgreSQL's, and the clients (this process).
        var cpu: (servers: Double, database: Double, clients: Double)
        /// Writes a PostgreSQL transaction held on average (nil on SQLite, which does not export it).
        var writesPerTransaction: Double?
        /// Reads of the log the replicas needed to catch up, a ticket (nil on SQLite).
        var logReads: Double?
        var description: String {
            "\(Int(rate)) tickets/s, request p50 \(fmt(samples.p50, 2)) ms / p99 \(fmt(samples.p99, 2)) ms; "
                + "CPU a ticket \(Int(cpu.servers + cpu.database + cpu.clients)) µs (servers \(Int(cpu.servers)), "
                + "PostgreSQL \(Int(cpu.database)), clients \(Int(cpu.clients)))"
                + (writesPerTransaction.map { "; \(fmt($0, 1)) writes a transaction" } ?? "")
                + (logReads.map { "; \(fmt($0, 2)) log reads a ticket" } ?? "")
        }
    }

    /// CPU ticks so far of the replicas, of every PostgreSQL process, and of this process.
    static func cpuTicks(_ replicas: [ServerProcess]) -> (servers: Int, database: Int, clients: Int) {
        let servers = replicas.compactMap(\.pid).map(cpuTicks(of:)).reduce(0, +)
        var database = 0
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry),
                let name = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8),
                name.hasPrefix("postgres")
            else { continue }
            database += cpuTicks(of: pid)
        }
        return (servers, database, cpuTicks(of: getpid()))
    }

    /// `clients` threads, client c on replica c mod n, each taking `perClient` tickets for as many addresses.
    static func tickets(_ replicas: [ServerProcess], _ clients: Int, _ perClient: Int) async throws -> Result {
        defer { for replica in replicas { replica.stop() } }
        let store = try BenchServer.registerStore(port: replicas[0].port, token: token, capacity: 100_000)
        // Every replica knows the store before the clock starts.
        for replica in replicas {
            var known = false
            for _ in 0..<250 where !known {
                let answer = try LoopbackHTTP(port: replica.port).request("GET", "/v1/stores?q=Bench")
                known = String(decoding: answer, as: UTF8.self).contains(store)
                if !known { usleep(20_000) }
            }
            guard known else { throw BenchError("replica \(replica.port) never heard of the store") }
        }
        let before = cpuTicks(replicas)
        let (all, elapsed) = try await ServerBenchmarks.takeTickets(
            ports: replicas.map(\.port),
            store: store,
            clients: clients,
            perClient: perClient
        )
        let after = cpuTicks(replicas)
        var batches = (writes: 0.0, transactions: 0.0, reads: 0.0)
        for replica in replicas {
            let figures = try metrics(replica)
            batches.writes += figures["clup_db_writes_per_transaction_sum", default: 0]
            batches.transactions += figures["clup_db_writes_per_transaction_count", default: 0]
            batches.reads += figures["clup_log_reads_total", default: 0]
        }
        let perTicket = 1e6 / Double(sysconf(Int32(_SC_CLK_TCK))) / Double(all.count)
        return Result(
            rate: Double(all.count) / (elapsed.microseconds / 1e6),
            samples: all,
            cpu: (
                Double(after.servers - before.servers) * perTicket,
                Double(after.database - before.database) * perTicket,
                Double(after.clients - before.clients) * perTicket
            ),
            writesPerTransaction: batches.transactions > 0 ? batches.writes / batches.transactions : nil,
            logReads: batches.transactions > 0 ? batches.reads / Double(all.count) : nil
        )
    }

    /// A replica's metrics (`GET /metrics`), each name's samples summed over their labels.
    static func metrics(_ replica: ServerProcess) throws -> [String: Double] {
        let text = String(
            decoding: try LoopbackHTTP(port: replica.port).request("GET", "/metrics", bearer: token),
            as: UTF8.self
        )
        var figures: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
                continue
            }
            let name = line[..<space].prefix { $0 != "{" && $0 != " " }
            figures[String(name), default: 0] += value
        }
        return figures
    }

    /// A kiosk long-polls replica one; another pushes an event through replica two; the time from sending the
    /// push until the poll's answer (replica two's commit and NOTIFY, replica one's catch-up and answer).
    static func wakeUps(_ one: ServerProcess, _ two: ServerProcess, count: Int) async throws {
        defer {
            one.stop()
            two.stop()
        }
        let store = try BenchServer.registerStore(port: one.port, token: token, capacity: 100)
        let credential = try BenchServer.enroll("k1", store: store, port: one.port, token: token)
        let samples = try await FloodBenchmarks.onThread {
            let poller = try LoopbackHTTP(port: one.port)
            let pusher = try LoopbackHTTP(port: two.port)
            var samples = Samples()
            var last = 0
            for n in 0..<count {
                poller.begin("GET", "/v1/stores/\(store)/events?after=\(last)&wait=10", bearer: credential)
                usleep(20_000)  // the poll is waiting
                let event = """
                    {"events":[{"id":"\(UUID())","store":"\(store)","device":"k1",
                    "time":\(Int64(Date().timeIntervalSince1970 * 1000)),"body":{"type":"scanRefused","reason":"bench","door":"k1"}}]}
                    """
                let pushed = ContinuousClock.now
                _ = try pusher.request("POST", "/v1/stores/\(store)/events", json: event, bearer: credential)
                let page = try poller.answer(to: "the long-poll")
                samples.add((ContinuousClock.now - pushed).microseconds / 1000)
                guard let object = try? JSONSerialization.jsonObject(with: Data(page)) as? [String: Any],
                    let through = object["last"] as? Int, through > last
                else { throw BenchError("wake-up \(n): \(String(decoding: page, as: UTF8.self))") }
                last = through
            }
            return samples
        }
        // What replica one's own figure says of the same wake-ups (from the database's clock at the push's
        // statement to its queue holding the event).
        let figures = try metrics(one)
        let lag =
            figures["clup_notify_lag_seconds_sum", default: 0]
            / max(figures["clup_notify_lag_seconds_count", default: 0], 1)
        print(
            "\n== Cross-replica wake-up, \(count) pushes: the long-poll on replica one answers p50 "
                + "\(fmt(samples.p50, 1)) ms / p99 \(fmt(samples.p99, 1)) ms after the push to replica two was sent "
                + "(goal p99 ≤ 200 ms); replica one's clup_notify_lag_seconds: mean \(fmt(lag * 1000, 1)) ms over "
                + "\(Int(figures["clup_notify_lag_seconds_count", default: 0])) notifications"
        )
    }

    /// `stores` stores with 2 kiosks each, every kiosk long-polling one replica (wait 60 s): the replica's
    /// resident memory before and with them, and its CPU over 10 s of that idle crowd.
    static func longPolls(_ replica: ServerProcess, stores: Int) async throws {
        defer { replica.stop() }
        guard let pid = replica.pid else { throw BenchError("the replica is not running") }
        let admin = try LoopbackHTTP(port: replica.port)
        var kiosks: [(store: String, credential: String)] = []
        for n in 0..<stores {
            let store = try BenchServer.registerStore(
                port: replica.port,
                token: token,
                capacity: 50,
                name: "Market \(n)",
                client: admin
            )
            for k in 0..<2 {
                let credential = try BenchServer.enroll(
                    "k\(k)",
                    store: store,
                    port: replica.port,
                    token: token,
                    client: admin
                )
                kiosks.append((store, credential))
                // Half on an older kioskd, for the fleet view's version filter.
                let report = """
                    {"version":"\(k == 0 ? "0.1.340" : "0.1.300")","printer":"ready","pendingEvents":0,\
                    "clock":\(Int64(Date().timeIntervalSince1970 * 1000))}
                    """
                _ = try admin.request(
                    "PUT",
                    "/v1/devices/self/health",
                    json: report,
                    bearer: credential,
                    headers: ["CLup-Sync-Protocol": "2"]
                )
            }
        }
        try await Task.sleep(for: .seconds(2))
        let before = residentBytes(of: pid)
        var polls: [LoopbackHTTP] = []
        for kiosk in kiosks {
            let poll = try LoopbackHTTP(port: replica.port)
            poll.begin("GET", "/v1/stores/\(kiosk.store)/events?after=1000000&wait=60", bearer: kiosk.credential)
            polls.append(poll)
        }
        try await Task.sleep(for: .seconds(3))
        let with = residentBytes(of: pid)
        let ticks = cpuTicks(of: pid)
        try await Task.sleep(for: .seconds(10))
        let idle = Double(cpuTicks(of: pid) - ticks) / Double(sysconf(Int32(_SC_CLK_TCK))) / 10 * 100
        print(
            "\n== \(stores) stores × 2 kiosks long-polling one replica: RSS \(fmt(Double(before) / 1_048_576, 1)) → "
                + "\(fmt(Double(with) / 1_048_576, 1)) MiB (\(fmt(Double(with - before) / Double(kiosks.count) / 1024, 1))"
                + " KB a waiting kiosk), CPU over 10 s of waiting \(fmt(idle, 1)) % of one core"
        )
        try fleetView(replica, kiosks: kiosks.count)
        polls.removeAll()
    }

    /// The system manager's fleet view with every kiosk of the long-poll crowd heard from: `GET /v1/devices`
    /// (JSON) and the console's page (`/console/fleet`, HTML), each asked 100 times, whole and filtered.
    static func fleetView(_ replica: ServerProcess, kiosks: Int) throws {
        let client = try LoopbackHTTP(port: replica.port)
        let cookie = try client.consoleSession(token: token)
        var lines: [String] = []
        for (name, path, bearer) in [
            ("GET /v1/devices", "/v1/devices", true),
            ("GET /v1/devices?problem=silent", "/v1/devices?problem=silent", true),
            ("/console/fleet", "/console/fleet", false),
            ("/console/fleet?version=0.1.300", "/console/fleet?version=0.1.300", false),
        ] {
            var samples = Samples()
            var bytes = 0
            for _ in 0..<100 {
                let began = ContinuousClock.now
                let body = try client.request(
                    "GET",
                    path,
                    bearer: bearer ? token : nil,
                    headers: bearer ? [:] : ["Cookie": cookie]
                )
                samples.add((ContinuousClock.now - began).microseconds / 1000)
                bytes = body.count
                guard client.head.hasPrefix("HTTP/1.1 200") else { throw BenchError("\(name): \(client.head)") }
            }
            lines.append("\(name): p50 \(fmt(samples.p50, 1)) ms / p99 \(fmt(samples.p99, 1)) ms, \(bytes / 1024) KB")
        }
        print("\n== The fleet view of \(kiosks) kiosks (goal p99 ≤ 200 ms)\n" + lines.joined(separator: "\n"))
    }

    /// utime + stime of a process, in clock ticks.
    static func cpuTicks(of pid: Int32) -> Int {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return 0 }
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        return (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
    }
}
