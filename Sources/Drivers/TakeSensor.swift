/// How a station sees a ticket sitting in the printer, and sees it go: the `[printer] take_sensor` setting.
public enum TakeSensor: String, Sendable, Equatable, CaseIterable {
    /// ASB if the profile pushes the presenter bit, else status polling if it has one, else manual.
    case auto
    case statusPoll = "status-poll"
    case asb
    /// An IR sensor on the serial port's CTS or DSR line (asserted = ticket present).
    case cts, dsr
    /// Only the local control API (`POST /printer/take`) says a ticket was taken.
    case manual

    /// What `auto` means for this printer; any other choice is kept.
    public func resolved(profile: PrinterProfile, address: PrinterAddress) -> TakeSensor {
        guard self == .auto else { return self }
        if case .cups = address { return .manual }
        if profile.automaticStatusBack && profile.status.conditions(of: .asb).contains(.ticketPresent) { return .asb }
        if profile.ticketPresentQuery != nil { return .statusPoll }
        return .manual
    }

    /// The modem line an IR sensor is wired to (`cts`, `dsr`).
    public var modemLine: ModemLine? {
        switch self {
        case .cts: return .cts
        case .dsr: return .dsr
        case .auto, .statusPoll, .asb, .manual: return nil
        }
    }

    /// Whether this sensor can see a ticket sitting in `profile`'s printer.
    public func seesPresence(profile: PrinterProfile) -> Bool {
        switch self {
        case .statusPoll, .asb, .auto: return profile.presenter
        case .cts, .dsr: return true
        case .manual: return false
        }
    }
}

/// A serial port's modem input lines a take-sensor can be wired to.
public enum ModemLine: Sendable, Equatable {
    case cts, dsr
}

extension PrinterDevice {
    /// Whether `sensor` sees a ticket in the printer now: the presenter bit of `status`, or the modem line; nil
    /// when it cannot tell.
    public func ticketPresent(by sensor: TakeSensor, in status: PrinterStatus) throws(PrinterError) -> Bool? {
        guard sensor.seesPresence(profile: profile) else { return nil }
        if let line = sensor.modemLine { return try transport.modemLine(line) }
        return status[.ticketPresent]
    }

    /// What `sensor` said since the last look, oldest first: the presenter bit of every status report since
    /// (polls and ASB pushes, so a ticket presented and taken between two looks still counts as seen), or the
    /// modem line now; empty when it cannot tell.
    public func presenceSamples(by sensor: TakeSensor, latest status: PrinterStatus) throws(PrinterError) -> [Bool] {
        guard sensor.seesPresence(profile: profile) else { return [] }
        if sensor.modemLine != nil { return try ticketPresent(by: sensor, in: status).map { [$0] } ?? [] }
        let samples = drainReports().compactMap { $0.conditions[.ticketPresent] }
        return samples.isEmpty ? [status[.ticketPresent]] : samples
    }

    /// Clears the printer's buffers of what is left of an interrupted ticket (``EscPos/clearBuffers``).
    public func clearBuffers() throws(PrinterError) {
        try send(EscPos.clearBuffers, timeout: .seconds(2))
    }
}
