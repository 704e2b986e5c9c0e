import DeviceEmulators
import Drivers
import Foundation
import KioskStation
import Testing

@testable import Rigs

/// A real cupsd with a raw queue pointing at the emulator (socket://): a job through libcups arrives
/// byte-identical, and the queue's state comes back through IPP.
@Suite(.serialized) struct CUPSTests {
    @Test(.enabled(if: HIL.isRoot, "needs root to start a private cupsd; run make test as root (CI does)"))
    func rawJobArrivesByteIdentical() throws {
        if HIL.which("cupsd") == nil || !FileManager.default.fileExists(atPath: "/usr/lib/cups/backend/socket") {
            Issue.record("cupsd or its socket backend is missing: apt-get install cups (make test does it)")
            return
        }
        let rig = try EmulatorRig(profile: "epson-tm-t88")
        defer { rig.stop() }
        let cups = try CupsdRig()
        defer { cups.stop() }
        try cups.addRawQueue("clup-test", uri: "socket://127.0.0.1:\(rig.tcp.port)")
        // `kioskd devices` lists the queue with its device URI.
        let queues = try DeviceDiscovery.cupsQueues(server: cups.socket).get()
        #expect(queues.map(\.address) == ["cups://clup-test"])
        #expect(queues.first?.summary.contains("socket://127.0.0.1:\(rig.tcp.port)") == true)

        let address = try PrinterAddress(parsing: "cups://clup-test?server=\(cups.socket)")
        let transport = address.makeTransport()
        try transport.open()
        defer { transport.close() }
        #expect(transport.hasBackChannel == false)
        #expect(try transport.deviceStatus()?.canPrint == true)

        // Every byte value, so a filter that touched the data would show.
        let bytes = try EscPosEncoder(profile: rig.profile).encode(TestTicket.document())
        let job: [UInt8] =
            Array(bytes.prefix(bytes.count - 3)) + (0...255).map { UInt8($0) } + [0x0A] + EscPos.cut(partial: true)
        try transport.write(Array(job), timeout: .seconds(10))
        let tickets = try #require(rig.emulator.waitForTickets(count: 1, timeout: .seconds(30)))
        #expect(tickets[0].bytes == Array(job))
        #expect(tickets[0].text.contains("A042"))
    }

    @Test(.enabled(if: HIL.isRoot, "needs root to start a private cupsd; run make test as root (CI does)"))
    func unknownQueueAndStoppedQueueAreReported() throws {
        if HIL.which("cupsd") == nil {
            Issue.record("cupsd is missing: apt-get install cups (make test does it)")
            return
        }
        let cups = try CupsdRig()
        defer { cups.stop() }
        do {
            try CUPSTransport(queue: "no-such-queue", server: cups.socket).open()
            Issue.record("opened a CUPS queue that does not exist")
        } catch {
            #expect(error.code == .notFound)
            #expect(error.message.contains("lpadmin"))
        }
        try cups.addRawQueue("stopped", uri: "socket://127.0.0.1:9")
        _ = try HIL.run("cupsdisable", ["-h", cups.socket, "stopped"])
        let transport = CUPSTransport(queue: "stopped", server: cups.socket)
        try transport.open()
        defer { transport.close() }
        #expect(try transport.deviceStatus()?[.offline] == true)
    }
}
