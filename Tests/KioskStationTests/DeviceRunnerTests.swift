import Drivers
import Foundation
import Logging
import Synchronization
import Testing

@testable import KioskStation

/// The device runner the door's scanner, exit key and exit beams share: a device that cannot be opened is
/// tried again, its state published once and its cause logged once (not once per attempt); an open device is
/// turned; a turn that loses it closes it, says so, and opens it again.
@Suite struct DeviceRunnerTests {
    final class Lines: Sendable {
        let lines = Mutex<[String]>([])
        func count(_ text: String) -> Int { lines.withLock { $0.count { $0.hasSuffix(text) } } }
    }

    struct Capture: LogHandler {
        let lines: Lines
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        // swift-format-ignore: AlwaysUseLowerCamelCase
        func log(event: LogEvent) {
            lines.lines.withLock { $0.append("\(event.level) \(event.message)") }
        }
    }

    final class Device {
        var closed = false
    }

    @Test func aDeviceIsTriedAgainLoggedOncePerCauseAndReopenedWhenLost() {
        let lines = Lines()
        let logger = Logger(label: "test") { _ in Capture(lines: lines) }
        let signal = StopSignal()
        // What each attempt to open gives: three failures of one cause, a device, one failure, a device.
        var outcomes: [Result<Device, DeviceFault>] = [
            .failure(fault("held by another program")), .failure(fault("held by another program")),
            .failure(fault("held by another program")), .success(Device()),
            .failure(fault("no such device")), .success(Device()),
        ]
        var opened: [Device] = []
        var published: [DeviceState] = []
        var turns = 0
        let runner = DeviceRunner<Device>(
            .init(ready: "device ready", unreachable: "device not reachable", lost: "device went away"),
            signal: signal,
            logger: logger,
            open: { () throws(DeviceFault) in
                let device = try outcomes.removeFirst().get()
                opened.append(device)
                return device
            },
            close: { $0.closed = true },
            publish: { published.append($0) }
        )
        var betweens = 0
        runner.run(
            between: { betweens += 1 },
            turn: { _ throws(DeviceFault) in
                turns += 1
                if turns == 2 { throw fault("went away") }
                if turns == 3 { signal.stop() }
            }
        )

        #expect(turns == 3 && outcomes.isEmpty)
        #expect(
            published == [
                .unavailable("held by another program"), .ready, .unavailable("went away"),
                .unavailable("no such device"), .ready,
            ]
        )
        #expect(lines.count("device not reachable") == 2, "once per cause: \(lines.lines.withLock { $0 })")
        #expect(lines.count("device ready") == 2 && lines.count("device went away") == 1)
        #expect(opened.count == 2 && opened.allSatisfy(\.closed), "the lost one closed, the last one at the stop")
        #expect(betweens == 7, "after every attempt and every turn: the heartbeat goes on while it cannot open")
    }

    /// The status carries a device's state in the words the pages, the fleet and the rig's checks read.
    @Test func aDeviceStateIsWrittenInTheStatusesWords() throws {
        var status = DoorStationStatus(scanner: "serial:///dev/ttyACM0")
        status.beams = .blocked("the inner beam — clear the exit")
        status.lights = .unavailable("gpiochip9: no such chip")
        status.exitInput = .disconnected
        let json = String(decoding: try JSONEncoder().encode(status), as: UTF8.self)
        #expect(json.contains(#""beams":"blocked: the inner beam — clear the exit""#), "\(json)")
        #expect(json.contains(#""lights":"unavailable: gpiochip9: no such chip""#), "\(json)")
        #expect(json.contains(#""exitInput":"disconnected""#), "\(json)")
        #expect(try JSONDecoder().decode(DoorStationStatus.self, from: Data(json.utf8)) == status)
    }

    func fault(_ message: String) -> DeviceFault {
        DeviceFault(GPIOError(.notFound, device: "gpiochip0", message))
    }
}
