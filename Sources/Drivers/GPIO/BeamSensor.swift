import CGPIOD
import KioskCore

#if canImport(Glibc)
import Glibc
#endif

/// A light beam across the exit going blocked or clear, when the kernel saw it (CLOCK_MONOTONIC).
public struct BeamEdge: Sendable, Equatable {
    public var beam: ExitBeamMachine.Beam
    public var blocked: Bool
    public var at: Duration

    public init(beam: ExitBeamMachine.Beam, blocked: Bool, at: Duration) {
        self.beam = beam
        self.blocked = blocked
        self.at = at
    }
}

/// The exit's beams: one (an exit-only door), or an inner and an outer one to tell out from in. Which way
/// someone went is ``ExitBeamMachine``'s; this only reports edges.
public protocol BeamSensor: AnyObject {
    var address: String { get }
    /// Each beam's state now (blocked or not).
    func blocked() throws(GPIOError) -> [ExitBeamMachine.Beam: Bool]
    /// Edges seen within `timeout` (none when it passed quietly), oldest first.
    func read(timeout: Duration) throws(GPIOError) -> [BeamEdge]
    /// The clock the edges are stamped with, now.
    func now() -> Duration
    func close()
}

/// Beams on GPIO input lines, through libgpiod's line events (both edges, stamped by the kernel). "Blocked" is
/// the active level: high, or low with `activeLow` (a receiver whose output drops when the beam is cut).
public final class GPIODBeamSensor: BeamSensor {
    private let chips: GPIODChips
    private var lines: [(beam: ExitBeamMachine.Beam, handle: OpaquePointer, fd: Int32)] = []
    public let address: String

    public init(_ wiring: [ExitBeamMachine.Beam: GPIOLineAddress], activeLow: Bool) throws(GPIOError) {
        let ordered = ExitBeamMachine.Beam.allCases.compactMap { beam in wiring[beam].map { (beam, $0) } }
        address = ordered.map { "\($0.0.rawValue) \($0.1)" }.joined(separator: ", ")
        chips = try GPIODChips(for: address)
        for (beam, where_) in ordered {
            let handle = try chips.edges(where_, activeLow: activeLow)
            lines.append((beam, handle, chips.api.gpiod_line_event_get_fd(handle)))
        }
    }

    public func blocked() throws(GPIOError) -> [ExitBeamMachine.Beam: Bool] {
        var states: [ExitBeamMachine.Beam: Bool] = [:]
        for line in lines {
            let value = chips.api.gpiod_line_get_value(line.handle)
            guard value >= 0 else { throw GPIOError(.io, device: address, "cannot read the \(line.beam) beam") }
            states[line.beam] = value == 1
        }
        return states
    }

    public func read(timeout: Duration) throws(GPIOError) -> [BeamEdge] {
        var polled = lines.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
        let ready: Int32
        do {
            ready = try syscall("poll") { poll(&polled, nfds_t(polled.count), CInt(clamping: timeout.milliseconds)) }
        } catch {
            throw GPIOError(.io, device: address, "cannot wait for the beams (\(error))")
        }
        guard ready > 0 else { return [] }
        var edges: [BeamEdge] = []
        for (index, line) in lines.enumerated() where polled[index].revents != 0 {
            guard polled[index].revents & Int16(POLLIN) != 0 else {
                throw GPIOError(
                    .io,
                    device: address,
                    "the \(line.beam) beam's line went away — is the adapter still there?"
                )
            }
            var event = gpiod_line_event()
            guard chips.api.gpiod_line_event_read(line.handle, &event) == 0 else {
                throw GPIOError(.io, device: address, "cannot read the \(line.beam) beam's event")
            }
            let at = Duration.seconds(event.ts.tv_sec) + .nanoseconds(event.ts.tv_nsec)
            edges.append(
                BeamEdge(beam: line.beam, blocked: event.event_type == Int32(GPIOD_LINE_EVENT_RISING_EDGE), at: at)
            )
        }
        return edges.sorted { $0.at < $1.at }
    }

    public func now() -> Duration { GPIODChips.now() }

    public func close() {
        lines = []
        chips.close()
    }
}
