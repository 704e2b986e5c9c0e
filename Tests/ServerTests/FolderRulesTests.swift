import Foundation
import Testing

@testable import Rigs

/// clup-server's folder rules (Scripts/check-rules.py, docs/architecture.md): its routes, pages and console
/// call the services, never storage or the queues; its services, queues and model know no HTTP; the queues alone
/// make server events. Checked on the sources as they are, then on a copy with one line planted that breaks each
/// rule.
@Suite struct FolderRulesTests {
    static let script = "\(HIL.packageRoot)/Scripts/check-rules.py"

    func check(_ sources: String) throws -> (status: Int32, output: String) {
        let run = try HIL.run("python3", [Self.script, "--server-folders", sources])
        return (run.status, run.output)
    }

    @Test func theServersFoldersKeepTheirPlaces() throws {
        let run = try check("\(HIL.packageRoot)/Sources/CLupServer")
        #expect(run.status == 0, "\(run.output)")
    }

    @Test(arguments: [
        ("Routes/StoreRoutes.swift", "    let storage: any ServerStorage", "names ServerStorage"),
        ("Pages/TicketPage.swift", "    let queues: StoreQueues", "names StoreQueues"),
        ("Console/StoreConsole.swift", "    func f() { _ = office.logs.all }", "names logs"),
        ("Services/ShopperDesk.swift", "import Hummingbird", "imports Hummingbird"),
        ("Queues/StoreQueues.swift", "    func f() throws { throw APIError.failed }", "names APIError"),
        (
            "Services/StoreOffice.swift", "    let e = StoreEvent.new(.customerExited, store: s, device: d, at: t)",
            "makes a server event"
        ),
    ])
    func aLineThatBreaksARuleIsNamed(file: String, line: String, said: String) throws {
        let copy = HIL.temporaryDirectory("folder-rules")
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let sources = "\(copy)/CLupServer"
        try FileManager.default.copyItem(atPath: "\(HIL.packageRoot)/Sources/CLupServer", toPath: sources)
        let path = "\(sources)/\(file)"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        try (text + "\n// planted:\n" + line + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        let run = try check(sources)
        #expect(run.status == 1, "\(run.output)")
        #expect(run.output.contains(file) && run.output.contains(said), "\(run.output)")
    }

    /// The station's log is written through `StationLog` alone: station code that imports its seeding SPI (which
    /// tests and benchmarks use to fill a log) is named.
    @Test func stationCodeThatSeedsTheLogIsNamed() throws {
        let copy = HIL.temporaryDirectory("import-rules")
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let station = "\(copy)/KioskStation"
        try FileManager.default.copyItem(atPath: "\(HIL.packageRoot)/Sources/KioskStation", toPath: station)
        #expect(try HIL.run("python3", [Self.script, "--imports", copy]).status == 0)
        let path = "\(station)/Voice/CallBoard.swift"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        try ("@_spi(Seeding) import StationStore\n" + text).write(toFile: path, atomically: true, encoding: .utf8)
        let run = try HIL.run("python3", [Self.script, "--imports", copy])
        #expect(run.status == 1, "\(run.output)")
        #expect(run.output.contains("CallBoard.swift:1: imports StationStore for seeding"), "\(run.output)")
    }
}
