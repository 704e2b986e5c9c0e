import ArgumentParser

/// `clup-bench`: latency and throughput benchmarks (not timed tests). `make bench` runs them in release mode.
struct ClupBench: ParsableCommand {
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

    func run() throws {
        try PrinterBenchmarks.encode(profileID: profile, iterations: max(count, 1000))
        try PrinterBenchmarks.compareWithPython(profileID: profile, count: count, python: python)
    }
}

ClupBench.main()
