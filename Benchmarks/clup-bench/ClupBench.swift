import ArgumentParser

@main

/// `clup-bench`: latency and throughput benchmarks (not timed tests). `make bench` runs them in release mode.
struct ClupBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clup-bench",
        abstract: "CLup kiosk benchmarks: prints p50/p99 and the ratios the issues ask for."
    )

    @Option(help: "Printer profile for the printer benchmarks.")
    var profile = "epson-tm-t88"

    @Option(help: "Tickets per run.")
    var count = 1000

    @Option(help: "A Python with python-escpos, for the side-by-side comparison.")
    var python: String?

    @Option(help: "Tear-offs per station benchmark run.")
    var tearOffs = 300

    @Option(help: "Scans per door benchmark run.")
    var scans = 1000

    @Option(help: "Concurrent app clients for the server benchmark.")
    var clients = 8

    @Option(help: "Virtual tickets per client.")
    var ticketsPerClient = 1000

    @Option(help: "Events a kiosk keeps while the server is down, for the outbox drain benchmark.")
    var outboxEvents = 10_000

    @Option(help: "Idle keep-alive connections for the connection-cost benchmark.")
    var idleConnections = 2000

    @Option(help: "Shoppers following their tickets' live pages at once, for the pages benchmark.")
    var viewers = 200

    @Option(help: "Admissions watched in Chromium, for the pages benchmark.")
    var admissions = 50

    @Option(help: "Tear-offs through kioskd as its own process, for the daemon soak (0: footprint only).")
    var soakTearOffs = 20_000

    @Option(help: "The kioskd binary for the daemon benchmarks (default: the one next to clup-bench).")
    var kioskd: String?

    @Option(help: "Stores (2 kiosks each) long-polling one replica, for the fleet benchmark.")
    var fleetStores = 1000

    @Option(help: "The wait estimate's scenario files, for the estimate benchmark.")
    var scenarios = "Benchmarks/scenarios"

    @Option(help: "Stores drawn at random (seeds 1…N) beside the named scenarios, for the estimate benchmark.")
    var drawnStores = 40

    @Option(help: "Tickets a day in the history benchmark's store logs.")
    var historyTicketsPerDay = 1000

    @Option(
        help:
            "Which benchmarks: all, printer, station, door, server, flood, sync, pages, daemon, fleet, estimate, history."
    )
    var only = "all"

    func run() async throws {
        if only == "all" || only == "printer" {
            try PrinterBenchmarks.encode(profileID: profile, iterations: max(count, 1000))
            try PrinterBenchmarks.compareWithPython(profileID: profile, count: count, python: python)
        }
        if only == "all" || only == "station" {
            try await StationBenchmarks.tearOff(count: tearOffs)
        }
        if only == "all" || only == "door" {
            try await DoorBenchmarks.scanToDecision(count: scans)
            try await EntranceBenchmarks.scanToLightAndVoice(count: min(scans, 100))
        }
        if only == "all" || only == "server" {
            try await ServerBenchmarks.virtualTickets(clients: clients, perClient: ticketsPerClient)
            try await ServerBenchmarks.lineLength()
        }
        if only == "all" || only == "flood" {
            try await FloodBenchmarks.servedUnderFlood(servedClients: 8, requests: 200, floodConnections: 64)
            try await FloodBenchmarks.connectionsPerMegabyte(count: idleConnections)
            for addresses in [100, 1000] { try await FloodBenchmarks.manyAddresses(addresses, shoppers: 20) }
        }
        if only == "all" || only == "pages" {
            try await PageBenchmarks.ticketPage(count: count)
            if viewers > 0 { try await PageBenchmarks.liveViewers(viewers: viewers, rounds: 20) }
            if admissions > 0 { try await PageBenchmarks.admissionToPage(count: admissions, python: python) }
        }
        if only == "all" || only == "sync" {
            try await SyncBenchmarks.tearOffToServer(count: tearOffs)
            try await SyncBenchmarks.outboxDrain(events: outboxEvents)
            try await SyncBenchmarks.pullPastNewerEvents(events: 20_000)
        }
        if only == "all" || only == "fleet" {
            try await FleetBenchmarks.run(clients: clients, perClient: ticketsPerClient / 2, stores: fleetStores)
        }
        if only == "all" || only == "history" {
            try await HistoryBenchmarks.run(ticketsPerDay: historyTicketsPerDay)
            try await HistoryBenchmarks.kiosk(binary: kioskd, ticketsPerDay: historyTicketsPerDay)
        }
        if only == "all" || only == "estimate" {
            try await EstimateBenchmarks.run(scenarios: scenarios, drawn: drawnStores)
        }
        if only == "all" || only == "daemon" {
            try await DaemonBenchmarks.footprintAndSoak(binary: kioskd, tearOffs: soakTearOffs)
        }
    }
}
