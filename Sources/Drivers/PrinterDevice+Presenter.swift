import Glibc

extension PrinterDevice {
    /// Whether this printer can pull a presented ticket back in and show that it did: a `retract` command in
    /// its profile and a presenter sensor it can be asked about.
    public var canRetract: Bool {
        profile.retract != nil && profile.presenter && transport.hasBackChannel && profile.ticketPresentQuery != nil
    }

    /// Pulls the presented ticket back into the printer (the profile's `retract` command) and watches the
    /// presenter sensor for up to `timeout`. True once the ticket is gone from the mouth; false when it stayed
    /// (the printer's retract function is off in its setup, or the profile's command is not this model's).
    public func retractPresentedTicket(timeout: Duration = .seconds(3)) throws(PrinterError) -> Bool {
        guard canRetract, let command = profile.retract else {
            throw PrinterError(.unsupported, device: transport.address, "\(profile.name) cannot retract a ticket")
        }
        try send(command, timeout: .seconds(2))
        let deadline = ContinuousClock.now + timeout
        while true {
            if !(try queryStatus())[.ticketPresent] { return true }
            guard ContinuousClock.now < deadline else { return false }
            usleep(50_000)  // a presenter's rollers take a few hundred milliseconds
        }
    }
}
