import Drivers
import Logging

/// Why a device cannot be used now, as its driver said it: what the operator reads, the state the status
/// shows, and whether the device is missing (its arrival is then watched for).
struct DeviceFault: Error {
    var message: String
    var state: DeviceState
    /// Not there at all (unplugged): its coming back ends the pause before the next attempt.
    var missing: Bool
    /// The device node to watch for, when nothing else says the device came back.
    var node: String?

    init(_ error: ScannerError, path: String) {
        message = error.message
        state = .disconnected
        missing = error.code == .notFound
        node = path
    }

    init(_ error: PrinterError) {
        message = error.message
        state = .disconnected
        missing = error.code == .notFound
        node = nil
    }

    /// `device` once its `open` succeeded (a scanner, an input device), or the fault its failure is.
    static func opening<Device>(
        _ device: Device,
        path: String,
        _ open: () throws(ScannerError) -> Void
    ) throws(DeviceFault) -> Device {
        do throws(ScannerError) {
            try open()
            return device
        } catch {
            throw DeviceFault(error, path: path)
        }
    }

    init(_ error: GPIOError) {
        message = error.message
        state = .unavailable(error.message)
        missing = false
        node = nil
    }
}

/// One device kept open on its loop's thread: opened when it is not (the attempts paced by
/// ``ReconnectBackoff``, 200 ms doubling to 2 s, a missing node's arrival ending the pause at once), a
/// failure logged once per cause rather than once per attempt, and the device's ``DeviceState`` published on
/// every change. The printer's, the scanner's, the exit key's, the exit beams' and the light's loops each keep
/// only their turn: what they do with the open device.
final class DeviceRunner<Device> {
    /// What the log says, for this device.
    struct Words {
        /// Logged when it opens: "scanner connected".
        var ready: String
        /// Logged when it cannot be opened (once per cause): "scanner not reachable".
        var unreachable: String
        /// Logged when a turn loses it: "scanner went away".
        var lost: String
        /// Which device, with every line of it.
        var about: Logger.Metadata = [:]
        /// Logged when a missing device's arrival ended the pause: "the printer is plugged in again".
        var back: String?

        /// The words of lines on GPIO chips: `name` ready, or not working and what that means (`without`),
        /// each line named.
        static func gpio<Key>(_ name: String, without: String, lines: [Key: GPIOLineAddress]) -> Words {
            Words(
                ready: "\(name) ready",
                unreachable: "the \(name) do not work (\(without))",
                lost: "the \(name) stopped working (\(without))",
                about: ["lines": "\(lines.values.map { "\($0)" }.sorted().joined(separator: ", "))"]
            )
        }
    }

    let words: Words
    let signal: StopSignal
    let logger: Logger
    private let opening: () throws(DeviceFault) -> Device
    private let closing: (Device) -> Void
    private let publishing: (DeviceState) -> Void
    /// What tells of a missing device's arrival (the printer's libusb hotplug); else its node's appearing.
    private let arrival: (() -> (any ArrivalWatch)?)?
    private var backoff = ReconnectBackoff()
    /// Why it could not be opened, while it cannot.
    private var cause: String?
    private var published: DeviceState?
    private(set) var device: Device?

    init(
        _ words: Words,
        signal: StopSignal,
        logger: Logger,
        open: @escaping () throws(DeviceFault) -> Device,
        close: @escaping (Device) -> Void,
        publish: @escaping (DeviceState) -> Void,
        arrival: (() -> (any ArrivalWatch)?)? = nil
    ) {
        self.arrival = arrival
        self.words = words
        self.signal = signal
        self.logger = logger
        opening = open
        closing = close
        publishing = publish
    }

    /// Runs `turn` with the open device until the station stops, `between` after every turn and every attempt
    /// (a heartbeat); a turn that throws a fault has lost the device, which is closed and opened again.
    func run(between: () -> Void = {}, turn: (Device) throws(DeviceFault) -> Void) {
        while !signal.isStopped {
            if let device = opened() {
                do throws(DeviceFault) {
                    try turn(device)
                } catch {
                    lost(error)
                }
            }
            between()
        }
        if let device { closing(device) }
        device = nil
    }

    /// The device, opened now if it was not; nil after a failed attempt and the pause that follows it.
    func opened() -> Device? {
        if let device { return device }
        do throws(DeviceFault) {
            let made = try opening()
            device = made
            backoff.reset()
            cause = nil
            publish(.ready)
            logger.notice("\(words.ready)", metadata: words.about)
            return made
        } catch {
            publish(error.state)
            if cause != error.message {
                cause = error.message
                logger.warning(
                    "\(words.unreachable)",
                    metadata: words.about.merging(["error": "\(error.message)"]) { $1 }
                )
            }
            let watch = error.missing ? (arrival?() ?? error.node.map { DeviceNodeWatch(path: $0) }) : nil
            if backoff.wait(on: signal, watch: watch), let back = words.back {
                logger.info("\(back)", metadata: words.about)
            }
            return nil
        }
    }

    /// The device went away during a turn: closed, and opened again by the next turn.
    func lost(_ fault: DeviceFault) {
        logger.warning("\(words.lost)", metadata: words.about.merging(["error": "\(fault.message)"]) { $1 })
        if let device { closing(device) }
        device = nil
        publish(fault.state)
    }

    /// Publishes `state` when it is not what was published last (a blocked beam, cleared again).
    func publish(_ state: DeviceState) {
        guard state != published else { return }
        published = state
        publishing(state)
    }
}
