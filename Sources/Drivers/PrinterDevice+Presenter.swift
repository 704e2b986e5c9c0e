import Glibc

extension PrinterDevice {
    /// Whether this printer can pull a presented ticket back in and show that it did: a `retract` command in
    /// its profile and a presenter sensor it can be asked about.
    public var canRetract: Bool {
        profile.retract != nil && profile.presenter && transport.hasBackChannel && profile.ticketPresentQuery != nil
    }

    /// What became of a presented ticket after the retract command.
    public enum RetractResult: Sendable, Equatable {
        /// It went back in: the printer says so (``StatusCondition/ticketRetracted``).
        case retracted
        /// It left the mouth, and the printer cannot tell whether it went back in or a customer took it.
        case gone
        /// A customer took it: it left the mouth and the printer says it did not go back in.
        case taken
        /// It stayed out (the printer's retract function is off in its setup, or the command is not this
        /// model's).
        case stayed
    }

    /// Whether this printer tells a retracted ticket from a taken one (its profile maps `ticket_retracted`).
    public var tellsRetractedFromTaken: Bool {
        StatusSource.allCases.contains { profile.status.conditions(of: $0).contains(.ticketRetracted) }
    }

    /// Pulls the presented ticket back into the printer (the profile's `retract` command) and watches the
    /// presenter sensor for up to `timeout`.
    public func retractPresentedTicket(timeout: Duration = .seconds(3)) throws(PrinterError) -> RetractResult {
        guard canRetract, let command = profile.retract else {
            throw PrinterError(.unsupported, device: transport.address, "\(profile.name) cannot retract a ticket")
        }
        try send(command, timeout: .seconds(2))
        let deadline = ContinuousClock.now + timeout
        while true {
            let status = try queryStatus()
            if !status[.ticketPresent] {
                guard tellsRetractedFromTaken else { return .gone }
                return status[.ticketRetracted] ? .retracted : .taken
            }
            guard ContinuousClock.now < deadline else { return .stayed }
            usleep(50_000)  // a presenter's rollers take a few hundred milliseconds
        }
    }
}
