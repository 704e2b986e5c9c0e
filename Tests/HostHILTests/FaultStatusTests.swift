import DeviceEmulators
import Drivers
import Testing

@testable import Rigs

/// For each profile, every fault the emulator can simulate is reported by the driver over a real transport.
@Suite(.serialized) struct FaultStatusTests {
    static let faults: [(on: PhysicalEvent, off: PhysicalEvent, condition: StatusCondition)] = [
        (.paperEnd(true), .paperEnd(false), .paperEnd),
        (.paperNearEnd(true), .paperNearEnd(false), .paperNearEnd),
        (.coverOpen(true), .coverOpen(false), .coverOpen),
        (.offline(true), .offline(false), .offline),
        (.cutterError(true), .cutterError(false), .cutterError),
    ]

    @Test(arguments: PrinterProfile.bundledIDs)
    func everyFaultIsReportedByPolling(_ id: String) throws {
        let rig = try EmulatorRig(profile: id)
        defer { rig.stop() }
        for address in [rig.tcpAddress, rig.serialAddress] {
            let device = PrinterDevice(
                transport: try PrinterAddress(parsing: address).makeTransport(),
                profile: rig.profile
            )
            try device.open()
            defer { device.close() }
            #expect(try device.queryStatus().canPrint, "\(id) over \(address) starts with a fault")
            for fault in Self.faults {
                rig.emulator.simulate(fault.on)
                let status = try device.queryStatus()
                #expect(status[fault.condition], "\(id) over \(address): \(fault.on) not reported")
                if fault.condition.stopsPrinting { #expect(!status.canPrint) }
                rig.emulator.simulate(fault.off)
                #expect(!(try device.queryStatus())[fault.condition], "\(id): \(fault.off) not reported")
            }
        }
    }

    @Test(
        arguments: PrinterProfile.bundledIDs.filter {
            (try? PrinterProfile.load(named: $0))?.automaticStatusBack == true
        }
    )
    func everyFaultIsPushedByAutomaticStatusBack(_ id: String) throws {
        let rig = try EmulatorRig(profile: id)
        defer { rig.stop() }
        let device = PrinterDevice(
            transport: try PrinterAddress(parsing: rig.tcpAddress).makeTransport(),
            profile: rig.profile
        )
        try device.open()
        defer { device.close() }
        try device.enableAutomaticStatusBack()
        #expect(try !device.readPushedStatus(timeout: .seconds(2)).isEmpty, "no ASB block after enabling it")
        for fault in Self.faults {
            rig.emulator.simulate(fault.on)
            let reports = try device.readPushedStatus(timeout: .seconds(2))
            #expect(reports.last?.source == .asb)
            #expect(device.status[fault.condition], "\(id): \(fault.on) not pushed")
            rig.emulator.simulate(fault.off)
            _ = try device.readPushedStatus(timeout: .seconds(2))
            #expect(!device.status[fault.condition], "\(id): \(fault.off) not pushed")
        }
    }
}
